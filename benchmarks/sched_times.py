"""Where a benchmark's wall time went (B12): CPU time and time waiting for a CPU of a thread or
a process, from Linux's schedstat (nanoseconds; ``/proc/…/stat`` counts 10 ms ticks), and the
round trips a SQLAlchemy engine made to its server."""

from __future__ import annotations

import os
from typing import Any

from sqlalchemy import Engine, event


def sched(path: str | None) -> tuple[float, float]:
    """Seconds on a CPU and seconds runnable but waiting for one (Linux's per-thread and
    per-process schedstat: nanoseconds, where CPU times from ``/proc/…/stat`` count 10 ms
    ticks); zeros where there is no such file."""
    if path is None or not os.path.exists(path):
        return 0.0, 0.0
    with open(path) as f:
        on_cpu, waiting, _slices = f.read().split()
    return int(on_cpu) / 1e9, int(waiting) / 1e9


def server_schedstat(engine: Engine) -> str | None:
    """The schedstat of the PostgreSQL backend serving the engine's pooled connection (one:
    the pool keeps one open and the figures' reads run one after another on it); None on
    SQLite."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    return f"/proc/{int(pid)}/schedstat"


class RoundTrips:
    """Messages the reads wait on the server for: each statement, and a transaction's BEGIN
    and COMMIT (psycopg sends both as statements of their own)."""

    def __init__(self, engine: Engine) -> None:
        self.count = 0
        event.listen(engine, "before_cursor_execute", self._one)
        event.listen(engine, "commit", self._two)
        event.listen(engine, "rollback", self._two)

    def _one(self, *_args: Any) -> None:
        self.count += 1

    def _two(self, *_args: Any) -> None:
        self.count += 2
