"""Typed change events, published by the store after each committed transaction.

Nothing in the core knows who listens: the CLI prints progress from them, the GUI's bridge turns
them into Qt signals, and its table model updates only the rows they name.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TaskChange:
    task_id: str
    values: Mapping[str, Any]  # column -> new value; only the columns that changed


@dataclass(frozen=True, slots=True)
class TasksChanged:
    changes: tuple[TaskChange, ...]
    heartbeat: bool = False  # only heartbeat_at/progress moved: views may repaint lazily


@dataclass(frozen=True, slots=True)
class TasksAdded:
    task_ids: tuple[str, ...]
    batch_id: str | None = None


@dataclass(frozen=True, slots=True)
class AccountChanged:
    account_id: str


@dataclass(frozen=True, slots=True)
class TaskLogged:
    task_id: str
    kind: str
    message: str
    at: float


@dataclass(frozen=True, slots=True)
class SchedulerIdle:
    """Nothing is running or claimable right now (the CLI's ``run`` may decide to end)."""

    reason: str = ""


Event = TasksChanged | TasksAdded | AccountChanged | TaskLogged | SchedulerIdle
Subscriber = Callable[[Event], None]


@dataclass
class EventBus:
    _subscribers: list[Subscriber] = field(default_factory=list)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: Event) -> None:
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # a broken listener must not break the scheduler
                log.exception("event subscriber %r failed on %r", callback, event)
