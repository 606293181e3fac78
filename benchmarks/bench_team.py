"""B8 — team mode: three workstation processes on one PostgreSQL (issue 19 item 9).

The benchmark starts its own PostgreSQL server in a temporary folder
(:mod:`benchmarks.postgres_server`, the helper the tests use too) and runs three phases, each on
a fresh database, each with three workstation processes (:mod:`benchmarks._team_station`: the
services and scheduler ``media-assistant run`` uses, from the workstation's own data dir and
``config.toml``, on the system clock):

1. **seed** — B1's seed workload (12 web + 28 API tasks, durations from seed 40) on three
   workstations with one web account each and one API account (concurrency 3) shared by the
   team, served by the API simulator over real HTTP; simulated durations run ``speed`` times
   faster (a 370 s web task takes 370/speed real seconds). Every workstation runs the window's
   database follower (LISTEN/NOTIFY) and times how long the others' changes take to reach it.
   Measures ``duplicate_runs``, ``web_conflicts`` (every process reports its web generations to
   one ledger: benchmarks/_team_env.py), ``api_max_in_flight`` (the simulator's count for the
   shared key) against ``api_concurrency``, ``visible_p95_s``, ``makespan_ratio`` (from the
   submit to the last result, against B1's bound: max(Σweb / 3, Σapi / 3)) and
   ``makespan_over_fifo`` (against the ideal FIFO schedule, the target: see TARGET_OVER_FIFO).
2. **reclaim** — one web task runs on one workstation; that process is killed with SIGKILL;
   ``reclaim_s`` is the time from the kill to the task's ``started_at`` on another workstation.
3. **claims** — no-op tasks (a provider that answers at once), each workstation with an API
   account of its own at concurrency 5: ``claims_per_s`` = succeeded tasks ÷ (last end − first
   start). Every phase counts only when every task of it succeeded.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import psutil
import psycopg

from benchmarks._team_env import (
    API_KEY,
    ApiAccount,
    Ledger,
    Station,
    api_answered,
    api_asked,
    station_config,
    task_rows,
    wait_until,
    web_report,
    web_runs,
    write_station,
)
from benchmarks._team_station import STUCK
from benchmarks.bench_seed import references, seed_workload
from benchmarks.postgres_server import PostgresServer, start_server
from benchmarks.report import fmt, percentile, table, target, targets_table
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec

NAMES = ("pc-1", "pc-2", "pc-3")
API_CONCURRENCY = 3  # the seed workload's API account, shared by the team (B1's setting)
CLAIM_CONCURRENCY = 5  # each workstation's own account in the claims phase
TARGET_VISIBLE_P95_S = 1.0
TARGET_RECLAIM_MARGIN_S = 5.0
TARGET_CLAIMS_PER_S = 500.0
# B1's allowance: 5 % over the schedule a zero-overhead FIFO queue reaches. B1 states its target
# against the bound (max(Σweb / accounts, Σapi / 3)) and so misses it with 2 and 3 web accounts,
# where the ideal FIFO schedule itself needs 1.14 and 1.24 × the bound (a task cannot be
# split); B8 runs 3 workstations × 1 web account, so it judges against the ideal FIFO schedule.
TARGET_OVER_FIFO = 1.05

FULL = {
    "speed": 25.0,
    "reclaim_repeats": 3,
    "heartbeat_s": 5.0,
    "dead_after_s": 20.0,
    "claims": 6000,
}
QUICK = {
    "speed": 50.0,
    "reclaim_repeats": 1,
    "heartbeat_s": 2.0,
    "dead_after_s": 8.0,
    "claims": 1500,
}
READY_TIMEOUT_S = 120.0  # three Python processes starting on a busy 2-core machine


# ---------------------------------------------------------------------------- workstations


class Team:
    """Three bench workstations on one fresh database (one phase)."""

    def __init__(self, server: PostgresServer, root: Path, phase: str) -> None:
        self.url = server.new_database(f"b8_{phase}")
        self.root = root / phase
        self.root.mkdir(parents=True)
        self.ledger = self.root / "web-ledger.jsonl"
        self.stations: list[Station] = []

    def join(
        self,
        name: str,
        *,
        web: bool,
        api: Sequence[ApiAccount],
        provider: str = "registry",
        follow: bool = False,
        durations: dict[str, float] | None = None,
        heartbeat_s: float = 15.0,
        dead_after_s: float = 90.0,
        web_latency_s: tuple[float, float] = (1.0, 2.0),
    ) -> Station:
        config = station_config(
            workstation=name,
            store_url=self.url,
            web_accounts=[f"web-{name}"] if web else [],
            api_accounts=api,
            heartbeat_s=heartbeat_s,
            dead_after_s=dead_after_s,
            web_latency_s=web_latency_s,
        )
        data = write_station(self.root, name, config)
        spec = {
            "data_dir": str(data),
            "ledger": str(self.ledger),
            "durations": durations,
            "provider": provider,
            "follow": follow,
        }
        spec_file = data / "bench.json"
        spec_file.write_text(json.dumps(spec), encoding="utf-8")
        argv = [sys.executable, "-m", "benchmarks._team_station", "--bench", str(spec_file)]
        station = Station(name, data, argv)
        self.stations.append(station)
        return station

    def start(self) -> None:
        """Start every workstation and wait until each one's scheduler runs."""
        for station in self.stations:
            station.start(stdin=True)

        def ready() -> bool:
            for station in self.stations:
                if not station.running():
                    raise RuntimeError(f"a workstation ended at its start:\n{station.describe()}")
            return all(s.stdout().startswith("ready") for s in self.stations)

        wait_until(ready, READY_TIMEOUT_S, "three workstations ready")

    def submit(self, tasks: Sequence[NewTask]) -> float:
        """One submission (one transaction) from outside the three; its time (wall clock)."""
        store = Store(open_engine(self.url), SystemClock(), EventBus())
        try:
            at = time.time()
            store.submit(tasks, max_attempts=3)
            return at
        finally:
            store.engine.dispose()

    def go(self) -> None:
        for station in self.stations:
            if station.running():
                station.send("go")

    def results(self, timeout: float, stations: Sequence[Station] | None = None) -> list[Any]:
        out = []
        deadline = time.monotonic() + timeout
        for station in stations or self.stations:
            code = station.wait(max(deadline - time.monotonic(), 1.0))
            if code == STUCK:
                raise RuntimeError(f"{station.name} left tasks stuck:\n{station.describe()}")
            if code != 0:
                raise RuntimeError(f"{station.name} ended with exit {code}:\n{station.describe()}")
            out.append(json.loads(station.stdout().strip().splitlines()[-1]))
        return out

    def stop(self) -> None:
        for station in self.stations:
            station.stop()


class ServerCpu:
    """CPU seconds the PostgreSQL server's processes spend while it runs: sampled every half
    second (a backend's time is lost once its connection closes, so each process's last look
    counts)."""

    def __init__(self, server: PostgresServer) -> None:
        pid = int((server.data / "postmaster.pid").read_text().split()[0])
        self.postmaster = psutil.Process(pid)
        self.seen: dict[int, tuple[float, float]] = {}  # pid → (first, last) CPU seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="pg-cpu", daemon=True)

    def _sample(self) -> None:
        while True:
            for proc in [self.postmaster, *self.postmaster.children(recursive=True)]:
                try:
                    times = proc.cpu_times()
                except psutil.Error:
                    continue
                used = times.user + times.system
                first = self.seen.get(proc.pid, (used, used))[0]
                self.seen[proc.pid] = (first, used)
            if self._stop.wait(0.5):
                return

    def __enter__(self) -> ServerCpu:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def seconds(self) -> float:
        return sum(last - first for first, last in self.seen.values())


# The event code of the change that put a task in a state (other states: any state change).
CHANGE_OF = {"running": ("started",), "success": ("succeeded",)}
CLOCK_SLACK_S = 0.05  # a workstation's clock aligned with the server's, to a round trip


def visible_lags(url: str, seen: Sequence[Sequence[Any]]) -> list[float]:
    """For each (task, state, when) a follower published: how long after the commit of the
    change that made that state (the server's commit timestamps, ``track_commit_timestamp``)."""
    with psycopg.connect(url, connect_timeout=5) as conn:
        rows = conn.execute(
            "SELECT task_id, code, extract(epoch FROM pg_xact_commit_timestamp(xmin)) "
            "FROM task_events WHERE kind = 'state' ORDER BY 3"
        ).fetchall()
    return lags_after_commits([(str(t), str(c), float(at)) for t, c, at in rows], seen)


def lags_after_commits(
    commits: Sequence[tuple[str, str, float]], seen: Sequence[Sequence[Any]]
) -> list[float]:
    """``commits``: (task, event code, commit time) of state changes, in commit order; ``seen``:
    (task, state, when published). Each sighting is measured from the last commit before it
    of a change that leads to that state."""
    by_task: dict[str, list[tuple[str, float]]] = {}
    for task, code, at in commits:
        by_task.setdefault(task, []).append((code, at))
    lags = []
    for task, state, at in seen:
        codes = CHANGE_OF.get(state)
        made = [
            c
            for code, c in by_task.get(task, [])
            if c <= at + CLOCK_SLACK_S and (codes is None or code in codes)
        ]
        if made:
            lags.append(max(at - made[-1], 0.0))
    return lags


# ---------------------------------------------------------------------------- phases


def _seed_phase(server: PostgresServer, root: Path, speed: float) -> dict[str, Any]:
    w = seed_workload()
    prompts = {t.prompt: w.durations[t.task_id] for t in w.tasks if t.model_kind is ModelKind.API}
    sim = ApiSimulator(
        ApiSimConfig(
            time_scale=1.0 / speed, keys={API_KEY: KeySpec()}, seed=40, latency_of=prompts.get
        )
    )
    base_url = sim.start_in_thread()
    team = Team(server, root, "seed")
    try:
        web_real = {i: w.durations[i] / speed for i in w.ids(ModelKind.WEB)}
        for name in NAMES:
            team.join(
                name,
                web=True,
                api=[ApiAccount("api-team", base_url, API_CONCURRENCY)],
                follow=True,
                durations=web_real,
            )
        team.start()
        submitted = team.submit(w.tasks)
        team.go()
        stations = team.results(timeout=3 * w.lower_bound(3) / speed + 120)
        rows = task_rows(team.url)
        stats = sim.stats()
        visible = visible_lags(team.url, [s for st in stations for s in st["seen"]])
    finally:
        team.stop()
        sim.stop_in_thread()
    web = web_report(web_runs(Ledger(team.ledger).read(), {}))
    answered, asked = api_answered(stats["requests"]), api_asked(stats["requests"])
    api_repeats = sorted(p for p in asked if asked[p] > 1 or answered[p] > 1)
    refs = references(w, 3)
    makespan = (max(r["finished_at"] for r in rows) - submitted) * speed
    return {
        "speed": speed,
        "tasks": len(rows),
        "succeeded": sum(r["state"] == "success" for r in rows),
        "by_workstation": {name: sum(r["workstation"] == name for r in rows) for name in NAMES},
        "duplicate_runs": len(web.repeated) + len(api_repeats),
        "repeated": sorted(web.repeated) + api_repeats,
        "web_conflicts": web.conflicts,
        "web_max_per_account": web.max_per_account,
        "web_generations": web.runs,
        "api_requests": len(stats["requests"]),
        "api_max_in_flight": stats["keys"].get(API_KEY, {}).get("max_concurrent", 0),
        "makespan_s": makespan,
        "lower_bound_s": refs["lower_bound_s"],
        "ideal_fifo_s": refs["ideal_fifo_s"],
        "makespan_ratio": makespan / refs["lower_bound_s"],
        "makespan_over_fifo": makespan / refs["ideal_fifo_s"],
        "visible_samples": len(visible),
        "visible_p50_s": percentile(visible, 50),
        "visible_p95_s": percentile(visible, 95),
        "visible_max_s": max(visible, default=float("nan")),
        "cpu_s": [st["cpu_s"] for st in stations],
    }


def _reclaim_once(
    server: PostgresServer, root: Path, n: int, heartbeat_s: float, dead_after_s: float
) -> dict[str, Any]:
    team = Team(server, root, f"reclaim{n}")
    task = NewTask("long-web", "web-model", ModelKind.WEB, "prompt long-web", "bench")
    try:
        for name in NAMES:
            team.join(
                name,
                web=True,
                api=[],
                heartbeat_s=heartbeat_s,
                dead_after_s=dead_after_s,
                web_latency_s=(4.0, 4.0),
            )
        team.start()
        team.submit([task])
        team.go()

        def running_on() -> str | None:
            [row] = task_rows(team.url)
            return str(row["workstation"]) if row["state"] == "running" else None

        owner = wait_until(running_on, 60, "the web task running", 0.02)
        victim = next(s for s in team.stations if s.name == owner)
        time.sleep(0.5)  # mid-generation
        killed_at = victim.kill()

        def restarted() -> dict[str, Any] | None:
            [row] = task_rows(team.url)
            moved = row["state"] == "running" and row["workstation"] != owner
            return row if moved or row["state"] == "success" else None

        row = wait_until(restarted, dead_after_s + 60, "the task running elsewhere", 0.02)
        survivors = [s for s in team.stations if s is not victim]
        team.results(timeout=60, stations=survivors)
        [final] = task_rows(team.url)
        runs = web_runs(Ledger(team.ledger).read(), {victim.pid: killed_at})
    finally:
        team.stop()
    report = web_report(runs)
    return {
        "reclaim_s": row["started_at"] - killed_at,
        "killed": owner,
        "taken_by": final["workstation"],
        "state": final["state"],
        "attempt": final["attempt"],
        "lost_count": final["lost_count"],
        "web_conflicts": report.conflicts,
        "duplicate_runs": len(report.repeated),
    }


def _claims_phase(server: PostgresServer, root: Path, n: int) -> dict[str, Any]:
    team = Team(server, root, "claims")
    tasks = [NewTask(f"t{i:06d}", "api-model", ModelKind.API, f"p {i}", "bench") for i in range(n)]
    try:
        for name in NAMES:
            own = ApiAccount(f"api-{name}", "http://127.0.0.1:9/v1", CLAIM_CONCURRENCY)
            team.join(name, web=False, api=[own], provider="noop")
        team.start()
        team.submit(tasks)
        with ServerCpu(server) as server_cpu:
            team.go()
            stations = team.results(timeout=max(120.0, n / 20))
        rows = task_rows(team.url)
    finally:
        team.stop()
    first = min(r["started_at"] for r in rows)
    last = max(r["finished_at"] for r in rows)
    cpu = [st["cpu_s"] for st in stations]
    return {
        "tasks": n,
        "succeeded": sum(r["state"] == "success" for r in rows),
        "by_workstation": {name: sum(r["workstation"] == name for r in rows) for name in NAMES},
        # Only the claims that ended in an answer count; the span runs to the last end.
        "claims_per_s": sum(r["state"] == "success" for r in rows) / (last - first),
        "span_s": last - first,
        "cpu_ms_per_task": 1000 * sum(cpu) / n,
        "server_cpu_ms_per_task": 1000 * server_cpu.seconds / n,
        "cpu_s": cpu,
    }


# ---------------------------------------------------------------------------- the benchmark


def measure(
    *,
    speed: float,
    reclaim_repeats: int,
    heartbeat_s: float,
    dead_after_s: float,
    claims: int,
    phases: Sequence[str] = ("seed", "reclaim", "claims"),
    progress: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    server = start_server({"track_commit_timestamp": "on"})  # when each change committed
    if server is None:
        raise RuntimeError("PostgreSQL is not installed (scripts/setup.sh installs it)")
    result: dict[str, Any] = {
        "workstations": len(NAMES),
        "heartbeat_s": heartbeat_s,
        "dead_after_s": dead_after_s,
        "api_concurrency": API_CONCURRENCY,
    }
    try:
        with tempfile.TemporaryDirectory(prefix="ma-b8-") as tmp:
            root = Path(tmp)
            if "seed" in phases:
                progress("seed workload on three workstations")
                seed = _seed_phase(server, root, speed)
                result["seed"] = seed
                for key in (
                    "duplicate_runs",
                    "web_conflicts",
                    "api_max_in_flight",
                    "visible_p95_s",
                    "makespan_ratio",
                    "makespan_over_fifo",
                ):
                    result[key] = seed[key]
            if "reclaim" in phases:
                runs = []
                for n in range(reclaim_repeats):
                    progress(f"kill -9 of a workstation ({n + 1}/{reclaim_repeats})")
                    runs.append(_reclaim_once(server, root, n, heartbeat_s, dead_after_s))
                result["reclaim"] = runs
                result["reclaim_s"] = max(r["reclaim_s"] for r in runs)
                result["duplicate_runs"] = result.get("duplicate_runs", 0) + sum(
                    r["duplicate_runs"] for r in runs
                )
                result["web_conflicts"] = result.get("web_conflicts", 0) + sum(
                    r["web_conflicts"] for r in runs
                )
            if "claims" in phases:
                progress(f"{claims:,} no-op tasks from three workstations")
                result["claims"] = _claims_phase(server, root, claims)
                result["claims_per_s"] = result["claims"]["claims_per_s"]
    finally:
        server.destroy()
    result["load_avg_1min"] = [load_before, os.getloadavg()[0]]
    result["targets"] = team_targets(result)
    result["elapsed_s"] = time.perf_counter() - started
    return result


def all_succeeded(phase: str, p: dict[str, Any]) -> dict[str, Any]:
    """A phase counts only when every task it submitted ended succeeded."""
    ok, n = p["succeeded"], p["tasks"]
    why = (
        ""
        if ok == n
        else f"{n - ok} of {n} tasks did not succeed: the phase's figures do not count"
    )
    return target(f"{phase}: every task succeeded", f"{n:,}/{n:,}", f"{ok:,}/{n:,}", ok == n, why)


def team_targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """B8's verdicts from its measurement alone (pure): each figure's target, and no phase's
    figure passes when a task of that phase did not succeed."""
    out = []
    if "duplicate_runs" in r:
        out.append(target("duplicate runs", "0", r["duplicate_runs"], r["duplicate_runs"] == 0))
        out.append(target("web conflicts", "0", r["web_conflicts"], r["web_conflicts"] == 0))
    if "seed" in r:
        seed = r["seed"]
        seed_ok = seed["succeeded"] == seed["tasks"]
        out.append(all_succeeded("seed workload", seed))
        inflight, limit = r["api_max_in_flight"], r["api_concurrency"]
        out.append(
            target(
                "API requests in flight, team-wide (the simulator's count)",
                f"≤ {limit} (the account's concurrency)",
                inflight,
                inflight <= limit,
            )
        )
        out.append(
            target(
                "another workstation's change seen by a follower, p95",
                f"≤ {TARGET_VISIBLE_P95_S:.1f} s",
                r["visible_p95_s"],
                r["visible_p95_s"] <= TARGET_VISIBLE_P95_S,
            )
        )
        fifo = seed["ideal_fifo_s"] / seed["lower_bound_s"]
        over = seed["makespan_s"] / seed["ideal_fifo_s"]
        out.append(
            target(
                "seed workload makespan ÷ ideal FIFO, 3 workstations × 1 web account",
                f"≤ {TARGET_OVER_FIFO} (B1's allowance)",
                over,
                seed_ok and over <= TARGET_OVER_FIFO,
                f"{r['makespan_ratio']:.3f} × the bound; the ideal FIFO schedule of these "
                f"durations on 3 web accounts needs {fifo:.3f} × the bound (a task cannot be "
                f"split), so B1's ≤ 1.05 × bound cannot be met here by any FIFO queue — B1 "
                "misses it too with 3 web accounts; both allow 5 % over the ideal FIFO schedule",
            )
        )
    if "reclaim_s" in r:
        wanted = r["dead_after_s"] + TARGET_RECLAIM_MARGIN_S
        ended = [x["state"] for x in r["reclaim"]]
        reclaim_ok = all(state == "success" for state in ended)
        out.append(
            target(
                "kill -9 → the task running on another workstation (worst)",
                f"≤ {wanted:.0f} s (dead_after_s {r['dead_after_s']:.0f} + 5), then succeeded",
                r["reclaim_s"],
                reclaim_ok and r["reclaim_s"] <= wanted,
                "" if reclaim_ok else f"the reclaimed task ended {', '.join(ended)}",
            )
        )
    if "claims" in r:
        c = r["claims"]
        out.append(all_succeeded("claims", c))
        rate = r["claims_per_s"]
        ok = c["succeeded"] == c["tasks"] and rate >= TARGET_CLAIMS_PER_S
        out.append(
            target(
                "no-op tasks through PostgreSQL, three workstations (succeeded ones)",
                f"≥ {TARGET_CLAIMS_PER_S:.0f} tasks/s",
                rate,
                ok,
                _explain_claims(c) if rate < TARGET_CLAIMS_PER_S else "",
            )
        )
    return out


def _explain_claims(c: dict[str, Any]) -> str:
    cores = os.cpu_count() or 1
    per_task = c["cpu_ms_per_task"] + c["server_cpu_ms_per_task"]
    return (
        f"each task cost {c['cpu_ms_per_task']:.2f} ms of CPU in the workstations and "
        f"{c['server_cpu_ms_per_task']:.2f} ms in the PostgreSQL server: {cores} cores could "
        f"run at most {1000 * cores / per_task:.0f} tasks/s if nothing else ran on them. A "
        "task is two transactions (the claim, the answer's write) of ~12 round trips on the "
        "workstation's one writer thread; see the notes below the table"
    )


def run(quick: bool) -> dict[str, Any]:
    params = QUICK if quick else FULL

    def progress(message: str) -> None:
        print(f"[benchmarks] team: {message}", file=sys.stderr, flush=True)

    return measure(
        speed=float(params["speed"]),
        reclaim_repeats=int(params["reclaim_repeats"]),
        heartbeat_s=float(params["heartbeat_s"]),
        dead_after_s=float(params["dead_after_s"]),
        claims=int(params["claims"]),
        progress=progress,
    )


NOTES = """### History (not this run's figures)

Measured while building this benchmark (commits 64d7cc9 to 3da47ca, 2026-12-04), on the same
2-core machine shared with other work (1-min load average 8-22 throughout, unless said).

- **Claims are round trips.** A no-op task is two transactions on its workstation's one writer
  thread: the claim (BEGIN, the queue's head, the account's limits, the free slot, the task's
  UPDATE, the slot's UPDATE, the event, COMMIT) and the answer's write (BEGIN, UPDATE, event,
  COMMIT). `pg_stat_activity` sampled every 0.1 s showed the server's connections waiting for
  their clients (`ClientRead`) nearly all the time, and py-spy showed the writer thread
  waiting in psycopg: each round trip waits for the client and the server process to be
  scheduled, milliseconds on a loaded machine.
- **Change** (`core/store/backends/postgres.py`): the pool pinged every connection at every
  checkout (`pool_pre_ping`), one more round trip per transaction; it now pings only a
  connection that sat idle for a second (a dead one is still replaced before use). The store
  alone, claim + answer, one process: 31 → 19-22 ms and 6.3 → 4.2-5.0 ms of CPU per task. This
  benchmark's claims, before/after interleaved at load 15-20: 31, 34 → 38, 45 tasks/s.
- **CPU per task depends on the load**: at load 15-20 the workstations spent 5.5-8 ms of CPU
  per task and the server 1.7-2.7 ms (~185-280 tasks/s at most on two cores); after the limits'
  read and the slot's two statements were folded into the claim (two round trips fewer), on a
  quiet machine (load 2.3) 1.5 ms and 0.64 ms: 897 tasks/s. With a duplicate-code scan beside
  it, 2.96 ms and 1.26 ms: 441 tasks/s. The phase is CPU-bound; several tasks per transaction
  (claims ahead of free slots, answers written in groups) would cut the statements per task
  further, for throughput a team of API accounts does not reach (100 accounts × 5 slots of
  8 s tasks are ~60 tasks/s).
- **A follower on a saturated machine**: at load 8-12 another workstation's change reached a
  follower in 0.3-0.4 s (p95); at load 16-22 in 1-3 s. Timed inside the workstations at load 21:
  NOTIFY → the follower's look up to 1.9 s, the look itself up to 1.2 s, its events reaching
  the loop up to 1.75 s — every step waiting for a CPU, none waiting for the other.
- **rpm and the server's clock** (tests/faults/test_team_processes.py): the claims of an rpm-30
  account are exactly 2.0 s apart on the database's clock; the API server receives each
  request 10-50 ms after its claim, a process's first request 0.1-0.4 s after (once 1.7 s at
  load 12), so a provider counting arrivals in a strict sliding minute can see rpm + 1 right
  after a workstation starts.
- **The fleet** (issue 28: `python -m benchmarks team --stations N [--via-pgbouncer]`,
  benchmarks/bench_fleet.py: N real `run` processes, one shared API key at concurrency 5, a
  PostgreSQL at `max_connections = 100`). Measured 2026-12-06 on this machine at 1-min load 21-42
  (other work beside it): 3 workstations directly — every `run` exit 0, 12/12, asked twice 0,
  peak 2 connections per workstation, 1.0 while idle, 3.4 transactions/s per workstation idle
  (a 4 s window) and 6.3 busy, makespan ÷ bound 1.22; 3 through PgBouncer 1.18 (transaction
  mode, pool 20) — exit 0 ×3, 12/12, asked twice 0, peak 2, 1.1 idle, 12.4 transactions/s
  idle (20 s), 7.2 busy, 1.20; 20 directly at load 37 — exit 0 ×20, 80/80, asked twice 0, peak
  2 connections per workstation, 3.7 transactions/s busy, makespan ÷ bound 1.09 (only 3 of the
  20 had started before the batch's start, so no idle figure). 50 at load 42-48: the processes
  did not all start within 129 s and that run was abandoned; 50 directly again at 07:24 UTC
  (load 3.8 before, 72 once the 50 processes started) — every `run` exit 0 ×50, 200/200,
  asked twice 0, max in flight 5 (limit 5), peak 2 connections per workstation on the
  100-connection server, 6.3 transactions/s per workstation busy, makespan ÷ bound 1.03 (only
  11 of the 50 had started before the batch's start: no idle figure). 2 through PgBouncer at
  load 4: idle 15.0 transactions/s per workstation over 77 s. One `run` alone with one API
  account, idle, counted by statement: 9 transactions/s (13 with a web account too) — the
  housekeeping tick's account reload and cancel flags (0.5 s), the reaper, the lanes' peeks and
  `run`'s idle check, each its own transaction: item 3 of issue 28 (≤ 2/s) is not reached yet.
- **On paper, 200 and 500 workstations behind PgBouncer** (transaction mode, `default_pool_size
  = 20`), from the figures above: clients 2 × N at peak (400 / 1,000: `max_client_conn` 1,000 at
  least for 500), server connections 20 whatever N (the server's 100 are never near). Idle
  load at today's ~10 transactions/s per workstation: 2,000 / 5,000 transactions/s; at ~0.3 ms
  of server CPU each (B8's claims: 0.64 ms per task of two transactions) that is ~0.6 / ~1.6
  cores spent on waiting workstations — fine for 200 on a 4-core server, most of a small one
  for 500. At issue 28's target of 2 per workstation: 400 / 1,000 transactions/s, ~0.1 / ~0.3
  cores. Through the pooler each transaction holds a server connection for its 4 round trips
  (BEGIN + SET LOCAL, the statement, COMMIT): at ~1 ms each on a LAN, 20 server connections
  serve ~5,000 transactions/s, so 500 idle workstations at today's rate would make clients
  queue in PgBouncer; raise `default_pool_size` to 40 or bring the idle rate down first."""


def markdown(r: dict[str, Any]) -> str:
    parts = ["## B8 — team mode: three workstation processes on one PostgreSQL", ""]
    load = r.get("load_avg_1min", [float("nan")] * 2)
    parts.append(
        f"Three workstation processes (`benchmarks/_team_station.py`: the services and scheduler "
        f"of `media-assistant run`, each from its own data dir and config) on one PostgreSQL "
        f"server the benchmark starts itself (`benchmarks/postgres_server.py`), a fresh database "
        f"per phase, system clock. 1-min load average before/after {fmt(load[0])} / "
        f"{fmt(load[1])}. Command: `python -m benchmarks team`."
    )
    if "seed" in r:
        s = r["seed"]
        parts += [
            "",
            f"**Seed workload** (B1's 12 web + 28 API tasks, durations from seed 40, "
            f"{s['speed']:.0f}× faster than simulated time): one web account per workstation "
            f"(in-process simulated site; each generation reported to one ledger), one API "
            f"account shared by the team at concurrency {r['api_concurrency']} (the API "
            f"simulator over HTTP, one key); every workstation runs the window's database "
            f"follower. Makespan from the submit to the last result, in simulated seconds.",
            "",
            table(
                [
                    "tasks ok",
                    "per workstation",
                    "makespan",
                    "bound",
                    "ideal FIFO",
                    "÷ bound",
                    "÷ ideal FIFO",
                    "duplicate runs",
                    "web conflicts",
                    "API in flight max",
                    "visible p50 / p95 / max (s)",
                ],
                [
                    [
                        f"{s['succeeded']}/{s['tasks']}",
                        " / ".join(str(v) for v in s["by_workstation"].values()),
                        s["makespan_s"],
                        s["lower_bound_s"],
                        s["ideal_fifo_s"],
                        s["makespan_ratio"],
                        s["makespan_s"] / s["ideal_fifo_s"],
                        s["duplicate_runs"],
                        s["web_conflicts"],
                        f"{s['api_max_in_flight']} (limit {r['api_concurrency']})",
                        f"{fmt(s['visible_p50_s'])} / {fmt(s['visible_p95_s'])} / "
                        f"{fmt(s['visible_max_s'])} ({s['visible_samples']} changes)",
                    ]
                ],
            ),
        ]
    if "reclaim" in r:
        parts += [
            "",
            f"**kill -9**: one web task (4 s) starts on a workstation, which is killed 0.5 s "
            f"later; heartbeat {r['heartbeat_s']:.0f} s, dead after {r['dead_after_s']:.0f} s. "
            "Reclaim = from the kill to the task's start on another workstation.",
            "",
            table(
                ["run", "killed", "taken by", "reclaim (s)", "end", "attempt", "lost count"],
                [
                    [
                        str(i + 1),
                        x["killed"],
                        x["taken_by"],
                        x["reclaim_s"],
                        x["state"],
                        x["attempt"],
                        x["lost_count"],
                    ]
                    for i, x in enumerate(r["reclaim"])
                ],
            ),
        ]
    if "claims" in r:
        c = r["claims"]
        parts += [
            "",
            f"**Claims**: {c['tasks']:,} no-op tasks (answered at once), each workstation with "
            f"an API account of its own at concurrency {CLAIM_CONCURRENCY}; rate = succeeded "
            "tasks ÷ (last end − first start).",
            "",
            table(
                [
                    "tasks ok",
                    "per workstation",
                    "tasks/s",
                    "span (s)",
                    "CPU ms/task, workstations",
                    "CPU ms/task, server",
                ],
                [
                    [
                        f"{c['succeeded']:,}/{c['tasks']:,}",
                        " / ".join(f"{v:,}" for v in c["by_workstation"].values()),
                        c["claims_per_s"],
                        c["span_s"],
                        c["cpu_ms_per_task"],
                        c.get("server_cpu_ms_per_task"),
                    ]
                ],
            ),
        ]
    parts += ["", targets_table(r["targets"]), "", NOTES]
    keys = (
        "duplicate_runs, web_conflicts, api_max_in_flight, api_concurrency, visible_p95_s, "
        "reclaim_s, dead_after_s, claims_per_s, makespan_ratio, makespan_over_fifo"
    )
    parts += [
        "",
        f"JSON (`--json`): {keys}; each phase's details under `seed`, `reclaim`, `claims`.",
    ]
    return "\n".join(parts) + "\n"
