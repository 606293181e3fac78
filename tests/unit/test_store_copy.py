"""``store copy``'s core (core/store/copy.py) between real stores: a SQLite file and a real
PostgreSQL database, in both directions — everything arrives, a second copy adds nothing, a task
id with other content is refused with nothing written, running rows arrive handed back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, delete, func, select, update

from media_assistant.core.model.accounts import AccountDeclaration
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind, StoreCopyConflict
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.records import BatchInfo
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.rules.pacing import PacingState
from media_assistant.core.store import Store, copy
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.base import E, T
from media_assistant.core.store.copy import copy_store
from media_assistant.core.store.db import open_engine, read_tx, sqlite_url, write_tx
from media_assistant.core.store.pacing import PacingStore
from media_assistant.core.store.schema import AccountRow, ApiSlotRow, SessionRow
from media_assistant.core.store.sessions import SessionStore
from tests.conftest import make_tasks

A = AccountRow.__table__  # type: ignore[attr-defined]
SLOTS = ApiSlotRow.__table__  # type: ignore[attr-defined]
S = SessionRow.__table__  # type: ignore[attr-defined]

PAIRS = [("sqlite", "postgresql"), ("postgresql", "sqlite"), ("sqlite", "sqlite")]


@pytest.fixture
def engines(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    made = []
    for i, kind in enumerate(request.param):
        if kind == "sqlite":
            url = sqlite_url(tmp_path / f"store-{i}.db")
        else:
            url = request.getfixturevalue("pg_server").new_database()
        made.append(open_engine(url))
    yield made[0], made[1]
    for engine in made:
        engine.dispose()


def fill(engine: Engine, clock: ManualClock) -> Store:
    """A store with a bit of everything: tasks in every state (two running, one of them asked
    to cancel), event lines, a scheduled batch, pauses, web and API accounts, pacing."""
    store = Store(engine, clock, EventBus())
    accounts = AccountStore(engine, clock, EventBus())
    accounts.sync(
        [
            AccountDeclaration("web-1", ModelKind.WEB, True),
            AccountDeclaration("api-1", ModelKind.API, True, concurrency=5, rpm=600),
        ],
        workstation="pc-07",
    )
    PacingStore(engine).save("web-1", PacingState(day="2026-12-01", day_count=17), clock.now())
    session = SessionStore(engine, clock).open("pc-07", "0.1.0")
    store.submit(
        make_tasks(6),
        batch=BatchInfo("b1", name="周末选题", template="写 {topic}", title_column="topic"),
    )
    store.submit(make_tasks(2, kind=ModelKind.WEB, model="web-model"))

    def claim(kind: ModelKind = ModelKind.API) -> Any:
        clock.advance_sync(1)
        return store.claim_next(
            kind=kind,
            account_id="api-1" if kind is ModelKind.API else "web-1",
            models=("api-model",) if kind is ModelKind.API else ("web-model",),
            owner_id=session,
            deadline_s=1800,
            workstation="pc-07",
        )

    done = claim()
    store.finish_success(done, "答案 one", usage={"total_tokens": 12})
    failed = claim()
    store.finish_failed(failed, ErrorKind.SERVER_ERROR, "502 from upstream")
    claim()  # stays running
    doomed = claim()
    store.request_cancel([doomed.task_id])  # running, cancel asked for
    claim(ModelKind.WEB)  # running on the web account
    store.request_cancel(["api-005"])  # pending → canceled
    store.log_event("api-000", "log", "[api] a log line", lane="api")
    accounts.cool_down("api-1", 60, "rate_limited")
    store.pause("batch", "b1")
    store.pause("account", "web-1")
    return store


def table_rows(engine: Engine, table: Any, order: Any) -> list[dict[str, Any]]:
    with read_tx(engine) as conn:
        return [dict(r) for r in conn.execute(select(table).order_by(*order)).mappings()]


def events_by_task(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[tuple[Any, ...]]] = {}
    with read_tx(engine) as conn:
        for r in conn.execute(select(*copy.EVENT_KEY).order_by(E.c.id)).mappings():
            out.setdefault(r["task_id"], []).append(tuple(r.values()))
    return out


def counts(engine: Engine) -> dict[str, int]:
    with read_tx(engine) as conn:
        return {
            name: int(conn.execute(select(func.count()).select_from(table)).scalar() or 0)
            for name, table in (("tasks", T), ("events", E), ("accounts", A))
        }


@pytest.mark.parametrize("engines", PAIRS, indirect=True, ids="-to-".join)
def test_everything_arrives_and_a_second_copy_adds_nothing(
    engines: tuple[Engine, Engine], clock: ManualClock
) -> None:
    source, target = engines
    fill(source, clock)
    report = copy_store(source, target)
    assert report.tasks_added == 8 and report.tasks_present == 0
    assert report.running_requeued == 2  # the one asked to cancel arrives canceled
    assert report.pauses_added == [("account", "web-1"), ("batch", "b1")]
    assert report.accounts_added == 2 and report.pacing_added == 1 and report.batches_added == 1

    src_tasks = {r["task_id"]: r for r in table_rows(source, T, [T.c.seq])}
    dst_tasks = {r["task_id"]: r for r in table_rows(target, T, [T.c.seq])}
    assert dst_tasks.keys() == src_tasks.keys()
    for task_id, row in src_tasks.items():
        if row["state"] != TaskState.RUNNING.value:
            assert dst_tasks[task_id] == row  # every column, seq included (an empty target)
    assert dst_tasks["api-000"]["result_text"] == "答案 one"
    assert dst_tasks["api-000"]["workstation"] == "pc-07"
    # Running rows arrive as a graceful shutdown leaves them: the attempt is not used up.
    running = dst_tasks["api-002"]
    assert running["state"] == "pending" and running["keep_attempt"]
    assert running["attempt"] == src_tasks["api-002"]["attempt"] == 1
    assert running["owner_id"] is None and running["account_id"] is None
    assert dst_tasks["web-000"]["state"] == "pending"
    asked = dst_tasks["api-003"]
    assert asked["state"] == "canceled" and asked["error_kind"] == "canceled"
    assert asked["finished_at"] == src_tasks["api-003"]["heartbeat_at"]
    assert events_by_task(target) == events_by_task(source)
    accounts = {r["account_id"]: r for r in table_rows(target, A, [A.c.account_id])}
    assert accounts["web-1"]["workstation"] == "pc-07"
    assert accounts["api-1"]["limit_rpm"] == 600 and accounts["api-1"]["cooldown_reason"]
    assert PacingStore(target).load("web-1") == PacingState(day="2026-12-01", day_count=17)
    batch = Store(target, clock).batch("b1")
    assert batch is not None and batch.name == "周末选题" and batch.template == "写 {topic}"
    with read_tx(target) as conn:
        assert conn.execute(select(func.count()).select_from(S)).scalar() == 0  # not copied
        slots = conn.execute(select(func.count()).select_from(SLOTS)).scalar()
    assert slots and slots > 0  # the API gate's rows for the copied API account

    before = counts(target)
    again = copy_store(source, target)
    assert not again.changed and again.tasks_present == 8
    assert counts(target) == before
    assert events_by_task(target) == events_by_task(source)


@pytest.mark.parametrize(
    "engines", [("sqlite", "postgresql"), ("postgresql", "sqlite")], indirect=True
)
def test_a_task_with_other_content_there_is_refused_and_nothing_is_written(
    engines: tuple[Engine, Engine], clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task the target lacks comes in the first page, the conflicts in later ones: the
    whole copy is rolled back, the first page's task included."""
    monkeypatch.setattr(copy, "PAGE", 2)
    source, target = engines
    store = fill(source, clock)
    copy_store(source, target)
    with write_tx(target) as conn:
        conn.execute(delete(E).where(E.c.task_id == "api-000"))
        conn.execute(delete(T).where(T.c.task_id == "api-000"))
        conn.execute(update(T).where(T.c.task_id == "api-004").values(priority=9))
        conn.execute(update(T).where(T.c.task_id == "web-001").values(prompt="another prompt"))
    store.submit(make_tasks(3, prefix="late"))  # new in the source since the first copy
    before = counts(target)
    with pytest.raises(StoreCopyConflict) as refused:
        copy_store(source, target)
    assert refused.value.task_ids == ["api-004", "web-001"] and refused.value.total == 2
    assert "api-004, web-001" in str(refused.value) and "nothing was copied" in str(refused.value)
    assert refused.value.exit_code == 9
    assert counts(target) == before
    assert not Store(target, clock).get_many(["api-000", "late-000"])


@pytest.mark.parametrize("engines", [("sqlite", "postgresql")], indirect=True)
def test_copied_tasks_queue_after_the_targets_own_in_their_order(
    engines: tuple[Engine, Engine], clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages smaller than the store (streamed), a target with its own queue: the copied tasks
    come after it at equal priority, in their own order, and a priority still wins."""
    monkeypatch.setattr(copy, "PAGE", 3)
    source, target = engines
    mine, team = Store(source, clock), Store(target, clock)
    mine.submit(make_tasks(7, prefix="pc"))
    mine.submit(make_tasks(1, prefix="urgent", priority=5))
    clock.advance_sync(5)
    team.submit(make_tasks(4, prefix="team"))
    seen: list[tuple[int, int]] = []
    report = copy_store(source, target, progress=lambda done, total: seen.append((done, total)))
    assert report.tasks_added == 8
    assert seen == [(3, 8), (6, 8), (8, 8)]
    order = []
    while c := team.claim_next(
        kind=ModelKind.API, account_id="api-1", models=("api-model",), owner_id="o", deadline_s=60
    ):
        order.append(c.task_id)
    assert order == ["urgent-000"] + [f"team-{i:03d}" for i in range(4)] + [
        f"pc-{i:03d}" for i in range(7)
    ]
    # A submission after the copy numbers on after everything copied.
    team.submit(make_tasks(1, prefix="after"))
    seqs = {r.task_id: r.seq for r in team.list_tasks()}
    after = seqs.pop("after-000")
    assert after > max(seqs.values())


@pytest.mark.parametrize("engines", [("postgresql", "sqlite")], indirect=True)
def test_event_lines_missing_there_are_added_back_once(
    engines: tuple[Engine, Engine], clock: ManualClock
) -> None:
    source, target = engines
    fill(source, clock)
    copy_store(source, target)
    with write_tx(target) as conn:
        first = conn.execute(select(func.min(E.c.id)).where(E.c.task_id == "api-000")).scalar_one()
        conn.execute(delete(E).where(E.c.id == first))
    report = copy_store(source, target)
    assert report.events_added == 1 and report.tasks_added == 0
    assert sorted(events_by_task(target)["api-000"]) == sorted(events_by_task(source)["api-000"])
    assert copy_store(source, target).events_added == 0


@pytest.mark.parametrize("engines", [("sqlite", "postgresql")], indirect=True)
def test_the_targets_own_rows_stay_and_a_web_account_held_there_is_named(
    engines: tuple[Engine, Engine], clock: ManualClock
) -> None:
    source, target = engines
    fill(source, clock)
    AccountStore(target, clock, EventBus()).sync(
        [AccountDeclaration("web-1", ModelKind.WEB, False)], workstation="pc-09"
    )
    Store(target, clock).submit(make_tasks(1, prefix="team"), batch=BatchInfo("b1", name="队"))
    report = copy_store(source, target)
    assert report.accounts_elsewhere == [("web-1", "pc-09")]
    assert report.accounts_added == 1 and report.batches_added == 0
    accounts = {r["account_id"]: r for r in table_rows(target, A, [A.c.account_id])}
    assert accounts["web-1"]["workstation"] == "pc-09" and not accounts["web-1"]["enabled"]
    batch = Store(target, clock).batch("b1")
    assert batch is not None and batch.name == "队"
