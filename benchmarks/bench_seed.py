"""B1 — the incident's batch: 12 web + 28 API tasks through the real scheduler and a real SQLite
store, against the shared-pool designs it replaced (:mod:`benchmarks.baselines`).

Durations are drawn once from a fixed seed (web 31–370 s, API 8–20 s) and served by the in-process
simulated chat site and API (``duration_of``), so every strategy sees the same per-task work. Time
runs on a :class:`~media_assistant.core.model.clock.ScaledClock`; everything is reported in
simulated seconds, except where a column says "real ms".
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import baselines
from benchmarks.report import fmt, mean, median, percentile, table, target, targets_table
from media_assistant.core.config.schema import AccountConfig, AppConfig, parse_config
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import ScaledClock
from media_assistant.core.model.events import Event, TasksChanged
from media_assistant.core.model.provider import Provider
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from media_assistant.sim.fake_api import FakeApi, FakeApiProvider
from media_assistant.sim.fake_web import FakeChatSite, FakeWebProvider

SEED = 40
WEB_TASKS, API_TASKS = 12, 28
WEB_RANGE_S, API_RANGE_S = (31.0, 370.0), (8.0, 20.0)
API_CONCURRENCY = 3  # the production default (DESIGN §1)
POOL_WORKERS = 8  # the incident's pool
WEB_ACCOUNT_COUNTS = (1, 2, 3)
# Production defaults of the scheduler (simulated seconds).
TICK_S, IDLE_POLL_S = 0.5, 1.0

# The baselines do no database work (their loop lag stays ~1 real ms), so quick mode runs them
# on a faster clock than ours to fit its time budget.
FULL = {"speed": 200.0, "baseline_speed": 200.0, "repeats": 3, "reruns": 10}
QUICK = {"speed": 500.0, "baseline_speed": 1000.0, "repeats": 1, "reruns": 5}

TERMINAL = {TaskState.SUCCESS.value, TaskState.FAILED.value, TaskState.CANCELED.value}


# ---------------------------------------------------------------------------- the workload


@dataclass(frozen=True)
class Workload:
    tasks: tuple[NewTask, ...]  # in submission order
    durations: dict[str, float]

    def ids(self, kind: ModelKind) -> list[str]:
        return [t.task_id for t in self.tasks if t.model_kind is kind]

    def total(self, kind: ModelKind) -> float:
        return sum(self.durations[i] for i in self.ids(kind))

    def lower_bound(self, web_accounts: int, api_slots: int = API_CONCURRENCY) -> float:
        return max(self.total(ModelKind.WEB) / web_accounts, self.total(ModelKind.API) / api_slots)


def seed_workload(seed: int = SEED, web: int = WEB_TASKS, api: int = API_TASKS) -> Workload:
    """The batch as operators submit it: web and API tasks mixed in one file (seeded shuffle)."""
    rng = random.Random(seed)
    durations: dict[str, float] = {}
    tasks: list[NewTask] = []
    for kind, n, span, model in (
        (ModelKind.WEB, web, WEB_RANGE_S, "web-model"),
        (ModelKind.API, api, API_RANGE_S, "api-model"),
    ):
        for i in range(n):
            task_id = f"{kind.value}-{i:02d}"
            durations[task_id] = rng.uniform(*span)
            tasks.append(NewTask(task_id, model, kind, f"prompt {task_id}", "bench"))
    rng.shuffle(tasks)
    return Workload(tuple(tasks), durations)


def app_config(
    web_accounts: int, api_accounts: int = 1, concurrency: int = API_CONCURRENCY
) -> AppConfig:
    accounts: list[dict[str, Any]] = [
        {"id": f"web-{i + 1}", "kind": "web", "site": "fake", "models": ["web-model"]}
        for i in range(web_accounts)
    ] + [
        {
            "id": f"api-{i + 1}",
            "kind": "api",
            "base_url": "http://127.0.0.1:9/v1",  # never called: the providers are in-process
            "api_key_env": "MA_BENCH_UNUSED",
            "models": ["api-model"],
            "concurrency": concurrency,
        }
        for i in range(api_accounts)
    ]
    models = []
    if web_accounts:
        models.append({"name": "web-model", "kind": "web"})
    if api_accounts:
        models.append({"name": "api-model", "kind": "api"})
    return parse_config({"models": models, "accounts": accounts}, "benchmark")


# ---------------------------------------------------------------------------- reference schedules


def fifo_makespan(durations: Sequence[float], servers: int) -> float:
    """Zero-overhead list scheduling in queue order: each task to the first free server."""
    free = [0.0] * servers
    for d in durations:
        heapq.heappush(free, heapq.heappop(free) + d)
    return max(free)


def fifo_starts(durations: Sequence[float], servers: int) -> list[float]:
    """Start times under zero-overhead FIFO list scheduling (all tasks queued at time 0)."""
    free = [0.0] * servers
    starts = []
    for d in durations:
        start = heapq.heappop(free)
        starts.append(start)
        heapq.heappush(free, start + d)
    return starts


def optimal_makespan(durations: Sequence[float], servers: int) -> float:
    """Best possible split of the tasks over the servers, knowing every duration in advance
    (branch and bound: fine for a dozen tasks, exponential beyond)."""
    items = sorted(durations, reverse=True)
    best = fifo_makespan(items, servers)  # LPT: a good first bound

    def place(i: int, loads: list[float]) -> None:
        nonlocal best
        if max(loads) >= best:
            return
        if i == len(items):
            best = max(loads)
            return
        tried: set[float] = set()
        for j in range(servers):
            if loads[j] in tried:
                continue
            tried.add(loads[j])
            loads[j] += items[i]
            place(i + 1, loads)
            loads[j] -= items[i]

    place(0, [0.0] * servers)
    return best


def references(w: Workload, web_accounts: int) -> dict[str, float]:
    web = [w.durations[i] for i in w.ids(ModelKind.WEB)]
    api = [w.durations[i] for i in w.ids(ModelKind.API)]
    return {
        "lower_bound_s": w.lower_bound(web_accounts),
        "ideal_fifo_s": max(fifo_makespan(web, web_accounts), fifo_makespan(api, API_CONCURRENCY)),
        "api_ideal_p95_wait_s": percentile(fifo_starts(api, API_CONCURRENCY), 95),
        "api_ideal_mean_wait_s": mean(fifo_starts(api, API_CONCURRENCY)),
        # Exact for the web split; the API lane's LPT schedule is far shorter anyway.
        "optimum_s": max(
            optimal_makespan(web, web_accounts),
            fifo_makespan(sorted(api, reverse=True), API_CONCURRENCY),
        ),
    }


# ---------------------------------------------------------------------------- measuring aids


class StallCounter(logging.Handler):
    """Counts the scheduler's "event loop stalled" warnings: at too high a clock speed, real
    blocking work (an fsync, a GC pause) looks like a long freeze in simulated time."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.stalls = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "event loop stalled" in record.getMessage():
            self.stalls += 1

    def __enter__(self) -> StallCounter:
        logging.getLogger("media_assistant").addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger("media_assistant").removeHandler(self)


class LoopLag:
    """Samples how late the event loop wakes a 5 ms sleeper (real milliseconds)."""

    def __init__(self, interval_s: float = 0.005) -> None:
        self.interval_s = interval_s
        self.samples: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _probe(self) -> None:
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(self.interval_s)
            self.samples.append((time.perf_counter() - t0 - self.interval_s) * 1000)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._probe())

    async def stop(self) -> dict[str, float]:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        return {
            "loop_lag_p99_ms": percentile(self.samples, 99),
            "loop_lag_max_ms": max(self.samples, default=0.0),
        }


def wait_stats(waits: Sequence[float]) -> dict[str, float]:
    return {
        "api_mean_wait_s": mean(waits),
        "api_p95_wait_s": percentile(waits, 95),
        # The first API task's wait: behind a web task a design parks API work behind, it is
        # at least that web task's duration, whatever the machine's load.
        "api_min_wait_s": min(waits, default=float("nan")),
    }


def api_before_first_web_end(
    api_starts: Sequence[float | None], web_ends: Sequence[float | None]
) -> int:
    """API tasks started before the first web task ended: none in a design that parks API work
    behind web work. An order within one run, so a loaded machine does not change it (unlike
    the first API wait measured against a web task's duration)."""
    first_end = min((t for t in web_ends if t is not None), default=float("inf"))
    return sum(1 for t in api_starts if t is not None and t < first_end)


# ---------------------------------------------------------------------------- (a) our scheduler


@dataclass
class Sims:
    site: FakeChatSite
    api: FakeApi

    @classmethod
    def for_workload(cls, w: Workload) -> Sims:
        return cls(
            FakeChatSite(duration_of=w.durations.__getitem__),
            FakeApi(duration_of=w.durations.__getitem__),
        )

    def factory(self, account: AccountConfig) -> Provider:
        if account.kind is ModelKind.WEB:
            return FakeWebProvider(self.site, account.id)
        return FakeApiProvider(self.api, account.id)


async def run_ours(
    w: Workload,
    *,
    web_accounts: int,
    speed: float,
    api_accounts: int = 1,
    tasks: Sequence[NewTask] | None = None,
    stop_after: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Submit ``tasks`` (default: the whole workload) to a fresh scheduler on a temp SQLite
    file; run until idle, or only until the tasks in ``stop_after`` have ended."""
    tasks = list(w.tasks if tasks is None else tasks)
    sims = Sims.for_workload(w)
    clock = ScaledClock(speed)
    with tempfile.TemporaryDirectory(prefix="ma-bench-") as tmp, StallCounter() as stalls:
        engine = open_engine(sqlite_url(Path(tmp) / "bench.db"))
        store = Store(engine, clock)
        config = app_config(web_accounts, api_accounts)
        db = DbThreads()
        scheduler = Scheduler(
            config,
            AsyncStore(store, db),
            clock,
            sims.factory,
            seed=1,
            tick_s=TICK_S,
            idle_poll_s=IDLE_POLL_S,
        )
        await scheduler.start()
        lag = LoopLag()
        lag.start()
        done = asyncio.Event()
        watched = set(stop_after or ())

        def on_event(event: Event) -> None:
            if isinstance(event, TasksChanged):
                for change in event.changes:
                    if change.values.get("state") in TERMINAL:
                        watched.discard(change.task_id)
                if not watched:
                    done.set()

        store.bus.subscribe(on_event)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await scheduler.submit(tasks)
        if stop_after is None:
            await scheduler.run_until_idle()
        else:
            await done.wait()
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        lag_stats = await lag.stop()
        rows = store.list_tasks()
        await scheduler.stop()
        db.close()
        engine.dispose()
    finished = [r for r in rows if r.state in TERMINAL]
    t0 = min(r.created_at for r in rows)
    makespan = max((r.finished_at or t0) for r in finished) - t0
    api_waits = [
        (r.started_at or 0.0) - r.created_at
        for r in rows
        if r.model_kind == ModelKind.API.value and r.started_at is not None
    ]
    web_rows = [r for r in rows if r.model_kind == ModelKind.WEB.value]
    # Where the time between tasks went, per web account (simulated seconds).
    gaps: list[float] = []
    overruns: list[float] = []
    by_account: dict[str, list[Any]] = {}
    for r in web_rows:
        if r.state == TaskState.SUCCESS.value and r.account_id:
            by_account.setdefault(r.account_id, []).append(r)
            overruns.append((r.finished_at or 0) - (r.started_at or 0) - w.durations[r.task_id])
    for runs in by_account.values():
        runs.sort(key=lambda r: r.started_at)
        gaps += [b.started_at - a.finished_at for a, b in zip(runs, runs[1:], strict=False)]
    return {
        "makespan_s": makespan,
        **wait_stats(api_waits),
        "api_before_first_web_end": api_before_first_web_end(
            [r.started_at for r in rows if r.model_kind == ModelKind.API.value],
            [r.finished_at for r in web_rows],
        ),
        "web_conflicts": sims.site.total_conflicts,
        "web_max_concurrent_per_account": sims.site.max_concurrent,
        "web_failures": sum(r.state == TaskState.FAILED.value for r in web_rows),
        "failed_total": sum(r.state == TaskState.FAILED.value for r in rows),
        "attempts_total": sum(r.attempt for r in rows),
        "all_results_s": (
            makespan if all(r.state == TaskState.SUCCESS.value for r in rows) else None
        ),
        "operator_reruns": 0,
        "web_conflicts_incl_reruns": sims.site.total_conflicts,
        "api_max_in_flight": max((s.max_in_flight for s in sims.api.accounts.values()), default=0),
        "web_gap_mean_real_ms": mean(gaps) / speed * 1000 if gaps else 0.0,
        "web_overrun_mean_real_ms": mean(overruns) / speed * 1000 if overruns else 0.0,
        "wall_s": wall,
        "cpu_s": cpu,
        "loop_stalls": stalls.stalls,
        **lag_stats,
    }


# ---------------------------------------------------------------------------- (b), (c) the pools


async def run_baseline(
    w: Workload, *, web_accounts: int, speed: float, gate: baselines.Gate, reruns: int = 10
) -> dict[str, Any]:
    """(b) or (c); ``reruns``: how often the operator re-queues the failures before giving up."""
    sims = Sims.for_workload(w)
    clock = ScaledClock(speed)
    config = app_config(web_accounts)
    web = [FakeWebProvider(sims.site, f"web-{i + 1}") for i in range(web_accounts)]
    lag = LoopLag()
    lag.start()
    first_pass: dict[str, int] = {}

    def snapshot() -> None:
        first_pass["web_conflicts"] = sims.site.total_conflicts

    cpu0, wall0 = time.process_time(), time.perf_counter()
    pool = await baselines.run_pool(
        w.tasks,
        clock=clock,
        config=config,
        web_providers=web,
        api_provider=FakeApiProvider(sims.api, "api-1"),
        gate=gate,
        workers=POOL_WORKERS,
        operator_reruns=reruns,
        on_first_pass=snapshot,
    )
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    lag_stats = await lag.stop()
    items = pool.items
    api_waits = [(i.started_at or 0.0) - i.created_at for i in items if i.kind is ModelKind.API]
    web_ids = set(w.ids(ModelKind.WEB))
    return {
        "makespan_s": pool.first_pass_s,
        **wait_stats(api_waits),
        "api_before_first_web_end": api_before_first_web_end(
            [i.started_at for i in items if i.kind is ModelKind.API],
            [i.finished_at for i in items if i.kind is ModelKind.WEB],
        ),
        "web_conflicts": first_pass.get("web_conflicts", sims.site.total_conflicts),
        "web_max_concurrent_per_account": sims.site.max_concurrent,
        "web_failures": sum(t in web_ids for t in pool.failed_first_pass),
        "failed_total": len(pool.failed_first_pass),
        "attempts_total": sum(i.attempt for i in items),
        "api_max_in_flight": max((s.max_in_flight for s in sims.api.accounts.values()), default=0),
        "all_results_s": pool.all_results_s,
        "operator_reruns": pool.reruns,
        "web_conflicts_incl_reruns": sims.site.total_conflicts,
        "wall_s": wall,
        "cpu_s": cpu,
        **lag_stats,
    }


# ---------------------------------------------------------------------------- the benchmark

STRATEGIES = {
    "ours": "(a) two lanes (ours)",
    "shared_pool": f"(b) shared pool of {POOL_WORKERS}",
    "semaphore_pool": f"(c) pool of {POOL_WORKERS} + Semaphore(1)",
}
REPORTED = (
    "makespan_s",
    "web_max_concurrent_per_account",
    "api_mean_wait_s",
    "api_p95_wait_s",
    "api_min_wait_s",
    "api_before_first_web_end",
    "web_conflicts",
    "web_failures",
    "failed_total",
    "attempts_total",
    "api_max_in_flight",
    "operator_reruns",
    "web_conflicts_incl_reruns",
    "web_gap_mean_real_ms",
    "web_overrun_mean_real_ms",
    "wall_s",
    "cpu_s",
    "loop_stalls",
    "loop_lag_p99_ms",
    "loop_lag_max_ms",
)


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in REPORTED:
        values = [r[key] for r in runs if key in r]
        if values:
            out[key] = median(values)
    out["makespan_runs_s"] = [r["makespan_s"] for r in runs]
    # None when some run never got every result: the median of those is "not reached".
    complete = [r["all_results_s"] for r in runs if r.get("all_results_s") is not None]
    out["all_results_s"] = median(complete) if len(complete) == len(runs) else None
    out["web_conflicts_max"] = max(r["web_conflicts"] for r in runs)
    return out


async def _measure(
    w: Workload,
    speed: float,
    baseline_speed: float,
    repeats: int,
    reruns: int,
    account_counts: Sequence[int],
) -> dict[str, Any]:
    by_accounts: dict[str, Any] = {}
    for k in account_counts:
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in STRATEGIES}
        for _ in range(repeats):  # interleaved, so slow phases of a noisy machine hit all three
            runs["ours"].append(await run_ours(w, web_accounts=k, speed=speed))
            runs["shared_pool"].append(
                await run_baseline(
                    w, web_accounts=k, speed=baseline_speed, gate="none", reruns=reruns
                )
            )
            runs["semaphore_pool"].append(
                await run_baseline(
                    w, web_accounts=k, speed=baseline_speed, gate="semaphore", reruns=reruns
                )
            )
        by_accounts[str(k)] = {
            **references(w, k),
            "strategies": {name: _medians(r) for name, r in runs.items()},
        }
    return {
        "speed": speed,
        "baseline_speed": baseline_speed,
        "reruns": reruns,
        "repeats": repeats,
        "workload": {
            "seed": SEED,
            "web_tasks": len(w.ids(ModelKind.WEB)),
            "api_tasks": len(w.ids(ModelKind.API)),
            "sum_web_s": w.total(ModelKind.WEB),
            "sum_api_s": w.total(ModelKind.API),
            "max_web_s": max(w.durations[i] for i in w.ids(ModelKind.WEB)),
            "min_web_s": min(w.durations[i] for i in w.ids(ModelKind.WEB)),
            "order": [t.task_id for t in w.tasks],
        },
        "by_accounts": by_accounts,
    }


def all_results_target(
    k: int | str, ours_s: float | None, pool_s: float | None, reruns: int
) -> dict[str, Any]:
    """(a) vs (b): the time until every task has a result, each side a measured time or None —
    never, within ``reruns`` operator re-runs. Never is a value either side can reach: ours never
    is a MISS whatever the pool did; the pool never and ours in time is a PASS (the ratio is
    unbounded); both in time, the ratio must be ≥ 2."""
    name = f"(a) vs (b), time until every task has a result, {k} web"

    def said(s: float | None) -> str:
        return f"never within {reruns} re-runs" if s is None else f"{s:,.0f} s"

    measured = f"ours {said(ours_s)}, pool {said(pool_s)}"
    if ours_s is None:
        why = f"{k} web account(s): ours never delivered every result ({measured})"
        return target(name, "≥ 2×", measured, False, why)
    if pool_s is None:
        return target(name, "≥ 2×", measured, True, f"{k} web account(s): {measured}")
    ratio = pool_s / ours_s
    why = "" if ratio >= 2 else f"{k} web account(s): {measured} = {ratio:.2f} × ours"
    return target(name, "≥ 2×", ratio, ratio >= 2, why)


def _targets(
    by_accounts: dict[str, Any], web_tasks: int, reruns: int, speed: float
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k, row in by_accounts.items():
        ours = row["strategies"]["ours"]
        pool = row["strategies"]["shared_pool"]
        bound, fifo = row["lower_bound_s"], row["ideal_fifo_s"]
        ratio = ours["makespan_s"] / bound
        fifo_ratio = fifo / bound
        why = ""
        if ratio > 1.05:
            why = (
                f"{k} web account(s): even a zero-overhead FIFO schedule of these durations needs "
                f"{fifo:.0f} s = {fifo_ratio:.3f} × bound (tasks cannot be split: the last long "
                f"task lands on one account). Ours took {ours['makespan_s']:.0f} s = "
                f"{ours['makespan_s'] / fifo:.3f} × that ideal FIFO schedule: our per-task "
                f"overhead (~{ours['web_gap_mean_real_ms'] + ours['web_overrun_mean_real_ms']:.0f}"
                f" real ms between one web task and the next, × {speed:.0f} on this clock). "
                "Beating FIFO needs durations known in advance (the optimum is "
                f"{row['optimum_s']:.0f} s), which a web chat does not tell us."
            )
        if ours["all_results_s"] is None:  # a makespan that gave up on tasks is no makespan
            why = f"{k} web account(s): not every task succeeded in ours' first pass"
        passed = ratio <= 1.05 and ours["all_results_s"] is not None
        out.append(target(f"(a) makespan / bound, {k} web", "≤ 1.05", ratio, passed, why))
        speedup = pool["makespan_s"] / ours["makespan_s"]
        why = ""
        if speedup < 2:
            rerun = pool["all_results_s"]
            rerun_text = (
                f"never, within {reruns} operator re-runs"
                if rerun is None
                else f"{rerun:.0f} s after {pool['operator_reruns']:.0f} operator re-run(s) "
                f"= {rerun / ours['makespan_s']:.2f} × ours"
            )
            why = (
                f"{k} web account(s): the shared pool's first pass ends after "
                f"{pool['makespan_s']:.0f} s because it gives up: {pool['web_failures']:.0f} of "
                f"{web_tasks} web tasks end failed after {pool['web_conflicts']:.0f} session "
                f"conflicts (ours: {ours['web_failures']:.0f} failed). Its time to all results: "
                f"{rerun_text}. The web work itself (Σweb / accounts) bounds every strategy, so "
                "no design can be 2× faster than a pool that does the same web work; the shared "
                "pool only loses time to the generations its conflicts destroy."
            )
        out.append(target(f"(a) vs (b) speed-up, {k} web", "≥ 2×", speedup, speedup >= 2, why))
        # What an operator waits for: every task with a result (the pool's failures re-queued
        # by hand). Reported beside the first-pass makespan, not instead of it.
        out.append(all_results_target(k, ours["all_results_s"], pool["all_results_s"], reruns))
        conflicts = ours["web_conflicts_max"]
        out.append(target(f"(a) web conflicts, {k} web", "0", conflicts, conflicts == 0))
    return out


def measure(
    *,
    speed: float,
    repeats: int,
    baseline_speed: float | None = None,
    reruns: int = 10,
    account_counts: Sequence[int] = WEB_ACCOUNT_COUNTS,
    workload: Workload | None = None,
    quick: bool = False,
) -> dict[str, Any]:
    """Run the three strategies and build the result (``run`` with the standard sizes)."""
    t0 = time.perf_counter()
    w = workload or seed_workload()
    data = asyncio.run(_measure(w, speed, baseline_speed or speed, repeats, reruns, account_counts))
    one = data["by_accounts"][str(account_counts[0])]
    ours, pool = one["strategies"]["ours"], one["strategies"]["shared_pool"]
    return {
        "benchmark": "seed",
        "title": (
            f"B1 — seed workload ({data['workload']['web_tasks']} web + "
            f"{data['workload']['api_tasks']} API) vs shared-pool baselines"
        ),
        "quick": quick,
        # Headline numbers: ours (a) with 1 web account, medians over the repeats.
        "web_accounts": account_counts[0],
        "makespan_s": ours["makespan_s"],
        "lower_bound_s": one["lower_bound_s"],
        "shared_pool_makespan_s": pool["makespan_s"],
        "semaphore_pool_makespan_s": one["strategies"]["semaphore_pool"]["makespan_s"],
        "web_conflicts": ours["web_conflicts_max"],
        "api_p95_wait_s": ours["api_p95_wait_s"],
        "api_mean_wait_s": ours["api_mean_wait_s"],
        "makespan_over_bound": ours["makespan_s"] / one["lower_bound_s"],
        # A makespan is "every task ended", failed ones included: the shared pool's first pass
        # ends early because it gives up on the web tasks its own conflicts broke. These say so.
        "web_failed": ours["web_failures"],
        "shared_pool_web_failed": pool["web_failures"],
        "shared_pool_web_conflicts": pool["web_conflicts"],
        # Time until every task has succeeded (failures re-queued by the operator after each
        # pass, up to params.operator_reruns times); null = never within those re-runs.
        "all_results_s": ours["all_results_s"],
        "shared_pool_all_results_s": pool["all_results_s"],
        "params": {
            "clock_speed": data["speed"],
            "baseline_clock_speed": data["baseline_speed"],
            "operator_reruns": data["reruns"],
            "repeats": data["repeats"],
            "api_accounts": 1,
            "api_concurrency": API_CONCURRENCY,
            "pool_workers": POOL_WORKERS,
            "web_account_counts": list(account_counts),
            "scheduler_tick_s": TICK_S,
            "scheduler_idle_poll_s": IDLE_POLL_S,
            "store": "ours: real SQLite file (temp dir); baselines: in-memory queue, no store",
        },
        "workload": data["workload"],
        "by_accounts": data["by_accounts"],
        "targets": _targets(
            data["by_accounts"], data["workload"]["web_tasks"], data["reruns"], data["speed"]
        ),
        "elapsed_s": time.perf_counter() - t0,
    }


def run(quick: bool) -> dict[str, Any]:
    params = QUICK if quick else FULL
    return measure(
        speed=float(params["speed"]),
        baseline_speed=float(params["baseline_speed"]),
        reruns=int(params["reruns"]),
        repeats=int(params["repeats"]),
        quick=quick,
    )


def markdown(result: dict[str, Any]) -> str:
    p, w = result["params"], result["workload"]
    lines = [
        f"## {result['title']}",
        "",
        f"{w['web_tasks']} web tasks (31–370 s, Σ {w['sum_web_s']:.0f} s, "
        f"{w['min_web_s']:.0f}–{w['max_web_s']:.0f} s drawn) and {w['api_tasks']} API tasks "
        f"(8–20 s, Σ {w['sum_api_s']:.0f} s), durations from seed {w['seed']}, submitted as one "
        "mixed batch in a seeded-shuffle order (the same order and per-task durations for every "
        f"strategy). API: 1 account, concurrency {p['api_concurrency']} (the production "
        f"default). Clock: ScaledClock({p['clock_speed']:.0f}) — 1 real ms = "
        f"{p['clock_speed'] / 1000:.2f} simulated s"
        + (
            f" (baselines: ScaledClock({p['baseline_clock_speed']:.0f}), they do no database work)"
            if p["baseline_clock_speed"] != p["clock_speed"]
            else ""
        )
        + f"; scheduler tick {p['scheduler_tick_s']} s, "
        f"idle poll {p['scheduler_idle_poll_s']} s (production defaults). Medians over "
        f"{p['repeats']} repeat(s). Store: {p['store']}.",
        "",
        "Times in simulated seconds. *bound* = max(Σweb / web accounts, Σapi / 3). "
        "*ideal FIFO* = the same queue order on zero-overhead servers; *optimum* = the best split "
        "knowing every duration in advance. API wait = started_at − created_at of the final "
        "attempt. *web failed* = web tasks that ended failed in the first pass (what the "
        "makespan covers). *all results* = time until every task has succeeded when the "
        "operator re-queues the failures after each pass (up to "
        f"{p['operator_reruns']} times). *web conflicts* count the first pass, *attempts* all "
        "passes.",
        "",
    ]
    rows = []
    for k, row in result["by_accounts"].items():
        for name, label in STRATEGIES.items():
            s = row["strategies"][name]
            rows.append(
                [
                    k,
                    label,
                    s["makespan_s"],
                    row["lower_bound_s"],
                    s["makespan_s"] / row["lower_bound_s"],
                    s["makespan_s"] / row["ideal_fifo_s"],
                    s["api_mean_wait_s"],
                    s["api_p95_wait_s"],
                    s["web_conflicts"],
                    s["web_failures"],
                    s["attempts_total"],
                    s["api_max_in_flight"],
                    "not reached" if s["all_results_s"] is None else s["all_results_s"],
                    s["operator_reruns"],
                ]
            )
    lines.append(
        table(
            [
                "web accts",
                "strategy",
                "makespan",
                "bound",
                "÷ bound",
                "÷ ideal FIFO",
                "API wait mean",
                "API wait p95",
                "web conflicts",
                "web failed",
                "attempts",
                "API in flight max",
                "all results",
                "operator re-runs",
            ],
            rows,
        )
    )
    lines += [
        "",
        "References per web-account count:",
        "",
        table(
            [
                "web accts",
                "bound",
                "ideal FIFO",
                "optimum",
                "(a) ÷ ideal FIFO",
                "API wait mean / p95, ideal FIFO on 3 slots",
            ],
            [
                [
                    k,
                    r["lower_bound_s"],
                    r["ideal_fifo_s"],
                    r["optimum_s"],
                    r["strategies"]["ours"]["makespan_s"] / r["ideal_fifo_s"],
                    f"{r['api_ideal_mean_wait_s']:.1f} / {r['api_ideal_p95_wait_s']:.1f}",
                ]
                for k, r in result["by_accounts"].items()
            ],
        ),
        "",
        "How close the clock scaling stays to real time (ours): gap = real time between one web "
        "task's end and the next start on the same account; overrun = real time a generation "
        "took beyond its nominal duration (loop latency while the simulated site sleeps); loop "
        "lag = lateness of a 5 ms sleeper; stalls = the scheduler's own stall warnings.",
        "",
        table(
            [
                "web accts",
                "gap mean (real ms)",
                "overrun mean (real ms)",
                "loop lag p99 / max (real ms)",
                "stalls",
                "wall (s)",
                "CPU (s)",
                "makespan per repeat",
            ],
            [
                [
                    k,
                    (s := r["strategies"]["ours"])["web_gap_mean_real_ms"],
                    s["web_overrun_mean_real_ms"],
                    f"{fmt(s['loop_lag_p99_ms'])} / {fmt(s['loop_lag_max_ms'])}",
                    s["loop_stalls"],
                    s["wall_s"],
                    s["cpu_s"],
                    ", ".join(f"{x:.0f}" for x in s["makespan_runs_s"]),
                ]
                for k, r in result["by_accounts"].items()
            ],
        ),
        "",
        targets_table(result["targets"]),
        "",
    ]
    return "\n".join(lines)
