"""An API slot whose answer is written takes its next task in the same writer job
(``AsyncStore.finish_success_then_claim``): no trip to the loop between the two, and only while
the worker itself would claim — a free slot, the account working and available."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path
from typing import Any

from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.model.records import Claim, ClaimRequest
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from tests.conftest import make_config, make_tasks
from tests.integration.conftest import Harness
from tests.support.lane_watch import LaneWatch


class Counting:
    """Answers after ``delay_s`` real seconds; counts the attempts in flight. ``first_waits_for``:
    the first attempt answers only once that many are in flight together (at most 30 s), so
    whether the slots were filled at once does not depend on the machine's speed (under load
    the second claim once took longer than the first answer's 10 ms)."""

    def __init__(self, delay_s: float = 0.01, first_waits_for: int = 0) -> None:
        self.delay_s = delay_s
        self.first_waits_for = first_waits_for
        self.filled = asyncio.Event()
        self.in_flight = 0
        self.peaks: list[int] = []  # in flight as each attempt started
        self.done = 0

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        self.in_flight += 1
        self.peaks.append(self.in_flight)
        if self.in_flight >= self.first_waits_for:
            self.filled.set()
        try:
            if len(self.peaks) == 1 and self.first_waits_for:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.filled.wait(), 30)
            await asyncio.sleep(self.delay_s)
        finally:
            self.in_flight -= 1
        self.done += 1
        return GenerationResult(text=f"ok {ctx.task.task_id}")

    async def aclose(self) -> None:
        return None


def count_loop_claims(h: Harness) -> list[str]:
    """Task ids the account worker claimed itself (not handed over after an answer)."""
    claimed: list[str] = []
    original = h.astore.claim_next

    async def counting(**kwargs: Any) -> Claim | None:
        claim = await original(**kwargs)
        if claim is not None:
            claimed.append(claim.task_id)
        return claim

    h.astore.claim_next = counting  # type: ignore[method-assign]
    return claimed


async def test_a_freed_slot_takes_the_next_task_without_the_worker(harness: Harness) -> None:
    harness.config = make_config(web_accounts=0, api_accounts=1, concurrency=2)
    provider = Counting(first_waits_for=2)
    harness.overrides["api-1"] = provider
    claimed = count_loop_claims(harness)
    s = await harness.start()
    await s.submit(make_tasks(12))
    assert await harness.run() == []
    assert set(harness.states().values()) == {"success"}
    # The worker filled the two slots; every later task came with an answer's write.
    assert len(claimed) == 2, claimed
    assert max(provider.peaks) == 2
    events = [e for r in harness.store.list_tasks() for e in harness.store.events(r.task_id)]
    assert sum(e.code == EventCode.STARTED.value for e in events) == 12


async def busy_account(harness: Harness) -> tuple[Any, Counting]:
    """One API account with 3 slots, 40 tasks submitted, 6 answered: handovers under way."""
    harness.config = make_config(web_accounts=0, api_accounts=1, concurrency=3)
    provider = Counting(delay_s=0.02)
    harness.overrides["api-1"] = provider
    s = await harness.start()
    await s.submit(make_tasks(40))
    while provider.done < 6:
        await asyncio.sleep(0.005)
    return s, provider


async def test_a_lowered_concurrency_ends_the_handovers(harness: Harness) -> None:
    s, provider = await busy_account(harness)
    await s.accounts.set_concurrency("api-1", 1)
    lowered_at = len(provider.peaks)
    assert await harness.run() == []
    assert set(harness.states().values()) == {"success"}
    # The attempts running at the change end; no slot above the new concurrency takes another.
    later = provider.peaks[lowered_at + 3 :]
    assert later and max(later) == 1, provider.peaks[lowered_at:]


async def test_an_account_switched_off_keeps_no_handed_over_task(harness: Harness) -> None:
    s, provider = await busy_account(harness)
    watch = LaneWatch(s.lanes[ModelKind.API])
    await s.accounts.set_enabled("api-1", False)
    while harness.store.running_ids():
        await asyncio.sleep(0.01)
    started = len(provider.peaks)
    s.lanes[ModelKind.API].wake("api-1")
    await watch.idle_turn("api-1")  # its worker looked again, the account off and slots free
    # nothing started after the attempts running at the switch, by the worker or a handover
    assert len(provider.peaks) == started and watch.claims["api-1"] == 0
    assert not harness.store.running_ids()
    rows = harness.store.list_tasks()
    pending = [r for r in rows if r.state == "pending"]
    assert pending and all(r.attempt == 0 or r.keep_attempt for r in pending)
    await s.accounts.set_enabled("api-1", True)
    assert await harness.run() == []
    assert {(r.state, r.attempt) for r in harness.store.list_tasks()} == {("success", 1)}


async def test_a_caller_cancelled_during_the_handover_gives_the_claim_back(
    tmp_path: Path,
) -> None:
    engine = open_engine(sqlite_url(tmp_path / "ma.db"))
    store = Store(engine, ManualClock(1_000.0), EventBus())
    db = DbThreads()
    astore = AsyncStore(store, db)
    store.submit(make_tasks(2))
    first = store.claim_next(
        kind=ModelKind.API, account_id="api-1", models=["api-model"], owner_id="o", deadline_s=60
    )
    assert first is not None
    gate = threading.Event()
    db.submit_write(gate.wait, 5)  # the writer is busy: the handover waits behind it
    then = ClaimRequest(ModelKind.API, "api-1", ("api-model",), "o", 60)
    waiting = asyncio.ensure_future(astore.finish_success_then_claim(first, "answer", then=then))
    await asyncio.sleep(0.02)
    waiting.cancel()
    await asyncio.wait({waiting})
    assert waiting.cancelled()
    gate.set()
    db.close()  # every queued write done: the handover, then the give-back
    rows = {r.task_id: r for r in store.list_tasks()}
    assert rows[first.task_id].state == "success"  # the answer is written all the same
    [second] = [r for r in rows.values() if r.task_id != first.task_id]
    assert (second.state, second.attempt, second.keep_attempt) == ("pending", 1, True)
    codes = [e.code for e in store.events(second.task_id)]
    assert codes[-1] == EventCode.RETURNED_STOPPING.value
    engine.dispose()
