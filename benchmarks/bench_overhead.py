"""B3 — the scheduler's own cost: no-op tasks through the real store and lanes, real time.

Each scenario runs in a fresh child process (``python -m benchmarks.bench_overhead --child``), so
its peak RSS is its own and one scenario's garbage does not slow the next. Profile one with::

    py-spy record --subprocesses -o overhead.svg -- python -m benchmarks overhead --quick

Dispatch latency, defined: under saturation, the time a freed slot stays idle — from the
``finished_at`` of an attempt (stamped before its final write) to the ``started_at`` of the next
claim on the same account (the i-th release pairs with the (concurrency + i)-th claim). On an idle
scheduler: from ``created_at`` of a lone task to its ``started_at``.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.report import REPO, median, percentile, table, target, targets_table

TARGET_RATE = 1000.0  # tasks/s
TARGET_DISPATCH_P95_MS = 20.0
API_ACCOUNTS, API_CONCURRENCY = 2, 5
WEB_ACCOUNTS = 4


def _scenarios(quick: bool) -> list[dict[str, Any]]:
    api = {"lane": "api", "accounts": API_ACCOUNTS, "concurrency": API_CONCURRENCY}
    web = {"lane": "web", "accounts": WEB_ACCOUNTS, "concurrency": 1}
    if quick:
        return [
            {**api, "n": 1_500, "repeats": 1},
            {**web, "n": 300, "repeats": 1},
            {**api, "n": 15, "repeats": 1, "idle": True},
            {"lane": "api", "n": 200, "repeats": 1, "store_ops": True},
        ]
    return [
        {**api, "n": 10_000, "repeats": 2},
        {**api, "n": 100_000, "repeats": 1},
        {**web, "n": 3_000, "repeats": 1},
        {**api, "n": 100, "repeats": 1, "idle": True},
        {"lane": "api", "n": 1000, "repeats": 1, "store_ops": True},
    ]


# ---------------------------------------------------------------------------- the child


class _Noop:
    async def generate(self, ctx: Any) -> Any:
        from media_assistant.core.model.provider import GenerationResult

        return GenerationResult(text="ok")

    async def aclose(self) -> None:
        return None


def _dispatch_gaps(rows: list[Any], concurrency: int) -> list[float]:
    """Slot idle times: i-th release → (concurrency + i)-th claim, per account (seconds)."""
    gaps: list[float] = []
    by_account: dict[str, list[Any]] = {}
    for r in rows:
        by_account.setdefault(r["account_id"], []).append(r)
    for runs in by_account.values():
        starts = sorted(r["started_at"] for r in runs)
        ends = sorted(r["finished_at"] for r in runs)
        gaps += [s - e for s, e in zip(starts[concurrency:], ends, strict=False)]
    return gaps


# The two transactions a task costs the scheduler (claim, final write), in the SQL our store
# sends, run on a bare sqlite3 connection: what is left when SQLAlchemy's Python is taken away.
_RAW_CLAIM = (
    "SELECT task_id FROM tasks WHERE state = 'pending' AND model IN (?) "
    "AND (not_before IS NULL OR not_before <= ?) AND (keep_attempt OR attempt < max_attempts) "
    "ORDER BY priority DESC, seq LIMIT 1",
    "UPDATE tasks SET state = 'running', account_id = ?, owner_id = ?, "
    "attempt = attempt + CASE WHEN keep_attempt THEN 0 ELSE 1 END, keep_attempt = 0, "
    "lease = lease + 1, started_at = ?, heartbeat_at = ?, progress_chars = 0, not_before = NULL, "
    "deadline_at = coalesce(deadline_at, ?) WHERE task_id = ? AND state = 'pending' "
    "RETURNING task_id, attempt, lease, max_attempts, model, prompt, system_prompt, "
    "deadline_at, created_at",
)
_RAW_FINISH = (
    "UPDATE tasks SET state = 'success', finished_at = ?, result_text = ?, reasoning_text = NULL, "
    "usage_json = NULL, progress_chars = ?, error_kind = NULL, error_message = NULL, "
    "owner_id = NULL WHERE task_id = ? AND state = 'running' AND attempt = ? AND lease = ?"
)
_RAW_EVENT = (
    "INSERT INTO task_events (task_id, at, kind, lane, account_id, attempt, message) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


def _raw_ops(db: Path, n: int) -> dict[str, float]:
    """Claim + final write of ``n`` pending tasks through bare sqlite3, same SQL and pragmas."""
    import sqlite3

    from media_assistant.core.store import rollups

    con = sqlite3.connect(db, isolation_level=None)
    rollups.register_sqlite_functions(con)  # the rollups' triggers pack with them
    con.execute("PRAGMA busy_timeout=10000")
    times: dict[str, list[float]] = {"raw_claim": [], "raw_finish": []}
    for _ in range(n):
        t0 = time.perf_counter()
        con.execute("PRAGMA synchronous=NORMAL")
        con.execute("BEGIN IMMEDIATE")
        now = time.time()
        (task_id,) = con.execute(_RAW_CLAIM[0], ("api-model", now)).fetchone()
        row = con.execute(_RAW_CLAIM[1], ("api-1", "bench", now, now, now + 60, task_id)).fetchone()
        con.execute(_RAW_EVENT, (task_id, now, "state", "api", "api-1", row[1], "started"))
        con.execute("COMMIT")
        t1 = time.perf_counter()
        con.execute("PRAGMA synchronous=FULL")
        con.execute("BEGIN IMMEDIATE")
        con.execute(_RAW_FINISH, (time.time(), "ok", 2, task_id, row[1], row[2]))
        con.execute(_RAW_EVENT, (task_id, now, "state", "api", "api-1", row[1], "succeeded"))
        con.execute("COMMIT")
        t2 = time.perf_counter()
        times["raw_claim"].append(t1 - t0)
        times["raw_finish"].append(t2 - t1)
    con.close()
    return {k: median(v) * 1000 for k, v in times.items()}


def _store_ops(n: int) -> dict[str, Any]:
    """What one task costs the store alone, op by op (no scheduler, no event loop): the floor
    under the lanes' throughput. Then the same two transactions on bare sqlite3, and the price
    of one fsync (a FULL vs a NORMAL commit)."""
    import sqlite3

    from media_assistant.core.model.clock import SystemClock
    from media_assistant.core.model.records import NewTask
    from media_assistant.core.model.states import ModelKind
    from media_assistant.core.store import Store
    from media_assistant.core.store.db import open_engine, sqlite_url

    with tempfile.TemporaryDirectory(prefix="ma-bench-") as tmp:
        db = Path(tmp) / "ops.db"
        engine = open_engine(sqlite_url(db))
        store = Store(engine, SystemClock())
        store.submit([NewTask(f"t{i:06d}", "api-model", ModelKind.API, "p", "b") for i in range(n)])
        times: dict[str, list[float]] = {"claim_next": [], "finish_success": []}
        for _ in range(n):
            t0 = time.perf_counter()
            claim = store.claim_next(
                kind=ModelKind.API,
                account_id="api-1",
                models=["api-model"],
                owner_id="bench",
                deadline_s=60,
            )
            t1 = time.perf_counter()
            assert claim is not None
            store.finish_success(claim, "ok")
            t2 = time.perf_counter()
            times["claim_next"].append(t1 - t0)
            times["finish_success"].append(t2 - t1)
        store.submit([NewTask(f"r{i:06d}", "api-model", ModelKind.API, "p", "b") for i in range(n)])
        engine.dispose()
        raw_ops = _raw_ops(db, n)
        raw = sqlite3.connect(Path(tmp) / "raw.db", isolation_level=None)
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute("CREATE TABLE t (x)")
        commits: dict[str, float] = {}
        for level in ("NORMAL", "FULL"):
            raw.execute(f"PRAGMA synchronous={level}")
            t0 = time.perf_counter()
            for i in range(200):
                raw.execute("BEGIN IMMEDIATE")
                raw.execute("INSERT INTO t VALUES (?)", (i,))
                raw.execute("COMMIT")
            commits[level] = (time.perf_counter() - t0) / 200
        raw.close()
    out: dict[str, Any] = {k: median(v) * 1000 for k, v in times.items()}
    out["per_task_ms"] = out["claim_next"] + out["finish_success"]
    out.update(raw_ops)
    out["raw_per_task_ms"] = raw_ops["raw_claim"] + raw_ops["raw_finish"]
    out["fsync_ms"] = (commits["FULL"] - commits["NORMAL"]) * 1000
    out["raw_commit_normal_ms"] = commits["NORMAL"] * 1000
    return out


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


async def _child(params: dict[str, Any]) -> dict[str, Any]:
    from benchmarks.bench_seed import app_config
    from media_assistant.core.lanes.scheduler import Scheduler
    from media_assistant.core.model.clock import SystemClock
    from media_assistant.core.model.records import NewTask
    from media_assistant.core.model.states import ModelKind
    from media_assistant.core.store import Store
    from media_assistant.core.store.db import open_engine, sqlite_url
    from media_assistant.core.store.facade import AsyncStore
    from media_assistant.core.store.threads import DbThreads

    if params.get("store_ops"):
        return {**params, **_store_ops(int(params["n"]))}
    n, lane = int(params["n"]), params["lane"]
    kind = ModelKind(lane)
    accounts, concurrency = int(params["accounts"]), int(params["concurrency"])
    config = (
        app_config(0, accounts, concurrency) if kind is ModelKind.API else app_config(accounts, 0)
    )
    model = f"{lane}-model"
    clock = SystemClock()
    rss_before = _rss_mb()
    with tempfile.TemporaryDirectory(prefix="ma-bench-") as tmp:
        db = Path(tmp) / "bench.db"
        engine = open_engine(sqlite_url(db))
        store = Store(engine, clock)
        threads = DbThreads()
        scheduler = Scheduler(config, AsyncStore(store, threads), clock, lambda _a: _Noop(), seed=1)
        await scheduler.start()
        tasks = [NewTask(f"t{i:06d}", model, kind, f"prompt {i}", "bench") for i in range(n)]
        cpu0 = time.process_time()
        t0 = time.perf_counter()
        if params.get("idle"):
            for task in tasks:  # one at a time on an idle scheduler
                await scheduler.submit([task])
                await scheduler.run_until_idle()
                await asyncio.sleep(0.02)
            t1 = t0
        else:
            await scheduler.submit(tasks)
            t1 = time.perf_counter()
            del tasks  # the harness's copy; the scheduler works from the database
            await scheduler.run_until_idle()
        t2 = time.perf_counter()
        cpu = time.process_time() - cpu0
        peak_rss = _rss_mb()  # before this harness reads every row back
        rows = [
            {k: r[k] for k in ("account_id", "created_at", "started_at", "finished_at", "state")}
            for r in store.view_rows()
        ]
        await scheduler.stop()
        threads.close()
        db_bytes = sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())
        events = store.last_event_id()
        engine.dispose()
    ok = sum(r["state"] == "success" for r in rows)
    waits = [r["started_at"] - r["created_at"] for r in rows]
    out: dict[str, Any] = {
        **params,
        "succeeded": ok,
        "submit_s": t1 - t0,
        "run_s": t2 - t1,
        "cpu_s": cpu,
        "db_bytes": db_bytes,
        "event_rows": events,
        "rss_before_mb": rss_before,
        "peak_rss_mb": peak_rss,
        "queue_wait_p50_ms": percentile(waits, 50) * 1000,
        "queue_wait_p95_ms": percentile(waits, 95) * 1000,
    }
    if params.get("idle"):
        out["dispatch_p50_ms"] = out["queue_wait_p50_ms"]
        out["dispatch_p95_ms"] = out["queue_wait_p95_ms"]
        out["dispatch_max_ms"] = max(waits) * 1000
    else:
        gaps = _dispatch_gaps(rows, concurrency)
        out["tasks_per_s"] = n / (t2 - t1)
        out["tasks_per_s_with_submit"] = n / (t2 - t0)
        out["dispatch_p50_ms"] = percentile(gaps, 50) * 1000
        out["dispatch_p95_ms"] = percentile(gaps, 95) * 1000
        out["dispatch_max_ms"] = max(gaps, default=0.0) * 1000
    return out


def _spawn(params: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_overhead", "--child", json.dumps(params)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"child {params} failed:\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


# ---------------------------------------------------------------------------- the benchmark

_MEDIAN_KEYS = (
    "submit_s",
    "run_s",
    "cpu_s",
    "tasks_per_s",
    "tasks_per_s_with_submit",
    "dispatch_p50_ms",
    "dispatch_p95_ms",
    "dispatch_max_ms",
    "queue_wait_p50_ms",
    "queue_wait_p95_ms",
    "db_bytes",
    "event_rows",
    "peak_rss_mb",
    "rss_before_mb",
)


def _label(s: dict[str, Any]) -> str:
    what = f"{s['lane']} {s['accounts']}×{s['concurrency']}"
    return f"{what}, idle, {s['n']:,} lone tasks" if s.get("idle") else f"{what}, {s['n']:,} tasks"


def run(quick: bool) -> dict[str, Any]:
    t0 = time.perf_counter()
    scenarios = []
    store_ops: dict[str, Any] = {}
    for spec in _scenarios(quick):
        runs = [_spawn(spec) for _ in range(int(spec["repeats"]))]
        if spec.get("store_ops"):
            store_ops = runs[0]
            continue
        summary: dict[str, Any] = {
            "label": _label(spec),
            **spec,
            "succeeded_min": min(r["succeeded"] for r in runs),
        }
        for key in _MEDIAN_KEYS:
            values = [r[key] for r in runs if key in r]
            if values:
                summary[key] = median(values)
        summary["tasks_per_s_runs"] = [r.get("tasks_per_s") for r in runs]
        summary["cpu_ms_per_task"] = summary["cpu_s"] * 1000 / spec["n"]
        scenarios.append(summary)
    loaded = [s for s in scenarios if not s.get("idle") and s["lane"] == "api"]
    all_done = all(s["succeeded_min"] == s["n"] for s in scenarios)
    return {
        "benchmark": "overhead",
        "title": "B3 — overhead: no-op tasks through the real store and lanes",
        "quick": quick,
        "scenarios": scenarios,
        "store_ops": store_ops,
        "all_succeeded": all_done,
        "targets": overhead_targets(loaded, all_done, store_ops),
        "elapsed_s": time.perf_counter() - t0,
    }


def overhead_targets(
    loaded: list[dict[str, Any]], all_done: bool, store_ops: dict[str, Any]
) -> list[dict[str, Any]]:
    """B3's verdicts from the loaded API scenarios' summaries (pure): the slowest size's rate
    and the worst dispatch p95; neither counts unless every task of every scenario succeeded."""
    slowest = min(loaded, key=lambda s: s["tasks_per_s"])
    rate = slowest["tasks_per_s"]
    p95 = max(s["dispatch_p95_ms"] for s in loaded)
    lost = "" if all_done else "not every task succeeded: the figures do not count. "
    return [
        target(
            "throughput (API lane, slowest size)",
            f"≥ {TARGET_RATE:,.0f} tasks/s",
            rate,
            rate >= TARGET_RATE and all_done,
            lost + (_explain_rate(slowest, store_ops) if rate < TARGET_RATE else ""),
        ),
        target(
            "dispatch p95 (API lane, saturated)",
            f"≤ {TARGET_DISPATCH_P95_MS:.0f} ms",
            p95,
            p95 <= TARGET_DISPATCH_P95_MS and all_done,
            lost
            + (
                ""
                if p95 <= TARGET_DISPATCH_P95_MS
                else (
                    "with 10 no-op attempts finishing together, a freed slot's claim follows "
                    "its answer's write on the one writer thread, behind the other attempts' "
                    f"writes (≈ {slowest['cpu_ms_per_task']:.1f} ms of CPU per task); on an "
                    "idle scheduler a lone task starts within the idle-scenario figures above"
                )
            ),
        ),
    ]


def _explain_rate(slowest: dict[str, Any], ops: dict[str, Any]) -> str:
    cpu = slowest["cpu_ms_per_task"]
    text = (
        f"the scheduler spends {cpu:.2f} ms of CPU per task ({1000 / cpu:.0f} tasks/s per core "
        "at best); every statement runs on the one writer thread."
    )
    if ops:
        text += (
            f" The store alone, with no scheduler around it, needs {ops['per_task_ms']:.2f} ms "
            f"of wall time per task (claim {ops['claim_next']:.2f} + final write "
            f"{ops['finish_success']:.2f} ms, the last with one fsync of {ops['fsync_ms']:.2f} "
            f"ms), against {1000 / slowest['tasks_per_s']:.2f} ms per task for the whole "
            "scheduler: the lanes add little; the two SQLite "
            "transactions per task are the limit, and most of their cost is SQLAlchemy's "
            "per-statement Python (see the profile notes). The same SQL on a bare sqlite3 "
            f"connection takes {ops['raw_per_task_ms']:.2f} ms per task (≤ "
            f"{1000 / ops['raw_per_task_ms']:,.0f} tasks/s before any scheduling), so even "
            "dropping the ORM layer from the hot path would leave 1,000 tasks/s out of reach "
            "with the event loop's own work on top: it needs several tasks per transaction "
            "(batched claims, a group commit of final writes, so that one fsync covers many "
            "results). Not done: it would rebuild the hottest and most safety-critical path "
            "(every attempt's outcome waiting on a shared transaction, one failing write no "
            "longer retried on its own, claims handed out ahead of free slots) for throughput "
            "nobody needs — tasks take 8 s to 6 min, and even 100 API accounts × 5 slots of 8 s "
            "tasks need ~60 tasks/s, a sixth of what one core sustains here."
        )
    return text


def markdown(result: dict[str, Any]) -> str:
    rows = []
    for s in result["scenarios"]:
        rows.append(
            [
                s["label"],
                s["repeats"],
                s.get("tasks_per_s"),
                s.get("tasks_per_s_with_submit"),
                s["cpu_ms_per_task"],
                s["dispatch_p50_ms"],
                s["dispatch_p95_ms"],
                s["dispatch_max_ms"],
                s["queue_wait_p95_ms"] / 1000,
                s["db_bytes"] / 2**20,
                s["peak_rss_mb"],
                s["rss_before_mb"],
            ]
        )
    ops = result.get("store_ops") or {}
    ops_text = ""
    if ops:
        ops_text = "\n".join(
            [
                f"The store alone ({ops['n']:,} tasks, one after another, no scheduler; medians):",
                "",
                table(
                    ["", "claim", "final write", "per task", "fsync"],
                    [
                        [
                            "our store (SQLAlchemy Core)",
                            f"{ops['claim_next']:.3f} ms",
                            f"{ops['finish_success']:.3f} ms",
                            f"{ops['per_task_ms']:.3f} ms → ≤ "
                            f"{1000 / ops['per_task_ms']:,.0f} tasks/s",
                            f"{ops['fsync_ms']:.3f} ms (FULL − NORMAL commit, raw sqlite3)",
                        ],
                        [
                            "same SQL on bare sqlite3",
                            f"{ops['raw_claim']:.3f} ms",
                            f"{ops['raw_finish']:.3f} ms",
                            f"{ops['raw_per_task_ms']:.3f} ms → ≤ "
                            f"{1000 / ops['raw_per_task_ms']:,.0f} tasks/s",
                            "",
                        ],
                    ],
                ),
                "",
            ]
        )
    return "\n".join(
        [
            f"## {result['title']}",
            "",
            "A provider that answers at once; SystemClock; a temp SQLite file (WAL); each scenario "
            "in a fresh child process; medians over the runs. *tasks/s* = tasks ÷ time from "
            "the end of the one-transaction submit until the scheduler is idle (*incl. submit*: "
            "from before the submit). *CPU/task* = process CPU time ÷ tasks. *dispatch* = how "
            "long a freed slot stays idle under load — from an attempt's `finished_at` (stamped "
            "before its final write) to the `started_at` of the next claim on that account, the "
            "i-th release paired with the (concurrency + i)-th claim — or, in the idle scenario, "
            "`created_at` → `started_at` of a lone task submitted to an idle scheduler. *queue "
            "wait p95* = `created_at` → `started_at` over the whole bulk batch (queueing, not "
            "dispatch). DB = database + WAL at the end; RSS = peak of the child process (before "
            "= after imports).",
            "",
            table(
                [
                    "scenario",
                    "runs",
                    "tasks/s",
                    "tasks/s incl. submit",
                    "CPU ms/task",
                    "dispatch p50 ms",
                    "dispatch p95 ms",
                    "dispatch max ms",
                    "queue wait p95 s",
                    "DB MiB",
                    "peak RSS MiB",
                    "RSS before MiB",
                ],
                rows,
            ),
            "",
            ops_text,
            targets_table(result["targets"]),
            "",
            PROFILE_NOTES,
            "",
        ]
    )


PROFILE_NOTES = """### History (not this run's figures): profile notes

Commits 2d45449 to 74cb12b (2026-11-30/12-01), what was found and changed.

Found with `py-spy record -r 250 -f raw` on a child running 2,000 no-op API tasks (the size
the scenarios had then), and confirmed A/B (the working tree before/after the change,
interleaved runs, same machine). The figures below are from those runs, not from the tables
above:

- **Before**: ~118 tasks/s, ~7.8 ms CPU per task, dispatch p95 ~53 ms. py-spy: `claim_next` 43 %
  of event-loop samples, `_finish` 27 %, `Store.get` 9 %; inside them most time went to
  *building* SQLAlchemy statements (`update(T).where(...).values(...)`, `_queue_head(...)`,
  `insert(E).values(...)`) and computing their cache keys on every call — more than SQLite needed
  to run them (all statements were already compiled-cache hits).
- **Change 1** (`core/store.py`): the per-task statements (queue head, claim update, fenced final
  update, event insert, `get`, `peek_next`) are built once with bind parameters and reused; same
  SQL, same fences, same transactions.
- **Change 2** (`core/store.py`): `claim_next`'s read-only look before taking the write lock
  (there to keep idle polls off the write lock) is skipped while the last claim for the same
  models found a task — during a backlog it was a wasted read transaction, ~20 % of a claim's CPU.
  An idle poll still looks first; at most the first poll after a backlog drains takes the lock.
- **After changes 1–2** (2,000 tasks): ~350 tasks/s, ~2.3 ms CPU per task, dispatch p95 ~15 ms.
- **Change 3** (`core/lanes/scheduler.py`, `run_until_idle`): at 100,000 tasks the rate fell to
  ~300/s and dispatch p95 rose to ~50–60 ms. Counting the calls: `active_counts` ran 1,079 times (11
  s) and `stuck_models` → `pending_models` 1,058 times (32 s) — 13 % of the run, in 10–45 ms blocks
  of the event loop, because with instant tasks every slot is briefly empty between a final write
  and the next claim, and the activity event wakes `run_until_idle` right then. Both queries scan
  every pending row. Now it asks the cheap questions first (an attempt in memory, a running row, a
  task an available account could claim this instant — an index lookup) and counts only when all
  three say no: same answers, 1 count in the whole 100k run (the 100k row of the table above shows
  the rate and dispatch times since).
- What is left (py-spy, 2,000 tasks): SQLAlchemy connection/transaction/result handling 54 %,
  SQLite COMMIT incl. the fsync of each final write 13 %, SQLite statements 9 %, asyncio 8 %,
  scheduler and lane code 17 %. Per task there are two write transactions (the claim, with
  its event row; the final write, with its event row — counted with a `before_cursor_execute`
  hook over 1,000 tasks: 2,006 `BEGIN IMMEDIATE`, 2,001 event inserts), each 1–1.5 ms wall
  (the store-alone table) — the limit is there, not in polling or events.
- **After the move to database threads** (B3 regressed: ~3.3 ms CPU per task, dispatch p95
  36-44 ms). Bisected on the same machine (3,000 no-op API tasks, 2×5 slots, one child each,
  load 0.6-1.4): before the move 500-550 tasks/s, 1.6-1.7 ms CPU/task, dispatch p95 11-14 ms;
  the move itself 348 tasks/s, 2.5 ms, 33 ms; the pause/schedule/rebuild clauses and the later
  work 260-290 tasks/s, 3.3-3.4 ms, 39-45 ms. py-spy (`--threads --gil`) on the last: the
  writer thread is busy 99 % of the run (claim 51 %, final write 44 %), the loop thread holds
  the GIL 0.55 ms per task and waits in `select` the rest: the writer is the bottleneck, and
  every task's claim queued behind the final writes of the other 9 slots (FIFO) — the
  dispatch time. Two causes, two changes:
  - **Claim SQL re-prepared at every execution** (`store/base.py` `IS_PENDING`/`IS_RUNNING`).
    `tasks.state = ?` with a bound `'pending'`: SQLite matches a bound value against the
    partial indexes on `state` and then marks the statement to be prepared again whenever
    that parameter is bound — every time. The head query cost 195 µs (raw sqlite3, 2,000
    pending rows) against 16 µs with the state written into the SQL; the new pause, schedule
    and rebuild clauses made each re-prepare dearer (73 → 195 µs). Store alone: claim
    1.2-1.3 → 0.75-0.8 ms. Same plan (`ix_tasks_pending_head`), same clauses.
  - **A trip to the loop between an answer's write and the next claim**
    (`AsyncStore.finish_success_then_claim`, `ApiLane._follow_up`): the API lane now claims
    for the slot an answer frees in the same writer job, right after that write commits
    (two transactions, as before), when its worker would claim at once (slot free under the
    current concurrency, account working and available, no rpm/tpm bucket, room on the
    disk); otherwise the worker claims as before. One hop per task instead of two, and the
    claim no longer waits behind the writes queued meanwhile.
- **A/B after both** (main vs this branch, interleaved, same machine; 3,000 tasks × 6 runs
  each at load 0.9-2.1, medians): 311 → 346 tasks/s, 3.10 → 2.80 ms CPU/task, dispatch p50
  23 → 1.5 ms, p95 36 → 2.3 ms, max 69 → 25 ms. `--quick` once each at load 1.0-1.2: API 2×5
  332 → 419 tasks/s, 3.16 → 2.41 ms CPU/task, dispatch p95 28.4 → 1.7 ms; web 4×1 358 → 411
  tasks/s; store alone claim 1.29 → 0.80 ms. Still above the pre-move CPU (1.6 ms): the
  writer's own Python (SQLAlchemy per statement, 1.8 ms of GIL per task, its `PRAGMA
  synchronous` switch between the NORMAL claim and the FULL final write) now sets the pace,
  and the loop and the writer trade the GIL ~6 times per task (18,000 voluntary context
  switches for 3,000 tasks, against 6,600 before the move) — the price of keeping SQL off the
  loop. Not done: waking the loop once per batch of completions (the loop holds the GIL only
  ~0.15 ms per task now), SQL outside SQLAlchemy on the writer.
"""


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--child":
    print(json.dumps(asyncio.run(_child(json.loads(sys.argv[2])))))
