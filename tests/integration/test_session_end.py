"""Windows ends the session while tasks run (issue 29 item 1): sign-out, shutdown, an update's
restart. The loop may never run again, so the rows go back synchronously — session marked
ended, every running row pending with its attempt kept — and the attempts' later writes, if the
loop does run on, change nothing. Real SQLite store, the scheduler with simulated providers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import text

from media_assistant.core.lanes.session_end import release_at_session_end
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.model.states import ModelKind
from media_assistant.sim.fake_api import FakeApiProvider
from media_assistant.sim.fake_web import FakeWebProvider
from tests.conftest import make_config, make_tasks
from tests.integration.conftest import Harness


class Held:
    """Every attempt of the simulated providers waits at its start until ``go`` is set: the
    rows running when the session ends are known, and none ends before the test says."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.entered = 0
        self.returned = 0

    async def around(self, generate: Callable[[TaskContext], Awaitable[Any]], ctx: Any) -> Any:
        self.entered += 1
        try:
            await self.go.wait()
            return await generate(ctx)
        finally:
            self.returned += 1


def held_providers(harness: Harness, held: Held) -> None:
    class HeldWeb(FakeWebProvider):
        async def generate(self, ctx: TaskContext) -> GenerationResult:
            return await held.around(super().generate, ctx)  # type: ignore[no-any-return]

    class HeldApi(FakeApiProvider):
        async def generate(self, ctx: TaskContext) -> GenerationResult:
            return await held.around(super().generate, ctx)  # type: ignore[no-any-return]

    for account in harness.config.accounts:
        harness.overrides[account.id] = (
            HeldWeb(harness.site, account.id)
            if account.kind is ModelKind.WEB
            else HeldApi(harness.api, account.id)
        )


async def until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_the_session_end_returns_every_running_row_with_its_attempt(
    harness: Harness,
) -> None:
    harness.config = make_config(web_accounts=2, api_accounts=1)
    held = Held()
    held_providers(harness, held)
    s = await harness.start()
    await s.submit(make_tasks(4, model="web-model", kind=ModelKind.WEB) + make_tasks(4))
    # Two web accounts, one task each; the API account's three slots: five attempts held.
    await until(lambda: held.entered == 5)
    running = set(harness.store.running_ids())
    assert len(running) == 5
    owner = s.owner_id

    returned = release_at_session_end(s)  # blocks, as in Qt's commitDataRequest

    assert returned == len(running)
    rows = {r.task_id: r for r in harness.store.list_tasks()}
    assert not harness.store.running_ids()
    assert {(rows[t].state, rows[t].attempt) for t in running} == {("pending", 1)}
    assert all(rows[t].keep_attempt for t in running)
    with harness.store.engine.connect() as conn:
        ended = conn.execute(
            text("SELECT ended_at FROM sessions WHERE session_id = :s"), {"s": owner}
        ).scalar_one()
    assert ended is not None
    # The loop runs on after all (the session end was cancelled by another app): the attempts
    # that were running finish, their writes are fenced, nothing more is claimed, and the
    # ordinary stop (which waits for the attempts and their writes) finds nothing to return.
    held.go.set()
    await until(lambda: held.returned == 5)
    await s.stop()
    assert held.entered == 5  # nothing more was claimed
    after = {r.task_id: r for r in harness.store.list_tasks()}
    assert {r.state for r in after.values()} == {"pending"}  # the answers' writes: fenced
    assert {(after[t].attempt, after[t].keep_attempt) for t in running} == {(1, True)}
    assert {after[t].attempt for t in after if t not in running} == {0}  # never claimed since
    # The next start runs every task on the attempt it had.
    harness.scheduler = None
    harness.overrides.clear()
    await harness.start()
    assert await harness.run() == []
    assert {(r.state, r.attempt) for r in harness.store.list_tasks()} == {("success", 1)}


async def test_a_scheduler_not_started_has_nothing_to_return(harness: Harness) -> None:
    harness.config = make_config(web_accounts=1, api_accounts=0)
    from media_assistant.core.lanes.scheduler import Scheduler

    s = Scheduler(harness.config, harness.astore, harness.clock, harness.factory)
    assert release_at_session_end(s) == 0
