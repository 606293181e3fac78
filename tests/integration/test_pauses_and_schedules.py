"""Pauses and schedules with the scheduler running, on the scaled clock (200 simulated seconds
per real second): a pause lets the running task finish and starts nothing new until resumed; a
scheduled batch starts nothing before its time and still keeps its account's pacing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from media_assistant.core.config.schema import AccountConfig, parse_config
from media_assistant.core.model.records import BatchInfo, Claim
from media_assistant.core.model.states import ModelKind
from tests.conftest import config_dict, make_tasks
from tests.integration.conftest import Harness


async def until(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.01)


async def test_pausing_the_queue_finishes_the_running_task_and_starts_nothing_until_resumed(
    harness_factory: Callable[..., Harness],
) -> None:
    h = harness_factory(web_latency=(60, 60))
    h.config = parse_config(config_dict(web_accounts=1, api_accounts=0), "test")
    s = await h.start()
    web = s.lanes[ModelKind.WEB]
    looks: list[Claim | None] = []  # every claim the web lane made, and what it got
    claim = web.claim

    async def spy(account: AccountConfig) -> Claim | None:
        got = await claim(account)
        looks.append(got)
        return got

    web.claim = spy  # type: ignore[method-assign]
    await s.submit(make_tasks(3, model="web-model", kind=ModelKind.WEB))
    await until(lambda: bool(h.store.running_ids()))
    [current] = h.store.running_ids()
    h.store.pause("all")  # as `media-assistant pause` in another terminal does
    await until(lambda: h.states()[current] == "success")
    # The lane asked for work again and again once its task was done, and got none: the pause
    # held, not the lack of a look.
    after = len(looks)
    await until(lambda: len(looks) >= after + 3)
    assert looks[after:] == [None] * (len(looks) - after)
    assert sorted(h.states().values()) == ["pending", "pending", "success"]
    assert not h.store.running_ids()
    h.store.resume("all")
    assert await h.run(timeout=30) == []
    assert set(h.states().values()) == {"success"}


async def test_a_paused_account_hands_its_work_to_the_other_account(
    harness_factory: Callable[..., Harness],
) -> None:
    h = harness_factory(web_latency=(20, 30))
    h.config = parse_config(config_dict(web_accounts=2, api_accounts=0), "test")
    h.store.pause("account", "web-1")
    s = await h.start()
    await s.submit(make_tasks(4, model="web-model", kind=ModelKind.WEB))
    assert await h.run(timeout=30) == []
    assert {r.account_id for r in h.store.list_tasks()} == {"web-2"}


async def test_a_scheduled_batch_starts_at_its_time_and_keeps_its_accounts_pacing(
    harness_factory: Callable[..., Harness],
) -> None:
    """Schedules are per batch, pacing per account: both hold. Nothing of the night batch
    starts before its time, and on the paced account the gaps between answers stay."""
    h = harness_factory(web_latency=(20, 20))
    data = config_dict(web_accounts=1, api_accounts=1)
    data["accounts"][0]["pacing"] = {"min_gap_s": 120}
    h.config = parse_config(data, "test")
    s = await h.start()
    start_at = h.clock.now() + 600
    night = make_tasks(3, model="web-model", kind=ModelKind.WEB, batch="night")
    night += make_tasks(2, model="api-model", kind=ModelKind.API, batch="night")
    await s.store.submit(night, batch=BatchInfo("night", start_at=start_at))
    await s.submit(make_tasks(2, model="api-model", kind=ModelKind.API, batch="now", prefix="n"))
    assert await h.run(timeout=60) == []
    rows = {r.task_id: r for r in h.store.list_tasks()}
    assert set(r.state for r in rows.values()) == {"success"}
    night_rows = [r for r in rows.values() if r.batch_id == "night"]
    assert all((r.started_at or 0) >= start_at for r in night_rows)
    assert all((rows[f"n-{i:03d}"].finished_at or 0) < start_at for i in range(2))
    web = sorted(
        (r.started_at or 0, r.finished_at or 0) for r in night_rows if r.model_kind == "web"
    )
    assert all(b[0] - a[1] >= 120 for a, b in zip(web, web[1:], strict=False))
