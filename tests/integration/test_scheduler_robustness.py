"""What goes wrong around the scheduler: a busy database, providers that misbehave, suspend."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from media_assistant.core.lanes import attempt as attempt_module
from media_assistant.core.lanes.runtime import AccountView, Runtime
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.model.states import ModelKind
from tests.conftest import make_config, make_tasks
from tests.integration.conftest import Harness


def busy(times: int, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method``, failing the way SQLite does when another process holds the write lock."""
    left = [times]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if left[0] > 0:
            left[0] -= 1
            raise OperationalError("UPDATE tasks", {}, Exception("database is locked"))
        return method(*args, **kwargs)

    return wrapper


@pytest.mark.expect_errors(r"worker error; restarting")
async def test_a_worker_survives_a_database_error_outside_its_attempts(
    harness_factory: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    h = harness_factory(web_accounts=1, api_accounts=1)
    s = await h.start()
    monkeypatch.setattr(h.store, "claim_next", busy(4, h.store.claim_next))
    await s.submit(make_tasks(2, model="web-model", kind=ModelKind.WEB) + make_tasks(3))
    assert await h.run() == []
    assert set(h.states().values()) == {"success"}
    await s.stop()


async def test_a_finished_answer_survives_a_busy_database(
    harness_factory: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    h = harness_factory(web_accounts=0, api_accounts=1)
    monkeypatch.setattr(attempt_module, "PERSIST_FOR_S", 30.0)
    s = await h.start()
    monkeypatch.setattr(h.store, "finish_success", busy(3, h.store.finish_success))
    await s.submit(make_tasks(1))
    assert await h.run() == []
    [row] = h.store.list_tasks()
    assert (row.state, row.attempt, row.lost_count) == ("success", 1, 0)
    await s.stop()


class IgnoresCancellation:
    """A provider that swallows every cancellation (a badly written plugin, a stuck driver)."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        while not self.stop.is_set():
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue
        raise AssertionError("released at teardown")

    async def aclose(self) -> None:
        return None


@pytest.mark.expect_errors(r"did not stop within .* abandoned")
async def test_a_provider_that_ignores_cancellation_cannot_hang_cancel_or_shutdown(
    harness_factory: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(attempt_module, "ABANDON_AFTER_S", 0.3)
    h = harness_factory(web_accounts=1, api_accounts=0)
    stubborn = IgnoresCancellation()
    h.overrides["web-1"] = stubborn
    s = await h.start()
    await s.submit(make_tasks(2, model="web-model", kind=ModelKind.WEB))
    while not h.store.running_ids():
        await asyncio.sleep(0.01)
    [running] = h.store.running_ids()
    await s.cancel([running])
    for _ in range(200):
        if h.store.get(running).state == "canceled":  # type: ignore[union-attr]
            break
        await asyncio.sleep(0.02)
    assert h.store.get(running).state == "canceled"  # type: ignore[union-attr]
    while len(h.store.running_ids()) != 1:  # the account moved on to the next task
        await asyncio.sleep(0.01)
    await asyncio.wait_for(s.stop(), 30)  # and shutdown does not hang on the stubborn one
    assert {r.state for r in h.store.list_tasks()} == {"canceled", "pending"}
    stubborn.stop.set()
    await asyncio.sleep(0.1)


class StuckUntilReleased(IgnoresCancellation):
    """Ignores cancellation, but closing its browser ends the generation (as Playwright does)."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        self.events.append(f"start {ctx.task.task_id}")
        try:
            return await super().generate(ctx)
        finally:
            self.events.append(f"end {ctx.task.task_id}")

    async def release(self) -> None:
        self.events.append("release")
        self.stop.set()


@pytest.mark.expect_errors(r"unexpected error in provider")
async def test_a_stuck_web_generation_has_its_browser_closed_before_the_next_task(
    harness_factory: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(attempt_module, "ABANDON_AFTER_S", 0.3)
    h = harness_factory(web_accounts=1, api_accounts=0)
    stuck = StuckUntilReleased()
    h.overrides["web-1"] = stuck
    s = await h.start()
    await s.submit(make_tasks(2, model="web-model", kind=ModelKind.WEB))
    while not h.store.running_ids():
        await asyncio.sleep(0.01)
    [first] = h.store.running_ids()
    await s.cancel([first])
    while len(stuck.events) < 4:
        await asyncio.sleep(0.01)
    await asyncio.wait_for(s.stop(), 30)
    # One generation at a time on the account: the stuck one ended (its browser closed under
    # it) before the next one started, instead of being abandoned while it still ran.
    assert stuck.events[:4] == [f"start {first}", "release", f"end {first}", stuck.events[3]]
    assert stuck.events[3].startswith("start ") and stuck.events[3] != f"start {first}"
    assert h.store.get(first).state == "canceled"  # type: ignore[union-attr]


class CancelledOutOfTheBlue:
    """The first call ends in CancelledError nobody asked for (e.g. the driver loop died)."""

    def __init__(self) -> None:
        self.calls = 0

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        self.calls += 1
        if self.calls == 1:
            raise asyncio.CancelledError
        return GenerationResult(text=f"Answer to: {ctx.task.prompt}")

    async def aclose(self) -> None:
        return None


async def test_an_unrequested_cancellation_is_retried_not_reported_as_a_cancel(
    harness_factory: Callable[..., Harness],
) -> None:
    h = harness_factory(web_accounts=0, api_accounts=1)
    h.overrides["api-1"] = CancelledOutOfTheBlue()
    s = await h.start()
    await s.submit(make_tasks(1))
    assert await h.run() == []
    [row] = h.store.list_tasks()
    assert (row.state, row.attempt) == ("success", 2)
    await s.stop()


def test_reaping_waits_after_a_suspend_even_if_the_monotonic_clock_did_not_move(
    tmp_path: Path,
) -> None:
    class SuspendClock(ManualClock):
        def suspend(self, seconds: float) -> None:
            self._now += seconds  # wall time jumps; monotonic (CLOCK_MONOTONIC) does not

    clock = SuspendClock()
    config = make_config()
    rt = Runtime(
        config=config,
        store=None,
        accounts=AccountView(None, clock),  # type: ignore[arg-type]
        clock=clock,
        owner_id="me",
        rng=None,  # type: ignore[arg-type]
        last_tick=clock.monotonic(),
        last_tick_wall=clock.now(),
    )
    assert rt.reap_allowed()
    clock.suspend(600)
    assert not rt.reap_allowed()
