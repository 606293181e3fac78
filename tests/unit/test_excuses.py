"""Issue 25: how often a failure may be excused, and the poison pill (core/rules/excuses.py)."""

from __future__ import annotations

import dataclasses
import json

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.records import TaskEventRecord
from media_assistant.core.rules.excuses import (
    MAX_EXCUSED_IN_A_ROW,
    ExcuseCount,
    Failure,
    failures_of,
    poison_accounts,
    poison_pill,
    poison_words,
)


def excuse(kind: ErrorKind = ErrorKind.SERVER_ERROR) -> ProviderError:
    cause = ProviderError(kind, "the site reported an error", step="answer_read")
    return ProviderError(ErrorKind.LEFTOVER_GENERATION, "taken for a leftover", excused=cause)


def test_a_task_is_excused_at_most_twice_in_a_row_then_its_failure_counts() -> None:
    count = ExcuseCount()
    for _ in range(MAX_EXCUSED_IN_A_ROW):
        error = excuse()
        assert count.bound("t", error) is error
        count.excused("t")
    bounded = count.bound("t", excuse())
    assert bounded.kind is ErrorKind.SERVER_ERROR and bounded.excused is None
    assert "excused 2 times in a row" in bounded.message and bounded.step == "answer_read"
    assert count.bound("other", excuse()).kind is ErrorKind.LEFTOVER_GENERATION  # per task


def test_anything_else_starts_the_count_afresh() -> None:
    count = ExcuseCount()
    count.excused("t")
    count.excused("t")
    count.reset("t")
    assert count.bound("t", excuse()).kind is ErrorKind.LEFTOVER_GENERATION


def test_a_failure_that_excuses_nothing_is_left_alone() -> None:
    count = ExcuseCount()
    for _ in range(5):
        count.excused("t")
    plain = ProviderError(ErrorKind.RATE_LIMITED, "429")
    assert count.bound("t", plain) is plain


def test_the_same_kind_on_every_attempt_is_a_poison_pill() -> None:
    failures = [Failure("a", "server_error"), Failure("b", "server_error")]
    pill = poison_pill([*failures, Failure("a", "server_error")])
    assert pill is not None and (pill.kind, pill.accounts, pill.attempts) == ("server_error", 2, 3)
    words = poison_words(pill)
    assert "failed the same way on 2 accounts" in words
    assert poison_accounts(f"boom ({words})") == 2
    assert poison_accounts("boom (after 3 attempts)") is None
    one = poison_pill([Failure("a", "timeout"), Failure("a", "timeout")])
    assert one is not None and "on 1 account:" in poison_words(one)


def test_mixed_kinds_or_a_single_attempt_are_no_poison_pill() -> None:
    assert poison_pill([Failure("a", "server_error"), Failure("b", "timeout")]) is None
    assert poison_pill([Failure("a", "server_error")]) is None


def event(attempt: int, code: EventCode, account: str, kind: str) -> TaskEventRecord:
    return TaskEventRecord(
        id=attempt,
        task_id="t",
        at=0.0,
        kind="retry",
        lane="web",
        account_id=account,
        attempt=attempt,
        message="",
        code=code.value,
        params_json=json.dumps({"error_kind": kind}),
    )


def test_the_failures_of_this_round_come_from_the_tasks_log() -> None:
    events = [
        event(1, EventCode.RETRY_SCHEDULED, "a", "timeout"),  # before the operator's retry
        event(2, EventCode.LOST, "a", ""),  # a killed attempt is no failure of the prompt's
        event(3, EventCode.RETRY_SCHEDULED, "b", "server_error"),
        event(3, EventCode.DEFERRED, "b", "rate_limited"),
    ]
    found = failures_of(events, 1, Failure("a", "server_error"))
    assert found == [Failure("b", "server_error"), Failure("a", "server_error")]


def test_ran_out_names_a_poison_pill_or_leaves_the_failure_as_it_is() -> None:
    from media_assistant.core.model.records import Claim
    from media_assistant.core.model.states import ModelKind
    from media_assistant.core.rules.excuses import ran_out

    claim = Claim("t", 3, 1, 3, "m", ModelKind.WEB, "a", "o", "p", None, 0.0, 9.0, 0.0)
    error = ProviderError(ErrorKind.SERVER_ERROR, "injected backend error")
    same = [
        event(1, EventCode.RETRY_SCHEDULED, "a", "server_error"),
        event(2, EventCode.RETRY_SCHEDULED, "b", "server_error"),
    ]
    message, code, params = ran_out(same, claim, error, "x (after 3 attempts)")
    assert code is EventCode.POISON_PILL and params["accounts"] == 2 and params["attempts"] == 3
    assert message.startswith("injected backend error (failed the same way on 2 accounts")
    mixed = [same[0], event(2, EventCode.RETRY_SCHEDULED, "b", "timeout")]
    assert ran_out(mixed, claim, error, "x (after 3 attempts)") == (
        "x (after 3 attempts)",
        EventCode.FAILED,
        {"error_kind": "server_error", "detail": "x (after 3 attempts)"},
    )


def test_the_excuses_an_earlier_run_granted_come_from_the_tasks_log() -> None:
    from media_assistant.core.rules.excuses import excused_before

    def deferred(attempt: int, excused: bool) -> TaskEventRecord:
        e = event(attempt, EventCode.DEFERRED, "a", "leftover_generation")
        return dataclasses.replace(
            e, params_json=json.dumps({"error_kind": "leftover_generation", "excused": excused})
        )

    log = [
        deferred(1, True),  # before the operator's retry: another round
        deferred(2, True),
        deferred(2, False),  # a leftover that would not stop: no excuse of a failure
        event(3, EventCode.RETRY_SCHEDULED, "a", "server_error"),  # a used attempt: no reset
        deferred(3, True),
    ]
    assert excused_before(log, 1) == 2
    held = event(3, EventCode.HELD_SITE_CHANGED, "a", "site_changed")  # waited for a person
    assert excused_before([*log, held], 1) == 0
    count = ExcuseCount()
    assert not count.knows("t")
    count.seed("t", excused_before(log, 1))
    assert count.knows("t") and count.bound("t", excuse()).kind is ErrorKind.SERVER_ERROR
