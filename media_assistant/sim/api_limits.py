"""Per-key request-per-minute windows of the fake API, and OpenAI-style rate-limit headers.

Windows run on real seconds (``60 * time_scale``). Durations in headers are real seconds too, so a
client honouring them waits exactly as long as the simulator needs, unless the simulator is told
to report simulated seconds (``ApiSimConfig.sim_time_headers``).
"""

from __future__ import annotations

import math
import threading
from collections import deque
from dataclasses import dataclass


def _trim(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def format_duration(seconds: float) -> str:
    """OpenAI's (Go's) duration format: ``"250ms"``, ``"1.5s"``, ``"6m0s"``, ``"1h2m3.5s"``."""
    if seconds <= 0:
        return "0s"
    if seconds < 1:
        return f"{_trim(seconds * 1000)}ms"
    total = round(seconds, 3)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{int(hours)}h{int(minutes)}m{_trim(secs)}s"
    if minutes:
        return f"{int(minutes)}m{_trim(secs)}s"
    return f"{_trim(secs)}s"


@dataclass(frozen=True, slots=True)
class WindowDecision:
    allowed: bool
    limit: int
    remaining: int
    reset_s: float  # real seconds until the oldest request in the window leaves it

    def headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit-requests": str(self.limit),
            "x-ratelimit-remaining-requests": str(self.remaining),
            "x-ratelimit-reset-requests": format_duration(self.reset_s),
        }

    def retry_headers(self) -> dict[str, str]:
        """``retry-after`` in whole seconds rounded up (HTTP allows no fraction); ``-ms`` exact."""
        return {
            "retry-after": str(math.ceil(self.reset_s)),
            "retry-after-ms": str(math.ceil(self.reset_s * 1000)),
        }


class RateWindow:
    """A sliding window: at most ``limit`` accepted requests in any ``window_s`` real seconds."""

    def __init__(self, limit: int, window_s: float) -> None:
        if limit < 1:
            raise ValueError("rpm must be at least 1")
        self.limit = limit
        self.window_s = window_s
        self._accepted: deque[float] = deque()

    def _prune(self, now: float) -> None:
        while self._accepted and self._accepted[0] <= now - self.window_s:
            self._accepted.popleft()

    def _decision(self, now: float, allowed: bool) -> WindowDecision:
        reset = self._accepted[0] + self.window_s - now if self._accepted else 0.0
        return WindowDecision(
            allowed=allowed,
            limit=self.limit,
            remaining=max(0, self.limit - len(self._accepted)),
            reset_s=max(0.0, reset),
        )

    def acquire(self, now: float) -> WindowDecision:
        """Count one request if the window has room; the decision says whether it did."""
        self._prune(now)
        if len(self._accepted) >= self.limit:
            return self._decision(now, allowed=False)
        self._accepted.append(now)
        return self._decision(now, allowed=True)

    def peek(self, now: float) -> WindowDecision:
        self._prune(now)
        return self._decision(now, allowed=len(self._accepted) < self.limit)


class RateLimits:
    """One window per bearer key, created on first use. Thread-safe (``reset`` comes from tests)."""

    def __init__(
        self, default_rpm: int | None, per_key_rpm: dict[str, int | None], window_s: float
    ):
        self._default = default_rpm
        self._per_key = per_key_rpm
        self._window_s = window_s
        self._windows: dict[str, RateWindow] = {}
        self._lock = threading.Lock()

    def rpm_for(self, key: str) -> int | None:
        override = self._per_key.get(key)
        return override if override is not None else self._default

    def _window(self, key: str) -> RateWindow | None:
        rpm = self.rpm_for(key)
        if rpm is None:
            return None
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = RateWindow(rpm, self._window_s)
        return window

    def acquire(self, key: str, now: float) -> WindowDecision | None:
        """None when no limit applies to ``key``."""
        with self._lock:
            window = self._window(key)
            return window.acquire(now) if window else None

    def peek(self, key: str, now: float) -> WindowDecision | None:
        with self._lock:
            window = self._window(key)
            return window.peek(now) if window else None

    def clear(self) -> None:
        with self._lock:
            self._windows.clear()
