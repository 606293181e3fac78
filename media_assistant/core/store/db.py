"""Engine creation and the only place with SQLite-specific SQL.

SQLite runs in WAL mode (readers never block the writer, so the GUI and ``status`` can read while
a scheduler writes) with a busy timeout (a second process's write waits instead of failing).

Durability: ``synchronous=NORMAL`` for ordinary writes — heartbeats, claims, log lines. In WAL
mode that never corrupts the database; a power cut may lose the last moments of heartbeats, and
the orphan recovery at the next start handles exactly that. Terminal writes (a result the
operator may already have seen, a cancel, a failure) run with ``synchronous=FULL`` so they are
on disk when the call returns. See :func:`durable`.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, Connection, CursorResult, Engine, Table, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.pool import ConnectionPoolEntry

from media_assistant.core.store import migrations

BUSY_TIMEOUT_MS = 10_000

log = logging.getLogger(__name__)

# Threads that run an event loop: no statement may run there (core/store/threads.py says why).
_loop_threads: set[int] = set()
# Call sites of statements that ran on a loop thread anyway ("file:line in function").
loop_sql_sites: list[str] = []


def mark_loop_thread() -> None:
    """Declare the calling thread an event loop's: statements run there are reported."""
    _loop_threads.add(threading.get_ident())


def unmark_loop_thread() -> None:
    _loop_threads.discard(threading.get_ident())


def _check_thread() -> None:
    if threading.get_ident() not in _loop_threads:
        return
    # The caller that asked for the statement: not this module, the store, or contextlib.
    frames = [
        f
        for f in traceback.extract_stack(limit=16)[:-3]
        if not any(
            part in f.filename for part in ("/core/store/db.py", "/core/store/", "contextlib")
        )
    ]
    site = f"{frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}" if frames else "?"
    if site not in loop_sql_sites:
        loop_sql_sites.append(site)
        log.warning("database statement on the event loop's thread (%s)", site)


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path.resolve()}"


def open_engine(url: str, *, read_only: bool = False) -> Engine:
    """Create the engine and bring the schema to the current version.

    ``read_only`` (status, export, lists): every connection is ``query_only`` (a write would
    fail, not wait for a lock), the journal mode is left as it is, and the schema is only
    checked to be readable, never migrated (core/store/migrations.py ``OLDEST_READABLE``).
    """
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
        _install_sqlite_hooks(engine, read_only=read_only)
    else:
        engine = create_engine(url, pool_pre_ping=True)
    if read_only:
        migrations.check_readable(engine)
    else:
        migrations.upgrade(engine)
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


@contextlib.contextmanager
def write_tx(engine: Engine, *, durable: bool = False) -> Iterator[Connection]:
    """One write transaction (BEGIN IMMEDIATE on SQLite)."""
    _check_thread()
    with engine.connect().execution_options(write=True, durable=durable) as conn:
        with conn.begin():
            yield conn


@contextlib.contextmanager
def read_tx(engine: Engine) -> Iterator[Connection]:
    _check_thread()
    with engine.connect() as conn:
        with conn.begin():
            yield conn


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def checkpoint_truncate(engine: Engine) -> bool:
    """SQLite: copy the write-ahead log into the database and truncate it to zero bytes, giving
    its disk space back (used on a full disk, core/disk/full.py). True if it completed. Run it
    on the writer thread: it waits for readers like any write."""
    if not is_sqlite(engine):
        return False
    _check_thread()
    raw = engine.raw_connection()  # autocommit (isolation_level None): no BEGIN around it
    try:
        cursor = raw.cursor()
        row = cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        cursor.close()
    finally:
        raw.close()
    return row is not None and row[0] == 0


# The row a conflicting insert proposed (``excluded``), for an upsert's SET and WHERE.
Excluded = Any
SetValues = Callable[[Excluded], Mapping[str, Any]]


def upsert(
    conn: Connection,
    table: Table,
    rows: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    key: Sequence[str],
    update: Sequence[str] | SetValues | None = None,
    where: Callable[[Excluded], ColumnElement[bool]] | None = None,
    returning: Sequence[Any] = (),
) -> CursorResult[Any]:
    """The one upsert: ``INSERT … ON CONFLICT (key) DO UPDATE SET …`` in one statement, which
    SQLite (3.24+) and PostgreSQL both run atomically — a select-then-insert is safe only while
    one writer exists, and a team shares its database.

    ``update``: the columns that take the proposed value, or a function of the proposed row
    (``excluded``) giving the SET clause (``lambda new: {"name": func.coalesce(new.name,
    table.c.name)}``); None: keep the existing row (``DO NOTHING``). ``where``: update only
    rows it accepts (a function of ``excluded``). With ``returning``, only rows inserted or
    updated come back."""
    dialect_insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = dialect_insert(table).values(rows if isinstance(rows, Sequence) else [rows])
    if update is None:
        stmt = stmt.on_conflict_do_nothing(index_elements=list(key))
    else:
        values = (
            update(stmt.excluded) if callable(update) else {c: stmt.excluded[c] for c in update}
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=list(key),
            set_=dict(values),
            where=where(stmt.excluded) if where is not None else None,
        )
    if returning:
        stmt = stmt.returning(*returning)  # type: ignore[assignment]
    return conn.execute(stmt)
