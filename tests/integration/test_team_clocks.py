"""A workstation whose wall clock is stepped by minutes (an NTP step, a VM resumed, a hand fix)
takes nothing that is alive and has nothing of its own taken (issue 27 item 2).

Two workstations on one real PostgreSQL, each with its own store and clock as in a real team:
the server's time measured once, then carried on the monotonic clock (core/model/clock.py
``ServerAlignedClock``). One PC's wall clock is stepped in-process here (its base clock's
``now`` moves, its monotonic clock does not — what libfaketime with
FAKETIME_DONT_FAKE_MONOTONIC=1 does to a real process: tests/faults/test_faked_clock.py)."""

from __future__ import annotations

from media_assistant.core.model.clock import ServerAlignedClock, SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.records import Claim
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.backends.postgres import clock_offset
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.sessions import SessionStore
from tests.conftest import make_tasks


class SteppedClock(SystemClock):
    """The system clock, whose wall time can be stepped; the monotonic clock is not."""

    def __init__(self) -> None:
        self.step = 0.0

    def now(self) -> float:
        return super().now() + self.step


class Workstation:
    def __init__(self, url: str, name: str) -> None:
        self.wall = SteppedClock()
        engine = open_engine(url)
        self.clock = ServerAlignedClock(self.wall, clock_offset(engine, wall=self.wall.now))
        self.store = Store(engine, self.clock, EventBus())
        self.name = name
        self.owner = SessionStore(engine, self.clock).open(name)

    def claim(self) -> Claim:
        claim = self.store.claim_next(
            kind=ModelKind.API,
            account_id="api-1",
            models=["by-hand"],
            owner_id=self.owner,
            deadline_s=600,
            workstation=self.name,
        )
        assert claim is not None
        return claim

    def reap(self) -> list[str]:
        released = self.store.reap_stale(dead_after=90.0, workstation=self.name)
        return [r.task_id for r in released]

    def close(self) -> None:
        self.store.engine.dispose()


def test_a_clock_stepped_forward_takes_no_live_work_and_one_stepped_back_loses_none(
    pg_url: str,
) -> None:
    pc1, pc2 = Workstation(pg_url, "pc-1"), Workstation(pg_url, "pc-2")
    try:
        pc1.store.submit(make_tasks(2, model="by-hand"))
        mine = pc1.claim()
        pc1.store.heartbeat(pc1.owner, {mine.task_id: (mine.attempt, mine.lease, 0)})

        # pc-2's wall clock jumps two minutes ahead: pc-1's work, beaten just now, is alive.
        pc2.wall.step = 120.0
        assert pc2.reap() == []
        assert pc2.clock.diverged  # and pc-2's scheduler measures its offset again at once
        pc2.clock.offset = clock_offset(pc2.store.engine, wall=pc2.wall.now)
        assert not pc2.clock.diverged
        assert pc2.reap() == []

        # pc-2's clock now jumps back four minutes and it beats a task of its own: the time it
        # writes is the server's, so pc-1 does not see it as dead.
        pc2.wall.step = -120.0
        theirs = pc2.claim()
        pc2.store.heartbeat(pc2.owner, {theirs.task_id: (theirs.attempt, theirs.lease, 0)})
        assert pc1.reap() == []
        rows = {r.task_id: r for r in pc1.store.list_tasks()}
        assert rows[mine.task_id].state == rows[theirs.task_id].state == "running"
        assert abs(rows[theirs.task_id].heartbeat_at - pc1.clock.now()) < 5.0
    finally:
        pc1.close()
        pc2.close()
