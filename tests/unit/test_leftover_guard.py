"""The blame an unlocated leftover takes (issue 17 item 10): pure rules of LeftoverGuard, with
the time passed in."""

from __future__ import annotations

from pathlib import Path

import pytest

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.providers.web import leftover
from media_assistant.providers.web.leftover import LeftoverGuard, SentPrompt

HARD_S = 450.0
SENT_AT = 1_000_000.0


def shadowed(tmp_path: Path) -> LeftoverGuard:
    guard = LeftoverGuard(tmp_path, HARD_S)
    guard._unlocated = SentPrompt("gone", 1, SENT_AT, "https://chat.example/")  # as settle() does
    return guard


@pytest.mark.parametrize(
    "kind",
    [ErrorKind.SERVER_ERROR, ErrorKind.TIMEOUT, ErrorKind.PROTOCOL, ErrorKind.BROWSER_CRASHED],
)
def test_a_failure_in_the_shadow_is_deferred(tmp_path: Path, kind: ErrorKind) -> None:
    blamed = shadowed(tmp_path).blame(ProviderError(kind, "boom"), "t1", now=SENT_AT + 10)
    assert blamed.kind is ErrorKind.LEFTOVER_GENERATION and blamed.retryable
    assert blamed.retry_after == leftover.LEFTOVER_RETRY_S
    assert "boom" in blamed.message and "gone" in blamed.message


def test_the_pause_never_outlasts_the_leftover(tmp_path: Path) -> None:
    guard = shadowed(tmp_path)
    near_end = guard.blame(ProviderError(ErrorKind.TIMEOUT, "x"), "t1", now=SENT_AT + HARD_S - 5)
    assert near_end.retry_after == 5.0
    last_second = guard.blame(
        ProviderError(ErrorKind.TIMEOUT, "x"), "t1", now=SENT_AT + HARD_S - 0.2
    )
    assert last_second.retry_after == 1.0  # a floor, not a busy loop


def test_after_the_leftover_can_have_ended_a_failure_counts_again(tmp_path: Path) -> None:
    guard = shadowed(tmp_path)
    error = ProviderError(ErrorKind.SERVER_ERROR, "x")
    assert guard.blame(error, "t1", now=SENT_AT + HARD_S + 1) is error
    assert guard.shadow(SENT_AT + 1) is None  # and the shadow is gone for good


def test_the_accounts_own_problems_and_deferrals_are_not_blamed(tmp_path: Path) -> None:
    guard = shadowed(tmp_path)
    for kind in (ErrorKind.LOGIN_REQUIRED, ErrorKind.BAD_CONFIG, ErrorKind.RATE_LIMITED):
        error = ProviderError(kind, "x")
        assert guard.blame(error, "t1", now=SENT_AT + 1) is error


def test_an_answer_ends_the_shadow(tmp_path: Path) -> None:
    guard = shadowed(tmp_path)
    guard.answered()
    error = ProviderError(ErrorKind.SERVER_ERROR, "x")
    assert guard.blame(error, "t1", now=SENT_AT + 1) is error


def test_the_first_token_wait_is_bounded_only_in_the_shadow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setattr(time, "time", lambda: SENT_AT + 10)
    assert shadowed(tmp_path).first_token_s(120.0) == leftover.LEFTOVER_FIRST_TOKEN_S
    assert LeftoverGuard(tmp_path, HARD_S).first_token_s(120.0) == 120.0
    monkeypatch.setattr(time, "time", lambda: SENT_AT + HARD_S + 1)
    assert shadowed(tmp_path).first_token_s(120.0) == 120.0


def test_a_conflict_after_a_leftover_looked_at_is_deferred(tmp_path: Path) -> None:
    guard = LeftoverGuard(tmp_path, HARD_S)
    guard.looked_at = SentPrompt("gone", 1, SENT_AT, "https://chat.example/c/1", True)
    blamed = guard.blame(ProviderError(ErrorKind.SESSION_CONFLICT, "busy"), "t1", now=SENT_AT + 1)
    assert blamed.kind is ErrorKind.LEFTOVER_GENERATION
    other = ProviderError(ErrorKind.SERVER_ERROR, "x")
    assert guard.blame(other, "t1", now=SENT_AT + 1) is other  # located and settled: no shadow


# ---------------------------------------------------------------- issue 25: nothing loops


def test_a_tasks_own_earlier_attempt_never_excuses_it(tmp_path: Path) -> None:
    """Before: the prompt's own failed attempt was the 'leftover' that excused its next
    failure, so a prompt the site always fails was deferred (attempt kept) forever."""
    guard = LeftoverGuard(tmp_path, HARD_S)
    guard._unlocated = SentPrompt("err", 1, SENT_AT, "https://chat.example/")
    error = ProviderError(ErrorKind.SERVER_ERROR, "injected backend error")
    for _ in range(3):
        assert guard.blame(error, "err", now=SENT_AT + 18) is error
    guard.looked_at = SentPrompt("err", 1, SENT_AT, "https://chat.example/c/1", True)
    conflict = ProviderError(ErrorKind.SESSION_CONFLICT, "busy")
    assert guard.blame(conflict, "err", now=SENT_AT + 18) is conflict


def test_the_same_error_on_another_task_right_after_an_excuse_is_the_sites(
    tmp_path: Path,
) -> None:
    guard = shadowed(tmp_path)
    first = guard.blame(ProviderError(ErrorKind.SERVER_ERROR, "x"), "a", now=SENT_AT + 1)
    assert first.kind is ErrorKind.LEFTOVER_GENERATION
    assert first.excused is not None and first.excused.kind is ErrorKind.SERVER_ERROR
    again = ProviderError(ErrorKind.SERVER_ERROR, "x")
    assert guard.blame(again, "b", now=SENT_AT + 2) is again
    assert guard.shadow(SENT_AT + 3) is None  # the shadow is over for good
    later = ProviderError(ErrorKind.TIMEOUT, "y")
    assert guard.blame(later, "c", now=SENT_AT + 4) is later


def test_another_error_on_another_task_is_still_excused(tmp_path: Path) -> None:
    guard = shadowed(tmp_path)
    guard.blame(ProviderError(ErrorKind.SERVER_ERROR, "x"), "a", now=SENT_AT + 1)
    other = guard.blame(ProviderError(ErrorKind.TIMEOUT, "x"), "b", now=SENT_AT + 2)
    assert other.kind is ErrorKind.LEFTOVER_GENERATION


async def test_an_error_the_page_showed_leaves_no_record(tmp_path: Path) -> None:
    guard = LeftoverGuard(tmp_path, HARD_S)
    await guard.remember("t1", 1, "https://chat.example/")
    assert (tmp_path / leftover.RECORD_NAME).exists()
    await guard.ended()
    assert not (tmp_path / leftover.RECORD_NAME).exists()
    assert LeftoverGuard(tmp_path, HARD_S)._record.read() is None
