"""The store's transitions against a real SQLite file, with a manual clock."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, update
from sqlalchemy.exc import IntegrityError

from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.events import EventBus, TasksAdded, TasksChanged
from media_assistant.core.model.records import Claim, NewTask
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.rules import fair
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url, write_tx
from media_assistant.core.store.schema import TaskRow
from media_assistant.core.store.task_ids import generated_task_id
from tests.conftest import make_tasks

T = TaskRow.__table__  # type: ignore[attr-defined]


def claim(
    store: Store,
    account: str = "api-1",
    kind: ModelKind = ModelKind.API,
    models: tuple[str, ...] = ("api-model",),
    owner: str = "owner-A",
) -> Claim | None:
    return store.claim_next(
        kind=kind, account_id=account, models=models, owner_id=owner, deadline_s=1800
    )


def test_submit_is_idempotent_by_task_id(store: Store) -> None:
    first = store.submit(make_tasks(3))
    again = store.submit(make_tasks(5))
    assert len(first.added) == 3
    assert again.added == ("api-003", "api-004")
    assert set(again.skipped) == {"api-000", "api-001", "api-002"}
    rows = store.list_tasks()
    assert [r.task_id for r in rows] == [f"api-{i:03d}" for i in range(5)]
    assert [r.seq for r in rows] == sorted(r.seq for r in rows)
    assert all(r.state == "pending" and r.attempt == 0 for r in rows)


def test_claim_takes_priority_then_age_and_only_served_models(store: Store) -> None:
    store.submit(make_tasks(2, prefix="low"))
    store.submit(make_tasks(1, prefix="high", priority=5))
    store.submit(make_tasks(1, prefix="other", model="other-model"))
    got = [claim(store) for _ in range(4)]
    assert [c.task_id if c else None for c in got] == ["high-000", "low-000", "low-001", None]


def test_claim_marks_running_and_first_attempt(store: Store, clock: ManualClock) -> None:
    store.submit(make_tasks(1))
    c = claim(store)
    assert c is not None and c.attempt == 1 and c.lease == 1
    r = store.get(c.task_id)
    assert r is not None
    assert (r.state, r.account_id, r.owner_id, r.started_at, r.heartbeat_at) == (
        "running",
        "api-1",
        "owner-A",
        clock.now(),
        clock.now(),
    )
    assert r.deadline_at == clock.now() + 1800


def test_not_before_delays_a_claim(store: Store, clock: ManualClock) -> None:
    store.submit(make_tasks(1))
    c = claim(store)
    assert c is not None
    assert store.requeue(
        c,
        not_before=clock.now() + 10,
        keep_attempt=False,
        kind=ErrorKind.SERVER_ERROR,
        message="500",
    )
    assert claim(store) is None
    clock.advance_sync(10)
    c2 = claim(store)
    assert c2 is not None and c2.task_id == c.task_id and c2.attempt == 2


def test_retry_reuses_the_row_and_a_zombie_write_changes_nothing(store: Store) -> None:
    store.submit(make_tasks(1))
    first = claim(store)
    assert first is not None
    assert store.requeue(
        first, not_before=None, keep_attempt=False, kind=ErrorKind.SERVER_ERROR, message="HTTP 500"
    )
    second = claim(store)
    assert second is not None and second.attempt == 2
    # The first attempt's late answer arrives: fenced out.
    assert not store.finish_success(first, "stale answer")
    assert store.finish_success(second, "fresh answer")
    rows = store.list_tasks()
    assert len(rows) == 1
    assert (rows[0].state, rows[0].attempt, rows[0].result_text) == ("success", 2, "fresh answer")
    assert rows[0].error_kind is None


def test_deferral_keeps_the_attempt_but_moves_the_fence(store: Store) -> None:
    store.submit(make_tasks(1))
    first = claim(store)
    assert first is not None
    assert store.requeue(
        first, not_before=None, keep_attempt=True, kind=ErrorKind.RATE_LIMITED, message="429"
    )
    again = claim(store)
    assert again is not None
    assert (again.attempt, again.lease) == (1, 2)
    assert not store.finish_failed(first, ErrorKind.SERVER_ERROR, "zombie")
    assert store.get(first.task_id).state == "running"  # type: ignore[union-attr]


@pytest.mark.expect_errors(r"database refused a second running task")
def test_database_refuses_two_running_tasks_on_one_web_account(store: Store) -> None:
    store.submit(make_tasks(2, model="web-model", kind=ModelKind.WEB))
    a = claim(store, "web-1", ModelKind.WEB, ("web-model",))
    assert a is not None
    # A second claim for the same account is refused by the partial unique index...
    assert claim(store, "web-1", ModelKind.WEB, ("web-model",)) is None
    # ...and so is any raw write that tries it.
    with pytest.raises(IntegrityError), write_tx(store.engine) as conn:
        conn.execute(
            update(T).where(T.c.task_id == "web-001").values(state="running", account_id="web-1")
        )
    # Another account is fine: web accounts run in parallel.
    b = claim(store, "web-2", ModelKind.WEB, ("web-model",))
    assert b is not None and b.task_id == "web-001"


def test_api_accounts_may_run_many_tasks(store: Store) -> None:
    store.submit(make_tasks(3))
    assert all(claim(store) is not None for _ in range(3))


def test_reaper_returns_stale_rows_and_counts_the_loss(store: Store, clock: ManualClock) -> None:
    store.submit(make_tasks(3))
    fresh, stale, last = claim(store), claim(store), claim(store)
    assert fresh and stale and last
    clock.advance_sync(60)
    assert store.heartbeat("owner-A", {fresh.task_id: (1, 1, 42)}) == set()
    clock.advance_sync(31)
    released = store.reap_stale(dead_after=90)
    assert {r.task_id for r in released} == {stale.task_id, last.task_id}
    r = store.get(stale.task_id)
    assert r is not None and (r.state, r.lost_count, r.error_kind) == ("pending", 1, "lost")
    f = store.get(fresh.task_id)
    assert f is not None and (f.state, f.progress_chars) == ("running", 42)
    # The dead attempt's late write is fenced out; its heartbeat reports it lost.
    assert not store.finish_success(stale, "late")
    assert store.heartbeat("owner-A", {stale.task_id: (1, 1, 0)}) == {(stale.task_id, 1, 1)}


def test_reaper_fails_a_task_with_no_attempts_left(store: Store, clock: ManualClock) -> None:
    store.submit(make_tasks(1), max_attempts=1)
    c = claim(store)
    assert c is not None
    clock.advance_sync(91)
    [released] = store.reap_stale(dead_after=90)
    assert released.new_state is TaskState.FAILED
    r = store.get(c.task_id)
    assert r is not None and r.state == "failed" and r.error_kind == "lost"


def test_reaper_honours_a_pending_cancel(store: Store, clock: ManualClock) -> None:
    store.submit(make_tasks(1))
    c = claim(store)
    assert c is not None
    store.request_cancel([c.task_id])
    clock.advance_sync(91)
    [released] = store.reap_stale(dead_after=90)
    assert released.new_state is TaskState.CANCELED


def test_orphans_of_a_dead_session_are_handled_at_once(store: Store) -> None:
    store.submit(make_tasks(2))
    mine = claim(store, owner="me")
    theirs = claim(store, owner="crashed-run")
    assert mine and theirs
    released = store.recover_orphans(["me"])
    assert [r.task_id for r in released] == [theirs.task_id]
    assert store.get(theirs.task_id).state == "pending"  # type: ignore[union-attr]
    assert store.get(mine.task_id).state == "running"  # type: ignore[union-attr]


def test_cancel_pending_at_once_running_by_flag_terminal_untouched(store: Store) -> None:
    store.submit(make_tasks(3))
    running = claim(store)
    done = claim(store)
    assert running and done
    store.finish_success(done, "ok")
    result = store.request_cancel(["api-000", "api-001", "api-002"])
    assert result.canceled == ("api-002",)
    assert result.requested == ("api-000",)
    assert result.unchanged == ("api-001",)
    assert store.get("api-002").state == "canceled"  # type: ignore[union-attr]
    assert store.cancel_flags("owner-A") == {"api-000"}
    # The running attempt learns of it and ends honestly: here its answer landed first.
    assert store.finish_success(running, "landed first")
    assert store.get("api-000").state == "success"  # type: ignore[union-attr]


def test_cancel_by_batch(store: Store) -> None:
    store.submit(make_tasks(2, batch="keep", prefix="k"))
    store.submit(make_tasks(3, batch="drop", prefix="d"))
    result = store.request_cancel(batch_id="drop")
    assert len(result.canceled) == 3
    assert {r.state for r in store.list_tasks(batch_id="keep")} == {"pending"}


def test_cancel_racing_a_claim_exactly_one_wins(tmp_path: Path) -> None:
    """Two processes' worth of connections race on one pending row, many times over."""
    db = tmp_path / "race.db"
    engine = open_engine(sqlite_url(db))
    clock = ManualClock()
    setup = Store(engine, clock)
    claimer = Store(open_engine(sqlite_url(db)), clock)
    canceler = Store(open_engine(sqlite_url(db)), clock)
    for i in range(60):
        setup.submit(make_tasks(1, prefix=f"race{i}"))
        task_id = f"race{i}-000"
        barrier = threading.Barrier(2)
        got: dict[str, object] = {}

        def do_claim(barrier: threading.Barrier = barrier, got: dict[str, object] = got) -> None:
            barrier.wait()
            got["claim"] = claim(claimer)

        def do_cancel(
            barrier: threading.Barrier = barrier, got: dict[str, object] = got, tid: str = task_id
        ) -> None:
            barrier.wait()
            got["cancel"] = canceler.request_cancel([tid])

        threads = [threading.Thread(target=do_claim), threading.Thread(target=do_cancel)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        row = setup.get(task_id)
        assert row is not None
        won_by_claim = got["claim"] is not None
        if won_by_claim:
            # Claimed first: it runs, with the cancel flag set for its next checkpoint.
            assert (row.state, row.cancel_requested, row.attempt) == ("running", True, 1)
            setup.finish_canceled(got["claim"])  # type: ignore[arg-type]
        else:
            assert (row.state, row.attempt) == ("canceled", 0)
    assert len(setup.list_tasks()) == 60
    for s in (claimer, canceler, setup):
        s.engine.dispose()


def test_operator_retry_reuses_the_row_with_fresh_attempts(store: Store) -> None:
    store.submit(make_tasks(2), max_attempts=1)
    a, b = claim(store), claim(store)
    assert a and b
    store.finish_failed(a, ErrorKind.SERVER_ERROR, "boom")
    store.finish_success(b, "fine")
    assert store.retry(all_failed=True, extra_attempts=3) == [a.task_id]
    r = store.get(a.task_id)
    assert r is not None
    assert (r.state, r.attempt, r.max_attempts, r.error_kind) == ("pending", 1, 4, None)
    assert store.retry([b.task_id]) == []  # a success is not "retried" by accident
    again = claim(store)
    assert again is not None and again.task_id == a.task_id and again.attempt == 2
    assert len(store.list_tasks()) == 2


def test_events_tell_the_story_and_publish_changes(store: Store) -> None:
    seen: list[object] = []
    store.bus.subscribe(seen.append)
    store.submit(make_tasks(1))
    c = claim(store)
    assert c is not None
    store.finish_success(c, "answer")
    kinds = [type(e).__name__ for e in seen]
    # The batch's row first (written in the submit's transaction), then its tasks.
    assert kinds == ["BatchesChanged", "TasksAdded", "TasksChanged", "TasksChanged"]
    assert isinstance(seen[1], TasksAdded)
    last = seen[-1]
    assert isinstance(last, TasksChanged) and last.changes[0].values["state"] == "success"
    messages = [e.message for e in store.events(c.task_id)]
    assert messages[0].startswith("submitted")
    assert messages[1].startswith("attempt 1/3 started on api-1")
    assert messages[2].startswith("succeeded")
    codes = [(e.code, e.params) for e in store.events(c.task_id)]
    assert codes == [
        ("submitted", {"batch": "b1"}),
        (
            "started",
            {
                "attempt": 1,
                "max_attempts": 3,
                "base": 0,
                "retries": 0,
                "account": "api-1",
                "fair": list(fair.node_keys(fair.NORMAL, "", "b1")),  # what its claim charged
                "fair_s": c.fair_charge,
            },
        ),
        ("succeeded", {"chars": 6, "seconds": 0.0}),
    ]
    cursor, changed = store.changes_since(0)
    assert changed == {c.task_id} and cursor == store.last_event_id()


def test_heartbeat_batch_updates_each_row_with_its_progress(
    store: Store, clock: ManualClock
) -> None:
    store.submit(make_tasks(50))
    claims = [claim(store) for _ in range(50)]
    clock.advance_sync(15)
    beats = {c.task_id: (c.attempt, c.lease, i * 10) for i, c in enumerate(claims) if c}
    assert store.heartbeat("owner-A", beats) == set()
    rows = {r.task_id: r for r in store.list_tasks()}
    assert {r.heartbeat_at for r in rows.values()} == {clock.now()}
    assert all(rows[tid].progress_chars == beat[2] for tid, beat in beats.items())
    # Another session's heartbeat cannot keep our rows alive.
    assert store.heartbeat("owner-B", beats) == {(tid, b[0], b[1]) for tid, b in beats.items()}


@pytest.mark.expect_errors(r"event subscriber .* failed")
def test_bus_subscriber_errors_do_not_break_the_store(store: Store) -> None:
    bus: EventBus = store.bus

    def broken(_: object) -> None:
        raise RuntimeError("listener bug")

    bus.subscribe(broken)
    store.submit(make_tasks(1))
    assert store.get("api-000") is not None


def test_a_requeue_of_a_task_whose_cancel_was_requested_ends_it_canceled(store: Store) -> None:
    store.submit(make_tasks(1))
    c = claim(store)
    assert c is not None
    store.request_cancel([c.task_id])  # e.g. from another process, after the attempt looked
    assert store.requeue(c, not_before=None, keep_attempt=True, kind=None, message="shutdown")
    r = store.get(c.task_id)
    assert r is not None and (r.state, r.error_kind) == ("canceled", "canceled")


def test_the_reaper_spares_attempts_its_own_process_is_running(
    store: Store, clock: ManualClock
) -> None:
    store.submit(make_tasks(2))
    mine, other = claim(store), claim(store)
    assert mine and other
    clock.advance_sync(300)  # e.g. the laptop slept: every heartbeat looks old
    released = store.reap_stale(dead_after=90, alive={mine.task_id: (mine.attempt, mine.lease)})
    assert [r.task_id for r in released] == [other.task_id]
    assert store.get(mine.task_id).state == "running"  # type: ignore[union-attr]


def test_next_not_before_looks_only_ahead(store: Store, clock: ManualClock) -> None:
    store.submit(make_tasks(2))
    a, b = claim(store), claim(store)
    assert a and b
    store.requeue(a, not_before=clock.now() - 5, keep_attempt=False, kind=None, message="past")
    assert store.next_not_before(["api-model"]) is None  # due already: nothing to wait for
    store.requeue(b, not_before=clock.now() + 30, keep_attempt=False, kind=None, message="later")
    assert store.next_not_before(["api-model"]) == clock.now() + 30


def test_history_pages_come_newest_first_and_walk_the_seq_index(store: Store) -> None:
    store.submit(make_tasks(30))
    t = TaskRow.__table__  # type: ignore[attr-defined]
    with store.engine.begin() as conn:
        conn.execute(update(t).where(t.c.seq % 3 != 0).values(state="success"))
    finished = [TaskState.SUCCESS, TaskState.FAILED, TaskState.CANCELED]
    sent: list[tuple[str, Any]] = []

    def capture(_c: Any, _cur: Any, statement: str, params: Any, *_: Any) -> None:
        sent.append((statement, params))

    event.listen(store.engine, "before_cursor_execute", capture)
    first = store.view_rows(states=finished, limit=8, newest_first=True)
    older = store.view_rows(
        states=finished, before_seq=first[-1]["seq"], limit=8, newest_first=True
    )
    event.remove(store.engine, "before_cursor_execute", capture)
    seqs = [r["seq"] for r in first + older]
    assert seqs == sorted(seqs, reverse=True) and len(set(seqs)) == 16
    assert all(r["state"] == "success" for r in first + older)
    if store.engine.dialect.name != "sqlite":
        return  # the plan below is SQLite's (PostgreSQL's planner chooses by its statistics)
    # The plan of the page query the store sent, not a timing: with the state index SQLite
    # would fetch and sort every finished row for each page (0.55 s a page at 100k tasks,
    # against 0.02 s walking seq).
    statement, params = next((s, p) for s, p in sent if "ORDER BY" in s and "<" in s)
    with store.engine.connect() as conn:
        plan = " ".join(
            str(row[-1]) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params)
        )
    assert "ix_tasks_seq" in plan and "TEMP B-TREE" not in plan, plan


def test_queue_head_queries_write_the_state_into_the_sql(store: Store) -> None:
    store.submit(make_tasks(3))
    sent: list[tuple[str, Any]] = []

    def capture(_c: Any, _cur: Any, statement: str, params: Any, *_: Any) -> None:
        sent.append((statement, params))

    event.listen(store.engine, "before_cursor_execute", capture)
    assert store.peek_next(["api-model"]) is not None
    assert store.next_not_before(["api-model"]) is None
    first = claim(store)
    assert first is not None and store.finish_success(first, "ok")
    assert claim(store) is not None  # the backlog's claim: no look before it
    event.remove(store.engine, "before_cursor_execute", capture)
    # Not a timing: a state SQLite gets as a bound value makes it re-prepare the statement at
    # every execution (the value decides whether the partial index on pending rows fits):
    # 195 µs instead of 16 µs for the claim's head query, on the one writer thread.
    selects = [(s, p) for s, p in sent if s.lstrip().startswith("SELECT") and "\nFROM tasks" in s]
    assert len(selects) >= 3  # (the fair estimate was read at the submit, before the capture)
    for statement, params in selects:
        # (the fair share's estimate reads recent successes once per model: inline too)
        assert "tasks.state = 'pending'" in statement or "tasks.state = 'success'" in statement
        assert not {"pending", "running", "success"} & set(params), (statement, params)


def test_iter_tasks_reads_every_task_in_order_a_page_at_a_time(store: Store) -> None:
    """An export streams the store: pages of ``page`` rows by submission order, filters kept."""
    store.submit(make_tasks(7, batch="a") + make_tasks(5, batch="b", prefix="bb"))
    assert [r.task_id for r in store.iter_tasks(page=3)] == [r.task_id for r in store.list_tasks()]
    assert [r.task_id for r in store.iter_tasks(batch_id="b", page=2)] == [
        f"bb-{i:03d}" for i in range(5)
    ]
    assert store.count_tasks(batch_id="a") == 7 and store.count_tasks() == 12
    assert list(store.iter_tasks(states=[TaskState.SUCCESS])) == []


def test_submissions_from_two_workstations_at_once_get_their_own_numbers(
    store: Store, store_url: str, clock: ManualClock
) -> None:
    """Two processes submit at the same instant (a team: two workstations). Each submission
    reads the next number and the free generated ids, then writes: the first is held right
    after its read until the second has read too (or 2 s have passed, when the second cannot
    read meanwhile). Every task gets its own number and id; nothing is lost or doubled."""
    other = Store(open_engine(store_url), clock, EventBus())
    first_read, second_read = threading.Event(), threading.Event()

    def after(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if "max(tasks.seq)" in statement:
            if threading.current_thread().name == "first":
                first_read.set()
                second_read.wait(2.0)  # the second's read, if it can happen meanwhile
            else:
                second_read.set()

    for engine in (store.engine, other.engine):
        event.listen(engine, "after_cursor_execute", after)
    errors: list[BaseException] = []

    def submit(s: Store, prefix: str) -> None:
        try:
            s.submit(
                [
                    NewTask(f"{prefix}-{j}", "api-model", ModelKind.API, "p", f"b-{prefix}")
                    for j in range(20)
                ]
                + [
                    NewTask(
                        generated_task_id(f"shared-{prefix}", n),
                        "api-model",
                        ModelKind.API,
                        "p",
                        f"shared-{prefix}",
                        generated_id=True,
                    )
                    for n in range(1, 11)
                ]
            )
        except BaseException as exc:
            errors.append(exc)

    first = threading.Thread(target=submit, args=(store, "a"), name="first")
    first.start()
    assert first_read.wait(10)  # the first has read the next number
    second = threading.Thread(target=submit, args=(other, "b"), name="second")
    second.start()
    for t in (first, second):
        t.join(60)
    for engine in (store.engine, other.engine):
        event.remove(engine, "after_cursor_execute", after)
    other.engine.dispose()
    assert not errors, errors
    rows = store.list_tasks()
    assert len(rows) == 2 * 30
    seqs = [r.seq for r in rows]
    assert len(set(seqs)) == len(seqs), sorted(seqs)
    shared = [r.task_id for r in rows if r.batch_id.startswith("shared")]
    assert len(shared) == len(set(shared)) == 20


def test_a_claim_names_its_workstation_in_the_view_rows_and_its_change(store: Store) -> None:
    """The window's Workstation column: the row as read (another workstation's window, a
    restart) and the change this process publishes both carry where the task was claimed."""
    store.submit(make_tasks(2))
    changes: list[dict[str, Any]] = []
    store.bus.subscribe(
        lambda e: (
            changes.extend(c.values for c in e.changes) if isinstance(e, TasksChanged) else None
        )
    )
    got = store.claim_next(
        kind=ModelKind.API,
        account_id="api-1",
        models=("api-model",),
        owner_id="owner-A",
        deadline_s=1800,
        workstation="pc-07",
    )
    assert got is not None
    assert any(c.get("workstation") == "pc-07" for c in changes), changes
    rows = {r["task_id"]: r for r in store.view_rows()}
    assert rows[got.task_id]["workstation"] == "pc-07"
    assert [r["workstation"] for tid, r in rows.items() if tid != got.task_id] == [None]
