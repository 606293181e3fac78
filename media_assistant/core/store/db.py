"""The store's way to its database, whichever engine it is: opening an engine (SQLite's file
or a team's PostgreSQL: core/store/backends/), transactions, and the team-wide
serialisation of a read-then-write. The rooms of the store use only these and portable
SQLAlchemy; the engines' own SQL stays in their modules.

Rule: no statement on an event loop's thread (core/store/threads.py says why); a thread marked
as a loop's reports any statement run there with its call site.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Connection, Engine

from media_assistant.core.store import migrations
from media_assistant.core.store.backends.postgres import (
    DEFAULT_CONNECTIONS,
    advisory_xact_lock,
    postgres_engine,
)
from media_assistant.core.store.backends.sqlite import sqlite_engine

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


def open_engine(
    url: str,
    *,
    read_only: bool = False,
    password: str | None = None,
    connections: int | None = None,
    application_name: str | None = None,
) -> Engine:
    """Create the engine and bring the schema to the current version.

    ``read_only`` (status, export, lists): every connection is ``query_only`` (a write would
    fail, not wait for a lock), the journal mode is left as it is, and the schema is only
    checked to be readable, never migrated (core/store/migrations.py ``OLDEST_READABLE``).
    ``connections``: a team database's most connections at once (``[store] connections``);
    ``application_name``: how its server lists them (``store info`` counts them).
    """
    if url.startswith("sqlite"):
        engine = sqlite_engine(url, read_only=read_only)
    else:
        engine = postgres_engine(
            url,
            read_only=read_only,
            password=password,
            connections=connections or DEFAULT_CONNECTIONS,
            application_name=application_name,
        )
    try:
        if read_only:
            migrations.check_readable(engine)
        else:
            migrations.upgrade(engine)
    except BaseException:
        engine.dispose()  # a refused store leaves no connection open
        raise
    return engine


@contextlib.contextmanager
def write_tx(engine: Engine, *, durable: bool = False) -> Iterator[Connection]:
    """One write transaction (BEGIN IMMEDIATE on SQLite)."""
    _check_thread()
    with engine.connect().execution_options(write=True, durable=durable) as conn:
        with conn.begin():
            yield conn


# A read transaction this thread holds open for several reads (:func:`one_read`), by engine.
_held_reads = threading.local()


@contextlib.contextmanager
def read_tx(engine: Engine) -> Iterator[Connection]:
    held: dict[int, Connection] = getattr(_held_reads, "by_engine", {})
    if id(engine) in held:  # inside one_read(): the same transaction
        yield held[id(engine)]
        return
    _check_thread()
    with engine.connect() as conn:
        with conn.begin():
            yield conn


@contextlib.contextmanager
def one_read(engine: Engine) -> Iterator[None]:
    """Every :func:`read_tx` of this thread on ``engine`` inside the block is one transaction
    (a dozen reads judging the alarms cost the team database one, not twelve: issue 28)."""
    held: dict[int, Connection] = _held_reads.__dict__.setdefault("by_engine", {})
    if id(engine) in held:
        yield
        return
    with read_tx(engine) as conn:
        held[id(engine)] = conn
        try:
            yield
        finally:
            del held[id(engine)]


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def server_version(engine: Engine) -> str:
    """The database's own version: the PostgreSQL server's (``15.8 (Debian 15.8-0+deb12u1)``)
    or the SQLite library's this process uses (``3.40.1``)."""
    _check_thread()
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            return str(conn.exec_driver_sql("SHOW server_version").scalar())
        return str(conn.exec_driver_sql("SELECT sqlite_version()").scalar())


def schema_version(engine: Engine) -> int | None:
    """The schema version the database is stamped with (None: no Media Assistant tables)."""
    _check_thread()
    with engine.connect() as conn:
        return migrations.current_version(conn)


def serialize(conn: Connection, key: str) -> None:
    """Inside a write transaction: wait until no other transaction holding ``key`` runs, across
    every process and workstation sharing the database (a read-then-write such as "the next
    submission number" is safe only then). SQLite's write lock already serialises its writers;
    PostgreSQL takes an advisory lock released at commit."""
    if conn.dialect.name == "postgresql":
        advisory_xact_lock(conn, key)
