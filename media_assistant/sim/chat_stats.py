"""What the fake chat site saw, per user (``sim.stats()`` and ``GET /_sim/stats``)."""

from __future__ import annotations

import copy
import threading
from typing import Literal, TypedDict

Outcome = Literal["completed", "stopped", "failed"]


class UserStats(TypedDict):
    active: int  # generations streaming right now (also those whose page went away)
    max_concurrent: int  # peak of ``active``; 2 means the one-generation rule was broken
    conflicts: int  # times a second generation started while one streamed (both then fail)
    started: int  # generations begun (each side of a conflict counts)
    completed: int  # ran to the end (the page shows the Copy button)
    stopped: int  # ended by the Stop button (or by a disconnect, if so configured)
    failed: int  # ended by an error event: conflict, error_midstream, simulator shutdown
    rejected: int  # refused before generating: 429, busy, captcha (not 401)
    texts: list[str]  # every text received by /api/chat/completion, exactly as received
    models: list[str | None]  # the model each of those requests asked for (picker / URL)
    page_loads: int  # full loads of a chat page (a New chat click is not one)
    pages_left: int  # streams whose reader went away mid-answer (kept on, or stopped if so set)
    browsers_crashed: list[int]  # fault browser_crash: main pids of the Chromiums killed


def _zero() -> UserStats:
    return UserStats(
        active=0,
        max_concurrent=0,
        conflicts=0,
        started=0,
        completed=0,
        stopped=0,
        failed=0,
        rejected=0,
        texts=[],
        models=[],
        page_loads=0,
        pages_left=0,
        browsers_crashed=[],
    )


class ChatStatsBook:
    """Thread-safe counters: handlers write on the simulator's loop, tests read from theirs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users: dict[str, UserStats] = {}

    def _of(self, user: str) -> UserStats:
        stats = self._users.get(user)
        if stats is None:
            stats = self._users[user] = _zero()
        return stats

    def record_text(self, user: str, text: str, model: str | None = None) -> None:
        with self._lock:
            self._of(user)["texts"].append(text)
            self._of(user)["models"].append(model)

    def page_loaded(self, user: str) -> None:
        with self._lock:
            self._of(user)["page_loads"] += 1

    def page_left(self, user: str) -> None:
        with self._lock:
            self._of(user)["pages_left"] += 1

    def browser_crashed(self, user: str, pid: int) -> None:
        with self._lock:
            self._of(user)["browsers_crashed"].append(pid)

    def rejected(self, user: str) -> None:
        with self._lock:
            self._of(user)["rejected"] += 1

    def conflict(self, user: str) -> None:
        with self._lock:
            self._of(user)["conflicts"] += 1

    def started(self, user: str) -> None:
        with self._lock:
            stats = self._of(user)
            stats["started"] += 1
            stats["active"] += 1
            stats["max_concurrent"] = max(stats["max_concurrent"], stats["active"])

    def ended(self, user: str, outcome: Outcome) -> None:
        with self._lock:
            stats = self._of(user)
            stats["active"] -= 1
            stats[outcome] += 1

    def snapshot(self) -> dict[str, UserStats]:
        with self._lock:
            return copy.deepcopy(self._users)

    def user(self, user: str) -> UserStats:
        with self._lock:
            return copy.deepcopy(self._users.get(user) or _zero())

    def clear(self) -> None:
        """Forget history; generations still streaming keep counting as active."""
        with self._lock:
            for stats in self._users.values():
                active = stats["active"]
                stats.update(_zero())
                stats["active"] = stats["max_concurrent"] = active
