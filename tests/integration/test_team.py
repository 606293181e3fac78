"""Team mode in one process: several schedulers — one per "workstation" — share one real
PostgreSQL queue, each with its own store, engine and database threads, as separate PCs would.
The multi-process checks (kill -9 of a workstation, the database restarted) are in
tests/faults/test_team_processes.py."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from media_assistant.core.config.schema import AccountConfig, AppConfig, parse_config
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import ScaledClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.provider import Provider
from media_assistant.core.model.states import AccountState, ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from media_assistant.sim.fake_api import FakeApi, FakeApiProvider
from media_assistant.sim.fake_web import FakeChatSite, FakeWebProvider
from tests.conftest import config_dict, make_tasks

SPEED = 100.0
# At SPEED the default 90 s without a heartbeat is 0.9 real seconds: a loaded machine stalls one
# workstation's database thread that long, and another workstation rightly reaps its tasks and
# starts them again (seen under load: 11 starts for 10 tasks). No test here is about reaping
# (tests/faults/test_team_processes.py is, with real processes): an hour of clock, 36 real s.
SCHEDULER = {"dead_after_s": 3600.0}


@dataclass
class Workstation:
    name: str
    store: Store
    db: DbThreads
    scheduler: Scheduler


@pytest.fixture
async def team(pg_url: str) -> AsyncIterator[Callable[..., Workstation]]:
    """Workstations on one team database, sharing one simulated site and API (so their
    counters see every workstation's requests together)."""
    clock = ScaledClock(SPEED)
    site, api = FakeChatSite((31, 370), seed=3), FakeApi((8, 20), seed=3)
    made: list[Workstation] = []

    def factory(account: AccountConfig) -> Provider:
        if account.kind is ModelKind.WEB:
            return FakeWebProvider(site, account.id)
        return FakeApiProvider(api, account.id)

    def join(name: str, **config: Any) -> Workstation:
        cfg: AppConfig = parse_config(
            {**config_dict(scheduler=SCHEDULER, **config), "team": {"workstation": name}},
            f"{name}.toml",
        )
        store = Store(open_engine(pg_url), clock, EventBus())
        db = DbThreads()
        scheduler = Scheduler(cfg, AsyncStore(store, db), clock, factory, seed=len(made))
        ws = Workstation(name, store, db, scheduler)
        made.append(ws)
        return ws

    join.site = site  # type: ignore[attr-defined]
    join.api = api  # type: ignore[attr-defined]
    yield join
    for ws in made:
        if ws.scheduler.started:
            await ws.scheduler.stop()
        ws.db.close()
        ws.store.engine.dispose()


async def run_all(workstations: list[Workstation], timeout: float = 60.0) -> None:
    await asyncio.wait_for(
        asyncio.gather(*(w.scheduler.run_until_idle() for w in workstations)), timeout
    )


async def test_an_api_key_never_has_more_in_flight_than_its_concurrency_across_the_team(
    team: Any,
) -> None:
    """Three workstations, one shared API account at concurrency 2: each would send 2 on its
    own (6 at a time); together they never have more than 2 requests in flight."""
    stations = [team(f"pc-{i}", web_accounts=0, api_accounts=1, concurrency=2) for i in range(1, 4)]
    for ws in stations:
        await ws.scheduler.start()
    await stations[0].scheduler.submit(make_tasks(30))
    await run_all(stations)
    states = {r.state for r in stations[0].store.list_tasks()}
    assert states == {"success"}
    stats = team.api.stats("api-1")
    assert stats.served == 30
    assert stats.max_in_flight == 2  # reached, never exceeded
    where = {r.workstation for r in stations[0].store.list_tasks()}
    assert len(where) >= 2, where  # the work was shared


async def test_a_web_account_runs_only_on_the_workstation_that_holds_it(team: Any) -> None:
    """Both configs declare web-1; the first workstation to start holds it. The second does
    not use it (its browser profile is not there), and every web task runs on the first."""
    first = team("pc-1", web_accounts=1, api_accounts=0)
    second = team("pc-2", web_accounts=1, api_accounts=0)
    await first.scheduler.start()
    await second.scheduler.start()
    assert second.scheduler.rt is not None
    assert second.scheduler.rt.accounts.held_elsewhere("web-1") == "pc-1"
    status = second.scheduler.rt.accounts.statuses["web-1"]
    assert status.state(0) is AccountState.ENABLED  # the shared row carries no problem
    seen = {w.workstation: w for w in second.store.workstations()}
    assert set(seen) == {"pc-1", "pc-2"}
    assert seen["pc-1"].web_accounts == ("web-1",) and seen["pc-2"].web_accounts == ()
    assert seen["pc-1"].online and seen["pc-2"].online
    await first.scheduler.submit(make_tasks(4, model="web-model", kind=ModelKind.WEB))
    await run_all([first, second])
    rows = first.store.list_tasks()
    assert {(r.state, r.workstation) for r in rows} == {("success", "pc-1")}
    assert team.site.total_conflicts == 0 and team.site.max_concurrent == 1


async def test_rate_limits_hold_across_the_team_and_spend_nothing_without_a_request(
    team: Any,
) -> None:
    """rpm 6 on a shared account: two workstations together start no more than 6 requests in
    the first minute (each alone would start 6)."""
    stations = [team(f"pc-{i}", web_accounts=0, api_accounts=1, concurrency=5) for i in (1, 2)]
    for ws in stations:
        ws.scheduler.config = parse_config(
            {
                **config_dict(web_accounts=0, api_accounts=1, concurrency=5),
                "scheduler": SCHEDULER,
                "team": {"workstation": ws.name},
            }
            | {
                "accounts": [
                    {
                        "id": "api-1",
                        "kind": "api",
                        "base_url": "http://127.0.0.1:9/v1",
                        "models": ["api-model"],
                        "concurrency": 5,
                        "rpm": 6,
                        "api_key_env": "MA_TEST_KEY",
                    }
                ]
            },
            f"{ws.name}.toml",
        )
        await ws.scheduler.start()
    clock = stations[0].store.clock
    t0 = clock.now()
    await stations[0].scheduler.submit(make_tasks(10))
    await run_all(stations, timeout=90)
    starts = sorted(
        e.at
        for r in stations[0].store.list_tasks()
        for e in stations[0].store.events(r.task_id)
        if e.code == "started"
    )
    # Every task's history in the failure (a task once started twice under load: SCHEDULER).
    assert len(starts) == 10, [
        (r.task_id, r.state, e.code, e.message)
        for r in stations[0].store.list_tasks()
        for e in stations[0].store.events(r.task_id)
        if e.code != "submitted"
    ]
    in_first_minute = [s for s in starts if s < t0 + 60]
    assert len(in_first_minute) <= 6, [round(s - t0, 1) for s in starts]
