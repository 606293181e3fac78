"""Two workstations and one API slot under READ COMMITTED (issue 27 item 5), on a real
PostgreSQL with two real connections. Workstation A takes the account's only slot and commits
while B's statement, begun before, waits on the slot's row: the lock is granted to B, and its
statement still answers "free" — its snapshot predates A's claim. That one statement was the
whole slot claim; two PCs could share a slot. The claim now tests the locked slot again in a
fresh statement, which sees A's claim, and takes nothing."""

from __future__ import annotations

import threading
import time

import psycopg

from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store, api_gate
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.db import open_engine
from tests.conftest import make_tasks


def test_a_slot_taken_and_committed_meanwhile_is_not_taken_twice(pg_url: str) -> None:
    engine = open_engine(pg_url)
    try:
        AccountStore(engine, SystemClock(), EventBus()).sync([("api-1", ModelKind.API, True)])
        Store(engine, SystemClock(), EventBus()).submit(make_tasks(2, model="by-hand"))
        with psycopg.connect(pg_url) as a, psycopg.connect(pg_url, autocommit=True) as watch:
            # A claims api-000 and takes slot 0; not committed yet.
            (lease,) = a.execute(
                "UPDATE tasks SET state = 'running', lease = lease + 1, owner_id = 'pc-a' "
                "WHERE task_id = 'api-000' RETURNING lease"
            ).fetchone()  # type: ignore[misc]
            a.execute(
                "UPDATE api_slots SET task_id = 'api-000', lease = %s "
                "WHERE account_id = 'api-1' AND slot = 0",
                (lease,),
            )
            seen: dict[str, object] = {}

            def b() -> None:
                # B's claim of a slot, waiting for A's lock instead of skipping it (so that A
                # commits while B's statement is under way: the narrow window, held open).
                with engine.begin() as conn:
                    seen["taken"] = api_gate.take_slot(conn, "api-1", 1, "api-001", 1, skip=False)

            other = threading.Thread(target=b)
            other.start()
            deadline = time.monotonic() + 30
            waiting = (
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND query LIKE '%%api_slots%%'"
            )
            while watch.execute(waiting).fetchone() != (1,):
                assert time.monotonic() < deadline and other.is_alive(), "B never waited"
                time.sleep(0.02)
            a.commit()  # A's claim lands while B's statement waits on the slot
            other.join(30)
            holder = watch.execute(
                "SELECT task_id FROM api_slots WHERE account_id = 'api-1' AND slot = 0"
            ).fetchone()
        # B's statement found the slot locked-then-"free" by its old snapshot; the fresh
        # statement saw A's claim: B takes nothing, the slot stays A's.
        assert seen["taken"] is None
        assert holder == ("api-000",)
    finally:
        engine.dispose()
