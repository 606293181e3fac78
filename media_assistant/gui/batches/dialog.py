"""The "New batch" dialog: pasted prompts or a batch file in, a validated list of NewTask out.

All parsing and validation is the core's (``core.batches.batch_import``); this module only collects
the operator's choices and shows the core's verdict. The "Import file" page is
:mod:`batch_file_page`, the shared fields below the tabs :mod:`batch_options`. Reading a file runs
on a short-lived thread so a slow disk or a large workbook never freezes the window.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.batches.batch_import import default_batch_id, read_batch, tasks_from_lines
from media_assistant.core.batches.table import SUPPORTED_SUFFIXES
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import BatchInfo, NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.batches.file_page import BatchFilePage, FilePreview
from media_assistant.gui.batches.options import BatchOptionsForm
from media_assistant.gui.common.style import RED, latin_width, resize_within_screen

_PROBLEM = f"color: {RED};"


def _local_files(event: QDropEvent) -> list[Path]:
    urls: list[QUrl] = event.mimeData().urls() if event.mimeData().hasUrls() else []
    paths = [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]
    return [p for p in paths if p.suffix.lower() in SUPPORTED_SUFFIXES]


def _in_background(fn: Callable[[], Any]) -> Future[Any]:
    """Run ``fn`` on a daemon thread (a read from a hung network share must not block exit)."""
    future: Future[Any] = Future()

    def run() -> None:
        try:
            future.set_result(fn())
        except BaseException as exc:  # handed to the GUI thread, which reports it
            future.set_exception(exc)

    threading.Thread(target=run, name="batch-file", daemon=True).start()
    return future


class NewBatchDialog(QDialog):
    """Collects a batch. After ``exec()`` returns Accepted, read ``tasks()`` and ``batch_id()``.

    ``user_content_only``: models configured with ``need_empty_prompt`` (no system text is sent).
    """

    def __init__(
        self,
        models: Sequence[tuple[str, str]],
        parent: QWidget | None = None,
        *,
        default_model: str | None = None,
        user_content_only: Collection[str] = (),
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("New batch"))
        self.setAcceptDrops(True)
        self._models: Mapping[str, ModelKind] = {name: ModelKind(kind) for name, kind in models}
        self._tasks: list[NewTask] = []
        self._batch_id = ""
        self._info: BatchInfo | None = None
        self._paste_batch_id = f"paste-{dt.datetime.now():%Y%m%d-%H%M%S}"
        self._file_batch_ids: dict[Path, str] = {}  # stamped when the file is first shown
        self._job: tuple[str, Future[Any]] | None = None  # ("preview" | "submit", future)
        self._job_path = Path()
        self._job_timer = QTimer(self, interval=20)
        self._job_timer.timeout.connect(self._on_job_timer_timeout)

        self.inputs = QWidget(self)  # disabled while the file is read for submission
        self.tabs = QTabWidget(self.inputs)
        self.tabs.addTab(self._build_paste_page(), self.tr("&Paste prompts"))
        self.file_page = BatchFilePage(self)
        self.file_page.changed.connect(self._on_input_changed)
        self.file_page.file_chosen.connect(self.open_file)
        self.tabs.addTab(self.file_page, self.tr("&Import file"))
        self.tabs.currentChanged.connect(self._on_input_changed)

        self.error_view = QPlainTextEdit(self, readOnly=True)
        self.error_view.setObjectName("errorView")
        self.error_view.setStyleSheet(f"QPlainTextEdit {{ {_PROBLEM} }}")
        self.error_view.setMinimumHeight(self.fontMetrics().lineSpacing() * 4)
        self.error_view.setMaximumHeight(self.fontMetrics().lineSpacing() * 9)
        self.error_view.hide()

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.buttons.accepted.connect(self._submit)
        self.buttons.rejected.connect(self.reject)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self).activated.connect(self._submit)

        self.options = BatchOptionsForm(self._models, user_content_only, self)
        self.options.changed.connect(self._on_input_changed)
        self.model_combo = self.options.model_combo  # stays here: callers pick the model on it
        inputs = QVBoxLayout(self.inputs)
        inputs.setContentsMargins(0, 0, 0, 0)
        inputs.addWidget(self.tabs, 1)
        inputs.addLayout(self.options)
        layout = QVBoxLayout(self)
        # Scrolls inside on a short screen (a laptop at 150 % scaling leaves ~405 px): the
        # problems and the buttons below it stay in sight.
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.inputs)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.error_view)
        layout.addWidget(self.buttons)

        for line_edit in self.findChildren(QLineEdit):
            line_edit.installEventFilter(self)  # a dropped file opens it, not types its path
        for text_edit in (self.paste_edit, self.file_page.template_edit, self.options.system_edit):
            text_edit.viewport().installEventFilter(self)

        if default_model in self._models:
            self.model_combo.setCurrentIndex(self.model_combo.findData(default_model))
        metrics = self.fontMetrics()
        resize_within_screen(self, latin_width(metrics, 110), metrics.lineSpacing() * 50)
        self._on_input_changed()

    # ------------------------------------------------------------------------------ results

    def tasks(self) -> list[NewTask]:
        return list(self._tasks)

    def batch_id(self) -> str:
        return self._batch_id

    def batch_info(self) -> BatchInfo | None:
        """What the dialog says about the batch (source file, template, title column, schedule)
        for its row in the store; None before it was accepted."""
        return self._info

    def open_file(self, path: Path) -> None:
        """Preview ``path`` (the file picker and drag & drop end here)."""
        if self._job is not None and self._job[0] == "submit":
            return  # a drop while the batch is being read: finish that first
        self.tabs.setCurrentIndex(1)
        self.file_page.show_reading(path)
        self._set_error(None)
        self._start_job("preview", lambda: FilePreview.read(path), path)
        self._on_input_changed()

    # ------------------------------------------------------------------------------- pages

    def _build_paste_page(self) -> QWidget:
        page = QWidget(self)
        self.paste_edit = QPlainTextEdit(page)
        self.paste_edit.setObjectName("pasteEdit")
        self.paste_edit.setPlaceholderText(self.tr("One prompt per line. Empty lines are skipped."))
        self.paste_edit.textChanged.connect(self._on_input_changed)
        self.prompt_count = QLabel(page)
        self.prompt_count.setObjectName("promptCount")
        self.prompt_count.setAlignment(Qt.AlignmentFlag.AlignRight)
        layout = QVBoxLayout(page)
        layout.addWidget(self.paste_edit, 1)
        layout.addWidget(self.prompt_count)
        return page

    # ------------------------------------------------------------------------------ events

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if isinstance(event, QDragEnterEvent | QDropEvent) and _local_files(event):
            if isinstance(event, QDragEnterEvent) or event.type() == QEvent.Type.DragMove:
                event.acceptProposedAction()
            else:
                self.dropEvent(event)
            return True
        return super().eventFilter(watched, event)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt API)
        if _local_files(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt API)
        if files := _local_files(event):
            event.acceptProposedAction()
            self.open_file(files[0])

    def done(self, result: int) -> None:
        self._job = None  # a read still running is abandoned; its thread ends on its own
        self._job_timer.stop()
        super().done(result)

    def _on_input_changed(self) -> None:
        paste = self.tabs.currentIndex() == 0
        file = None if paste else self.file_page.file
        self.options.suggest_batch_id(
            self._paste_batch_id
            if file is None
            else self._file_batch_ids.setdefault(file.path, default_batch_id(file.path))
        )
        self.prompt_count.setText(self.tr("%n prompt(s)", "", self._paste_count()))
        self.options.update_notes(file)
        problem = self._problem()
        submitting = self._job is not None and self._job[0] == "submit"
        self.inputs.setEnabled(not submitting)
        self.ok_button.setText(self.tr("Reading the file…") if submitting else self.tr("Submit"))
        self.ok_button.setEnabled(problem is None and self._job is None)
        self.ok_button.setToolTip(problem or self.tr("Submit the batch (Ctrl+Enter)"))

    # ----------------------------------------------------------------------------- submit

    def _paste_count(self) -> int:
        return sum(1 for line in self.paste_edit.toPlainText().splitlines() if line.strip())

    def _problem(self) -> str | None:
        """Why there is nothing to submit yet (None: ready)."""
        if not self._models:
            return self.tr("No models are configured.")
        if not self.options.batch_id():
            return self.tr("Enter a batch id.")
        if (schedule := self.options.schedule_problem()) is not None:
            return schedule
        if self.tabs.currentIndex() == 0:
            return None if self._paste_count() else self.tr("Paste at least one prompt.")
        return self.file_page.problem()

    def _submit(self) -> None:
        if self._job is not None or not self.ok_button.isEnabled():
            return
        self._set_error(None)
        model, batch_id = self.options.model(), self.options.batch_id()
        system_prompt, priority = self.options.system_prompt(), self.options.priority()
        if self.tabs.currentIndex() == 0:
            try:
                tasks = tasks_from_lines(
                    self.paste_edit.toPlainText(),
                    model=model,
                    models=self._models,
                    batch_id=batch_id,
                    priority=priority,
                    system_prompt=system_prompt,
                )
            except InputError as exc:
                self._set_error(str(exc))
                return
            self._info = self._batch_info(batch_id, None, None, None)
            self._accept_tasks(tasks, batch_id)
            return
        info = self.file_page.file
        assert info is not None  # _problem() said so
        template, models = self.file_page.template(), self._models
        title_column = self.file_page.title_column()
        defaults = dict.fromkeys(models, system_prompt) if system_prompt else None
        self._info = self._batch_info(batch_id, str(info.path), template, title_column or None)

        def read() -> list[NewTask]:
            tasks = read_batch(
                info.path,
                models=models,
                default_model=model,
                template=template,
                batch_id=batch_id,
                default_system_prompts=defaults,
                title_column=title_column,
            )
            if info.has("priority") or priority == 0:
                return tasks
            return [dataclasses.replace(task, priority=priority) for task in tasks]

        self._batch_id = batch_id
        self._start_job("submit", read, info.path)

    def _batch_info(
        self, batch_id: str, source: str | None, template: str | None, title: str | None
    ) -> BatchInfo:
        return BatchInfo(
            batch_id,
            source_file=source,
            template=template,
            title_column=title,
            start_at=self.options.start_at(),
            active_hours=self.options.active_hours(),
            share=self.options.share(),
        )

    def _accept_tasks(self, tasks: list[NewTask], batch_id: str) -> None:
        self._tasks = tasks
        self._batch_id = batch_id
        self.accept()

    def _start_job(self, kind: str, fn: Callable[[], Any], path: Path) -> None:
        self._job = (kind, _in_background(fn))
        self._job_path = path
        self._job_timer.start()
        self._on_input_changed()

    def _on_job_timer_timeout(self) -> None:
        if self._job is None:
            self._job_timer.stop()
            return
        kind, future = self._job
        if not future.done():
            return
        self._job = None
        self._job_timer.stop()
        path = self._job_path
        error = future.exception()
        if error is not None:
            # The core names the file in every line; the operator knows which file it is.
            message = str(error).replace(f"{path}: ", f"{path.name}: ")
            if kind == "preview":
                self.file_page.show_drop_hint()
                self._set_error(message, self.tr("This file cannot be used:"))
            else:
                self._set_error(message)
            self._on_input_changed()
            if not isinstance(error, InputError | OSError):
                raise error  # a bug: shown above, and the app's excepthook logs it
        elif kind == "preview":
            self.file_page.show_file(future.result())
        else:
            self._accept_tasks(future.result(), self._batch_id)
            return
        self._on_input_changed()

    def _set_error(self, message: str | None, header: str | None = None) -> None:
        if message:
            if header is None:
                header = self.tr("Nothing was submitted. Fix these problems and try again:")
            self.error_view.setPlainText(f"{header}\n{message}")
        self.error_view.setVisible(bool(message))
