"""A team database engine's pool events, registered once, when the engine is made.

The change listener (core/store/backends/postgres_listen.py) follows the pool: a connection
taken, given back, closed or found broken. SQLAlchemy keeps each event's handlers in a list that
is **not safe against a change while another thread dispatches on it** ("RuntimeError: deque
mutated during iteration" on the dispatching thread, which then leaves the connection half
checked in — seen under load when a listener stopped, issue 34). A window's follower starts
and stops its listener while the window's database threads use the same engine, so the
listener must never add or remove a handler: :func:`pool_events` registers the handlers on the
engine once — ``postgres_engine`` asks for it before any thread uses the engine — and a
listener subscribes and unsubscribes here. The subscribers are a tuple replaced whole under a
lock: a dispatch under way goes on with the tuple it read (a listener that stopped meanwhile
may still be called once, and ignores it).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Protocol

from sqlalchemy import Engine, event

# The pool's ordinary closing, and a connection found broken (or the pool's invalidation after).
CLOSED = ("close", "close_detached", "detach")
FAILED = ("invalidate", "soft_invalidate")


class PoolWatcher(Protocol):
    def checked_out(self, dbapi_connection: Any) -> None:
        """Raise ``DisconnectionError`` to make the pool replace the connection."""

    def checked_in(self, dbapi_connection: Any) -> None: ...

    def gone(self, dbapi_connection: Any, *, failed: bool) -> None: ...


class PoolEvents:
    def __init__(self, engine: Engine) -> None:
        self._lock = threading.Lock()
        self._watchers: tuple[PoolWatcher, ...] = ()
        event.listen(engine, "checkout", self._checkout, insert=True)
        event.listen(engine, "checkin", self._checkin)
        for name in CLOSED:
            event.listen(engine, name, self._closed)
        for name in FAILED:
            event.listen(engine, name, self._failed)

    def subscribe(self, watcher: PoolWatcher) -> None:
        with self._lock:
            if not any(w is watcher for w in self._watchers):
                self._watchers = (*self._watchers, watcher)

    def unsubscribe(self, watcher: PoolWatcher) -> None:
        with self._lock:
            self._watchers = tuple(w for w in self._watchers if w is not watcher)

    @property
    def watchers(self) -> int:
        return len(self._watchers)

    def _checkout(self, dbapi_connection: Any, record: Any, proxy: Any) -> None:
        for watcher in self._watchers:
            watcher.checked_out(dbapi_connection)

    def _checkin(self, dbapi_connection: Any, record: Any) -> None:
        if dbapi_connection is None:
            return
        for watcher in self._watchers:
            watcher.checked_in(dbapi_connection)

    def _closed(self, dbapi_connection: Any, *args: Any) -> None:
        # (close_detached has no record argument)
        if dbapi_connection is None:
            return
        for watcher in self._watchers:
            watcher.gone(dbapi_connection, failed=False)

    def _failed(self, dbapi_connection: Any, *args: Any) -> None:
        if dbapi_connection is None:
            return
        for watcher in self._watchers:
            watcher.gone(dbapi_connection, failed=True)


_ENGINES: weakref.WeakKeyDictionary[Engine, PoolEvents] = weakref.WeakKeyDictionary()
_ENGINES_LOCK = threading.Lock()


def pool_events(engine: Engine) -> PoolEvents:
    """The engine's pool events, their handlers registered on the first call (``postgres_engine``
    makes that call before the engine is used; for an engine made elsewhere, make it before
    other threads use the engine)."""
    with _ENGINES_LOCK:
        hub = _ENGINES.get(engine)
        if hub is None:
            hub = _ENGINES[engine] = PoolEvents(engine)
        return hub
