"""The task actions of the toolbar and the table's context menu: cancel, cancel batch, retry,
retry all failed, export. Non-modal prompts only: the scheduler keeps running meanwhile.
Actions are coroutines (their statements run on the database threads); an export is a
background job with progress, Cancel and, when it is done, *Open folder*."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QMainWindow,
    QMessageBox,
    QStyle,
    QToolBar,
    QWidget,
)

from media_assistant.core.export import ExportScope, Headers
from media_assistant.gui.controller import AppController
from media_assistant.gui.export_dialog import ExportDialog
from media_assistant.gui.jobs import JobCanceled, JobRunner, spawn
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
        self.jobs = JobRunner(window)
        self.export_job: asyncio.Task[int | None] | None = None
        self.export_dialog: ExportDialog | None = None
        self.result_box: QMessageBox | None = None

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
            spawn(self._cancel(ids), "cancel")

    async def _cancel(self, ids: list[str]) -> None:
        result = await self.controller.cancel(ids)
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

        async def cancel() -> None:
            result = await self.controller.cancel_batch(batch)
            self._show(
                self.tr("%1 canceled, %2 stopping")
                .replace("%1", str(len(result.canceled)))
                .replace("%2", str(len(result.requested))),
                8000,
            )

        def answered(button: int) -> None:
            if button == QMessageBox.StandardButton.Yes:
                spawn(cancel(), "cancel-batch")

        box.finished.connect(answered)
        box.open()
        self.cancel_batch_box = box

    def retry_tasks(self, ids: list[str]) -> None:
        if ids:
            spawn(self._retried(self.controller.retry(ids)), "retry")

    def retry_failed(self) -> None:
        spawn(self._retried(self.controller.retry_failed()), "retry-failed")

    async def _retried(self, retry: Awaitable[list[str]]) -> None:
        n = len(await retry)
        self._show(self.tr("%n task(s) back in the queue", "", n), 8000)

    def export_tasks(self, scope: ExportScope | Sequence[str] | None = None) -> ExportDialog:
        """The entry point of every export (toolbar, context menu, a batch's own action):
        the export dialog with ``scope`` preselected — an :class:`ExportScope` with a batch
        (e.g. the batches view), ids (the selection), or None (the rows the table shows).
        Accepting it starts the export as a background job."""
        if scope is not None and not isinstance(scope, ExportScope):
            scope = ExportScope(task_ids=tuple(scope))
        model = self.model
        batches = [
            str(self.table.batch_filter.itemData(i))
            for i in range(1, self.table.batch_filter.count())
        ]
        selected = (
            list(scope.task_ids)
            if scope is not None and scope.task_ids is not None
            else self.table.selected_ids()
        )
        preset = scope
        if scope is None and self.table.current_batch() is not None and not model.filter.active:
            preset = ExportScope(batch_id=self.table.current_batch())
        dialog = ExportDialog(
            self.window,
            shown=lambda: [row.task_id for row in model.rows()],
            shown_count=model.rowCount(),
            selected=selected,
            batches=batches,
            preset=preset,
            filtered=model.filter.active,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def accepted() -> None:
            request = dialog.request()
            self.export_job = spawn(
                self.export_to(request.path, request.scope, request.fmt, request.headers),
                "export",
            )

        dialog.accepted.connect(accepted)
        dialog.open()
        self.export_dialog = dialog
        return dialog

    async def export_to(
        self,
        path: Path,
        scope: ExportScope | Sequence[str] | None,
        fmt: str | None = None,
        headers: Headers = "en",
    ) -> int | None:
        """The export as a background job; the result with *Open folder*, or why it failed."""
        if scope is None:
            scope = ExportScope()
        elif not isinstance(scope, ExportScope):
            scope = ExportScope(task_ids=tuple(scope))
        try:
            n = await self.jobs.run(
                self.tr("Exporting to %1…").replace("%1", path.name),
                self.controller.export_work(path, fmt, scope, headers),
            )
        except JobCanceled:
            self._show(self.tr("Export canceled; nothing was written"), 8000)
            return None
        except Exception as exc:  # InputError names the problem; show it
            box = QMessageBox(
                QMessageBox.Icon.Warning, self.tr("Export failed"), str(exc), parent=self.window
            )
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()
            self.result_box = box
            return None
        text = self.tr("%n task(s) written to %1", "", n).replace("%1", str(path))
        self._show(text, 10000)
        self.result_box = open_folder_box(self.window, self.tr("Export finished"), text, path)
        return n


def open_folder_box(parent: QWidget, title: str, text: str, path: Path) -> QMessageBox:
    """A non-modal note about a file just written, with a button that opens its folder."""
    box = QMessageBox(QMessageBox.Icon.Information, title, text, parent=parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    folder = box.addButton(
        QCoreApplication.translate("TaskActions", "Open folder"),
        QMessageBox.ButtonRole.ActionRole,
    )
    box.addButton(QMessageBox.StandardButton.Close)
    target = path if path.is_dir() else path.parent  # a Markdown folder opens itself
    folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(target))))
    box.open()
    return box
