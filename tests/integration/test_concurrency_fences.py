"""Races that need two things to happen in a narrow window, reproduced deterministically: the
writer thread held at a gate, a reader held after its read, the steps of the interleaving taken
one by one. Each test is named after what an operator would have lost (issue 17). Each runs on
both engines (issue 27 item 10): a SQLite file and a real PostgreSQL, where READ COMMITTED and
several connections make the interleavings real."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from media_assistant.core.lanes.attempt import AttemptContext, RunningAttempt
from media_assistant.core.lanes.runtime import AccountView, lane_log
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.events import AccountChanged, EventBus
from media_assistant.core.model.records import Claim
from media_assistant.core.model.states import AccountProblem, AccountState, ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.facade import AsyncAccounts, AsyncStore
from media_assistant.core.store.threads import DbThreads
from tests.conftest import make_config, make_tasks
from tests.integration.conftest import Harness


@pytest.fixture
def harness(harness_factory: Callable[..., Harness], store_url: str) -> Harness:
    """The scheduler's harness on each engine (``store_url``: SQLite, PostgreSQL)."""
    return harness_factory(url=store_url)


def claim_for(store: Store, account: str, owner: str, model: str = "api-model") -> Claim:
    claim = store.claim_next(
        kind=ModelKind.API, account_id=account, models=[model], owner_id=owner, deadline_s=60
    )
    assert claim is not None
    return claim


async def test_a_stale_heartbeat_does_not_kill_the_newer_attempt_of_the_same_task(
    harness: Harness,
) -> None:
    """Heartbeat snapshot → a deferral hands the row back (attempt kept) → another account
    claims it (lease + 1) → the heartbeat job runs. The newer attempt must neither be
    interrupted (it would write nothing and be reaped 90 s later as lost) nor beaten by the
    stale snapshot."""
    harness.config = make_config(web_accounts=0, api_accounts=2)
    # No housekeeping tick during the test: the only beats are the two it takes by hand (a tick's
    # own beat of the newer attempt, legitimately, moved its heartbeat under load: a test that
    # passed by timing).
    s = Scheduler(
        harness.config, harness.astore, harness.clock, harness.factory, seed=1, tick_s=1e9
    )
    harness.scheduler = s
    await s.start()
    store = harness.store
    store.submit(make_tasks(1, model="by-hand"))  # no lane serves it: the test claims by hand
    runner, rt = s.runner, s.rt
    assert runner is not None and rt is not None
    first = claim_for(store, "api-1", rt.owner_id, "by-hand")
    log = lane_log("api", "api-1")
    runner.attempts[first.task_id] = RunningAttempt(
        first, AttemptContext(runner.spec_for(first), rt, log)
    )
    gate = threading.Event()
    harness.db.submit_write(gate.wait, 10)  # the writer is busy: the beat waits behind it
    beat = asyncio.ensure_future(s._beat())  # snapshots attempt 1 now, writes later
    await asyncio.sleep(0)
    # Meanwhile a 429 deferral hands the row back and api-2 claims it.
    assert store.requeue(
        first, not_before=None, keep_attempt=True, kind=None, message="rate limited (429)"
    )
    second = claim_for(store, "api-2", rt.owner_id, "by-hand")
    assert (second.task_id, second.attempt) == (first.task_id, first.attempt)
    assert second.lease == first.lease + 1
    newer = RunningAttempt(second, AttemptContext(runner.spec_for(second), rt, log))
    runner.attempts[second.task_id] = newer
    beaten_before = store.get(second.task_id)
    gate.set()
    await beat
    assert newer.interrupt is None  # the stale beat named attempt 1's lease, not this one
    row = store.get(second.task_id)
    assert row is not None and beaten_before is not None
    assert (row.state, row.lease, row.account_id) == ("running", second.lease, "api-2")
    assert row.heartbeat_at == beaten_before.heartbeat_at  # the stale beat touched nothing
    # The newer attempt's own beat is taken, and an attempt really lost is still stopped.
    assert await s.store.heartbeat(rt.owner_id, runner.beats()) == set()
    runner.attempts.pop(second.task_id)


async def test_an_old_account_read_does_not_undo_a_cool_down(store_url: str) -> None:
    """A refresh of the account view starts before a 429's cool-down commits and returns after
    the cool-down's own event: the lane must keep seeing the cool-down (it would claim into it)."""
    clock = ManualClock(1_000.0)
    bus = EventBus()
    engine = open_engine(store_url)
    db = DbThreads()
    read_done = threading.Event()
    release = threading.Event()

    class HeldReads(AccountStore):
        hold = False

        def all(self) -> Any:
            fresh = super().all()
            if self.hold:
                read_done.set()
                release.wait(10)  # the read is taken; its answer comes back late
            return fresh

    accounts = HeldReads(engine, clock, bus)
    accounts.sync([("api-1", ModelKind.API, True)])
    view = AccountView(AsyncAccounts(accounts, db), clock)
    await view.refresh()
    assert view.available("api-1")
    bus.bind_loop(asyncio.get_running_loop())
    seen: list[AccountChanged] = []
    bus.subscribe(lambda e: isinstance(e, AccountChanged) and seen.append(e))
    accounts.hold = True
    late = asyncio.ensure_future(view.refresh())
    await asyncio.to_thread(read_done.wait, 10)  # it read the account as it was
    accounts.hold = False
    await AsyncAccounts(accounts, db).cool_down("api-1", 60, "429")
    while not seen:
        await asyncio.sleep(0.001)
    assert seen[-1].status is not None
    view.apply(seen[-1].status)  # as the scheduler does with the event
    assert not view.available("api-1")
    release.set()
    await late
    assert not view.available("api-1")  # the old read did not win
    status = view.statuses["api-1"]
    assert status.state(clock.now()) is AccountState.COOLING_DOWN
    db.close()
    engine.dispose()


async def test_an_answer_queued_behind_a_busy_writer_is_kept_when_its_lane_stops(
    store_url: str,
) -> None:
    """The lane stops (its coroutine is cancelled) while the answer's write still waits for
    the writer: the write runs all the same, so the generation is not asked for again."""
    engine = open_engine(store_url)
    store = Store(engine, ManualClock(1_000.0), EventBus())
    db = DbThreads()
    astore = AsyncStore(store, db)
    store.submit(make_tasks(1))
    claim = claim_for(store, "api-1", "o")
    gate = threading.Event()
    db.submit_write(gate.wait, 10)
    writing = asyncio.ensure_future(astore.finish_success(claim, "the answer"))
    # One step of the task runs it to its first wait: the write is queued behind the gate by
    # then (it is submitted before anything is awaited), not after some time.
    await asyncio.sleep(0)
    writing.cancel()
    await asyncio.wait({writing})
    assert writing.cancelled()
    gate.set()
    db.close()  # every queued write runs before the threads stop
    row = store.get(claim.task_id)
    assert row is not None and (row.state, row.result_text) == ("success", "the answer")
    engine.dispose()


async def test_a_model_is_not_called_stuck_on_an_account_view_older_than_the_database(
    harness: Harness,
) -> None:
    """Another process (`sites install`, `accounts reset`, a teammate) lifts an account's
    problem; the scheduler's view hears of it at its next housekeeping tick. Asked in between
    whether the work is done, the scheduler must not answer "stuck" from the old view (`run`
    would exit with the tasks left pending)."""
    harness.config = make_config(web_accounts=0, api_accounts=1)
    # No housekeeping tick comes during the test: only a fresh read can see the change.
    s = Scheduler(
        harness.config, harness.astore, harness.clock, harness.factory, seed=1, tick_s=1e9
    )
    harness.scheduler = s
    await s.start()
    assert s.rt is not None
    other = AccountStore(harness.store.engine, harness.clock, EventBus())  # no event reaches us
    other.set_problem("api-1", AccountProblem.NEEDS_ATTENTION, "site changed", "site_changed")
    await s.rt.accounts.refresh()
    harness.store.submit(make_tasks(3, model="api-model"))
    stuck = await harness.run()
    assert [(m.model, m.pending) for m in stuck] == [("api-model", 3)]
    other.clear_problem("api-1")  # as `sites install` does, from its own process
    assert await harness.run() == []
    assert set(harness.states().values()) == {"success"}
