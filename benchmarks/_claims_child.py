"""B14's measuring process: N threads, each a workstation with its own store and connection,
claim and finish M no-op tasks of one batch; prints one JSON object on stdout.

Run as a script, not as ``benchmarks._claims_child``, so that the ``media_assistant`` it
measures is whichever the ``PYTHONPATH`` names — this worktree's, or an older commit's
extracted with ``git archive`` (benchmarks/bench_claims.py does that for "before"). It imports
nothing from ``benchmarks`` and only the store API every commit since team mode has kept
(``Store(engine, clock, bus)``, ``submit``, ``claim_next``, ``finish_success``)::

    PYTHONPATH=/tmp/old-code python benchmarks/_claims_child.py --url URL --threads 3 --tasks 600

``--old-batches N``: the store first gets the fair share's nodes of N finished batches (inactive
``fair_nodes`` rows, as a team's store keeps one for every batch it ran; only for code that has
the fair share).

Counted per task, through SQLAlchemy's engine events: the statements of the claim's and of the
finish's transactions (``before_cursor_execute``: SQLite's ``BEGIN IMMEDIATE`` and pragmas are
statements there too) and the transactions (commits and rollbacks). On PostgreSQL psycopg sends
``BEGIN`` and ``COMMIT`` as round trips of their own: round trips = statements + 2 × transactions.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import event, text

import media_assistant
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine

MODEL = "bench-model"


class Counted:
    """One workstation: its engine (a pool of its own), its store, its statement counts."""

    def __init__(self, url: str) -> None:
        self.engine = open_engine(url)
        self.store = Store(self.engine, SystemClock(), EventBus())
        self.phase = "setup"
        self.counts: dict[str, dict[str, int]] = {}

        def bump(what: str) -> None:
            phase = self.counts.setdefault(self.phase, {"statements": 0, "transactions": 0})
            phase[what] += 1

        event.listen(self.engine, "before_cursor_execute", lambda *_a: bump("statements"))
        event.listen(self.engine, "commit", lambda *_a: bump("transactions"))
        event.listen(self.engine, "rollback", lambda *_a: bump("transactions"))


# N finished batches' nodes (inactive), on either engine; then the planner's statistics.
_OLD_BATCHES = (
    "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < :n) "
    "INSERT INTO fair_nodes (node, level, cls, tenant, batch_id, parent, rank, weight, vtime, "
    "service, inflight, active, created_at, updated_at) "
    "SELECT 'b:normal:old-' || n, 2, 'normal', 'old', 'old-' || n, 't:normal:old', 1, 1.0, "
    "n, n, 0.0, :off, 0.0, 0.0 FROM g"
)


def run(url: str, threads: int, tasks: int, old_batches: int = 0) -> dict[str, Any]:
    setup = Counted(url)
    if old_batches:
        with setup.engine.begin() as conn:
            conn.execute(text(_OLD_BATCHES), {"n": old_batches, "off": False})
            conn.execute(text("ANALYZE fair_nodes" if url.startswith("postgres") else "ANALYZE"))
    setup.store.submit(
        [
            NewTask(
                task_id=f"t-{i:05d}",
                model=MODEL,
                model_kind=ModelKind.API,
                prompt=f"prompt {i}",
                batch_id="bench",
            )
            for i in range(tasks)
        ]
    )
    setup.engine.dispose()
    stations = [Counted(url) for _ in range(threads)]
    claimed: list[list[str]] = [[] for _ in range(threads)]
    failures: list[str] = []
    gate = threading.Barrier(threads + 1)
    ends: list[float] = [0.0] * threads

    def work(i: int) -> None:
        station = stations[i]
        try:
            gate.wait()
            while True:
                station.phase = "claim"
                claim = station.store.claim_next(
                    kind=ModelKind.API,
                    account_id=f"api-{i}",
                    models=[MODEL],
                    owner_id=f"owner-{i}",
                    deadline_s=600.0,
                    workstation=f"pc-{i}",
                )
                if claim is None:
                    break
                station.phase = "finish"
                if not station.store.finish_success(claim, "ok"):
                    failures.append(f"{claim.task_id}: the finish changed nothing")
                claimed[i].append(claim.task_id)
        except Exception as exc:  # reported in the JSON, the benchmark says MISS
            failures.append(f"thread {i}: {type(exc).__name__}: {exc}")
        finally:
            ends[i] = time.perf_counter()

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    cpu0 = time.process_time()
    gate.wait()
    start = time.perf_counter()
    for w in workers:
        w.join()
    span = max(ends) - start
    cpu = time.process_time() - cpu0
    ids = [t for got in claimed for t in got]
    totals: dict[str, dict[str, int]] = {}
    for station in stations:
        for phase, counts in station.counts.items():
            into = totals.setdefault(phase, {"statements": 0, "transactions": 0})
            for k, v in counts.items():
                into[k] += v
        station.engine.dispose()
    done = len(ids)
    return {
        "engine": "postgresql" if url.startswith("postgres") else "sqlite",
        "threads": threads,
        "tasks": tasks,
        "old_batches": old_batches,
        "claimed": done,
        "distinct": len(set(ids)),
        "per_thread": [len(got) for got in claimed],
        "span_s": span,
        "claims_per_s": done / span if span > 0 else 0.0,
        "cpu_ms_per_task": 1000.0 * cpu / done if done else None,
        "counts": totals,
        "failures": failures[:10],
        "code": str(Path(media_assistant.__file__).parent),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the database: a PostgreSQL or SQLite URL")
    parser.add_argument("--threads", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=600)
    parser.add_argument("--old-batches", type=int, default=0)
    args = parser.parse_args()
    result = run(args.url, args.threads, args.tasks, args.old_batches)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
