"""A saturated shared key costs nothing (issue 28 item 4): a claim the key will refuse — no free
slot across the team, no rate budget left — is refused before it locks or updates the head task.
A trigger counts the head's updates on a sequence, which a rollback does not undo."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from media_assistant.core.model.accounts import ApiLimits
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.records import Claim
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store, api_gate
from media_assistant.core.store.db import open_engine, write_tx
from tests.conftest import make_tasks


@pytest.fixture
def team_store(pg_url: str) -> Iterator[Store]:
    store = Store(open_engine(pg_url), ManualClock(), EventBus())
    with write_tx(store.engine) as conn:
        api_gate.ensure_rows(conn, ["api-1"])
    store.submit(make_tasks(3))
    yield store
    store.engine.dispose()


def count_task_updates(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SEQUENCE task_updates")
        conn.execute(
            "CREATE FUNCTION count_update() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN PERFORM nextval('task_updates'); RETURN NEW; END $$"
        )
        conn.execute(
            "CREATE TRIGGER count_update BEFORE UPDATE ON tasks "
            "FOR EACH ROW EXECUTE FUNCTION count_update()"
        )


def task_updates(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT last_value, is_called FROM task_updates").fetchone()
    assert row is not None
    return int(row[0]) if row[1] else 0


def claim(store: Store, owner: str, limits: ApiLimits) -> Claim | None:
    return store.claim_next(
        kind=ModelKind.API,
        account_id="api-1",
        models=("api-model",),
        owner_id=owner,
        deadline_s=60,
        workstation=owner,
        api_limits=limits,
    )


@pytest.mark.parametrize(
    "limits", [ApiLimits(1), ApiLimits(5, rpm=1)], ids=["no-free-slot", "no-rate-budget"]
)
def test_a_claim_the_key_refuses_does_not_touch_the_head_task(
    pg_url: str, team_store: Store, limits: ApiLimits
) -> None:
    first = claim(team_store, "ws-a", limits)
    assert first is not None
    count_task_updates(pg_url)
    for owner in ("ws-b", "ws-c", "ws-b"):
        assert claim(team_store, owner, limits) is None
    assert task_updates(pg_url) == 0  # the head was never updated (nor rolled back)
    # Once the key has room again, the same claim goes through (and the trigger counts).
    team_store.finish_success(first, "done")
    team_store.clock.advance_sync(61)  # type: ignore[attr-defined]
    assert task_updates(pg_url) == 1  # the finish
    assert claim(team_store, "ws-b", limits) is not None
    assert task_updates(pg_url) == 2
