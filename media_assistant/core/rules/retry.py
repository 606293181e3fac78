"""What to do with a failed attempt: fail, retry on the same row, or defer without burning one."""

from __future__ import annotations

import random
from dataclasses import dataclass

from media_assistant.core.model.errors import DEFERRING, ErrorKind, ProviderError

# A server's Retry-After wins over our own backoff, but never parks a task for more than this.
RETRY_AFTER_CAP_S = 120.0


@dataclass(frozen=True, slots=True)
class Backoff:
    base_s: float
    cap_s: float

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Full jitter (AWS architecture blog): uniform(0, min(cap, base·2^(attempt-1)))."""
        ceiling = min(self.cap_s, self.base_s * 2 ** max(0, attempt - 1))
        return rng.uniform(0.0, ceiling)


@dataclass(frozen=True, slots=True)
class Fail:
    kind: ErrorKind
    message: str


@dataclass(frozen=True, slots=True)
class Retry:
    """running → pending as a new attempt, not before ``delay`` seconds."""

    delay: float
    kind: ErrorKind
    message: str


@dataclass(frozen=True, slots=True)
class Defer:
    """running → pending, same attempt; the account pauses for ``pause`` seconds."""

    pause: float
    kind: ErrorKind
    message: str


@dataclass(frozen=True, slots=True)
class Hold:
    """running → pending, same attempt, no pause of its own: the account's problem (set with
    it) keeps it from running until the operator acts; other accounts may take the task."""

    kind: ErrorKind
    message: str


@dataclass(frozen=True, slots=True)
class Cancel:
    message: str


Decision = Fail | Retry | Defer | Hold | Cancel


def clamp_retry_after(seconds: float | None) -> float | None:
    if seconds is None:
        return None
    return min(max(0.0, seconds), RETRY_AFTER_CAP_S)


def decide(
    error: ProviderError,
    *,
    attempt: int,
    max_attempts: int,
    cancel_requested: bool,
    now: float,
    deadline_at: float,
    backoff: Backoff,
    default_pause: float,
    rng: random.Random,
) -> Decision:
    if cancel_requested:
        # A cancel survives retries: a failing attempt of a canceled task is not run again.
        return Cancel(f"canceled by operator (last attempt: {error.kind.value}: {error.message})")
    if not error.retryable:
        return Fail(error.kind, error.message)
    if error.kind is ErrorKind.SITE_CHANGED:
        # A broken adapter is not the task's failure, and it is not "not now" either: no
        # deadline runs out while the operator fixes it.
        return Hold(error.kind, error.message)
    retry_after = clamp_retry_after(error.retry_after)
    if error.kind in DEFERRING:
        pause = retry_after if retry_after is not None else default_pause
        if now + pause > deadline_at:
            return Fail(
                ErrorKind.DEADLINE,
                f"{error.kind.value} until past the task's deadline: {error.message}",
            )
        return Defer(pause, error.kind, error.message)
    if attempt >= max_attempts:
        return Fail(error.kind, f"{error.message} (after {attempt} attempts)")
    delay = backoff.delay(attempt, rng)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return Retry(delay, error.kind, error.message)
