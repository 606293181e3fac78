"""The API lane's gate for one account in this process: how many of the account's requests this
scheduler has in flight, against the account's concurrency.

The limits that hold for the whole team — concurrency slots, requests and tokens per minute —
are taken in the claim's own transaction by the database (core/store/api_gate.py): a claim
locks a free slot and spends the budget of exactly the task it takes, or takes nothing. This
gate only keeps a worker from asking for more than the account may ever have in flight.
"""

from __future__ import annotations

from media_assistant.core.model.accounts import MAX_CONCURRENCY, MIN_CONCURRENCY


class ApiAccountGate:
    def __init__(self, concurrency: int) -> None:
        self._concurrency = _checked(concurrency)
        self.in_flight = 0

    @property
    def concurrency(self) -> int:
        return self._concurrency

    @concurrency.setter
    def concurrency(self, value: int) -> None:
        self._concurrency = _checked(value)

    @property
    def has_free_slot(self) -> bool:
        return self.in_flight < self._concurrency

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
