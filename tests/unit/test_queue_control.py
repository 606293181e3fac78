"""The operator's hold on the queue, against a real SQLite file: pauses (queue, lane, batch,
account) and schedules are honoured by the claim statement itself; priorities after
submission; "retry failed" scoped to a batch; a batch's row written at submit."""

from __future__ import annotations

import datetime as dt

import pytest

from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind, InputError
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import BatchesChanged, PausesChanged
from media_assistant.core.model.records import BatchInfo, Claim
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.fair import RUN_FIRST_PRIORITY
from media_assistant.core.store import Store
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.holds import minute_of_day
from tests.conftest import make_tasks


def claim(
    store: Store,
    account: str = "api-1",
    kind: ModelKind = ModelKind.API,
    models: tuple[str, ...] = ("api-model",),
    built: int | None = None,
) -> Claim | None:
    return store.claim_next(
        kind=kind,
        account_id=account,
        models=models,
        owner_id="owner",
        deadline_s=1800,
        provider_generation=built,
    )


def hhmm(minute: int) -> str:
    minute %= 24 * 60
    return f"{minute // 60:02d}:{minute % 60:02d}"


# ------------------------------------------------------------------------------------ pauses


def test_pausing_the_queue_lets_the_running_task_finish_and_starts_nothing_new(
    store: Store,
) -> None:
    store.submit(make_tasks(3))
    running = claim(store)
    assert running is not None
    assert store.pause("all") is True
    assert store.pause("all") is False  # already paused: said so, nothing doubled
    assert claim(store) is None
    assert store.peek_next(["api-model"], lane="api", account_id="api-1") is None
    assert store.finish_success(running, "done")  # the current task ends as usual
    assert store.resume("all") is True
    assert store.resume("all") is False
    nxt = claim(store)
    assert nxt is not None and nxt.task_id == "api-001"


def test_a_paused_lane_or_account_holds_only_its_own_claims(store: Store) -> None:
    store.submit(make_tasks(2) + make_tasks(2, model="web-model", kind=ModelKind.WEB))
    store.pause("lane", "web")
    assert claim(store, "web-1", ModelKind.WEB, ("web-model",)) is None
    assert claim(store) is not None  # the API lane goes on
    store.resume("lane", "web")
    store.pause("account", "web-1")
    assert claim(store, "web-1", ModelKind.WEB, ("web-model",)) is None
    other = claim(store, "web-2", ModelKind.WEB, ("web-model",))
    assert other is not None  # another account serving the model takes the work


def test_an_account_with_a_rebuild_request_claims_nothing_until_its_provider_is_rebuilt(
    store: Store,
) -> None:
    """``accounts reset`` (or ``set-key``) in another terminal, then ``retry`` at once: until
    the running scheduler has built the fresh provider, the old one (an old key) must take
    nothing. The claim statement compares the request with the claiming provider's generation
    itself, so no tick can be too late."""
    accounts = AccountStore(store.engine, store.clock, store.bus)
    accounts.sync([("api-1", ModelKind.API, True), ("api-2", ModelKind.API, True)])
    store.submit(make_tasks(3))
    assert accounts.reset("api-1")
    status = accounts.get("api-1")
    assert status is not None and status.rebuild_generation == 1
    assert claim(store, "api-1", built=0) is None  # the provider built before the reset
    assert claim(store, "api-2", built=0) is not None  # another account is not held
    assert claim(store, "api-1", built=1) is not None  # the fresh provider is in place
    # Nothing was cleared: a second scheduler serving the account (another workstation) still
    # meets the request with its own old provider.
    assert claim(store, "api-1", built=0) is None


def test_a_paused_batch_is_skipped_even_at_the_head_of_the_queue(store: Store) -> None:
    store.submit(make_tasks(2, batch="urgent", prefix="u", priority=9))
    store.submit(make_tasks(1, batch="later", prefix="l"))
    store.pause("batch", "urgent")
    got = claim(store)
    assert got is not None and got.task_id == "l-000"
    assert claim(store) is None
    store.resume("batch", "urgent")
    got = claim(store)
    assert got is not None and got.task_id == "u-000"


def test_pauses_are_listed_published_and_checked(store: Store, clock: ManualClock) -> None:
    seen: list[object] = []
    store.bus.subscribe(seen.append)
    store.pause("lane", "api")
    store.pause("batch", "b1")
    assert [(p.scope, p.target) for p in store.pauses()] == [("batch", "b1"), ("lane", "api")]
    assert store.pauses()[0].paused_at == clock.now()
    published = [e for e in seen if isinstance(e, PausesChanged)]
    assert [len(e.pauses) for e in published] == [1, 2]
    with pytest.raises(ValueError, match="'web' or 'api'"):
        store.pause("lane", "browser")
    with pytest.raises(ValueError, match="unknown pause scope"):
        store.pause("everything")


# -------------------------------------------------------------------------------- schedules


def test_a_batch_scheduled_for_later_starts_nothing_before_its_time(
    store: Store, clock: ManualClock
) -> None:
    start = clock.now() + 3600
    store.submit(make_tasks(2, batch="night"), batch=BatchInfo("night", start_at=start))
    store.submit(make_tasks(1, batch="now", prefix="n"))
    got = claim(store)
    assert got is not None and got.task_id == "n-000"
    assert claim(store) is None
    clock.advance_sync(3599)
    assert claim(store) is None
    clock.advance_sync(1)
    got = claim(store)
    assert got is not None and got.task_id == "api-000"


def test_active_hours_hold_a_batch_outside_them_even_across_midnight(
    store: Store, clock: ManualClock
) -> None:
    now_minute = minute_of_day(clock.now())
    closed = f"{hhmm(now_minute + 60)}-{hhmm(now_minute + 120)}"  # opens in an hour
    # A window that contains now and wraps midnight (starts late, ends early).
    wrapping = f"{hhmm(now_minute - 30)}-{hhmm(now_minute - 60)}"
    store.submit(
        make_tasks(1, batch="closed", prefix="c"), batch=BatchInfo("closed", active_hours=closed)
    )
    store.submit(
        make_tasks(1, batch="open", prefix="o"), batch=BatchInfo("open", active_hours=wrapping)
    )
    got = claim(store)
    assert got is not None and got.task_id == "o-000"
    assert claim(store) is None
    clock.advance_sync(3600 + 60)
    got = claim(store)
    assert got is not None and got.task_id == "c-000"


def test_a_bad_active_hours_value_is_refused_before_anything_is_written(store: Store) -> None:
    with pytest.raises(InputError, match="active_hours"):
        store.submit(make_tasks(1), batch=BatchInfo("b1", active_hours="8-23"))
    assert store.list_tasks() == []
    assert store.batches() == []


def test_a_schedule_can_be_changed_and_cleared(store: Store, clock: ManualClock) -> None:
    store.submit(make_tasks(1), batch=BatchInfo("b1", start_at=clock.now() + 600))
    assert claim(store) is None
    record = store.set_schedule("b1", start_at=None, active_hours=None)
    assert record.start_at is None
    assert claim(store) is not None


# --------------------------------------------------------------------------------- batches


def test_every_submit_writes_its_batch_row_and_a_later_one_keeps_what_was_said(
    store: Store, clock: ManualClock
) -> None:
    seen: list[object] = []
    store.bus.subscribe(seen.append)
    info = BatchInfo(
        "b1",
        name="周末选题",
        source_file="/tmp/topics.csv",
        template="写 {topic}",
        title_column="topic",
    )
    store.submit(make_tasks(2), batch=info)
    created = clock.now()
    clock.advance_sync(60)
    store.submit(make_tasks(3))  # more tasks into the same batch, nothing said about it
    [row] = store.batches()
    assert (row.name, row.source_file, row.template, row.title_column) == (
        "周末选题",
        "/tmp/topics.csv",
        "写 {topic}",
        "topic",
    )
    assert row.created_at == created and row.label == "周末选题"
    store.submit(make_tasks(1, batch="plain", prefix="p"))
    assert store.batch("plain") is not None and store.batch("plain").label == "plain"  # type: ignore[union-attr]
    assert [b.batch_id for b in store.batches()] == ["plain", "b1"]  # newest first
    assert sum(isinstance(e, BatchesChanged) for e in seen) == 2  # the unchanged one is quiet
    assert [b.batch_id for b in store.batches_since(created + 30)] == ["plain"]


# ------------------------------------------------------------------------------ priorities


def test_priority_after_submission_moves_pending_work_and_leaves_finished_alone(
    store: Store,
) -> None:
    store.submit(make_tasks(4))
    done = claim(store)
    assert done is not None and store.finish_success(done, "x")
    result = store.set_priority(["api-000", "api-003", "nope"], priority=5)
    assert result.changed == ("api-003",)
    assert result.finished == ("api-000",) and result.unknown == ("nope",)
    got = claim(store)
    assert got is not None and got.task_id == "api-003"
    events = store.events("api-003")
    assert [(e.code, e.params) for e in events if e.code == "priority_set"] == [
        ("priority_set", {"priority": 5})
    ]


def test_top_and_bottom_move_a_selection_or_a_batch_past_everything_else(
    store: Store,
) -> None:
    store.submit(make_tasks(3, prefix="a", batch="a", priority=2))
    store.submit(make_tasks(2, prefix="b", batch="b", priority=-1))
    top = store.set_priority(batch_id="b", where="top")
    # Moved to the top by hand: run first, past the classes' shares (core/rules/fair.py).
    assert top.priority == RUN_FIRST_PRIORITY and set(top.changed) == {"b-000", "b-001"}
    assert [claim(store).task_id for _ in range(2)] == ["b-000", "b-001"]  # type: ignore[union-attr]
    bottom = store.set_priority(["a-000"], where="bottom")
    assert bottom.priority == 1
    assert [claim(store).task_id for _ in range(3)] == ["a-001", "a-002", "a-000"]  # type: ignore[union-attr]


def test_top_with_nothing_else_waiting_keeps_the_priority(store: Store) -> None:
    store.submit(make_tasks(2, priority=4))
    assert store.set_priority(batch_id="b1", where="top").priority == 4


# ------------------------------------------------------------------------- retry failed


def _fail(store: Store, kind: ErrorKind) -> str:
    c = claim(store)
    assert c is not None
    assert store.finish_failed(c, kind, "nope")
    return c.task_id


def test_retry_failed_of_one_batch_leaves_other_batches_and_hopeless_kinds_alone(
    store: Store,
) -> None:
    store.submit(make_tasks(3, batch="b1", prefix="one"))
    store.submit(make_tasks(1, batch="b2", prefix="two"))
    a = _fail(store, ErrorKind.SERVER_ERROR)
    policy = _fail(store, ErrorKind.CONTENT_POLICY)
    _fail(store, ErrorKind.TIMEOUT)
    other = _fail(store, ErrorKind.TIMEOUT)
    assert store.failed_counts("b1") == (2, 1)
    assert store.failed_counts() == (3, 1)
    retried = store.retry(all_failed=True, batch_id="b1")
    assert a in retried and policy not in retried and other not in retried
    assert len(retried) == 2
    # ... the content-policy one can still be retried by id (with an edited prompt, say).
    assert store.retry([policy], prompt="a gentler prompt") == [policy]
    row = store.get(policy)
    assert row is not None and row.prompt == "a gentler prompt" and row.state == "pending"
    with pytest.raises(ValueError):
        store.retry([a, policy], prompt="one prompt for two tasks")


def _fail_as_poison_pill(store: Store) -> str:
    """The head task fails twice with the same error: its round ends as a poison pill, as the
    attempt runner ends it (core/rules/excuses.py ``ran_out``)."""
    first = claim(store)
    assert first is not None
    store.requeue(
        first, not_before=None, keep_attempt=False, kind=ErrorKind.SERVER_ERROR, message="boom"
    )
    second = claim(store)
    assert second is not None and second.task_id == first.task_id
    assert store.finish_failed(
        second,
        ErrorKind.SERVER_ERROR,
        "boom (failed the same way on 1 account: 2 attempts, all server_error; not retried again)",
        code=EventCode.POISON_PILL,
        params={"error_kind": "server_error", "accounts": 1, "attempts": 2},
    )
    return second.task_id


def test_retry_failed_leaves_poison_pills_out_unless_asked(store: Store) -> None:
    """Issue 25: a task that failed the same way on every attempt is never retried by itself —
    "retry failed" used to take it along with the rest (and send it again)."""
    store.submit(make_tasks(3, batch="b1"), max_attempts=2)
    pill = _fail_as_poison_pill(store)
    plain = _fail(store, ErrorKind.TIMEOUT)
    policy = _fail(store, ErrorKind.CONTENT_POLICY)
    assert store.failed_counts("b1") == (1, 1)
    assert store.failed_counts("b1", include_poison=True) == (2, 1)
    assert store.poison_pills("b1") == 1 and store.poison_pills("other") == 0
    assert store.retry(all_failed=True, batch_id="b1") == [plain]
    assert store.get(pill).state == "failed"  # type: ignore[union-attr]
    # Asked for: it goes back too (content policy still stays out).
    assert store.retry(all_failed=True, include_poison=True) == [pill]
    assert store.get(policy).state == "failed"  # type: ignore[union-attr]
    # Its new round is not a poison pill (yet): an ordinary failure now is retried as ever.
    again = claim(store)
    while again is not None and again.task_id != pill:
        assert store.finish_success(again, "ok")
        again = claim(store)
    assert again is not None
    assert store.finish_failed(again, ErrorKind.TIMEOUT, "slow")
    assert store.poison_pills() == 0
    assert store.retry(all_failed=True) == [pill]


def test_an_operator_retry_starts_a_new_round_the_window_can_count(store: Store) -> None:
    store.submit(make_tasks(1))
    task = _fail(store, ErrorKind.BAD_REQUEST)  # attempt 1 of 3, failed at once
    store.retry([task])
    row = store.get(task)
    assert row is not None
    assert (row.attempt, row.max_attempts, row.attempt_base, row.operator_retries) == (1, 4, 1, 1)
    again = claim(store)
    assert again is not None and again.attempt == 2 and again.attempt_base == 1
    started = [e for e in store.events(task) if e.code == "started"][-1]
    assert started.params == {
        "attempt": 2,
        "max_attempts": 4,
        "base": 1,
        "retries": 1,
        "account": "api-1",
        "fair": list(again.fair_keys),  # what its claim charged the fair share
        "fair_s": again.fair_charge,
    }
    retry_event = [e for e in store.events(task) if e.code == "retry_requested"]
    assert [e.params for e in retry_event] == [{"round": 1, "edited": False}]


def test_minute_of_day_is_local_time() -> None:
    moment = dt.datetime(2026, 12, 2, 1, 30)
    assert minute_of_day(moment.timestamp()) == 90
