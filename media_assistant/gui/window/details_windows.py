"""The open task details windows: one per task, raised when asked again, kept up to date as
their task changes or logs a line (each reload read on a database reader), closed with the
main window, with the reloads still under way (the store they read from closes after it)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.tasks.actions import TaskActions
from media_assistant.gui.tasks.details import TaskDetailsDialog


class DetailsWindows(QObject):
    def __init__(self, parent: QWidget, controller: AppController, actions: TaskActions) -> None:
        super().__init__(parent)
        self.parent_window = parent
        self.controller = controller
        self.actions = actions
        self.open: dict[str, TaskDetailsDialog] = {}
        self._refreshes: set[asyncio.Task[Any]] = set()  # reloads under way

    def open_later(self, task_id: str) -> None:
        spawn(self.show(task_id), f"open:{task_id}")

    async def show(self, task_id: str) -> TaskDetailsDialog | None:
        record = await self.controller.task(task_id)
        events = await self.controller.events(task_id)
        if record is None:
            return None
        dialog = self.open.get(task_id)
        if dialog is None:
            dialog = TaskDetailsDialog(record, events, self.parent_window, now=self.controller.now)
            dialog.finished.connect(lambda _r, t=task_id: self.open.pop(t, None))
            dialog.retry_requested.connect(lambda t: self.actions.retry_tasks([t]))
            dialog.retry_with_prompt_requested.connect(self.actions.retry_with_prompt)
            self.open[task_id] = dialog
        dialog.show()
        dialog.raise_()
        return dialog

    def changed(self, task_ids: Iterable[str]) -> None:
        """A transition writes its own event row (started, retry, lost, canceled...), which
        reaches us as the change, not as a logged line: reload the log with the record."""
        for tid in task_ids:
            if tid in self.open:
                self._soon(self._refresh(tid), tid)

    def logged(self, task_id: str) -> None:
        if task_id in self.open:
            self._soon(self._refresh(task_id, record=False), task_id)

    def _soon(self, reload: Coroutine[Any, Any, None], task_id: str) -> None:
        task = spawn(reload, f"details:{task_id}")
        self._refreshes.add(task)
        task.add_done_callback(self._refreshes.discard)

    async def _refresh(self, task_id: str, *, record: bool = True) -> None:
        fresh = await self.controller.task(task_id) if record else None
        events = await self.controller.events(task_id)
        dialog = self.open.get(task_id)  # it may have closed meanwhile
        if dialog is not None:
            if fresh is not None:
                dialog.update_record(fresh)
            dialog.update_events(events)

    def close_all(self) -> None:
        for dialog in list(self.open.values()):
            dialog.close()
        for refresh in list(self._refreshes):
            refresh.cancel()
