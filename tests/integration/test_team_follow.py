"""Every window sees the team: the follower on a real PostgreSQL never skips a change committed
out of order, is woken by NOTIFY (not only by its tick), and after its listening connection (the
engine's idle one) dies it listens on the next one and reloads what it missed."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import event, text

from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus, TasksSynced
from media_assistant.core.store import Store
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.backends.postgres_listen import ChangeListener
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.facade import AsyncAccounts, AsyncStore
from media_assistant.core.store.follower import GAP_TTL_S, DatabaseFollower, GapCursor
from media_assistant.core.store.threads import DbThreads
from tests.conftest import make_tasks


def test_the_gap_cursor_remembers_ids_it_skipped_until_they_show() -> None:
    now = [0.0]
    cursor = GapCursor(40, clock=lambda: now[0])
    assert cursor.take([42, 43]) == {42, 43}
    assert (cursor.at, set(cursor.missing)) == (43, {41})
    assert cursor.take([41]) == {41}  # committed late: news, once
    assert cursor.take([41]) == set()
    assert cursor.missing == {}
    cursor.take([45])
    now[0] = GAP_TTL_S + 1
    cursor.take([])
    assert cursor.missing == {}  # a hole that never fills (a rollback) is given up


class Window:
    """What a window's process holds: its own store, threads, bus and follower."""

    def __init__(self, url: str, *, listen: bool, interval_s: float | None = None) -> None:
        self.bus = EventBus()
        self.store = Store(open_engine(url), SystemClock(), self.bus)
        self.db = DbThreads()
        self.synced: list[str] = []
        self.arrived = asyncio.Event()
        self.listener: ChangeListener | None = None

        def make(wake: Any, reload: Any) -> ChangeListener:
            self.listener = ChangeListener(self.store.engine, on_change=wake, on_reconnect=reload)
            return self.listener

        self.follower = DatabaseFollower(
            AsyncStore(self.store, self.db),
            AsyncAccounts(AccountStore(self.store.engine, self.store.clock, self.bus), self.db),
            interval_s,
            listener=make if listen else None,
        )

    def _heard(self, event: object) -> None:
        if isinstance(event, TasksSynced):
            self.synced += [r["task_id"] for r in event.rows]
            self.arrived.set()

    async def start(self) -> None:
        self.bus.bind_loop(asyncio.get_running_loop())
        self.bus.subscribe(self._heard)
        await self.follower.start()

    async def close(self) -> None:
        await self.follower.stop()
        self.db.close()
        self.store.engine.dispose()


@pytest.fixture
async def windows(pg_url: str) -> AsyncIterator[list[Window]]:
    made: list[Window] = []
    yield made
    for w in made:
        await w.close()


async def test_a_change_committed_out_of_order_is_not_skipped(
    pg_url: str, windows: list[Window]
) -> None:
    """Event 1 is written first and committed last: the window's cursor has moved past it by
    then, and still shows it."""
    other = Store(open_engine(pg_url), SystemClock(), EventBus())
    other.submit(make_tasks(2))
    window = Window(pg_url, listen=False, interval_s=3600)  # polled by hand below
    windows.append(window)
    await window.start()
    slow = psycopg.connect(pg_url)
    slow.execute(
        "INSERT INTO task_events (task_id, at, kind, message, origin) "
        "VALUES ('api-000', 1, 'log', 'a long transaction', 'elsewhere')"
    )  # its id is taken now; it commits below
    with psycopg.connect(pg_url, autocommit=True) as fast:
        fast.execute(
            "INSERT INTO task_events (task_id, at, kind, message, origin) "
            "VALUES ('api-001', 1, 'log', 'a short one', 'elsewhere')"
        )
    await window.follower.poll()
    assert window.synced == ["api-001"]
    # (the long transaction's event: not committed, not seen yet)
    slow.commit()
    slow.close()
    await window.follower.poll()
    assert window.synced == ["api-001", "api-000"]
    other.engine.dispose()


async def test_a_change_on_one_workstation_shows_on_another_within_a_second(
    pg_url: str, windows: list[Window]
) -> None:
    """NOTIFY wakes the follower: its fallback tick is an hour here."""
    other = Store(open_engine(pg_url), SystemClock(), EventBus())
    window = Window(pg_url, listen=True, interval_s=3600)
    windows.append(window)
    await window.start()
    assert window.listener is not None
    assert await asyncio.to_thread(window.listener.connected.wait, 10)
    seen: list[float] = []
    for i in range(5):
        window.arrived.clear()
        t0 = time.monotonic()
        other.submit(make_tasks(1, prefix=f"n{i}"))
        await asyncio.wait_for(window.arrived.wait(), 5)
        seen.append(time.monotonic() - t0)
    assert max(seen) < 1.0, seen
    other.engine.dispose()


async def test_a_dead_listen_connection_is_replaced_and_the_window_reloads(
    pg_url: str, windows: list[Window]
) -> None:
    other = Store(open_engine(pg_url), SystemClock(), EventBus())
    window = Window(pg_url, listen=True, interval_s=3600)
    windows.append(window)
    await window.start()
    listener = window.listener
    assert listener is not None
    assert await asyncio.to_thread(listener.connected.wait, 10)
    with psycopg.connect(pg_url, autocommit=True) as admin:
        for pid in listener.backend_pids():
            assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()[0]
    other.submit(make_tasks(1, prefix="missed"))  # while nobody listens
    await asyncio.wait_for(window.arrived.wait(), 20)  # the reconnect's reload brings it
    assert "missed-000" in window.synced
    assert listener.reconnects >= 1
    window.arrived.clear()
    other.submit(make_tasks(1, prefix="after"))  # listening again
    await asyncio.wait_for(window.arrived.wait(), 5)
    assert "after-000" in window.synced
    other.engine.dispose()


def test_a_listener_starting_while_a_thread_checks_a_connection_in_breaks_nothing(
    pg_url: str,
) -> None:
    """The start's side of the test below: a listener that added its handlers to the pool's
    event lists (``event.listen``) as a thread dispatched ``checkin`` broke that thread the same
    way. Now nothing is added after the engine is made: the listener subscribes.

    And it still listens when that thread's connection is the one the pool keeps: the listener
    did not see it given back (its return came before the start), and its own first connection
    came back after it — one too many, so the pool closed that one. Both orders are held here."""
    engine = open_engine(pg_url)
    reached, release = threading.Event(), threading.Event()
    listener_back, listener_go = threading.Event(), threading.Event()

    def hold(_conn: Any, _record: Any) -> None:
        name = threading.current_thread().name
        if name == "checking-in":
            reached.set()
            release.wait(30)
        elif name == "db-listen" and not listener_back.is_set():
            listener_back.set()  # its first connection, given back: held until the other's is
            listener_go.wait(30)

    event.listen(engine, "checkin", hold)
    listener = ChangeListener(engine, on_change=lambda: None, on_reconnect=lambda: None)
    errors: list[BaseException] = []
    thread = _checking_in(engine, errors)
    try:
        thread.start()
        assert reached.wait(30)
        listener.start()
        assert listener_back.wait(30)
        release.set()
        thread.join(30)
        assert not thread.is_alive() and errors == []
        assert engine.pool.checkedin() == 1  # the thread's connection, kept by the pool
        listener_go.set()
        assert listener.connected.wait(10)  # and the listener listens on it
        assert listener.backend_pids() == [_pid(engine)]
    finally:
        release.set()
        listener_go.set()
        if thread.is_alive():
            thread.join(30)
        listener.stop()
        engine.dispose()


def _checking_in(engine: Any, errors: list[BaseException]) -> threading.Thread:
    """A thread (not started) named ``checking-in`` that runs one query; its error lands in
    ``errors``."""

    def check_in() -> None:
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except BaseException as exc:
            errors.append(exc)

    return threading.Thread(target=check_in, name="checking-in")


def _pid(engine: Any) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())


def test_a_listener_stopping_while_a_thread_checks_a_connection_in_breaks_nothing(
    pg_url: str,
) -> None:
    """A window's database thread was checking a connection in (the pool's ``checkin`` event
    being dispatched) as its follower stopped the change listener, which removed its handlers
    from that very event list: "deque mutated during iteration" on the thread (seen under load).
    Held here at that moment: a handler on that list waits until the stop has returned."""
    engine = open_engine(pg_url)
    reached, release = threading.Event(), threading.Event()

    def hold(_conn: Any, _record: Any) -> None:
        if threading.current_thread().name == "checking-in":
            reached.set()
            release.wait(30)

    event.listen(engine, "checkin", hold)
    listener = ChangeListener(engine, on_change=lambda: None, on_reconnect=lambda: None)
    listener.start()
    errors: list[BaseException] = []
    thread = _checking_in(engine, errors)
    try:
        assert listener.connected.wait(10)
        thread.start()
        assert reached.wait(30)
        listener.stop()
        release.set()
        thread.join(30)
        assert not thread.is_alive() and errors == []
    finally:
        release.set()
        if thread.is_alive():
            thread.join(30)
        engine.dispose()
