"""The team database stops mid-run and comes back (issue 19 item 5): no new claim while it is
away, running generations go on and their answers are held, then written (fenced) when it
answers again — nothing lost, nothing asked twice. A real PostgreSQL server, stopped and
started; in-process schedulers (the multi-process run is tests/faults/test_team_processes.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from media_assistant.core.config.schema import AccountConfig, parse_config
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus, StoreLinkChanged
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from tests.conftest import config_dict, make_tasks
from tests.support.postgres import PostgresServer


class Counting:
    """Answers after ``seconds``; counts how many times each prompt was asked."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.asked: dict[str, int] = {}

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        self.asked[ctx.task.prompt] = self.asked.get(ctx.task.prompt, 0) + 1
        await asyncio.sleep(self.seconds)
        return GenerationResult(text=f"Answer to: {ctx.task.prompt}")

    async def aclose(self) -> None:
        return None


async def test_the_team_database_stopped_mid_run_loses_nothing_and_asks_nothing_twice(
    pg_server: PostgresServer, pg_url: str
) -> None:
    cfg = parse_config(
        {
            **config_dict(web_accounts=0, api_accounts=1, concurrency=3),
            "team": {"workstation": "pc-1"},
        },
        "pc-1.toml",
    )
    provider = Counting(0.6)
    bus = EventBus()
    store = Store(open_engine(pg_url), SystemClock(), bus)
    db = DbThreads()

    def factory(account: AccountConfig) -> Any:
        return provider

    scheduler = Scheduler(cfg, AsyncStore(store, db), SystemClock(), factory, seed=1)
    links: list[StoreLinkChanged] = []
    bus.subscribe(lambda e: isinstance(e, StoreLinkChanged) and links.append(e))
    await scheduler.start()
    try:
        await scheduler.submit(make_tasks(12))
        while sum(provider.asked.values()) < 4:  # a few under way
            await asyncio.sleep(0.02)
        await asyncio.to_thread(pg_server.stop, "fast")  # everyone's connections drop
        down_at = time.monotonic()
        try:
            while not links or links[-1].reachable:  # noticed (a beat, a claim, an answer)
                assert time.monotonic() - down_at < 30, "the outage was never noticed"
                await asyncio.sleep(0.05)
            await asyncio.sleep(2.0)  # generations under way finish meanwhile, held
            held = max(e.held for e in links)
        finally:
            await asyncio.to_thread(pg_server.start)
        assert await asyncio.wait_for(scheduler.run_until_idle(), 90) == []
        rows = store.list_tasks()
        assert {r.state for r in rows} == {"success"}
        assert len(rows) == 12
        assert set(provider.asked.values()) == {1}, provider.asked  # nothing asked twice
        assert all(r.result_text == f"Answer to: {r.prompt}" for r in rows)
        assert held >= 1  # answers that arrived while it was away were kept, then written
        assert links[-1].reachable and not links[0].reachable
        assert max(r.attempt for r in rows) == 1
    finally:
        await scheduler.stop()
        db.close()
        store.engine.dispose()
