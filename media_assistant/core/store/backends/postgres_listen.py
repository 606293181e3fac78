"""The team database's change listener (LISTEN/NOTIFY, team mode): a window's follower is woken
by it (core/store/follower.py). Behind a transaction pooler LISTEN cannot last; the listener
says so and the follower polls (issue 28).

**No connection of its own** (issue 28 item 1: one connection per idle workstation, LISTEN
included). The listener LISTENs on the connections the window's engine keeps in its pool —
normally the one it keeps while idle — and reads their notifications while they sit there
unused; a query's thread that takes such a connection gets the notifications that arrive during
its statements (psycopg hands them to the handler the listener gave the connection). A
connection with LISTEN is an ordinary connection: PostgreSQL delivers notifications between
transactions and the pool's statements go on as before. So the window holds the same one
connection idle as ``run`` does, and wakes at a teammate's commit as it did with a connection
of its own.

How it waits: one thread ``select()``s on the sockets of the pool's idle connections (and a
socket pair that pool events poke when a connection is taken or given back). A readable socket
is drained under psycopg's connection lock — non-blocking, microseconds — so a thread that
takes that connection meanwhile waits no longer than that. A connection is LISTENed on (in
autocommit, while the pool lends it to nobody: the pool's checkout waits for the listener's
lock) when it first comes back to the pool idle. A connection found dead while idle (the server
restarted, the network dropped: its socket reads end-of-file) is marked so the pool replaces
it at its next checkout (``DisconnectionError``) — the listener takes one at once, with
backoff while the server is away —, and until a new one listens the follower ticks faster;
the first LISTEN after such a loss counts as a reconnect and asks for a reload (whatever was
missed meanwhile is in the log).

The pool's events reach the listener through core/store/backends/pool_events.py: registered
once when the engine is made, the listener subscribes at start and unsubscribes at stop (adding
or removing a handler while another thread dispatches breaks that thread).

Split from core/store/backends/postgres.py, whose channel it uses.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import DisconnectionError

from media_assistant.core.store.backends.pool_events import pool_events
from media_assistant.core.store.backends.postgres import (
    CHANGES_CHANNEL,
    behind_a_pooler,
    through_a_pooler,
)

log = logging.getLogger(__name__)


class ChangeListener:
    """LISTEN on ``engine``'s pooled connections; calls ``on_change`` for each notification and
    ``on_reconnect`` after a listening connection was lost and another listens again (what
    was missed meanwhile must be reloaded).

    ``connected``: some connection of the engine listens; ``unavailable``: LISTEN cannot work
    here (a pooler in transaction mode), the follower polls; ``reconnects``: listening resumed
    after a loss this many times."""

    def __init__(
        self,
        engine: Engine,
        *,
        on_change: Callable[[], None],
        on_reconnect: Callable[[], None],
        channel: str = CHANGES_CHANNEL,
    ) -> None:
        self._engine = engine
        self._on_change = on_change
        self._on_reconnect = on_reconnect
        self._channel = channel
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # The pool's bookkeeping (under _lock): its idle connections, those that LISTEN, those
        # found dead while idle. psycopg connections, compared by identity.
        self._lock = threading.Lock()
        self._idle: list[Any] = []
        self._listening: list[Any] = []
        self._dead: list[Any] = []
        self._lost = False  # a listening connection went since the last LISTEN
        self._renew = False  # none listens after a failure: take a new connection to listen on
        self._poke_r, self._poke_w = socket.socketpair()  # selectable on Windows too
        self._poke_r.setblocking(False)
        self._poke_w.setblocking(False)
        self.connected = threading.Event()
        # Set when LISTEN cannot work here (a pooler in transaction mode): the thread ends and
        # the follower polls (core/store/follower.py POLL_ONLY_EVERY_S).
        self.unavailable = threading.Event()
        self.reconnects = 0
        self._off = False  # stopped: a pool event dispatched as the stop came does nothing

    # ------------------------------------------------------------------ start, stop

    def start(self) -> None:
        # Subscribed, never added to the engine's event lists (core/store/backends/
        # pool_events.py: a change to them while a thread dispatches breaks that thread).
        pool_events(self._engine).subscribe(self)
        self._thread = threading.Thread(target=self._run, name="db-listen", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._poke()
        if self._thread is not None:
            self._thread.join(timeout)
        with self._lock:  # the pool lends none of these meanwhile (its checkout waits)
            for conn in self._idle:
                if _contains(self._listening, conn):  # nobody would read what comes
                    with contextlib.suppress(Exception):
                        self._autocommit(conn, "UNLISTEN *")
            self._listening.clear()
            self.connected.clear()
            self._off = True
        pool_events(self._engine).unsubscribe(self)
        self._poke_r.close()
        self._poke_w.close()

    def backend_pids(self) -> list[int]:
        """The server processes of the connections that listen (for tests and diagnostics)."""
        with self._lock:
            return [c.pgconn.backend_pid for c in self._listening]

    # ------------------------------------------------------------------ the pool's events

    def checked_out(self, dbapi_connection: Any) -> None:
        if self._off:
            return
        with self._lock:  # waits while the listener drains or LISTENs on this connection
            _discard(self._idle, dbapi_connection)
            dead = _contains(self._dead, dbapi_connection)
        self._poke()
        if dead:
            raise DisconnectionError("the idle connection died (found by the change listener)")

    def checked_in(self, dbapi_connection: Any) -> None:
        if self._off:
            return
        with self._lock:
            if not _contains(self._idle, dbapi_connection):
                self._idle.append(dbapi_connection)
        self._poke()

    def gone(self, dbapi_connection: Any, *, failed: bool) -> None:
        if self._off:
            return
        with self._lock:
            _discard(self._idle, dbapi_connection)
            _discard(self._dead, dbapi_connection)
            if _discard(self._listening, dbapi_connection):
                self._after_loss(failed=failed)
            if not self._idle:
                # None seen idle: the pool may keep one whose return this listener did not see
                # (given back as it started: the pool then closed the listener's own, found
                # one too many). Take one, so the kept one comes back where it is seen.
                self._renew = True
        self._poke()

    def _after_loss(self, *, failed: bool) -> None:
        """(under _lock) A listening connection went. When none is left, the next LISTEN asks
        for a reload. ``connected`` clears only after a failure: the pool's ordinary closing
        of one connection (its peak's, a recycle) is followed at once by a LISTEN on the one it
        keeps, and the follower need not tick faster meanwhile."""
        if not self._listening:
            self._lost = True
            if failed:
                self.connected.clear()
                self._renew = True  # the listener's thread brings the pool a new one

    def _poke(self) -> None:
        with contextlib.suppress(OSError):
            self._poke_w.send(b"\0")

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        # The pool's connection came back from the engine's opening before the listener
        # followed it: take it once, so it comes back (idle) where the listener sees it.
        self._renew = True
        delay = 0.5
        while not self._stop.is_set():
            if self._renew:
                # After a failure nothing may take a connection for a long time (a window
                # without a scheduler): the listener does, so the pool replaces the dead one
                # (its checkout refuses it) and the new one comes back to be listened on.
                self._renew = False  # before: the pool's events during the take may set it
                try:
                    with self._engine.connect():
                        pass
                    delay = 0.5
                except Exception as exc:  # unreachable: again with backoff (0.5 s → 10 s)
                    self._renew = True
                    log.info(
                        "[team] change listener cannot connect (%s); again in %.1f s", exc, delay
                    )
                    self._stop.wait(delay)
                    delay = min(delay * 2, 10.0)
                    continue
            try:
                if self._step():
                    return
            except Exception:  # never let the listener die of a surprise: the tick goes on
                log.warning("[team] change listener failed; polling instead", exc_info=True)
                self.unavailable.set()
                self._on_reconnect()
                return

    def _step(self) -> bool:
        """Listen on new idle connections, wait for a notification or a pool event, drain.
        True: stop (LISTEN cannot work here)."""
        with self._lock:
            fresh = [c for c in self._idle if not _contains(self._listening, c)]
            for conn in fresh:
                outcome = self._start_listening(conn)
                if outcome == "pooler":
                    self._pooler()
                    return True
            watched = [c for c in self._idle if _contains(self._listening, c)]
        sockets = {}
        for conn in watched:
            with contextlib.suppress(Exception):
                sockets[conn.pgconn.socket] = conn
        try:
            ready, _, _ = select.select([self._poke_r, *sockets], [], [], 5.0)
        except (OSError, ValueError):  # a socket closed under us: look again
            ready = []
        if self._poke_r in ready:
            with contextlib.suppress(OSError):
                while self._poke_r.recv(4096):
                    pass
        heard = 0
        for fd in ready:
            conn = sockets.get(fd)
            if conn is None:
                continue
            with self._lock:
                if not _contains(self._idle, conn):
                    continue  # taken meanwhile: its thread reads what came
                heard += self._drain(conn)
        if heard and not self._stop.is_set():
            self._on_change()
        return False

    def _start_listening(self, conn: Any) -> str:
        """(under _lock, the connection idle) LISTEN on it: "ok", "dead" or "pooler"."""
        try:
            pooled = behind_a_pooler(self._engine)  # found at the engine's first connection
            if pooled is None:
                pooled = self._ask_pooler(conn)
            if pooled:
                return "pooler"
            conn.add_notify_handler(self._heard)  # first: nothing heard is left unread
            self._autocommit(conn, f"LISTEN {self._channel}")
        except Exception as exc:
            log.info("[team] change listener: a connection could not LISTEN (%s)", exc)
            self._mark_dead(conn)
            return "dead"
        self._listening.append(conn)
        self.connected.set()
        if self._lost:
            self._lost = False
            self.reconnects += 1
            self._on_reconnect()  # what came meanwhile is read by the follower's next look
        return "ok"

    def _drain(self, conn: Any) -> int:
        """(under _lock, the connection idle) Read what arrived on it, without waiting: how many
        notifications. A connection whose socket ended is marked dead."""
        heard = 0
        try:
            with conn.lock:
                pgconn = conn.pgconn
                pgconn.consume_input()
                while pgconn.notifies() is not None:
                    heard += 1
                alive = pgconn.status == 0  # CONNECTION_OK
        except Exception as exc:
            log.info("[team] change listener lost its connection (%s)", exc)
            alive = False
        if not alive:
            self._mark_dead(conn)
        return heard

    def _mark_dead(self, conn: Any) -> None:
        """(under _lock) The pool replaces it at its next checkout; nobody listens on it."""
        _discard(self._idle, conn)
        if not _contains(self._dead, conn):
            self._dead.append(conn)
        if _discard(self._listening, conn):
            self._after_loss(failed=True)

    def _heard(self, notify: Any) -> None:
        """psycopg's handler: a notification that came during a statement of the pool's."""
        if not self._stop.is_set():
            self._on_change()

    def _pooler(self) -> None:
        log.info(
            "[team] the team database is reached through a connection pooler "
            "(PgBouncer?): LISTEN would not last, changes are polled for instead"
        )
        self.unavailable.set()
        self._on_reconnect()  # the follower looks now, then on its poll-only tick

    @staticmethod
    def _ask_pooler(conn: Any) -> bool:
        """Whether ``conn`` goes through a pooler, asked outside any transaction: PgBouncer's
        transaction mode hands each transaction to any server connection, so a LISTEN would
        stay behind on one the client no longer holds and no notification ever arrive."""
        before = conn.autocommit
        conn.autocommit = True
        try:
            return through_a_pooler(conn)
        finally:
            conn.autocommit = before

    @staticmethod
    def _autocommit(conn: Any, sql: str) -> None:
        """One statement outside any transaction on a connection the pool lends nobody now."""
        before = conn.autocommit
        conn.autocommit = True
        try:
            conn.execute(sql)
        finally:
            conn.autocommit = before


def _contains(items: list[Any], item: Any) -> bool:
    return any(x is item for x in items)


def _discard(items: list[Any], item: Any) -> bool:
    for i, x in enumerate(items):
        if x is item:
            del items[i]
            return True
    return False
