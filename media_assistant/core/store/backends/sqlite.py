"""SQLite, the single workstation's store: every SQLite-only statement lives here.

WAL mode (readers never block the writer, so the window and ``status`` read while a scheduler
writes), a busy timeout (a second process's write waits instead of failing), ``BEGIN
IMMEDIATE`` for writers, and the durability split: ``synchronous=NORMAL`` for ordinary writes
— heartbeats, claims, log lines (in WAL mode that never corrupts the database; a power cut may
lose the last moments of heartbeats, which orphan recovery at the next start handles) — and
``synchronous=FULL`` for terminal writes (a result the operator may already have seen, a
cancel, a failure), on disk when the call returns.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.pool import ConnectionPoolEntry

from media_assistant.core.store import rollups

BUSY_TIMEOUT_MS = 10_000


def sqlite_engine(url: str, *, read_only: bool = False) -> Engine:
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
    _install_sqlite_hooks(engine, read_only=read_only)
    return engine


def _install_sqlite_hooks(engine: Engine, *, read_only: bool = False) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: ConnectionPoolEntry) -> None:
        # Let SQLAlchemy's begin event emit BEGIN itself (pysqlite's own handling defers it).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        # WAL is a persistent property of the file: set by every writer, inherited by readers.
        cur.execute("PRAGMA query_only=ON" if read_only else "PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()
        # The rollups' triggers pack numbers with these (core/store/rollups.py).
        rollups.register_sqlite_functions(dbapi_conn)

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        opts = conn.get_execution_options()
        level = "FULL" if opts.get("durable") else "NORMAL"
        if conn.info.get("synchronous") != level:  # a pragma only outside transactions
            conn.exec_driver_sql(f"PRAGMA synchronous={level}")
            conn.info["synchronous"] = level
        # Writers take the lock up front: a deferred transaction that reads and then writes can
        # fail with SQLITE_BUSY without waiting, the busy timeout notwithstanding.
        conn.exec_driver_sql("BEGIN IMMEDIATE" if opts.get("write") else "BEGIN")


def checkpoint_truncate(engine: Engine) -> bool:
    """SQLite: copy the write-ahead log into the database and truncate it to zero bytes, giving
    its disk space back (used on a full disk, core/disk/full.py). True if it completed. Run it
    on the writer thread: it waits for readers like any write."""
    if engine.dialect.name != "sqlite":
        return False
    raw = engine.raw_connection()  # autocommit (isolation_level None): no BEGIN around it
    try:
        cursor = raw.cursor()
        row = cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        cursor.close()
    finally:
        raw.close()
    return row is not None and row[0] == 0
