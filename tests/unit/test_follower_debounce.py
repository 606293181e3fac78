"""The follower is debounced (issue 28 item 3): a storm of wake-ups (NOTIFY from fifty busy
workstations) costs a look every 250 ms at most, and the wake-ups meanwhile are not lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.store import Store
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncAccounts, AsyncStore
from media_assistant.core.store.follower import DatabaseFollower
from media_assistant.core.store.threads import DbThreads


async def test_a_storm_of_wake_ups_is_looked_at_four_times_a_second_at_most(
    db_path: Path,
) -> None:
    bus = EventBus()
    store = Store(open_engine(sqlite_url(db_path)), SystemClock(), bus)
    threads = DbThreads()
    follower = DatabaseFollower(
        AsyncStore(store, threads),
        AsyncAccounts(AccountStore(store.engine, store.clock, bus), threads),
        3600.0,  # no tick: only wake-ups make it look
    )
    loop = asyncio.get_running_loop()
    looks: list[float] = []
    looked = asyncio.Event()
    poll = follower.poll

    async def counted() -> None:
        looks.append(loop.time())
        looked.set()
        await poll()

    follower.poll = counted  # type: ignore[method-assign]
    await follower.start()
    try:
        for _ in range(3):  # three bursts of 200 wake-ups, each followed by one more
            for _ in range(200):
                follower._wake_now()
                await asyncio.sleep(0)
            looked.clear()
            follower._wake_now()
            await asyncio.wait_for(looked.wait(), 10)  # the last wake-up is served
        assert len(looks) >= 3
        gaps = [b - a for a, b in zip(looks, looks[1:], strict=False)]
        assert all(gap >= 0.25 - 0.005 for gap in gaps), gaps  # the bound
    finally:
        await follower.stop()
        threads.close()
        store.engine.dispose()
