"""The task actions of the toolbar, the table's context menu and the batches list: cancel,
cancel batch, retry, retry failed (of a batch, with a confirmation that states the count),
pause and resume (the queue, a lane, a batch, an account), priorities, export. Non-modal
prompts only: the scheduler keeps running meanwhile. Actions are coroutines (their statements
run on the database threads); an export is a background job with progress, Cancel and, when it
is done, *Open folder*.

Each toolbar action is enabled only when it can apply (something selected, something failed…);
its tooltip says why not (:meth:`TaskActions.update_enabled`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QInputDialog,
    QMainWindow,
    QMessageBox,
    QStyle,
    QToolBar,
    QWidget,
)

from media_assistant.core.exports.fields import Headers
from media_assistant.core.exports.write import ExportScope
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.bridge.jobs import JobCanceled, JobRunner, spawn
from media_assistant.gui.bridge.local_state import LocalStateKeeper
from media_assistant.gui.tasks.export_dialog import ExportDialog
from media_assistant.gui.tasks.model import TaskTableModel
from media_assistant.gui.tasks.view import TaskTable


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
        self.cancel_batch_action: QAction | None = None
        self.retry_failed_action: QAction | None = None
        self.export_action: QAction | None = None
        self.pause_all: QAction | None = None
        self.jobs = JobRunner(window)
        self.boxes: list[QWidget] = []  # open confirmations (tests look at them)
        self.last_message = ""
        self.export_job: asyncio.Task[int | None] | None = None
        self.export_dialog: ExportDialog | None = None
        self.result_box: QMessageBox | None = None
        self.local_state: LocalStateKeeper | None = None  # the window's: the export folder

    def _show(self, text: str, timeout_ms: int = 8000) -> None:
        self.last_message = text
        if shiboken6.isValid(self.window):  # a job that ended after its window closed says nothing
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
        self.cancel_batch_action = self.add(
            bar,
            self.tr("Cancel batch"),
            sp.SP_DialogCancelButton,
            lambda _=False: self.cancel_batch(),
        )
        self.retry = self.add(
            bar,
            self.tr("Retry"),
            sp.SP_BrowserReload,
            lambda: self.retry_tasks(self.table.selected_ids()),
        )
        self.retry_failed_action = self.add(
            bar,
            self.tr("Retry failed…"),
            sp.SP_MediaSeekBackward,
            lambda: self.retry_failed(self.table.current_batch()),
        )
        bar.addSeparator()
        self.pause_all = self.add(bar, self.tr("Pause all"), sp.SP_MediaPause, self._toggle_all)
        bar.addSeparator()
        self.export_action = self.add(
            bar, self.tr("Export…"), sp.SP_DialogSaveButton, lambda: self.export_tasks(None)
        )
        self.update_enabled()

    # ---------------------------------------------------------------- what applies now

    def _scope_batch(self) -> str | None:
        """The batch the operator is looking at: the filter's, else the selected task's."""
        batch = self.table.current_batch()
        if batch is None:
            ids = self.table.selected_ids()
            row = self.model.task(ids[0]) if ids else None
            batch = row.batch_id if row else None
        return batch

    def update_enabled(self) -> None:
        """Enable each action only when it can apply; its tooltip says why not."""
        if self.cancel is None or self.retry is None:
            return
        states = self.table.selected_states()
        unfinished = sum(s in ("pending", "running") for s in states)
        retryable = sum(s in ("failed", "canceled") for s in states)
        _enable(
            self.cancel,
            bool(unfinished),
            self.tr("Cancel the selected unfinished tasks"),
            self.tr("Select tasks to cancel")
            if not states
            else self.tr("The selected tasks have all finished"),
        )
        _enable(
            self.retry,
            bool(retryable),
            self.tr("Run the selected failed or canceled tasks again"),
            self.tr("Select failed or canceled tasks to retry")
            if not states
            else self.tr("None of the selected tasks failed or was canceled"),
        )
        batch = self._scope_batch()
        tally = self.model.batches.tally(batch) if batch else None
        if self.cancel_batch_action is not None:
            _enable(
                self.cancel_batch_action,
                tally is not None and bool(tally.pending + tally.running),
                self.tr("Cancel every unfinished task of batch %1").replace(
                    "%1", self._label(batch)
                ),
                self.tr("Choose a batch (in the list or the filter) or one of its tasks")
                if batch is None
                else self.tr("Every task of batch %1 has finished").replace(
                    "%1", self._label(batch)
                ),
            )
        if self.retry_failed_action is not None:
            failed = (
                tally.failed
                if tally is not None
                else sum(t[3] for t in self.model.batches.counts.values())
            )
            if batch:
                what = self.tr("Run the failed tasks of batch %1 again (you confirm first)")
                why_not = self.tr("No task of batch %1 failed")
            else:
                what = self.tr("Run the failed tasks of all batches again (you confirm first)")
                why_not = self.tr("No task has failed")
            label = self._label(batch)
            _enable(
                self.retry_failed_action,
                bool(failed),
                what.replace("%1", label),
                why_not.replace("%1", label),
            )
        if self.export_action is not None:
            _enable(
                self.export_action,
                bool(self.model.batches.counts),
                self.tr("Write tasks and their results to a file"),
                self.tr("There are no tasks yet"),
            )
        if self.pause_all is not None:
            paused = self.model.holds.all_paused
            self.pause_all.setText(self.tr("Resume all") if paused else self.tr("Pause all"))
            self.pause_all.setIcon(
                self.window.style().standardIcon(
                    QStyle.StandardPixmap.SP_MediaPlay
                    if paused
                    else QStyle.StandardPixmap.SP_MediaPause
                )
            )
            self.pause_all.setToolTip(
                self.tr("Start new tasks again")
                if paused
                else self.tr("Start no new task anywhere; running tasks finish")
            )

    def _label(self, batch: str | None) -> str:
        return self.model.holds.label(batch) if batch else ""

    # ---------------------------------------------------------------- cancel

    def cancel_tasks(self, ids: list[str]) -> None:
        if ids:
            spawn(self._cancel(ids), "cancel")

    async def _cancel(self, ids: list[str]) -> None:
        result = await self.controller.cancel(ids)
        self._show(self.cancel_report(len(result.canceled), len(result.requested)), 8000)

    def cancel_report(self, canceled: int, stopping: int) -> str:
        """ "2 tasks canceled; 1 running task stops at its next checkpoint" — only the parts
        that happened, in words."""
        parts = []
        if canceled:
            parts.append(self.tr("%n task(s) canceled", "", canceled))
        if stopping:
            parts.append(
                self.tr("%n running task(s) will stop at the next checkpoint", "", stopping)
            )
        if not parts:
            return self.tr("Nothing to cancel: those tasks had already finished")
        return self.tr("; ", "joins parts of a sentence").join(parts)

    def cancel_batch(self, batch: str | None = None) -> None:
        batch = batch or self._scope_batch()
        if batch is None:
            self._show(self.tr("Pick a batch in the list, or select one of its tasks"), 8000)
            return
        tally = self.model.batches.tally(batch)
        unfinished = tally.pending + tally.running

        async def cancel() -> None:
            result = await self.controller.cancel_batch(batch)
            self._show(self.cancel_report(len(result.canceled), len(result.requested)), 8000)

        self._confirm(
            self.tr("Cancel batch"),
            self.tr("Cancel the %n unfinished task(s) of batch %1?", "", unfinished).replace(
                "%1", self._label(batch)
            ),
            lambda: spawn(cancel(), "cancel-batch"),
        )

    def _confirm(self, title: str, text: str, then: Any) -> QMessageBox:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.window,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def answered(button: int) -> None:
            if box in self.boxes:
                self.boxes.remove(box)
            if button == QMessageBox.StandardButton.Yes:
                then()

        box.finished.connect(answered)
        self.boxes.append(box)
        box.open()
        return box

    # ---------------------------------------------------------------- retry

    def retry_tasks(self, ids: list[str]) -> None:
        if ids:
            spawn(self._retried(self.controller.retry(ids)), "retry")

    def retry_with_prompt(self, task_id: str, prompt: str) -> None:
        spawn(self._retried(self.controller.retry_with_prompt(task_id, prompt)), "retry-edited")

    def retry_failed(self, batch: str | None = None) -> None:
        """Ask first, stating how many tasks go back and which are left out."""
        spawn(self._ask_retry_failed(batch), "retry-failed")

    async def _ask_retry_failed(self, batch: str | None) -> None:
        again, hopeless = await self.controller.failed_counts(batch)
        poison = await self.controller.poison_pills(batch)
        label = self._label(batch)
        if not again:
            self._show(
                self.tr("No failed task of batch %1 can be retried as it is").replace("%1", label)
                if batch
                else self.tr("No failed task can be retried as it is"),
                8000,
            )
            return
        text = (
            self.tr("Run the %n failed task(s) of batch %1 again?", "", again).replace("%1", label)
            if batch
            else self.tr("Run the %n failed task(s) of all batches again?", "", again)
        )
        if hopeless:
            text += "\n\n" + self.tr(
                "%n task(s) blocked by the content policy, too long for the model or with bad "
                "input are left out: they would fail the same way. Retry them one by one, with "
                "an edited prompt, from their details.",
                "",
                hopeless,
            )
        if poison:
            text += "\n\n" + self.tr(
                "%n task(s) that failed the same way on every attempt are left out: retried as "
                "they are, they would fail again. Retry them one by one from their details.",
                "",
                poison,
            )
        self._confirm(
            self.tr("Retry failed tasks"),
            text,
            lambda: spawn(self._retried(self.controller.retry_failed(batch)), "retry-failed"),
        )

    async def _retried(self, retry: Awaitable[list[str]]) -> None:
        n = len(await retry)
        self._show(self.tr("%n task(s) back in the queue", "", n), 8000)

    # ---------------------------------------------------------------- pause and resume

    def _toggle_all(self) -> None:
        self.set_paused("all", "", not self.model.holds.all_paused)

    def set_paused(self, scope: str, target: str, pause: bool) -> None:
        spawn(self._set_paused(scope, target, pause), f"pause:{scope}:{target}")

    async def _set_paused(self, scope: str, target: str, pause: bool) -> None:
        what = {
            "all": self.tr("the whole queue"),
            "lane": self.tr("the %1 lane").replace("%1", target),
            "batch": self.tr("batch %1").replace("%1", self._label(target)),
            "account": self.tr("account %1").replace("%1", target),
        }[scope]
        if not pause:
            await self.controller.resume(scope, target)
            self._show(self.tr("Resumed %1").replace("%1", what))
            return
        running = await self.controller.pause(scope, target)
        if running:
            self._show(
                self.tr("Pausing %1 after the current task (%n running)", "", running).replace(
                    "%1", what
                )
            )
        else:
            self._show(self.tr("Paused %1: nothing new starts").replace("%1", what))

    # ---------------------------------------------------------------- priorities

    def set_priority(self, ids: list[str] | None, batch: str | None, where: str) -> None:
        """``where``: "top", "bottom", or "set" (asks for the number, non-modal)."""
        if where in ("top", "bottom"):
            spawn(self._prioritize(ids, batch, None, where), "priority")
            return
        dialog = QInputDialog(self.window)
        dialog.setWindowTitle(self.tr("Set priority"))
        dialog.setLabelText(self.tr("Priority (higher runs first; 0 is normal):"))
        dialog.setInputMode(QInputDialog.InputMode.IntInput)
        dialog.setIntRange(-9999, 9999)
        first = self.model.task(ids[0]) if ids else None
        dialog.setIntValue(first.priority if first else 0)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.intValueSelected.connect(
            lambda value: spawn(self._prioritize(ids, batch, value, None), "priority")
        )
        self.boxes.append(dialog)
        dialog.finished.connect(lambda _r: self._forget(dialog))
        dialog.open()

    def _forget(self, box: QWidget) -> None:
        if box in self.boxes:
            self.boxes.remove(box)

    async def _prioritize(
        self, ids: list[str] | None, batch: str | None, value: int | None, where: str | None
    ) -> None:
        result = await self.controller.set_priority(
            ids, batch_id=batch, priority=value, where=where
        )
        text = self.tr("%n task(s) now at priority %1", "", len(result.changed)).replace(
            "%1", str(result.priority)
        )
        if result.finished:
            text += self.tr("; %n already finished, left as they were", "", len(result.finished))
        self._show(text)

    # ---------------------------------------------------------------- export

    def export_batch(self, batch_id: str) -> ExportDialog:
        """The batches list's Export: the export dialog scoped to the batch."""
        return self.export_tasks(ExportScope(batch_id=batch_id))

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
            remembered=self.local_state,
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
            text = str(exc)
            if self.controller.team_database_away(exc):  # not the export's fault: say so
                text = self.tr(
                    "The team database cannot be reached: nothing was exported. Try again once "
                    "it answers."
                )
            box = QMessageBox(
                QMessageBox.Icon.Warning, self.tr("Export failed"), text, parent=self.window
            )
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()
            self.result_box = box
            return None
        text = self.tr("%n task(s) written to %1", "", n).replace("%1", str(path))
        self._show(text, 10000)
        self.result_box = open_folder_box(self.window, self.tr("Export finished"), text, path)
        return n


def _enable(action: QAction, on: bool, what: str, why_not: str) -> None:
    action.setEnabled(on)
    action.setToolTip(what if on else why_not)


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
    folder.clicked.connect(lambda: open_folder(parent, target))
    box.open()
    return box


def open_folder(parent: QWidget, folder: Path) -> bool:
    """Open ``folder`` in the file manager; where none is registered (a bare Linux desktop,
    some locked-down PCs) say so and show where it is, instead of doing nothing."""
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
        return True
    box = QMessageBox(
        QMessageBox.Icon.Information,
        QCoreApplication.translate("TaskActions", "Open folder"),
        QCoreApplication.translate(
            "TaskActions", "No file manager could be started here. The folder is:\n%1"
        ).replace("%1", str(folder)),
        parent=parent,
    )
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return False
