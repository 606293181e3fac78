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
    blamed = shadowed(tmp_path).blame(ProviderError(kind, "boom"), now=SENT_AT + 10)
    assert blamed.kind is ErrorKind.LEFTOVER_GENERATION and blamed.retryable
    assert blamed.retry_after == leftover.LEFTOVER_RETRY_S
    assert "boom" in blamed.message and "gone" in blamed.message


def test_the_pause_never_outlasts_the_leftover(tmp_path: Path) -> None:
    guard = shadowed(tmp_path)
    near_end = guard.blame(ProviderError(ErrorKind.TIMEOUT, "x"), now=SENT_AT + HARD_S - 5)
    assert near_end.retry_after == 5.0
    last_second = guard.blame(ProviderError(ErrorKind.TIMEOUT, "x"), now=SENT_AT + HARD_S - 0.2)
    assert last_second.retry_after == 1.0  # a floor, not a busy loop


def test_after_the_leftover_can_have_ended_a_failure_counts_again(tmp_path: Path) -> None:
    guard = shadowed(tmp_path)
    error = ProviderError(ErrorKind.SERVER_ERROR, "x")
    assert guard.blame(error, now=SENT_AT + HARD_S + 1) is error
    assert guard.shadow(SENT_AT + 1) is None  # and the shadow is gone for good


def test_the_accounts_own_problems_and_deferrals_are_not_blamed(tmp_path: Path) -> None:
    guard = shadowed(tmp_path)
    for kind in (ErrorKind.LOGIN_REQUIRED, ErrorKind.BAD_CONFIG, ErrorKind.RATE_LIMITED):
        error = ProviderError(kind, "x")
        assert guard.blame(error, now=SENT_AT + 1) is error


def test_an_answer_ends_the_shadow(tmp_path: Path) -> None:
    guard = shadowed(tmp_path)
    guard.answered()
    error = ProviderError(ErrorKind.SERVER_ERROR, "x")
    assert guard.blame(error, now=SENT_AT + 1) is error


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
    blamed = guard.blame(ProviderError(ErrorKind.SESSION_CONFLICT, "busy"), now=SENT_AT + 1)
    assert blamed.kind is ErrorKind.LEFTOVER_GENERATION
    other = ProviderError(ErrorKind.SERVER_ERROR, "x")
    assert guard.blame(other, now=SENT_AT + 1) is other  # located and settled: no shadow
