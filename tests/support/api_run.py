"""The scheduler with the real API provider over HTTP on 127.0.0.1 against the API simulator,
as the API lane's integration tests drive it (tests/integration/test_api_lane.py, the proxies'
test_api_proxies.py, the termination walk): two keys the simulator knows, a simulator serving
them, and :class:`Run` — a real SQLite store, the provider registry, a scheduler run until
idle and stopped. The fixtures that hand these out are in tests/integration/conftest.py."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from media_assistant.core.config.schema import parse_config
from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.records import NewTask
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from media_assistant.providers.registry import ProviderRegistry
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec
from media_assistant.sim.fake_web import FakeChatSite, FakeWebProvider

KEY_A, KEY_B = "sk-sim-account-a", "sk-sim-account-b"
KEY_ENV = {"MA_KEY_A": KEY_A, "MA_KEY_B": KEY_B}  # the accounts' api_key_env


@contextlib.contextmanager
def api_simulator(
    a: KeySpec | None = None, b: KeySpec | None = None, *, time_scale: float = 0.02, seed: int = 3
) -> Iterator[ApiSimulator]:
    """The API simulator on a free loopback port, knowing KEY_A and KEY_B (``a``, ``b``: their
    limits)."""
    sim = ApiSimulator(
        ApiSimConfig(
            latency_s=(8, 20),
            time_scale=time_scale,
            seed=seed,
            keys={KEY_A: a or KeySpec(), KEY_B: b or KeySpec()},
        )
    )
    sim.start_in_thread()
    try:
        yield sim
    finally:
        sim.stop_in_thread()


def sim_port(sim: ApiSimulator) -> int:
    return int(sim.base_url.rsplit(":", 1)[1].split("/")[0])


class Run:
    """One scheduler on ``cfg`` in ``tmp_path/data``; :meth:`go` submits, runs until idle
    (the stuck models) and stops it."""

    def __init__(self, tmp_path: Path, cfg: dict[str, Any]) -> None:
        self.clock = SystemClock()
        self.paths = Paths.resolve(tmp_path / "data")
        self.paths.ensure()
        self.config = parse_config(cfg, "test")
        self.store = Store(open_engine(sqlite_url(self.paths.database)), self.clock)
        self.db = DbThreads()
        sim = self.config.simulation
        self.fake_site = FakeChatSite(latency_s=sim.web_latency_s, seed=sim.seed)
        self.registry = ProviderRegistry(
            self.config,
            self.paths,
            fake_web=lambda _config, account_id: FakeWebProvider(self.fake_site, account_id),
        )
        self.scheduler = Scheduler(
            self.config, AsyncStore(self.store, self.db), self.clock, self.registry, seed=4
        )

    async def go(self, tasks: list[NewTask], timeout: float = 60) -> Any:
        await self.scheduler.start()
        await self.scheduler.submit(tasks)
        try:
            return await asyncio.wait_for(self.scheduler.run_until_idle(), timeout)
        finally:
            await self.scheduler.stop()
            self.db.close()
            self.store.engine.dispose()
