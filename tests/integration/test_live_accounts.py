"""A running scheduler follows account changes without a restart (core/lanes/live_accounts.py): a
new configuration (the set-up window), and rebuild requests in the accounts table (re-enabling,
``accounts reset``). Real SQLite file, simulated providers on a scaled clock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from media_assistant.core.config.schema import AccountConfig, parse_config
from media_assistant.core.model.errors import AccountUnavailable, ErrorKind, ProviderError
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.model.states import AccountProblem, AccountState, ModelKind
from media_assistant.sim.fake_api import FakeApiProvider
from tests.conftest import config_dict, make_config, make_tasks
from tests.integration.conftest import Harness


class Tracked:
    """A provider that says which build it is and whether it was closed."""

    def __init__(self, inner: Any, build: int) -> None:
        self.inner = inner
        self.build = build
        self.served = 0
        self.closed = False

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        assert not self.closed, "a closed provider was given a task"
        result: GenerationResult = await self.inner.generate(ctx)
        self.served += 1
        return result

    async def aclose(self) -> None:
        self.closed = True


class Broken:
    async def generate(self, ctx: TaskContext) -> GenerationResult:
        raise ProviderError(ErrorKind.BAD_CONFIG, "adapter outdated (simulated)")

    async def aclose(self) -> None:
        return None


def tracking_factory(harness: Harness, built: list[Tracked]) -> None:
    def factory(account: AccountConfig) -> Any:
        inner = Harness.factory(harness, account)
        provider = Tracked(inner, len(built) + 1)
        built.append(provider)
        return provider

    harness.factory = factory  # type: ignore[method-assign]


async def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_an_account_added_while_running_starts_working(harness: Harness) -> None:
    harness.config = make_config(web_accounts=1, api_accounts=0)
    s = await harness.start()
    data = config_dict(web_accounts=1, api_accounts=1)
    await s.apply_config(parse_config(data, "new"))
    await s.submit(make_tasks(6))  # api-model: only the new account serves it
    assert await harness.run() == []
    assert set(harness.states().values()) == {"success"}
    assert harness.api.stats("api-1").served == 6
    statuses = await s.accounts.all()
    assert statuses["api-1"].state(harness.clock.now()) is AccountState.ENABLED


async def test_a_removed_account_finishes_its_running_task_and_takes_no_more(
    harness: Harness,
) -> None:
    harness.config = make_config(web_accounts=2, api_accounts=0)
    built: list[Tracked] = []
    tracking_factory(harness, built)
    s = await harness.start()
    await s.submit(make_tasks(6, model="web-model", kind=ModelKind.WEB))
    await wait_for(lambda: len(harness.store.running_ids()) == 2)
    running_on_2 = next(
        r.task_id
        for r in harness.store.list_tasks()
        if r.account_id == "web-2" and r.state == "running"
    )
    web2 = next(p for p in built if p.inner.account_id == "web-2")
    await s.apply_config(make_config(web_accounts=1, api_accounts=0))
    assert await harness.run(timeout=60) == []
    await s.live.settled()
    rows = {r.task_id: r for r in harness.store.list_tasks()}
    assert {r.state for r in rows.values()} == {"success"}
    assert rows[running_on_2].account_id == "web-2"  # it finished where it started
    assert [r.task_id for r in rows.values() if r.account_id == "web-2"] == [running_on_2]
    assert web2.closed and web2.served == 1
    assert "web-2" not in s.providers


async def test_an_edited_account_gets_a_fresh_provider_after_its_running_task(
    harness: Harness,
) -> None:
    harness.config = make_config(web_accounts=1, api_accounts=0)
    built: list[Tracked] = []
    tracking_factory(harness, built)
    s = await harness.start()
    await s.submit(make_tasks(3, model="web-model", kind=ModelKind.WEB))
    await wait_for(lambda: len(harness.store.running_ids()) == 1)
    data = config_dict(web_accounts=1, api_accounts=0)
    data["accounts"][0]["pacing"] = {"min_gap_s": 0}  # any edit
    await s.apply_config(parse_config(data, "edited"))
    first = built[0]
    assert not first.closed  # its task still runs on it
    assert await harness.run(timeout=60) == []
    assert first.served == 1 and first.closed
    assert built[1].served == 2 and not built[1].closed
    assert s.lanes[ModelKind.WEB].account("web-1") == parse_config(data, "x").accounts[0]


async def test_reenabling_an_account_rebuilds_its_provider(harness: Harness) -> None:
    """Before: the re-enabled account kept the provider built before the fix and failed its next
    task as bad config again."""
    harness.config = make_config(web_accounts=1, api_accounts=0)
    builds: list[str] = []

    def factory(account: AccountConfig) -> Any:
        builds.append(account.id)
        return Broken() if len(builds) == 1 else Harness.factory(harness, account)

    harness.factory = factory  # type: ignore[method-assign]
    s = await harness.start()
    await s.submit(make_tasks(2, model="web-model", kind=ModelKind.WEB))
    await wait_for(lambda: "failed" in harness.states().values())
    status = (await s.accounts.all())["web-1"]
    assert status.problem is AccountProblem.NEEDS_ATTENTION  # parked: bad config
    await s.accounts.set_enabled("web-1", True)  # "I fixed the adapter"
    await s.retry(all_failed=True)
    assert await harness.run(timeout=60) == []
    assert set(harness.states().values()) == {"success"}
    assert builds == ["web-1", "web-1"]
    assert (await s.accounts.all())["web-1"].problem is AccountProblem.NONE


async def test_reset_from_another_store_reaches_the_scheduler(harness: Harness) -> None:
    """The scheduler may run in another process: the rebuild request is a mark in the accounts
    row, seen at the next housekeeping tick."""
    harness.config = make_config(web_accounts=0, api_accounts=1)
    keys = {"api-1": "old"}
    served_with: list[str] = []

    class KeyedProvider(FakeApiProvider):
        def __init__(self, key: str) -> None:
            super().__init__(harness.api, "api-1")
            self.key = key

        async def generate(self, ctx: TaskContext) -> GenerationResult:
            if self.key != "new":
                raise ProviderError(ErrorKind.AUTH_REJECTED, "HTTP 401: invalid key")
            served_with.append(self.key)
            return await super().generate(ctx)

    harness.factory = lambda account: KeyedProvider(keys[account.id])  # type: ignore[method-assign]
    s = await harness.start()
    await s.submit(make_tasks(3))
    [stuck] = await harness.run(timeout=30)
    assert "credentials_rejected" in stuck.reason
    keys["api-1"] = "new"  # `accounts set-key`
    # Another process: its own AccountStore on the same file (no bus shared with ours).
    from media_assistant.core.model.events import EventBus
    from media_assistant.core.store.accounts import AccountStore

    AccountStore(harness.store.engine, harness.clock, EventBus()).reset("api-1")
    # Seen at the next housekeeping tick: the provider is rebuilt for the request's generation
    # (until then a claim for api-1 is refused by the claim statement itself, so the old key
    # takes nothing).
    assert s.rt is not None
    deadline = asyncio.get_running_loop().time() + 10
    while s.rt.accounts.built_generation("api-1") != 1:
        assert asyncio.get_running_loop().time() < deadline, "the reset was never seen"
        await asyncio.sleep(0.05)
    assert s.rt.accounts.statuses["api-1"].problem is AccountProblem.NONE
    await s.retry(all_failed=True)
    assert await harness.run(timeout=30) == []
    assert set(harness.states().values()) == {"success"}
    assert served_with == ["new"] * 3


@pytest.mark.expect_errors(r"no API key for account 'api-1'")
async def test_an_account_whose_provider_cannot_be_built_says_why(harness: Harness) -> None:
    harness.config = make_config(web_accounts=1, api_accounts=0)

    def factory(account: AccountConfig) -> Any:
        if account.kind is ModelKind.API:
            raise AccountUnavailable(f"no API key for account {account.id!r}")
        return Harness.factory(harness, account)

    harness.factory = factory  # type: ignore[method-assign]
    s = await harness.start()
    await s.apply_config(make_config(web_accounts=1, api_accounts=1))
    status = (await s.accounts.all())["api-1"]
    assert status.problem is AccountProblem.NEEDS_ATTENTION
    assert "no API key" in (status.problem_detail or "")
