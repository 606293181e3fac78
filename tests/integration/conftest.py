"""Fixtures for integration tests: the scheduler with simulated providers on a scaled clock; the
API simulator with the two keys of tests/support/api_run.py; real proxies (tinyproxy with a
password, Dante's SOCKS5: tests/support/proxies.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from media_assistant.core.config.schema import AccountConfig, AppConfig
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import ScaledClock
from media_assistant.core.model.provider import Provider
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from media_assistant.sim.api_server import ApiSimulator
from media_assistant.sim.fake_api import FakeApi, FakeApiProvider
from media_assistant.sim.fake_web import FakeChatSite, FakeWebProvider
from tests.conftest import make_config
from tests.support.api_run import KEY_ENV, api_simulator
from tests.support.proxies import PROXY_PASSWORD, PROXY_USER, DanteProxy, TinyProxy

SPEED = 200.0


@dataclass
class Harness:
    store: Store
    clock: ScaledClock
    config: AppConfig
    site: FakeChatSite
    api: FakeApi
    path: Path
    overrides: dict[str, Provider]
    scheduler: Scheduler | None = None

    def __post_init__(self) -> None:
        self.db = DbThreads()
        self.astore = AsyncStore(self.store, self.db)

    def factory(self, account: AccountConfig) -> Provider:
        if account.id in self.overrides:
            return self.overrides[account.id]
        if account.kind is ModelKind.WEB:
            return FakeWebProvider(self.site, account.id)
        return FakeApiProvider(self.api, account.id)

    async def start(self) -> Scheduler:
        self.scheduler = Scheduler(
            self.config, self.astore, self.clock, self.factory, seed=1, tick_s=0.5, idle_poll_s=1.0
        )
        await self.scheduler.start()
        return self.scheduler

    async def run(self, timeout: float = 30.0) -> Any:
        assert self.scheduler is not None
        return await asyncio.wait_for(self.scheduler.run_until_idle(), timeout)

    def states(self) -> dict[str, str]:
        return {r.task_id: r.state for r in self.store.list_tasks()}


@pytest.fixture
async def harness_factory(tmp_path: Path) -> AsyncIterator[Callable[..., Harness]]:
    """Harnesses on one data dir; whatever a test leaves running is stopped after it."""
    made: list[Harness] = []

    def make(
        web_latency: tuple[float, float] = (31, 370),
        api_latency: tuple[float, float] = (8, 20),
        url: str | None = None,
        start: float | None = None,
        **config_kwargs: Any,
    ) -> Harness:
        """``url``: the store (default: a SQLite file in the test's folder); ``start``: the
        clock's first moment (default: now)."""
        clock = ScaledClock(SPEED, start)
        engine = open_engine(url or sqlite_url(tmp_path / "ma.db"))
        h = Harness(
            Store(engine, clock),
            clock,
            make_config(**config_kwargs),
            FakeChatSite(web_latency, seed=5),
            FakeApi(api_latency, seed=5),
            tmp_path,
            {},
        )
        made.append(h)
        return h

    yield make
    for h in made:
        if h.scheduler is not None and h.scheduler.started:
            await h.scheduler.stop()
        h.db.close()
        h.store.engine.dispose()


@pytest.fixture
def harness(harness_factory: Callable[..., Harness]) -> Harness:
    return harness_factory()


# ------------------------------------------------------------------ the API simulator, proxies


@pytest.fixture
def api_sim() -> Iterator[ApiSimulator]:
    """The API simulator serving KEY_A and KEY_B (tests/support/api_run.py)."""
    with api_simulator() as sim:
        yield sim


@pytest.fixture
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The keys in the variables the accounts name (MA_KEY_A, MA_KEY_B)."""
    for name, value in KEY_ENV.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def http_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TinyProxy]:
    """tinyproxy asking PROXY_USER / PROXY_PASSWORD. Not under tmp_path: web tests look for
    leftover browsers by that folder."""
    proxy = TinyProxy(tmp_path_factory.mktemp("tinyproxy"), PROXY_USER, PROXY_PASSWORD)
    proxy.start()
    yield proxy
    proxy.stop()


@pytest.fixture
def socks_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DanteProxy]:
    """Dante's SOCKS5 server, admitting loopback clients without a password."""
    proxy = DanteProxy(tmp_path_factory.mktemp("danted"))
    proxy.start()
    yield proxy
    proxy.stop()
