"""Core events → Qt signals. Events reach the bus on the GUI thread (the store hands them to the
loop in commit order, core/model/events.py), so no marshalling is needed here; what this adds is
coalescing: bursts of changes reach views at most every ``FLUSH_MS``, merged per task, so a
400-task batch finishing does not mean 400 repaints — and a 10,000-row submit from another
process reaches them in slices of ``FLUSH_ROWS``, ``BACKLOG_GAP_MS`` apart."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from media_assistant.core.model.events import (
    AccountChanged,
    BatchesChanged,
    Event,
    EventBus,
    PausesChanged,
    TaskLogged,
    TasksAdded,
    TasksChanged,
    TasksSynced,
)

FLUSH_MS = 100
FLUSH_ROWS = 200  # rows added or changed per flush; more wait for the next turn of the loop
# A backlog (another process submitted 10,000 tasks) goes in a flush at a time with this pause
# between flushes: each costs the window 20-40 ms with a 100,000-row table (insertion, paint),
# and back to back they left it no turn of its own (B7's submit phase: lag p99 80 ms).
BACKLOG_GAP_MS = 20


class QtEventBridge(QObject):
    # task id -> merged changed values (columns -> new values) since the last flush; a task that
    # another process added comes as a whole view row (it has "seq")
    tasks_changed = Signal(dict)
    # heartbeat-only moves (heartbeat_at, progress_chars): views repaint lazily
    heartbeats = Signal(dict)
    tasks_added = Signal(list)  # view rows of tasks added by this process
    account_changed = Signal(str)
    task_logged = Signal(str, str, str, float)  # task id, kind, message, at
    batches_changed = Signal(list)  # BatchRecord: batch rows added or changed (rare: at once)
    pauses_changed = Signal(list)  # Pause: every pause now in force (rare: at once)

    def __init__(self, bus: EventBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._changes: dict[str, dict[str, Any]] = {}
        self._beats: dict[str, dict[str, Any]] = {}
        self._added: list[Mapping[str, Any]] = []
        self._accounts: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FLUSH_MS)
        self._timer.timeout.connect(self.flush)
        self._unsubscribe: Callable[[], None] | None = bus.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, TasksChanged):
            target = self._beats if event.heartbeat else self._changes
            for change in event.changes:
                target.setdefault(change.task_id, {}).update(change.values)
        elif isinstance(event, TasksSynced):
            for row in event.rows:
                self._changes.setdefault(row["task_id"], {}).update(row)
        elif isinstance(event, TasksAdded):
            self._added.extend(event.rows)
        elif isinstance(event, AccountChanged):
            self._accounts.add(event.account_id)
        elif isinstance(event, TaskLogged):
            self.task_logged.emit(event.task_id, event.kind, event.message, event.at)
            return
        elif isinstance(event, BatchesChanged):
            self.batches_changed.emit(list(event.batches))
            return
        elif isinstance(event, PausesChanged):
            self.pauses_changed.emit(list(event.pauses))
            return
        else:
            return
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        # Additions first: a change may concern a task added in the same burst.
        budget = FLUSH_ROWS
        if self._added:
            added, self._added = self._added[:budget], self._added[budget:]
            budget -= len(added)
            self.tasks_added.emit(added)
        if self._changes and budget > 0 and not self._added:
            if len(self._changes) <= budget:
                changes, self._changes = self._changes, {}
            else:  # the oldest first: each task's values stay merged in arrival order
                ids = list(itertools.islice(self._changes, budget))
                changes = {tid: self._changes.pop(tid) for tid in ids}
            self.tasks_changed.emit(changes)
        if self._beats:
            beats, self._beats = self._beats, {}
            self.heartbeats.emit(beats)
        if self._accounts:
            accounts, self._accounts = self._accounts, set()
            for account_id in sorted(accounts):
                self.account_changed.emit(account_id)
        if self._added or self._changes:
            self._timer.start(BACKLOG_GAP_MS)  # the rest soon, the window's turn between
        else:
            self._timer.setInterval(FLUSH_MS)

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._timer.stop()
