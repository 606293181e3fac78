"""Backoff and the fail / retry / defer / cancel decision (DESIGN §3)."""

from __future__ import annotations

import random

import pytest

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.core.rules.retry import (
    RETRY_AFTER_CAP_S,
    Backoff,
    Cancel,
    Decision,
    Defer,
    Fail,
    Retry,
    decide,
)

API = Backoff(base_s=2.0, cap_s=60.0)
WEB = Backoff(base_s=5.0, cap_s=120.0)


def run(
    error: ProviderError,
    *,
    attempt: int = 1,
    max_attempts: int = 3,
    cancel: bool = False,
    now: float = 0.0,
    deadline: float = 1800.0,
    backoff: Backoff = API,
) -> Decision:
    return decide(
        error,
        attempt=attempt,
        max_attempts=max_attempts,
        cancel_requested=cancel,
        now=now,
        deadline_at=deadline,
        backoff=backoff,
        default_pause=30.0,
        rng=random.Random(7),
    )


@pytest.mark.parametrize(
    ("backoff", "attempt", "ceiling"),
    [
        (API, 1, 2.0),
        (API, 2, 4.0),
        (API, 3, 8.0),
        (API, 10, 60.0),
        (WEB, 1, 5.0),
        (WEB, 3, 20.0),
        (WEB, 9, 120.0),
    ],
)
def test_full_jitter_stays_within_the_exponential_ceiling(
    backoff: Backoff, attempt: int, ceiling: float
) -> None:
    rng = random.Random(1)
    delays = [backoff.delay(attempt, rng) for _ in range(2000)]
    assert 0.0 <= min(delays) and max(delays) <= ceiling
    # Full jitter spreads over the whole range (not "base + a little").
    assert min(delays) < 0.1 * ceiling and max(delays) > 0.9 * ceiling


def test_retryable_error_retries_until_attempts_run_out() -> None:
    err = ProviderError(ErrorKind.SERVER_ERROR, "HTTP 500")
    assert isinstance(run(err, attempt=1), Retry)
    assert isinstance(run(err, attempt=2), Retry)
    last = run(err, attempt=3)
    assert isinstance(last, Fail) and last.kind is ErrorKind.SERVER_ERROR


def test_retry_after_wins_over_backoff_and_is_clamped() -> None:
    d = run(ProviderError(ErrorKind.SERVER_ERROR, "503", retry_after=45.0))
    assert isinstance(d, Retry) and d.delay == 45.0
    d = run(ProviderError(ErrorKind.SERVER_ERROR, "503", retry_after=3600.0))
    assert isinstance(d, Retry) and d.delay == RETRY_AFTER_CAP_S


@pytest.mark.parametrize(
    "kind",
    [
        ErrorKind.AUTH_REJECTED,
        ErrorKind.BAD_REQUEST,
        ErrorKind.CONTEXT_TOO_LONG,
        ErrorKind.CONTENT_POLICY,
        ErrorKind.INSUFFICIENT_QUOTA,
        ErrorKind.LOGIN_REQUIRED,
        ErrorKind.BAD_INPUT,
        ErrorKind.BAD_CONFIG,
    ],
)
def test_non_retryable_errors_fail_at_once(kind: ErrorKind) -> None:
    d = run(ProviderError(kind, "no"), attempt=1)
    assert isinstance(d, Fail) and d.kind is kind


def test_rate_limit_defers_without_burning_an_attempt() -> None:
    d = run(ProviderError(ErrorKind.RATE_LIMITED, "429", retry_after=12.0), attempt=3)
    assert isinstance(d, Defer) and d.pause == 12.0
    d = run(ProviderError(ErrorKind.RATE_LIMITED, "429"))
    assert isinstance(d, Defer) and d.pause == 30.0  # the lane's default pause


def test_rate_limit_past_the_deadline_fails() -> None:
    d = run(ProviderError(ErrorKind.RATE_LIMITED, "429", retry_after=60.0), now=1790.0)
    assert isinstance(d, Fail) and d.kind is ErrorKind.DEADLINE


def test_a_cancel_survives_retries() -> None:
    d = run(ProviderError(ErrorKind.SERVER_ERROR, "500"), cancel=True)
    assert isinstance(d, Cancel)
