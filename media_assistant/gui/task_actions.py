"""The task actions of the toolbar and the table's context menu: cancel, cancel batch, retry,
retry all failed, export. Non-modal prompts only: the scheduler keeps running meanwhile."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QStyle, QToolBar

from media_assistant.gui.controller import AppController
from media_assistant.gui.task_model import TaskTableModel
from media_assistant.gui.task_view import TaskTable


class TaskActions(QObject):
    def __init__(
        self,
        window: QMainWindow,
        controller: AppController,
        table: TaskTable,
        model: TaskTableModel,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.controller = controller
        self.table = table
        self.model = model
        self.cancel: QAction | None = None
        self.retry: QAction | None = None

    def _show(self, text: str, timeout_ms: int = 8000) -> None:
        self.window.statusBar().showMessage(text, timeout_ms)

    def add(
        self,
        bar: QToolBar,
        text: str,
        icon: QStyle.StandardPixmap,
        slot: Any,
        shortcut: QKeySequence.StandardKey | None = None,
    ) -> QAction:
        action = QAction(self.window.style().standardIcon(icon), text, self.window)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        bar.addAction(action)
        return action

    def add_task_actions(self, bar: QToolBar) -> None:
        sp = QStyle.StandardPixmap
        self.cancel = self.add(
            bar,
            self.tr("Cancel"),
            sp.SP_BrowserStop,
            lambda: self.cancel_tasks(self.table.selected_ids()),
        )
        self.add(bar, self.tr("Cancel batch"), sp.SP_DialogCancelButton, self.cancel_batch)
        self.retry = self.add(
            bar,
            self.tr("Retry"),
            sp.SP_BrowserReload,
            lambda: self.retry_tasks(self.table.selected_ids()),
        )
        self.add(bar, self.tr("Retry all failed"), sp.SP_MediaSeekBackward, self.retry_failed)
        bar.addSeparator()
        self.add(bar, self.tr("Export…"), sp.SP_DialogSaveButton, lambda: self.export_tasks(None))

    def cancel_tasks(self, ids: list[str]) -> None:
        if ids:
            result = self.controller.cancel(ids)
            self._show(
                self.tr("%1 canceled, %2 stopping at their next checkpoint")
                .replace("%1", str(len(result.canceled)))
                .replace("%2", str(len(result.requested))),
                8000,
            )

    def cancel_batch(self) -> None:
        batch = self.table.current_batch()
        if batch is None:
            ids = self.table.selected_ids()
            row = self.model.task(ids[0]) if ids else None
            batch = row.batch_id if row else None
        if batch is None:
            self._show(self.tr("Pick a batch in the filter, or select one of its tasks"), 8000)
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Cancel batch"),
            self.tr("Cancel every unfinished task of batch %1?").replace("%1", batch),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.window,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def answered(button: int) -> None:
            if button != QMessageBox.StandardButton.Yes:
                return
            result = self.controller.cancel_batch(batch)
            self._show(
                self.tr("%1 canceled, %2 stopping")
                .replace("%1", str(len(result.canceled)))
                .replace("%2", str(len(result.requested))),
                8000,
            )

        box.finished.connect(answered)
        box.open()
        self.cancel_batch_box = box

    def retry_tasks(self, ids: list[str]) -> None:
        if ids:
            n = len(self.controller.retry(ids))
            self._show(self.tr("%n task(s) back in the queue", "", n), 8000)

    def retry_failed(self) -> None:
        n = len(self.controller.retry_failed())
        self._show(self.tr("%n task(s) back in the queue", "", n), 8000)

    def export_tasks(self, ids: list[str] | None) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window,
            self.tr("Export tasks"),
            str(Path.home() / "media-assistant-export.xlsx"),
            self.tr("Excel (*.xlsx);;CSV (*.csv);;Markdown (*.md);;JSON lines (*.jsonl)"),
        )
        if not path:
            return
        try:
            n = self.controller.export(Path(path), None, ids)
        except Exception as exc:  # InputError names the problem; show it
            QMessageBox.warning(self.window, self.tr("Export failed"), str(exc))
            return
        self._show(self.tr("%n task(s) written to %1", "", n).replace("%1", path), 10000)
