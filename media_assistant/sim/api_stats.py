"""What the fake API saw: per-key counters and every request received (``GET /_sim/stats``)."""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal, NotRequired, TypedDict

Outcome = Literal["served", "rate_limited", "errors", "client_closed"]


class KeyStats(TypedDict):
    max_concurrent: int  # peak of in_flight
    in_flight: int  # requests being generated right now (hangs and stalls included)
    served: int  # completed OK
    rate_limited: int  # answered 429 rate_limit_exceeded (real or injected)
    errors: int  # every other failure: injected faults, bad keys, bad requests
    client_closed: int  # the client went away before the answer was complete


class RequestRecord(TypedDict):
    key: str  # the bearer key ("" when none was sent)
    model: str
    messages: list[dict[str, Any]]
    stream: bool
    at: float  # wall-clock time received
    task_marker: NotRequired[str]  # from "[task:<id>]" in the last user message
    via: NotRequired[str]  # the Via header: an HTTP proxy passed the request on
    # How it ended and when (wall clock), once it has: which prompts were *answered* more than
    # once, as opposed to asked again after a client went away mid-answer (a killed process).
    outcome: NotRequired[Outcome]
    ended_at: NotRequired[float]


class SimStats(TypedDict):
    keys: dict[str, KeyStats]
    total: KeyStats  # all keys together; its max_concurrent is the peak across keys
    requests: list[RequestRecord]


def _zero() -> KeyStats:
    return KeyStats(
        max_concurrent=0, in_flight=0, served=0, rate_limited=0, errors=0, client_closed=0
    )


class StatsBook:
    """Thread-safe counters: handlers write on the simulator's loop, tests read from theirs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[str, KeyStats] = {}
        self._total = _zero()
        self._requests: list[RequestRecord] = []

    def _both(self, key: str) -> tuple[KeyStats, KeyStats]:
        stats = self._keys.get(key)
        if stats is None:
            stats = self._keys[key] = _zero()
        return stats, self._total

    def record_request(self, record: RequestRecord) -> None:
        with self._lock:
            self._requests.append(record)
            self._both(record["key"])

    def count(self, key: str, outcome: Outcome, record: RequestRecord | None = None) -> None:
        """One more ``outcome`` for ``key``; ``record`` (the request's) is marked with it."""
        with self._lock:
            for stats in self._both(key):
                stats[outcome] += 1
            if record is not None:
                record["outcome"] = outcome
                record["ended_at"] = time.time()

    @contextmanager
    def in_flight(self, key: str) -> Iterator[None]:
        """Counts the request as in flight while the block runs; the block decides the outcome."""
        with self._lock:
            for stats in self._both(key):
                stats["in_flight"] += 1
                stats["max_concurrent"] = max(stats["max_concurrent"], stats["in_flight"])
        try:
            yield
        finally:
            with self._lock:
                for stats in self._both(key):
                    stats["in_flight"] -= 1

    def snapshot(self) -> SimStats:
        with self._lock:
            return copy.deepcopy(
                SimStats(keys=self._keys, total=self._total, requests=self._requests)
            )

    def clear(self) -> None:
        """Forget history; requests still in flight keep counting as in flight."""
        with self._lock:
            for stats in (*self._keys.values(), self._total):
                in_flight = stats["in_flight"]
                stats.update(_zero())
                stats["in_flight"] = stats["max_concurrent"] = in_flight
            self._requests.clear()
