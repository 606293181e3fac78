"""Core events → Qt signals. The scheduler runs on the GUI thread (qasync), so no marshalling
is needed; what this adds is coalescing: bursts of changes reach views at most every
``FLUSH_MS``, merged per task, so a 400-task batch finishing does not mean 400 repaints."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from media_assistant.core.events import (
    AccountChanged,
    Event,
    EventBus,
    TaskLogged,
    TasksAdded,
    TasksChanged,
)

FLUSH_MS = 100


class QtEventBridge(QObject):
    # task id -> merged changed values (columns -> new values) since the last flush
    tasks_changed = Signal(dict)
    # heartbeat-only moves (heartbeat_at, progress_chars): views repaint lazily
    heartbeats = Signal(dict)
    tasks_added = Signal(list)
    account_changed = Signal(str)
    task_logged = Signal(str, str, str, float)  # task id, kind, message, at

    def __init__(self, bus: EventBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._changes: dict[str, dict[str, Any]] = {}
        self._beats: dict[str, dict[str, Any]] = {}
        self._added: list[str] = []
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
        elif isinstance(event, TasksAdded):
            self._added.extend(event.task_ids)
        elif isinstance(event, AccountChanged):
            self._accounts.add(event.account_id)
        elif isinstance(event, TaskLogged):
            self.task_logged.emit(event.task_id, event.kind, event.message, event.at)
            return
        else:
            return
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        # Additions first: a change may concern a task added in the same burst.
        if self._added:
            added, self._added = self._added, []
            self.tasks_added.emit(added)
        if self._changes:
            changes, self._changes = self._changes, {}
            self.tasks_changed.emit(changes)
        if self._beats:
            beats, self._beats = self._beats, {}
            self.heartbeats.emit(beats)
        if self._accounts:
            accounts, self._accounts = self._accounts, set()
            for account_id in sorted(accounts):
                self.account_changed.emit(account_id)

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._timer.stop()
