"""An idle workstation asks one question a second (issue 28 item 3): the queue watch's marks
(core/store/watch.py), and the scheduler acts on what moved — new work, a batch's start, a
cancel asked by another process — with the lanes no longer polling the database themselves.

Transactions are counted by the engine's ``begin`` events, per housekeeping tick of the
scheduler's own (scaled) clock: no wall-clock figure is asserted."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from sqlalchemy import event, select, update

from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import ManualClock, ScaledClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.records import BatchInfo
from media_assistant.core.store import Store
from media_assistant.core.store.base import T
from media_assistant.core.store.db import open_engine, sqlite_url, write_tx
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.sessions import PRUNE_AFTER_S, S, SessionStore
from media_assistant.core.store.threads import DbThreads
from media_assistant.core.store.watch import read_marks
from tests.conftest import make_tasks
from tests.integration.conftest import Harness


class TransactionCount:
    """Transactions begun on ``store``'s engine while :attr:`on`. Listening starts before any
    database thread runs: SQLAlchemy's ``event.listen`` is not safe against a thread iterating
    the listeners at that moment ("deque mutated during iteration", seen under load)."""

    def __init__(self, store: Store) -> None:
        self.on = False
        self.count = 0
        event.listen(store.engine, "begin", self._begun)

    def _begun(self, _conn: Any) -> None:
        if self.on:
            self.count += 1


async def ticks(scheduler: Scheduler, n: int) -> None:
    """Until the scheduler's housekeeping loop has ticked ``n`` more times."""
    assert scheduler.rt is not None
    seen, last = 0, scheduler.rt.last_tick
    while seen < n:
        await asyncio.sleep(0.001)
        if scheduler.rt.last_tick != last:
            seen, last = seen + 1, scheduler.rt.last_tick


async def test_an_idle_scheduler_on_postgresql_costs_at_most_two_transactions_a_second(
    harness_factory: Callable[..., Harness], pg_url: str
) -> None:
    h = harness_factory(url=pg_url, web_accounts=1, api_accounts=1)
    # Its own clock, 20× real time (the harness's 200× would make a loop's few real
    # milliseconds seconds of the scheduler's time).
    clock = ScaledClock(20)
    store = Store(h.store.engine, clock, EventBus())
    counter = TransactionCount(store)
    db = DbThreads()
    scheduler = Scheduler(
        h.config, AsyncStore(store, db), clock, h.factory, seed=1, tick_s=0.5, idle_poll_s=1.0
    )
    await scheduler.start()
    # The real case: a team waiting for a batch scheduled a minute ahead.
    await scheduler.submit(make_tasks(4), batch=BatchInfo("b1", start_at=clock.now() + 3600.0))
    runner = asyncio.ensure_future(scheduler.run_until_idle())
    try:
        await ticks(scheduler, 10)  # settled: the first looks, the lanes' first claims
        counter.on, began = True, clock.now()
        await ticks(scheduler, 60)  # ~30 s of the scheduler's clock
        per_s = counter.count / (clock.now() - began)
        # A look a second, a session beat every 15 s, each lane's and the idle check's
        # fallback look every 30 s: ~1.4. Before: the tick's account reload and cancel flags
        # twice a second, each lane's reap, peek and next-delayed-task every second, the idle
        # check's five reads every second: ~13.
        assert per_s <= 2.0, (counter.count, per_s)
        assert not runner.done()
    finally:
        runner.cancel()
        await scheduler.stop()
        db.close()


async def test_work_from_another_process_is_taken_when_the_watch_sees_it(
    harness_factory: Callable[..., Harness],
) -> None:
    h = harness_factory(web_accounts=0, api_accounts=1)
    # The lanes' own fallback poll is 30,000 s of the scheduler's clock here (150 real s):
    # whatever happens below is the queue watch's doing.
    h.scheduler = Scheduler(
        h.config, h.astore, h.clock, h.factory, seed=1, tick_s=0.5, idle_poll_s=1000.0
    )
    scheduler = h.scheduler
    assert scheduler.watch_s == 1.0
    await scheduler.start()
    other = Store(open_engine(sqlite_url(h.path / "ma.db")), ManualClock(h.clock.now()), EventBus())
    try:
        await ticks(scheduler, 4)
        other.submit(make_tasks(3, prefix="now"))  # another process (no event reaches us)
        # ... and a batch whose start comes while the lanes sleep.
        start_at = h.clock.now() + 20.0
        other.submit(
            make_tasks(2, prefix="later", batch="b2"), batch=BatchInfo("b2", start_at=start_at)
        )
        assert await asyncio.wait_for(scheduler.run_until_idle(), 60) == []
        assert set(h.states().values()) == {"success"} and len(h.states()) == 5
        later = [r for r in h.store.list_tasks() if r.task_id.startswith("later")]
        assert len(later) == 2 and all((r.started_at or 0) >= start_at for r in later)
    finally:
        other.engine.dispose()


def test_the_marks_move_with_what_an_idle_workstation_acts_on(store: Store) -> None:
    clock = store.clock
    assert isinstance(clock, ManualClock)

    def marks() -> Any:
        return read_marks(store.engine, "me", clock.now(), 90.0)

    empty = marks()
    assert (empty.events, empty.flagged, empty.next_due, empty.stale) == (0, 0, None, False)
    store.submit(make_tasks(2), batch=BatchInfo("b1", start_at=clock.now() + 60.0))
    submitted = marks()
    assert submitted.work_changed(empty) and submitted.batch_due == clock.now() + 60.0
    assert not marks().work_changed(submitted)  # nothing moved: nothing to do
    store.pause("all")
    assert marks().work_changed(submitted)


def test_old_sessions_are_pruned_at_a_start_but_a_workstations_newest_and_owners_stay(
    store: Store,
) -> None:
    clock = store.clock
    assert isinstance(clock, ManualClock)
    sessions = SessionStore(store.engine, clock)
    old_a = sessions.open("pc-a")
    clock.advance_sync(60)
    owner = sessions.open("pc-b")
    clock.advance_sync(60)
    newest_a = sessions.open("pc-a")
    for session in (old_a, owner, newest_a):
        sessions.close(session)
    store.submit(make_tasks(1))
    with write_tx(store.engine) as conn:  # pc-b's old session still owns a running row
        conn.execute(update(T).values(state="running", owner_id=owner))
    clock.advance_sync(PRUNE_AFTER_S + 60)
    sessions.open("pc-c")
    with write_tx(store.engine) as conn:
        left = set(conn.execute(select(S.c.session_id)).scalars())
    assert old_a not in left
    assert {owner, newest_a} <= left
