"""Reading what an OpenAI-compatible server says about waiting: Retry-After and rate-limit headers.

Pure functions over a header mapping (any case), so they are tested without a server.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

# Slow the account down before a 429 when one of these is this low.
LOW_REMAINING_REQUESTS = 1
LOW_REMAINING_TOKENS = 1000

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,  # Go writes the micro sign; some servers the Greek mu
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}


def _lowered(headers: Mapping[str, str]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def parse_duration(text: str) -> float | None:
    """Seconds in an OpenAI reset value (Go's format: ``"1s"``, ``"6m0s"``, ``"20ms"``,
    ``"1h2m3.5s"``) or a bare number of seconds; None if it is neither."""
    value = text.strip()
    if not value:
        return None
    bare = _seconds(value)
    if bare is not None:
        return bare
    total, position = 0.0, 0
    for part in _DURATION_PART.finditer(value):
        if part.start() != position:
            return None
        total += float(part.group(1)) * _UNIT_SECONDS[part.group(2)]
        position = part.end()
    return total if position == len(value) else None


def parse_retry_after(headers: Mapping[str, str], *, now: float) -> float | None:
    """Seconds to wait: ``retry-after-ms``, else ``retry-after`` (seconds or an HTTP date,
    measured from ``now``, epoch seconds); None when the server did not say."""
    lowered = _lowered(headers)
    millis = _seconds(lowered.get("retry-after-ms", "").strip())
    if millis is not None:
        return millis / 1000
    value = lowered.get("retry-after", "").strip()
    if not value:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT even when it forgets to say so
        return None
    return max(0.0, when.timestamp() - now)


def _count(text: str | None) -> int | None:
    if text is None:
        return None
    value = _seconds(text.strip())
    return None if value is None else int(value)


def throttle_hint(headers: Mapping[str, str]) -> tuple[float, str] | None:
    """``(seconds, reason)`` when the rate-limit headers say the account is nearly out of
    requests or tokens for this window, so the lane can pause it before a 429."""
    lowered = _lowered(headers)
    hints: list[tuple[float, str]] = []
    requests_left = _count(lowered.get("x-ratelimit-remaining-requests"))
    if requests_left is not None and requests_left <= LOW_REMAINING_REQUESTS:
        reset = parse_duration(lowered.get("x-ratelimit-reset-requests", ""))
        if reset:
            hints.append((reset, f"{requests_left} request(s) left, window resets in {reset:g}s"))
    tokens_left = _count(lowered.get("x-ratelimit-remaining-tokens"))
    token_limit = _count(lowered.get("x-ratelimit-limit-tokens"))
    # A small tpm account would otherwise be "nearly out" after every request.
    low_tokens = (
        LOW_REMAINING_TOKENS
        if token_limit is None
        else min(LOW_REMAINING_TOKENS, token_limit // 10)
    )
    if tokens_left is not None and tokens_left < low_tokens:
        reset = parse_duration(lowered.get("x-ratelimit-reset-tokens", ""))
        if reset:
            hints.append((reset, f"{tokens_left} token(s) left, window resets in {reset:g}s"))
    if not hints:
        return None
    seconds, reason = max(hints)
    return seconds, f"rate limit nearly reached: {reason}"
