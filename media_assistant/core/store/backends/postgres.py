"""PostgreSQL, a team's shared store (team mode): the engine, the server's clock, advisory locks,
what an unreachable or full server looks like. The change listener (LISTEN/NOTIFY):
core/store/backends/postgres_listen.py.

**Driver: psycopg 3**, synchronous, through the same SQLAlchemy engine as SQLite. Its binary
wheels carry libpq for Windows, macOS and Linux, so an operator installs nothing beside the app,
and libpq's own ways of finding a password work as they do for ``psql`` (``PGPASSWORD``,
``~/.pgpass`` / ``%APPDATA%\\postgresql\\pgpass.conf``, service files), as do ``sslmode`` and
every other libpq parameter in the URL. Synchronous because qasync runs a Proactor loop on
Windows, which psycopg's async mode refuses — and the store's statements run on its database
threads anyway (core/store/threads.py): a network round trip waits there, never on a loop.

**A dead network is not noticed by itself**: TCP keepalives and ``tcp_user_timeout`` make a
connection whose server vanished fail within ~20 s instead of hanging; ``connect_timeout`` bounds
a connection attempt; a connection that sat in the pool for a while is pinged before it is used
and replaced if it died meanwhile (:func:`ping_idle_connections`). A lock waited for longer than
10 s fails (``lock_timeout``, as SQLite's busy timeout).

**Behind PgBouncer in transaction mode** (issue 28) a client's statements may run on a different
server connection at each transaction, so nothing relies on session state: no ``options``
startup parameter (PgBouncer refuses it: "unsupported startup parameter: options"), the lock
timeout is ``SET LOCAL`` at each transaction's start and read-only is psycopg's ``BEGIN READ
ONLY``; psycopg's automatic prepared statements are off (``prepare_threshold=None``: PgBouncer
before 1.21 sends a transaction to a server connection that never saw the statement) unless the
engine's first connection shows it reaches the server itself (:func:`straight_to_the_server`:
then a claim's statements are planned once per connection, not at every claim — the fair
share's choice took longer to plan than to run; B14); advisory
locks are only transaction-scoped (:func:`advisory_xact_lock`). LISTEN does not survive a
transaction there: :class:`ChangeListener` notices and the window's follower polls instead.

**Connections**: a workstation holds one while idle and at most ``[store] connections`` (default
2) at peak (:func:`postgres_engine`: a pool of one, the rest overflow closed on return), so 48
workstations fit a server at its default ``max_connections`` of 100. The window's LISTEN is
the pool's idle connection itself (core/store/backends/postgres_listen.py), and an export's
process borrows one of the pool's (core/store/backends/postgres_pool.py): neither adds one.

psycopg is imported only when a PostgreSQL URL is opened: a single workstation never loads it.
"""

from __future__ import annotations

import ipaddress
import logging
import random
import time
import weakref
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, func, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError

from media_assistant.core.store.backends.pool_events import pool_events
from media_assistant.core.store.backends.postgres_pool import LendingPool

log = logging.getLogger(__name__)

DRIVER = "postgresql+psycopg"
# libpq parameters the app sets unless the URL sets them itself (its query string wins).
CONNECT_DEFAULTS: dict[str, str] = {
    "connect_timeout": "5",
    "keepalives": "1",
    "keepalives_idle": "10",
    "keepalives_interval": "3",
    "keepalives_count": "3",
    "tcp_user_timeout": "20000",
    "application_name": "media-assistant",
}
LOCK_TIMEOUT_MS = 10_000
# Connections a workstation's engine may hold at peak ([store] connections); one stays open.
DEFAULT_CONNECTIONS = 2
# Every change a window must follow wakes the other workstations' followers on this channel
# (triggers installed by the schema step for PostgreSQL, core/store/migrations.py).
CHANGES_CHANNEL = "media_assistant_changes"


def is_postgres_url(url: str) -> bool:
    return url.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres")


def engine_url(url: str) -> URL:
    """``postgresql://…`` (or ``postgres://``, ``postgresql+psycopg://``) for the psycopg driver."""
    return make_url(url).set(drivername=DRIVER)


def redacted(url: str) -> str:
    """The URL without its password (for ``store info``, logs, support bundles)."""
    parsed = make_url(url)
    if parsed.password is not None:
        parsed = parsed._replace(password=None)  # (``set(password=None)`` keeps it)
    secret = [k for k in parsed.query if k.strip().lower() == "password"]  # ?password=…
    if secret:
        parsed = parsed.difference_update_query(secret)
    return parsed.render_as_string(hide_password=False)


def app_name(workstation: str) -> str:
    """The ``application_name`` of a workstation's connections: ``store info`` counts them."""
    return f"media-assistant {workstation}"[:63]  # the server keeps 63 bytes


# Behind a connection pooler every workstation's connections carry this one name. PgBouncer
# keeps each client's application_name and, whenever it hands a server connection last used by
# a client with another name, first sends ``SET application_name`` — a transaction of its own
# at nearly every hand-over when each workstation has its own name: B8's fleet of 50 idle
# workstations cost the server 2.57 transactions a second each; 1.28 with one name (issue 28).
POOLED_APP_NAME = "media-assistant"

_POOLED: weakref.WeakKeyDictionary[Engine, bool] = weakref.WeakKeyDictionary()
# Engine -> its connections reach the server itself (prepared statements are safe).
_DIRECT: weakref.WeakKeyDictionary[Engine, bool] = weakref.WeakKeyDictionary()


def behind_a_pooler(engine: Engine) -> bool | None:
    """Whether ``engine`` reaches its server through a pooler or proxy (known after its first
    connection; None before)."""
    return _POOLED.get(engine)


def through_a_pooler(conn: Any) -> bool:
    """The (psycopg) connection goes through a pooler such as PgBouncer. Told by the port: the
    server says it serves ``inet_server_port()``, we dialled ``conn.info.port``; over a Unix
    socket the server says NULL (direct). A port forwarded to another number (a container's) is
    taken for a pooler too: the window then polls (changes within 2 s instead of at once) and
    the connections carry :data:`POOLED_APP_NAME` — never wrong, only less precise."""
    served = conn.execute("SELECT inet_server_port()").fetchone()[0]
    try:
        dialled = int(conn.info.port)
    except (TypeError, ValueError):
        return False
    return served is not None and int(served) != dialled


# psycopg prepares a statement on the server once it ran this many times on a connection (its
# default), on an engine that reaches the server directly.
PREPARE_AFTER = 5


def straight_to_the_server(conn: Any) -> bool:
    """The (psycopg) connection certainly reaches the server itself, so prepared statements
    are safe on it: over TCP, the server's own address and port are the ones dialled. A pooler
    on another host at the same port number shows another address; one on the server's host,
    another port; a Unix socket or an address the client cannot tell is taken as "maybe a
    pooler" (statements are then planned each time: slower, never wrong)."""
    import psycopg  # noqa: PLC0415 - see the module docstring

    served_addr, served_port = conn.execute(
        "SELECT host(inet_server_addr()), inet_server_port()"
    ).fetchone()
    try:
        dialled_addr = ipaddress.ip_address(conn.info.hostaddr)
        dialled_port = int(conn.info.port)
    except (TypeError, ValueError, psycopg.NotSupportedError):
        return False
    if served_addr is None or served_port is None:
        return False
    return ipaddress.ip_address(served_addr) == dialled_addr and int(served_port) == dialled_port


def libpq_args(
    url: str, password: str | None = None, application_name: str | None = None
) -> tuple[str, dict[str, Any]]:
    """The URL as libpq reads it (for psycopg.connect) and the parameters the app adds."""
    parsed = make_url(url)
    defaults = dict(CONNECT_DEFAULTS)
    if application_name:
        defaults["application_name"] = application_name
    extra: dict[str, Any] = {k: v for k, v in defaults.items() if k not in parsed.query}
    if password is not None and parsed.password is None:
        extra["password"] = password
    plain = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    return plain, extra


def postgres_engine(
    url: str,
    *,
    read_only: bool = False,
    password: str | None = None,
    connections: int = DEFAULT_CONNECTIONS,
    application_name: str | None = None,
) -> Engine:
    """The engine of a team database. ``password``: from the OS keyring (``store
    set-password``), used only when the URL has none; libpq's own lookup comes after.

    ``connections``: the most this engine holds at once; one stays open between uses, the
    others are closed when given back (idle: one connection per workstation). No session state
    (see the module docstring): PgBouncer in transaction mode serves it as it is.
    ``application_name``: how the server lists these connections (:func:`app_name`)."""
    parsed = engine_url(url)
    _, connect_args = libpq_args(url, password, application_name)
    # No server-side prepared statements until the first connection shows no pooler is in
    # between (wait_for_a_free_connection: PgBouncer before 1.21 cannot serve them).
    connect_args["prepare_threshold"] = None
    engine = create_engine(
        parsed,
        connect_args=connect_args,
        poolclass=LendingPool,  # an export's process borrows a connection (postgres_pool.py)
        pool_size=1,
        max_overflow=max(0, connections - 1),
        pool_timeout=30,
        pool_recycle=1800,
    )
    per_transaction_settings(engine, read_only=read_only)
    ping_idle_connections(engine)
    wait_for_a_free_connection(
        engine, own_name="application_name" not in parsed.query and bool(application_name)
    )
    binary_results_on_request(engine)
    cache_long_statements()
    pool_events(engine)  # the change listener's, registered before any thread uses the engine
    return engine


def peak_connections(engine: Engine) -> int:
    """The most connections ``engine``'s pool holds at once (its size and overflow)."""
    pool = engine.pool
    size = getattr(pool, "size", None)
    base = int(size()) if callable(size) else 1
    overflow = int(getattr(pool, "_max_overflow", 0))
    return 2**31 if overflow < 0 else base + overflow  # -1: no limit


# The execution option a statement sets to get its results in PostgreSQL's binary format.
BINARY_RESULTS = "binary_results"


# The longest statement text psycopg keeps its conversion of (placeholders to $1, $2 …) for.
CACHED_STATEMENT_CHARS = 16384


def cache_long_statements() -> None:
    """psycopg converts a statement's placeholders again at every execution when its text is
    longer than 4,096 characters (``psycopg._queries.MAX_CACHED_STATEMENT_LENGTH``, psycopg
    3.3.9 as pinned): the claim's statement, the fair share's choice with the holds, is ~5,800
    — 0.6 ms of a workstation's CPU at every claim (B14's profile). Its cache keeps at most 128
    statements whatever their length; the app has a few dozen. A module constant, not an
    option: tests/integration/test_team_pgbouncer.py checks it is still there after an
    upgrade of psycopg."""
    from psycopg import _queries  # noqa: PLC0415 - see the module docstring

    if _queries.MAX_CACHED_STATEMENT_LENGTH < CACHED_STATEMENT_CHARS:
        _queries.MAX_CACHED_STATEMENT_LENGTH = CACHED_STATEMENT_CHARS


def binary_results_on_request(engine: Engine) -> None:
    """A statement run with ``execution_options(binary_results=True)`` gets its rows in
    PostgreSQL's binary format: a ``bytea`` comes as its bytes, where the text format sends it
    as hex twice its size, encoded by the server and decoded by the client (the lanes' figures
    read a day's rollups, ~6 MB: B12). Every column must have a binary loader (psycopg has one
    for the types the store uses). SQLAlchemy creates a cursor per statement, so the format
    set here ends with it."""

    @event.listens_for(engine, "before_cursor_execute")
    def _binary(
        conn: Connection, cursor: Any, statement: str, params: Any, context: Any, many: bool
    ) -> None:
        if context is not None and context.execution_options.get(BINARY_RESULTS):
            from psycopg import pq  # noqa: PLC0415 (psycopg is loaded only for PostgreSQL)

            cursor.format = pq.Format.BINARY


# A full server (every connection slot taken) is waited for this long at each new connection
# before the error goes on (to the caller's outage handling: core/store/link.py, team.py).
FULL_BURST_S = 10.0


def wait_for_a_free_connection(engine: Engine, *, own_name: bool = False) -> None:
    """A connection the server refuses because it is full ("too many clients", "remaining
    connection slots are reserved") is tried again for :data:`FULL_BURST_S`, with jittered
    backoff: a burst of fifty workstations at a batch's start passes without anyone's error.

    ``own_name``: the connections carry the app's ``application_name`` (not one from the URL):
    the first connection also finds out whether a pooler is in between
    (:func:`behind_a_pooler`), and if so it and every later one carry
    :data:`POOLED_APP_NAME` instead. It also tells whether it reaches the server itself
    (:func:`straight_to_the_server`): then every connection prepares its repeated statements
    (:data:`PREPARE_AFTER`)."""

    @event.listens_for(engine, "do_connect")
    def _connect(dialect: Any, record: Any, cargs: Any, cparams: Any) -> Any:
        pooled = _POOLED.get(engine)
        if own_name and pooled:
            cparams["application_name"] = POOLED_APP_NAME
        connection = _connect_when_free(dialect, cargs, cparams)
        if pooled is None:
            try:
                pooled = through_a_pooler(connection)
                _DIRECT[engine] = not pooled and straight_to_the_server(connection)
                connection.rollback()  # psycopg began a transaction for the look
            except Exception:
                connection.close()
                raise
            _POOLED[engine] = pooled
            if pooled and own_name:
                connection.close()
                cparams["application_name"] = POOLED_APP_NAME
                connection = _connect_when_free(dialect, cargs, cparams)
        if _DIRECT.get(engine):
            connection.prepare_threshold = PREPARE_AFTER
        return connection

    def _connect_when_free(dialect: Any, cargs: Any, cparams: Any) -> Any:
        deadline = time.monotonic() + FULL_BURST_S
        delay = 0.1
        said = False
        while True:
            try:
                return dialect.connect(*cargs, **cparams)
            except Exception as exc:
                if not is_server_full(exc) or time.monotonic() >= deadline:
                    raise
                if not said:
                    log.warning("team database busy: waiting for a connection")
                    said = True
                time.sleep(delay * random.uniform(0.5, 1.5))  # noqa: S311 - jitter, not a secret
                delay = min(delay * 2, 1.0)


def per_transaction_settings(engine: Engine, *, read_only: bool) -> None:
    """The lock timeout and read-only set for each transaction, not for the session: behind
    PgBouncer in transaction mode a session's settings land on whichever server connection ran
    that statement. ``SET LOCAL`` ends with its transaction; ``read_only`` makes psycopg begin
    each transaction ``BEGIN READ ONLY`` (no extra round trip)."""

    if read_only:

        @event.listens_for(engine, "connect")
        def _read_only(dbapi_connection: Any, record: Any) -> None:
            if dbapi_connection.info.transaction_status != 0:  # not idle: SQLAlchemy's first look
                dbapi_connection.rollback()
            dbapi_connection.read_only = True

    set_timeout = f"SET LOCAL lock_timeout = {LOCK_TIMEOUT_MS}"

    @event.listens_for(engine, "begin")
    def _lock_timeout(conn: Connection) -> None:
        # psycopg sends BEGIN (READ ONLY) first, then this. Through SQLAlchemy (no new
        # transaction is begun inside "begin"), so a connection found dead here is invalidated
        # and reported as every statement's would be (core/store/link.py).
        conn.exec_driver_sql(set_timeout)


# A connection back in the pool for less than this is taken as alive (see below). Not 1 s: an
# idle scheduler's queue watch takes the connection once a second, and a ping at each look
# (a transaction of its own) doubled an idle workstation's load (issue 28 item 3).
IDLE_PING_S = 5.0


def ping_idle_connections(engine: Engine) -> None:
    """Ping a pooled connection before use only when it sat idle for ``IDLE_PING_S``; a dead
    one (the server restarted, the network dropped) is replaced, as ``pool_pre_ping`` would.

    ``pool_pre_ping`` pinged at every checkout: one more round trip per transaction, and a
    claim and an answer's write are a transaction each. With three workstations on a busy
    2-core machine (B8) a store's claim-and-finish took 31 ms with it, 19 ms without, and
    6.3 → 4.2 ms of CPU. A connection used a moment ago that died since fails its statement
    as before: the error is an unreachable database's (core/store/link.py), and SQLAlchemy
    drops the pool's connections on such a disconnect."""

    @event.listens_for(engine, "checkin")
    def _checked_in(dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        since = record.info.pop("idle_since", None)
        if since is None or time.monotonic() - since < IDLE_PING_S:
            return  # new, or used a moment ago
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            raise DisconnectionError(f"an idle connection died: {exc}") from exc
        if not alive:
            raise DisconnectionError("an idle connection died")


# ----------------------------------------------------------------------------- the server's clock


def server_time(conn: Connection) -> float:
    """The server's clock, in seconds since the epoch."""
    return float(conn.execute(text("SELECT extract(epoch FROM clock_timestamp())")).scalar_one())


def clock_offset(engine: Engine, samples: int = 3, wall: Callable[[], float] = time.time) -> float:
    """How far the server's clock is ahead of ``wall`` (seconds; negative: behind), from the
    sample with the shortest round trip (its midpoint is the best estimate)."""
    best: tuple[float, float] | None = None
    with engine.connect() as conn:
        for _ in range(samples):
            before = wall()
            server = server_time(conn)
            after = wall()
            trip = after - before
            if best is None or trip < best[0]:
                best = (trip, server - (before + after) / 2)
        conn.rollback()
    assert best is not None
    return best[1]


def connection_use(conn: Connection, application_name: str) -> dict[str, int]:
    """This workstation's connections (by ``application_name``, the asking one left out) and the
    server's: its ``max_connections``, the slots reserved for superusers, the client
    connections open now."""
    row = conn.execute(
        text(
            "SELECT count(*) FILTER (WHERE application_name = :me AND pid <> pg_backend_pid()),"
            " count(*) FILTER (WHERE backend_type = 'client backend'),"
            " current_setting('max_connections')::int,"
            " current_setting('superuser_reserved_connections')::int "
            "FROM pg_stat_activity"
        ),
        {"me": application_name},
    ).one()
    return {
        "this_workstation": int(row[0]),
        "server_in_use": int(row[1]),
        "server_max": int(row[2]),
        "server_reserved": int(row[3]),
    }


# ----------------------------------------------------------------------------- locks


def advisory_xact_lock(conn: Connection, key: str, *, timeout_ms: int | None = None) -> None:
    """Wait for the team-wide lock named ``key``, held until this transaction ends.
    ``timeout_ms``: how long this wait may take instead of :data:`LOCK_TIMEOUT_MS` (the
    transaction's later statements wait as long as before)."""
    if timeout_ms is not None:
        conn.exec_driver_sql(f"SET LOCAL lock_timeout = {int(timeout_ms)}")
    conn.execute(select(func.pg_advisory_xact_lock(func.hashtextextended(key, 0))))
    if timeout_ms is not None:
        conn.exec_driver_sql(f"SET LOCAL lock_timeout = {LOCK_TIMEOUT_MS}")


# ----------------------------------------------------------------------------- unreachable


_UNREACHABLE_WORDS = (
    "connection failed",
    "could not connect",
    "connection refused",
    "server closed the connection",
    "terminating connection",
    "connection timeout",
    "timeout expired",
    "consuming input failed",
    "the connection is closed",
    "connection is lost",
    "no route to host",
    "network is unreachable",
    "could not translate host name",
    "name or service not known",
    "ssl syscall error",
    "the database system is starting up",
    "the database system is shutting down",
    "the database system is in recovery mode",
    "cannot connect now",
)


# A server that answered and said no: waiting does not help, the operator must act. Every
# failed connection's text starts with psycopg's "connection failed: ", so these are looked for
# first (a wrong password was waited out for --db-wait, then called unreachable).
_REFUSAL_WORDS = (
    "password authentication failed",
    "no password supplied",
    "authentication failed",
    "does not exist",  # the database or the role
    "no pg_hba.conf entry",
    "pg_hba.conf rejects",
    "permission denied",
    "certificate",
    "ssl was required",
    "invalid sslmode",
    "invalid connection option",
    "invalid integer value",
)


# Every connection slot is taken (the server's max_connections, a role's or a database's
# CONNECTION LIMIT, PgBouncer's max_client_conn): not an outage, not a refusal — wait for one.
_FULL_WORDS = (
    "too many clients",
    "remaining connection slots are reserved",
    "too many connections for",
    "no more connections allowed",
)


def is_server_full(exc: BaseException) -> bool:
    """The server answered that it has no free connection."""
    original = exc.orig if isinstance(exc, DBAPIError) else exc
    if not type(original).__module__.startswith("psycopg"):
        return False
    text_ = str(original).lower()
    return any(word in text_ for word in _FULL_WORDS)


def is_unreachable(exc: BaseException) -> bool:
    """The team database cannot be reached (network, server down or restarting), or has no free
    connection (:func:`is_server_full`) — as opposed to a statement or a login it refused. Such
    an error is waited out, never shown as a task's failure."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    original = exc.orig if isinstance(exc, DBAPIError) else exc
    module = type(original).__module__
    if not module.startswith("psycopg"):
        return False
    if original is not None and is_server_full(original):
        return True
    name = type(original).__name__
    if name in ("OperationalError", "InterfaceError"):
        text_ = str(original).lower()
        if any(word in text_ for word in _REFUSAL_WORDS):
            return False
        return any(word in text_ for word in _UNREACHABLE_WORDS) or name == "InterfaceError"
    return False
