"""The team database's change listener (LISTEN/NOTIFY, team mode): a window's follower is woken
by it (core/store/follower.py). Behind a transaction pooler LISTEN cannot last; the listener
says so and the follower polls (issue 28).

Split from core/store/backends/postgres.py, whose engine, errors and clock it uses.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from media_assistant.core.store.backends.postgres import (
    CHANGES_CHANNEL,
    libpq_args,
    through_a_pooler,
)

log = logging.getLogger(__name__)


class ChangeListener:
    """LISTEN on its own connection and thread; calls ``on_change`` for each notification and
    ``on_reconnect`` after a reconnect (what was missed meanwhile must be reloaded).

    psycopg's ``notifies()`` holds the connection's lock while it waits, so the listener owns a
    connection no statement shares. A socket that died is not noticed by waiting on it: every
    ``ping_s`` the listener runs ``SELECT 1``; a failure reconnects with backoff (0.5 s doubling
    to 10 s), LISTENs again and reports it."""

    def __init__(
        self,
        url: str,
        *,
        password: str | None,
        on_change: Callable[[], None],
        on_reconnect: Callable[[], None],
        channel: str = CHANGES_CHANNEL,
        ping_s: float = 5.0,
        application_name: str | None = None,
    ) -> None:
        self._url, self._extra = libpq_args(url, password, application_name)
        self._on_change = on_change
        self._on_reconnect = on_reconnect
        self._channel = channel
        self._ping_s = ping_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: Any = None
        self.connected = threading.Event()
        # Set when LISTEN cannot work here (a pooler in transaction mode): the thread ends and
        # the follower polls (core/store/follower.py POLL_ONLY_EVERY_S).
        self.unavailable = threading.Event()
        self.reconnects = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="db-listen", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        conn = self._conn
        if conn is not None:
            try:
                conn.cancel_safe(timeout=1.0)
            except Exception:  # closing is best effort: the thread ends at its next wake
                log.debug("cancelling the LISTEN connection failed", exc_info=True)
        if self._thread is not None:
            self._thread.join(timeout)

    def _connect(self) -> Any:
        import psycopg

        conn = psycopg.connect(self._url, autocommit=True, prepare_threshold=None, **self._extra)
        try:
            if through_a_pooler(conn):
                raise ListenUnavailable
            conn.execute(f"LISTEN {self._channel}")
        except BaseException:
            conn.close()
            raise
        return conn

    def _run(self) -> None:
        delay = 0.5
        first = True
        while not self._stop.is_set():
            try:
                self._conn = self._connect()
            except ListenUnavailable:
                log.info(
                    "[team] the team database is reached through a connection pooler "
                    "(PgBouncer?): LISTEN would not last, changes are polled for instead"
                )
                self.unavailable.set()
                self._on_reconnect()  # the follower looks now, then on its poll-only tick
                return
            except Exception as exc:
                log.info("[team] change listener cannot connect (%s); again in %.1f s", exc, delay)
                self._stop.wait(delay)
                delay = min(delay * 2, 10.0)
                continue
            delay = 0.5
            self.connected.set()
            if not first:
                self.reconnects += 1
                self._on_reconnect()
            first = False
            try:
                self._listen(self._conn)
            except Exception as exc:
                if not self._stop.is_set():
                    log.info("[team] change listener lost its connection (%s)", exc)
            finally:
                self.connected.clear()
                try:
                    self._conn.close()
                except Exception:  # already gone
                    log.debug("closing the LISTEN connection failed", exc_info=True)
                self._conn = None

    def _listen(self, conn: Any) -> None:
        while not self._stop.is_set():
            heard = 0
            for _ in conn.notifies(timeout=self._ping_s, stop_after=1):
                heard += 1
                self._on_change()
            if self._stop.is_set():
                return
            if not heard:
                conn.execute("SELECT 1")  # a dead socket fails here, not in the wait above


class ListenUnavailable(Exception):
    """LISTEN would not last on this connection: it goes through a pooler (``through_a_pooler``),
    whose transaction mode hands each transaction to any server connection, so a LISTEN stays
    behind on one the client no longer holds and no notification ever arrives."""
