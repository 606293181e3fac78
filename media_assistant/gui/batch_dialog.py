"""The "New batch" dialog: pasted prompts or a batch file in, a validated list of NewTask out.

All parsing and validation is the core's (``core.batch_import``); this module only collects the
operator's choices and shows the core's verdict. Reading a file runs on a short-lived thread so a
slow disk or a large workbook never freezes the window.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QRectF, QSize, Qt, QTimer, QUrl
from PySide6.QtGui import (
    QColor,
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QIcon,
    QKeySequence,
    QPainter,
    QPixmap,
    QShortcut,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.batch_import import (
    SUPPORTED_SUFFIXES,
    default_batch_id,
    preview_table,
    read_batch,
    render_template,
    tasks_from_lines,
    template_fields,
)
from media_assistant.core.errors import InputError
from media_assistant.core.records import NewTask
from media_assistant.core.states import ModelKind
from media_assistant.gui.style import LANE_COLORS, RED, bold

PREVIEW_ROWS = 5
RENDERED_ROWS = 3
_MUTED = "color: palette(placeholder-text);"
_PROBLEM = f"color: {RED};"


def lane_tag_icon(kind: str, font: QFont) -> QIcon:
    """A small coloured pill reading WEB or API, so the lane shows at a glance in a list."""
    tag_font = QFont(font)
    tag_font.setPointSizeF(max(6.0, font.pointSizeF() * 0.75))
    tag_font.setBold(True)
    text = kind.upper()
    probe = QPixmap(1, 1)
    painter = QPainter(probe)
    painter.setFont(tag_font)
    metrics = painter.fontMetrics()
    width, height = metrics.horizontalAdvance(text) + 8, metrics.height() + 2
    painter.end()
    pix = QPixmap(width * 2, height * 2)  # drawn at 2x for high-DPI screens
    pix.setDevicePixelRatio(2.0)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(LANE_COLORS.get(kind, "#8a8f98")))
    painter.drawRoundedRect(QRectF(0, 0, width, height), height / 2, height / 2)
    painter.setPen(QColor("white"))
    painter.setFont(tag_font)
    painter.drawText(QRectF(0, 0, width, height), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return QIcon(pix)


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


@dataclasses.dataclass(slots=True)
class _FileInfo:
    path: Path
    columns: list[str]
    rows: list[dict[str, str]]
    total: int

    def has(self, field: str) -> bool:
        """Whether a column means ``field`` (its canonical or Chinese name, any case)."""
        try:
            render_template("{" + field + "}", dict.fromkeys(self.columns, ""))
        except InputError:
            return False
        return True


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
        self._user_content_only = frozenset(user_content_only)
        self._file: _FileInfo | None = None
        self._tasks: list[NewTask] = []
        self._batch_id = ""
        self._batch_id_edited = False
        self._paste_batch_id = f"paste-{dt.datetime.now():%Y%m%d-%H%M%S}"
        self._job: tuple[str, Future[Any]] | None = None  # ("preview" | "submit", future)
        self._job_path = Path()
        self._job_timer = QTimer(self, interval=20)
        self._job_timer.timeout.connect(self._on_job_timer_timeout)

        self.inputs = QWidget(self)  # disabled while the file is read for submission
        self.tabs = QTabWidget(self.inputs)
        self.tabs.addTab(self._build_paste_page(), self.tr("&Paste prompts"))
        self.tabs.addTab(self._build_file_page(), self.tr("&Import file"))
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

        inputs = QVBoxLayout(self.inputs)
        inputs.setContentsMargins(0, 0, 0, 0)
        inputs.addWidget(self.tabs, 1)
        inputs.addLayout(self._build_common_form())
        layout = QVBoxLayout(self)
        layout.addWidget(self.inputs, 1)
        layout.addWidget(self.error_view)
        layout.addWidget(self.buttons)

        for line_edit in self.findChildren(QLineEdit):
            line_edit.installEventFilter(self)  # a dropped file opens it, not types its path
        for text_edit in (self.paste_edit, self.template_edit, self.system_edit):
            text_edit.viewport().installEventFilter(self)

        if default_model in self._models:
            self.model_combo.setCurrentIndex(self.model_combo.findData(default_model))
        metrics = self.fontMetrics()
        self.resize(metrics.averageCharWidth() * 110, metrics.lineSpacing() * 42)
        self._on_input_changed()

    # ------------------------------------------------------------------------------ results

    def tasks(self) -> list[NewTask]:
        return list(self._tasks)

    def batch_id(self) -> str:
        return self._batch_id

    def open_file(self, path: Path) -> None:
        """Preview ``path`` (the file picker and drag & drop end here)."""
        if self._job is not None and self._job[0] == "submit":
            return  # a drop while the batch is being read: finish that first
        self.tabs.setCurrentIndex(1)
        self._file = None
        self.file_label.setText(path.name)
        self.file_label.setToolTip(str(path))
        self.file_summary.setText(self.tr("Reading…"))
        self.file_stack.setCurrentIndex(1)
        self._set_error(None)
        self._start_job("preview", lambda: preview_table(path, limit=PREVIEW_ROWS), path)
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

    def _build_file_page(self) -> QWidget:
        page = QWidget(self)
        self.file_stack = QStackedWidget(page)

        empty = QWidget(self.file_stack)
        drop_hint = QLabel(self.tr("Drop a CSV, XLSX or JSONL file here"), empty)
        drop_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        drop_hint.setStyleSheet(f"{_MUTED} border: 2px dashed palette(mid); border-radius: 8px;")
        choose = QPushButton(self.tr("&Choose file…"), empty)
        choose.clicked.connect(self._choose_file)
        empty_layout = QVBoxLayout(empty)
        empty_layout.addWidget(drop_hint, 1)
        empty_layout.addWidget(choose, 0, Qt.AlignmentFlag.AlignHCenter)
        self.file_stack.addWidget(empty)

        loaded = QWidget(self.file_stack)
        self.file_label = QLabel(loaded)
        self.file_label.setObjectName("fileLabel")
        self.file_label.setFont(bold(self.file_label.font()))
        self.file_summary = QLabel(loaded)
        self.file_summary.setObjectName("fileSummary")
        self.file_summary.setStyleSheet(_MUTED)
        change = QPushButton(self.tr("C&hoose another…"), loaded)
        change.clicked.connect(self._choose_file)
        head = QHBoxLayout()
        head.addWidget(self.file_label)
        head.addWidget(self.file_summary, 1)
        head.addWidget(change)

        self.preview = QTableWidget(loaded)
        self.preview.setObjectName("previewTable")
        self.preview.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.preview.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.preview.setWordWrap(False)
        self.preview.verticalHeader().hide()
        self.preview.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.preview.horizontalHeader().setStretchLastSection(True)

        self.use_column = QRadioButton(self.tr("Prompt from the file's prompt column"), loaded)
        self.use_template = QRadioButton(self.tr("Prompt from a template:"), loaded)
        self.source_group = QButtonGroup(loaded)
        self.source_group.addButton(self.use_column)
        self.source_group.addButton(self.use_template)
        self.use_template.toggled.connect(self._on_template_changed)

        self.template_edit = QPlainTextEdit(loaded)
        self.template_edit.setObjectName("templateEdit")
        self.template_edit.setPlaceholderText(
            self.tr("The prompt with {column} placeholders, e.g. Write an article about {topic}")
        )
        self.template_edit.setMaximumHeight(self.fontMetrics().lineSpacing() * 5)
        self.template_edit.textChanged.connect(self._on_template_changed)
        self.chip_bar = QWidget(loaded)
        self.chip_layout = QHBoxLayout(self.chip_bar)
        self.chip_layout.setContentsMargins(0, 0, 0, 0)
        chips = QScrollArea(loaded, widgetResizable=True)
        chips.setFrameShape(QScrollArea.Shape.NoFrame)
        chips.setWidget(self.chip_bar)
        chips.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        chips.setMaximumHeight(self.fontMetrics().lineSpacing() * 2 + 16)
        chips.viewport().setAutoFillBackground(False)  # the tab page shows through
        self.chip_bar.setAutoFillBackground(False)
        self.chip_row = QWidget(loaded)
        chip_row = QHBoxLayout(self.chip_row)
        chip_row.setContentsMargins(0, 0, 0, 0)
        chip_row.addWidget(QLabel(self.tr("Insert column:"), self.chip_row))
        chip_row.addWidget(chips, 1)

        self.template_problem = QLabel(loaded, wordWrap=True)
        self.template_problem.setObjectName("templateProblem")
        self.rendered = QPlainTextEdit(loaded, readOnly=True)
        self.rendered.setObjectName("renderedPreview")
        self.rendered.setMaximumHeight(self.fontMetrics().lineSpacing() * 5)

        body = QVBoxLayout(loaded)
        body.setContentsMargins(0, 0, 0, 0)
        body.addLayout(head)
        body.addWidget(self.preview, 1)
        body.addWidget(self.use_column)
        body.addWidget(self.use_template)
        body.addWidget(self.template_edit)
        body.addWidget(self.chip_row)
        body.addWidget(self.template_problem)
        body.addWidget(QLabel(self.tr("Prompts of the first rows:"), loaded))
        body.addWidget(self.rendered)
        self.file_stack.addWidget(loaded)

        layout = QVBoxLayout(page)
        layout.addWidget(self.file_stack)
        return page

    def _build_common_form(self) -> QFormLayout:
        self.model_combo = QComboBox(self)
        self.model_combo.setObjectName("modelCombo")
        tag_height = self.fontMetrics().height()
        self.model_combo.setIconSize(QSize(tag_height * 2, tag_height))
        for name, kind in self._models.items():
            self.model_combo.addItem(lane_tag_icon(kind.value, self.font()), name, name)
        if not self._models:
            self.model_combo.setPlaceholderText(self.tr("No models are configured"))
        self.model_combo.currentIndexChanged.connect(self._on_input_changed)
        self.model_note = _note(self)

        self.priority_spin = QSpinBox(self, minimum=-9999, maximum=9999)
        self.priority_spin.setObjectName("prioritySpin")
        self.priority_spin.setToolTip(self.tr("Higher runs first; 0 is normal."))
        priority_hint = QLabel(self.tr("higher runs first"), self)
        priority_hint.setStyleSheet(_MUTED)
        priority_row = QWidget(self)
        row = QHBoxLayout(priority_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.priority_spin)
        row.addWidget(priority_hint, 1)
        self.priority_note = _note(self)
        self.batch_edit = QLineEdit(self)
        self.batch_edit.setObjectName("batchIdEdit")
        self.batch_edit.textEdited.connect(self._on_batch_id_edited)
        self.batch_edit.textChanged.connect(self._on_input_changed)

        self.system_toggle = QToolButton(self)
        self.system_toggle.setCheckable(True)
        self.system_toggle.setObjectName("systemToggle")
        self.system_toggle.setText(self.tr("&System prompt (optional)"))
        self.system_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.system_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.system_toggle.setAutoRaise(True)
        self.system_toggle.toggled.connect(self._on_system_toggled)
        self.system_edit = QPlainTextEdit(self)
        self.system_edit.setObjectName("systemEdit")
        self.system_edit.setMaximumHeight(self.fontMetrics().lineSpacing() * 4)
        self.system_edit.hide()
        self.system_note = _note(self)

        form = QFormLayout()
        form.addRow(self.tr("&Model:"), _stacked(self.model_combo, self.model_note))
        form.addRow(self.tr("P&riority:"), _stacked(priority_row, self.priority_note))
        form.addRow(self.tr("&Batch id:"), self.batch_edit)
        form.addRow(_stacked(self.system_toggle, self.system_edit, self.system_note))
        return form

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

    def _choose_file(self) -> None:
        patterns = " ".join(f"*{suffix}" for suffix in SUPPORTED_SUFFIXES)
        name, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Choose a batch file"),
            str(self._file.path.parent) if self._file else "",
            self.tr("Batch files (%1);;All files (*)").replace("%1", patterns),
        )
        if name:
            self.open_file(Path(name))

    def _on_batch_id_edited(self, _text: str) -> None:
        self._batch_id_edited = True

    def _on_system_toggled(self, shown: bool) -> None:
        self.system_toggle.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )
        self.system_edit.setVisible(shown)
        if shown:
            self.system_edit.setFocus()
        self._on_input_changed()

    def _on_template_changed(self) -> None:
        templated = self.use_template.isChecked()
        self.template_edit.setVisible(templated)
        self.chip_row.setVisible(templated)
        self._render_preview()
        self._on_input_changed()

    def _on_input_changed(self) -> None:
        paste = self.tabs.currentIndex() == 0
        if not self._batch_id_edited:
            default = self._paste_batch_id
            if not paste and self._file is not None:
                default = default_batch_id(self._file.path)
            if self.batch_edit.text() != default:
                self.batch_edit.setText(default)
        self.prompt_count.setText(self.tr("%n prompt(s)", "", self._paste_count()))
        self._update_notes(paste)
        problem = self._problem()
        submitting = self._job is not None and self._job[0] == "submit"
        self.inputs.setEnabled(not submitting)
        self.ok_button.setText(self.tr("Reading the file…") if submitting else self.tr("Submit"))
        self.ok_button.setEnabled(problem is None and self._job is None)
        self.ok_button.setToolTip(problem or self.tr("Submit the batch (Ctrl+Enter)"))

    def _update_notes(self, paste: bool) -> None:
        info = None if paste else self._file
        model = self.model_combo.currentData()
        self.model_note.setText(
            self.tr("The file has a model column: it wins; rows that leave it empty use this one.")
            if info and info.has("model")
            else ""
        )
        file_priority = info is not None and info.has("priority")
        self.priority_spin.setEnabled(not file_priority)
        self.priority_note.setText(
            self.tr("Taken from the file's priority column (empty cells count as 0).")
            if file_priority
            else ""
        )
        notes = []
        if self.system_toggle.isChecked():
            if info and info.has("system_prompt"):
                notes.append(self.tr("Rows with their own system_prompt keep it."))
            if model in self._user_content_only:
                notes.append(self.tr("This model is sent only the prompt: no system prompt."))
            elif self._models.get(model) is ModelKind.WEB:
                notes.append(
                    self.tr("Web model: the system prompt is typed into the chat page as text.")
                )
        self.system_note.setText(" ".join(notes))
        for note in (self.model_note, self.priority_note, self.system_note):
            note.setVisible(bool(note.text()))

    # ------------------------------------------------------------------------- file preview

    def _show_file(self, info: _FileInfo) -> None:
        self._file = info
        self.file_summary.setText(self.tr("%n row(s)", "", info.total))
        self.preview.clear()
        self.preview.setColumnCount(len(info.columns))
        self.preview.setRowCount(len(info.rows))
        self.preview.setHorizontalHeaderLabels(info.columns)
        for r, row in enumerate(info.rows):
            for c, column in enumerate(info.columns):
                value = row.get(column, "")
                item = QTableWidgetItem(value.replace("\n", " ⏎ "))
                item.setToolTip(value)
                self.preview.setItem(r, c, item)
        self.preview.resizeColumnsToContents()
        widest = self.fontMetrics().averageCharWidth() * 40
        for c in range(len(info.columns)):
            self.preview.setColumnWidth(c, min(self.preview.columnWidth(c), widest))
        self._fit_preview_height(len(info.rows))

        while self.chip_layout.count():
            old = self.chip_layout.takeAt(0)
            if old is not None and (widget := old.widget()) is not None:
                widget.deleteLater()
        for column in info.columns:
            chip = QToolButton(self.chip_bar)
            chip.setText(column)
            chip.setToolTip(self.tr("Insert this column into the template at the cursor"))
            chip.clicked.connect(lambda _=False, c=column: self._insert_placeholder(c))
            self.chip_layout.addWidget(chip)
        self.chip_layout.addStretch(1)

        has_prompt = info.has("prompt")
        self.use_column.setEnabled(has_prompt)
        self.use_column.setText(
            self.tr("Prompt from the file's prompt column")
            if has_prompt
            else self.tr("Prompt from the file's prompt column (this file has none)")
        )
        (self.use_column if has_prompt else self.use_template).setChecked(True)
        self._on_template_changed()

    def _fit_preview_height(self, rows: int) -> None:
        table = self.preview
        height = table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
        height += table.verticalHeader().defaultSectionSize() * max(rows, 1)
        height += table.horizontalScrollBar().sizeHint().height()
        table.setMinimumHeight(min(height, table.verticalHeader().defaultSectionSize() * 4))
        table.setMaximumHeight(height)

    def _insert_placeholder(self, column: str) -> None:
        self.use_template.setChecked(True)
        self.template_edit.insertPlainText("{" + column + "}")
        self.template_edit.setFocus()

    def _render_preview(self) -> None:
        """Show the first rows' prompts, or say why the template cannot make them."""
        info = self._file
        problem = self._template_problem()
        self.template_problem.setText(problem or "")
        self.template_problem.setStyleSheet(_PROBLEM if problem else "")
        self.template_problem.setVisible(bool(problem))
        if info is None or problem is not None:
            self.rendered.setPlainText("")
            return
        template = self._template() or "{prompt}"
        lines = [
            f"{n}. {render_template(template, row).strip().replace(chr(10), ' ⏎ ')}"
            for n, row in enumerate(info.rows[:RENDERED_ROWS], start=1)
        ]
        self.rendered.setPlainText("\n".join(lines))

    def _template(self) -> str | None:
        if not self.use_template.isChecked():
            return None
        return self.template_edit.toPlainText().strip() or None

    def _template_problem(self) -> str | None:
        info = self._file
        if info is None or not self.use_template.isChecked():
            return None
        template = self._template()
        if template is None:
            return self.tr("Write a template, or insert a column below.")
        try:
            names = template_fields(template)
        except InputError as exc:
            return str(exc)
        unknown = [n for n in names if not info.has(n)]
        if unknown:
            return self.tr("Not a column of this file: %1").replace(
                "%1", ", ".join("{" + n + "}" for n in unknown)
            )
        return None

    # ----------------------------------------------------------------------------- submit

    def _paste_count(self) -> int:
        return sum(1 for line in self.paste_edit.toPlainText().splitlines() if line.strip())

    def _problem(self) -> str | None:
        """Why there is nothing to submit yet (None: ready)."""
        if not self._models:
            return self.tr("No models are configured.")
        if not self.batch_edit.text().strip():
            return self.tr("Enter a batch id.")
        if self.tabs.currentIndex() == 0:
            return None if self._paste_count() else self.tr("Paste at least one prompt.")
        if self._file is None:
            return self.tr("Choose a file.")
        return self._template_problem()

    def _submit(self) -> None:
        if self._job is not None or not self.ok_button.isEnabled():
            return
        self._set_error(None)
        model = str(self.model_combo.currentData())
        batch_id = self.batch_edit.text().strip()
        system_prompt = self.system_edit.toPlainText().strip() or None
        priority = self.priority_spin.value()
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
            self._accept_tasks(tasks, batch_id)
            return
        assert self._file is not None  # _problem() said so
        info, template, models = self._file, self._template(), self._models
        defaults = dict.fromkeys(models, system_prompt) if system_prompt else None

        def read() -> list[NewTask]:
            tasks = read_batch(
                info.path,
                models=models,
                default_model=model,
                template=template,
                batch_id=batch_id,
                default_system_prompts=defaults,
            )
            if info.has("priority") or priority == 0:
                return tasks
            return [dataclasses.replace(task, priority=priority) for task in tasks]

        self._batch_id = batch_id
        self._start_job("submit", read, info.path)

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
                self.file_stack.setCurrentIndex(0)
                self._set_error(message, self.tr("This file cannot be used:"))
            else:
                self._set_error(message)
            self._on_input_changed()
            if not isinstance(error, InputError | OSError):
                raise error  # a bug: shown above, and the app's excepthook logs it
        elif kind == "preview":
            columns, rows, total = future.result()
            self._show_file(_FileInfo(path, columns, rows, total))
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


def _note(parent: QWidget) -> QLabel:
    label = QLabel(parent, wordWrap=True)
    label.setStyleSheet(_MUTED)
    label.hide()
    return label


def _stacked(*widgets: QWidget) -> QWidget:
    box = QWidget(widgets[0].parentWidget())
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget)
    return box
