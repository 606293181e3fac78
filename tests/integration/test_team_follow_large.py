"""The follower survives a large transaction (issue 28 item 7): a ``store copy`` or an import
that holds its event ids for longer than others commit theirs — past the old gap list's 10,000
ids, or begun before a window started — still reaches every window once it commits.

The long transaction is a real second connection holding its transaction open (the gate), a
third commits after it; the follower is polled by hand."""

from __future__ import annotations

from collections.abc import AsyncIterator

import psycopg
import pytest

from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine
from tests.conftest import make_tasks
from tests.integration.test_team_follow import Window


@pytest.fixture
async def windows(pg_url: str) -> AsyncIterator[list[Window]]:
    made: list[Window] = []
    yield made
    for w in made:
        await w.close()


async def test_a_long_transaction_of_more_than_ten_thousand_events_reaches_every_window(
    pg_url: str, windows: list[Window]
) -> None:
    other = Store(open_engine(pg_url), SystemClock(), EventBus())
    other.submit(make_tasks(3))
    early = Window(pg_url, listen=False, interval_s=3600)  # following before it began
    windows.append(early)
    await early.start()
    copy = psycopg.connect(pg_url)  # the store copy: its ids are taken now, it commits last
    copy.execute(
        "INSERT INTO task_events (task_id, at, kind, message, origin) "
        "VALUES ('api-000', 1, 'log', 'copied first', 'elsewhere')"
    )
    copy.execute(
        "INSERT INTO task_events (task_id, at, kind, message, origin) "
        "SELECT 'api-001', 1, 'log', 'copied', 'elsewhere' FROM generate_series(1, 10000)"
    )
    with psycopg.connect(pg_url, autocommit=True) as teammate:  # commits meanwhile, above them
        teammate.execute(
            "INSERT INTO task_events (task_id, at, kind, message, origin) "
            "VALUES ('api-002', 1, 'log', 'a short one', 'elsewhere')"
        )
    await early.follower.poll()
    assert early.synced == ["api-002"]
    late = Window(pg_url, listen=False, interval_s=3600)  # started after the teammate's commit
    windows.append(late)
    await late.start()
    for _ in range(3):
        await early.follower.poll()
        await late.follower.poll()
    copy.commit()
    copy.close()
    await early.follower.poll()
    await late.follower.poll()
    # Every copied task, in both windows, once.
    assert sorted(early.synced) == ["api-000", "api-001", "api-002"]
    assert sorted(late.synced) == ["api-000", "api-001"]
    await early.follower.poll()
    assert sorted(early.synced) == ["api-000", "api-001", "api-002"]
    other.engine.dispose()
