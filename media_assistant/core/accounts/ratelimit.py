"""The API lane's gate for one account: concurrency slots plus optional rpm/tpm buckets.

aiolimiter's own waiters are served smallest-request-first, so a long prompt could wait behind
an endless stream of short ones. Admission here is FIFO: one asyncio.Lock (fair by design)
orders the callers, and only the caller at the head waits on the buckets.
"""

from __future__ import annotations

import asyncio
import math

from aiolimiter import AsyncLimiter

from media_assistant.core.model.accounts import MAX_CONCURRENCY, MIN_CONCURRENCY

# Rough token estimate for the tpm bucket before the provider reports real usage.
CHARS_PER_TOKEN = 3.0
EXPECTED_COMPLETION_TOKENS = 800


def estimate_tokens(prompt_chars: int) -> int:
    return math.ceil(prompt_chars / CHARS_PER_TOKEN) + EXPECTED_COMPLETION_TOKENS


class ApiAccountGate:
    def __init__(self, concurrency: int, rpm: int | None = None, tpm: int | None = None) -> None:
        self._concurrency = _checked(concurrency)
        self.in_flight = 0
        self._fifo = asyncio.Lock()
        self.rpm_limit, self.tpm_limit = rpm, tpm
        self.rpm = AsyncLimiter(rpm, 60.0) if rpm else None
        self.tpm = AsyncLimiter(tpm, 60.0) if tpm else None

    @property
    def concurrency(self) -> int:
        return self._concurrency

    @concurrency.setter
    def concurrency(self, value: int) -> None:
        self._concurrency = _checked(value)

    @property
    def has_free_slot(self) -> bool:
        return self.in_flight < self._concurrency

    @property
    def limits_rate(self) -> bool:
        return self.rpm is not None or self.tpm is not None

    async def admit(self, tokens: int) -> None:
        """Wait, in arrival order, until the rpm and tpm buckets allow one more request."""
        async with self._fifo:
            if self.rpm is not None:
                await self.rpm.acquire(1)
            if self.tpm is not None:
                await self.tpm.acquire(min(float(tokens), self.tpm.max_rate))

    def take_slot(self) -> None:
        self.in_flight += 1

    def release_slot(self) -> None:
        self.in_flight -= 1


def _checked(concurrency: int) -> int:
    if not MIN_CONCURRENCY <= concurrency <= MAX_CONCURRENCY:
        raise ValueError(
            f"concurrency must be between {MIN_CONCURRENCY} and {MAX_CONCURRENCY}, "
            f"got {concurrency}"
        )
    return concurrency
