"""The reaper and a heartbeat that commits between its look and its write (issue 27 item 6), on a
real PostgreSQL under READ COMMITTED, gated with real connections: the heartbeat's transaction
holds the row while the reaper's UPDATE waits for it (seen in ``pg_stat_activity``), then
commits. The beat must win: a live attempt is never taken back."""

from __future__ import annotations

import threading
import time

import psycopg

from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.records import ReleasedTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine
from tests.conftest import make_tasks


def test_a_heartbeat_committed_while_the_reaper_writes_wins(pg_url: str) -> None:
    store = Store(open_engine(pg_url), SystemClock(), EventBus())
    try:
        store.submit(make_tasks(1, model="by-hand"))
        claim = store.claim_next(
            kind=ModelKind.API, account_id="api-1", models=["by-hand"], owner_id="s1", deadline_s=60
        )
        assert claim is not None
        with psycopg.connect(pg_url, autocommit=True) as admin:
            # The last beat was two minutes ago: the reaper will see the row as dead.
            admin.execute("UPDATE tasks SET heartbeat_at = heartbeat_at - 120")
            beat = psycopg.connect(pg_url)  # the heartbeat's own transaction, held open
            try:
                beat.execute(
                    "UPDATE tasks SET heartbeat_at = %s WHERE task_id = %s",
                    (time.time(), claim.task_id),
                )
                released: list[ReleasedTask] = []
                reaper = threading.Thread(
                    target=lambda: released.extend(store.reap_stale(dead_after=90.0))
                )
                reaper.start()
                # The reaper has looked (the row is stale for it) and waits to write it.
                deadline = time.monotonic() + 30
                waiting = (
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND query LIKE 'UPDATE tasks%%'"
                )
                while admin.execute(waiting).fetchone() != (1,):
                    assert time.monotonic() < deadline and reaper.is_alive(), "never waited"
                    time.sleep(0.02)
                beat.commit()  # the beat lands between the reaper's look and its write
            finally:
                beat.close()
            reaper.join(30)
        assert released == []
        (row,) = store.get_many([claim.task_id])
        assert row.state == "running" and row.attempt == 1 and row.lost_count == 0
    finally:
        store.engine.dispose()
