"""Issue 9's "tests that must exist", API side, end to end: the scheduler with the real API
provider over HTTP against the loopback OpenAI-compatible server, on a clock running 100 times
faster (the server's own durations are scaled to match). Every form of Retry-After a server
sends, and a task the server refuses every time."""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import AsyncIterator, Iterator
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest

from media_assistant.core.config.schema import parse_config
from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import ScaledClock
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.retry import RETRY_AFTER_CAP_S
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from media_assistant.providers.registry import ProviderRegistry
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator

SPEED = 100.0
KEY = "sk-sim-faults"
API_COOLDOWN_S = 30.0  # [lanes.api] cooldown_s default: the pause when the server names none


@pytest.fixture
def sim() -> Iterator[ApiSimulator]:
    server = ApiSimulator(
        ApiSimConfig(latency_s=(8, 20), time_scale=1 / SPEED, seed=5, sim_time_headers=True)
    )
    server.start_in_thread()
    yield server
    server.stop_in_thread()


class ApiRun:
    def __init__(self, root: Path, sim: ApiSimulator) -> None:
        self.sim = sim
        self.clock = ScaledClock(SPEED)
        self.paths = Paths.resolve(root / "data")
        self.paths.ensure()
        self.config = parse_config(
            {
                "models": [{"name": "api-model", "kind": "api"}],
                "accounts": [
                    {
                        "id": "api-1",
                        "kind": "api",
                        "base_url": sim.base_url,
                        "api_key_env": "MA_FAULTS_KEY",
                        "models": ["api-model"],
                        "concurrency": 2,
                    }
                ],
            },
            "test",
        )
        self.store = Store(open_engine(sqlite_url(self.paths.database)), self.clock)
        self.db = DbThreads()
        self.scheduler = Scheduler(
            self.config,
            AsyncStore(self.store, self.db),
            self.clock,
            ProviderRegistry(self.config, self.paths),
            seed=2,
        )

    async def run(self, tasks: list[NewTask], timeout: float = 60) -> Any:
        await self.scheduler.start()
        await self.scheduler.submit(tasks)
        return await asyncio.wait_for(self.scheduler.run_until_idle(), timeout)

    def events(self, task_id: str) -> list[tuple[float, str]]:
        return [(e.at, e.message) for e in self.store.events(task_id)]

    async def close(self) -> None:
        if self.scheduler.started:
            await self.scheduler.stop()
        self.db.close()
        self.store.engine.dispose()


@pytest.fixture
async def api_run(
    tmp_path: Path, sim: ApiSimulator, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[ApiRun]:
    monkeypatch.setenv("MA_FAULTS_KEY", KEY)
    run = ApiRun(tmp_path, sim)
    yield run
    await run.close()


def task(task_id: str) -> NewTask:
    return NewTask(
        task_id, "api-model", ModelKind.API, f"Write about {task_id} [task:{task_id}]", "b"
    )


# (form, the header, the pause expected in clock seconds: low, high)
FORMS: list[tuple[str, str | None, float, float]] = [
    ("seconds", "7", 7.0, 7.0),
    ("http-date", None, 0.0, 60.0),  # a date 60 s ahead: the bounds come from the run
    ("missing", "", API_COOLDOWN_S, API_COOLDOWN_S),
    ("absurd", "86400", RETRY_AFTER_CAP_S, RETRY_AFTER_CAP_S),  # a day: clamped to 120 s
    ("garbled", "soon", API_COOLDOWN_S, API_COOLDOWN_S),  # not a number nor a date: as missing
    ("negative", "-5", API_COOLDOWN_S, API_COOLDOWN_S),
]


@pytest.mark.parametrize(("form", "header", "low", "high"), FORMS, ids=[f[0] for f in FORMS])
async def test_every_retry_after_form_waits_as_said_and_uses_no_attempt(
    api_run: ApiRun, sim: ApiSimulator, form: str, header: str | None, low: float, high: float
) -> None:
    """A 429 says how long to wait in one of several ways. Each must be read right end to end:
    seconds as seconds, an HTTP date as the time until then, a missing or unreadable value as
    the lane's own pause, an absurd one (a day) clamped to 120 s — the task waits that long
    without using an attempt, then succeeds. Before the clamp an absurd value parked the
    account for the night; a misread date retried at once into another 429."""
    until = None
    if header is None:  # an HTTP date 60 clock-seconds from now (whole seconds)
        until = math.floor(api_run.clock.now() + 60.0)
        header = formatdate(until, usegmt=True)
    sim.inject("429", count=1, match="[task:r1]", retry_after_header=header)
    assert await api_run.run([task("r1")]) == []
    row = api_run.store.get("r1")
    assert row is not None
    assert (row.state, row.attempt) == ("success", 1)  # the wait used no attempt
    events = api_run.events("r1")
    [(deferred_at, deferred)] = [(at, m) for at, m in events if "account pauses" in m]
    pause = float(re.search(r"account pauses ([\d.]+) s", deferred).group(1))  # type: ignore[union-attr]
    started = [at for at, m in events if "started" in m]
    if until is not None:
        # The time left until that date when the 429 arrived: between the attempt's start
        # and the line saying so (the scaled clock runs on while a loaded machine works).
        low, high = until - deferred_at, until - started[0]
    assert low - 1.0 <= pause <= high + 0.5, (form, pause, low, high)
    # It really waited: the pause began after the first attempt's 429, so the second one
    # started at least that long after the first.
    assert len(started) == 2 and started[1] - started[0] >= pause
    stats = sim.stats()["total"]
    assert (stats["rate_limited"], stats["served"]) == (1, 1)


async def test_a_task_the_server_refuses_every_time_fails_after_its_attempts(
    api_run: ApiRun, sim: ApiSimulator
) -> None:
    """A prompt that gets a server error every time must end — failed after its three
    attempts, each asked exactly once, backing off in between — and not hold up the rest."""
    sim.inject("500", count=1000, match="[task:bad]")
    tasks = [task("bad"), *(task(f"good{i}") for i in range(4))]
    assert await api_run.run(tasks) == []
    rows = {r.task_id: r for r in api_run.store.list_tasks()}
    bad = rows.pop("bad")
    assert (bad.state, bad.attempt, bad.error_kind) == ("failed", 3, "server_error")
    # A poison pill (issue 25): every attempt failed the same way.
    assert "failed the same way on 1 account: 3 attempts" in (bad.error_message or "")
    assert {r.state for r in rows.values()} == {"success"}
    asked = [r for r in sim.stats()["requests"] if r.get("task_marker") == "bad"]
    assert len(asked) == 3
    gaps = [b["at"] - a["at"] for a, b in zip(asked, asked[1:], strict=False)]
    assert all(g > 0 for g in gaps)
