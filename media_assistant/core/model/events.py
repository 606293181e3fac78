"""Typed change events, published by the store after each committed transaction.

Nothing in the core knows who listens: the CLI prints progress from them, the GUI's bridge turns
them into Qt signals, and its table model updates only the rows they name.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from media_assistant.core.model.accounts import AccountStatus
    from media_assistant.core.model.records import BatchRecord, Pause

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
    # The new rows as a task table shows them (the store's view columns): listeners need no
    # read of their own, which could return after a newer change of the same rows.
    rows: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class AccountChanged:
    account_id: str
    # The account's state after the change, read in the same transaction (None: read it).
    status: AccountStatus | None = None


@dataclass(frozen=True, slots=True)
class TasksSynced:
    """Rows another process changed (or added), as a task table shows them, read after those
    changes by :class:`~media_assistant.core.store.follower.DatabaseFollower`."""

    rows: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class TaskLogged:
    task_id: str
    kind: str
    message: str
    at: float


@dataclass(frozen=True, slots=True)
class BatchesChanged:
    """Batch rows added or changed (a submit, a new schedule), by us or another process."""

    batches: tuple[BatchRecord, ...]


@dataclass(frozen=True, slots=True)
class PausesChanged:
    """The pauses now in force (all of them: the set is small), after one was set or lifted."""

    pauses: tuple[Pause, ...]


@dataclass(frozen=True, slots=True)
class SchedulerIdle:
    """Nothing is running or claimable right now (the CLI's ``run`` may decide to end)."""

    reason: str = ""


@dataclass(frozen=True, slots=True)
class StoreLinkChanged:
    """The team database stopped answering, or answers again (core/store/link.py). The window
    shows a banner ("team database unreachable — reconnecting, 12 s"), ``run`` a line."""

    reachable: bool
    down_since: float | None  # the wall clock when it stopped answering
    held: int  # answers received, kept in memory until they can be written
    message: str


@dataclass(frozen=True, slots=True)
class DiskSpaceChanged:
    """The data dir's disk became full or usable again, or the number of answers held in
    memory until they can be written changed (core/disk/full.py). The window shows a banner,
    ``run`` a line."""

    full: bool
    folder: str
    free_bytes: int | None
    held: int
    message: str


Event = (
    TasksChanged
    | TasksAdded
    | TasksSynced
    | AccountChanged
    | TaskLogged
    | SchedulerIdle
    | DiskSpaceChanged
    | StoreLinkChanged
    | BatchesChanged
    | PausesChanged
)
Subscriber = Callable[[Event], None]


@dataclass
class EventBus:
    """Subscribers are called on the loop's thread, in the order events were published.

    Stores publish after each commit on whatever thread ran it — a database thread, usually
    (core/store/threads.py). Once bound to a loop, an event published on another thread is handed
    to the loop with ``call_soon_threadsafe``: first in, first out, so the order of commits is
    the order in which subscribers hear of them.
    """

    _subscribers: list[Subscriber] = field(default_factory=list)
    _loop: asyncio.AbstractEventLoop | None = None
    _loop_thread: int | None = None

    def bind_loop(self, loop: asyncio.AbstractEventLoop, thread_id: int | None = None) -> None:
        """Deliver events on ``loop`` (whose thread is the calling one unless given)."""
        self._loop = loop
        self._loop_thread = threading.get_ident() if thread_id is None else thread_id

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: Event) -> None:
        loop = self._loop
        if loop is not None and threading.get_ident() != self._loop_thread:
            try:
                loop.call_soon_threadsafe(self._dispatch, event)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                log.debug("event after the loop closed: %r", event)
            return
        self._dispatch(event)

    def _dispatch(self, event: Event) -> None:
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # a broken listener must not break the scheduler
                log.exception("event subscriber %r failed on %r", callback, event)
