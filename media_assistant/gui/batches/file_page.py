"""The "Import file" page of the New batch dialog: the file's first rows and the prompt template.

The page shows what :meth:`FilePreview.read` found and lets the operator take the prompt from the
file's prompt column or from a template of ``{column}`` placeholders; the dialog reads the file
off the GUI thread and submits.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.batches.batch_import import (
    default_title_column,
    preview_table,
    render_template,
    template_fields,
)
from media_assistant.core.batches.table import SUPPORTED_SUFFIXES
from media_assistant.core.model.errors import InputError
from media_assistant.gui.common.style import RED, bold, latin_width

PREVIEW_ROWS = 5
RENDERED_ROWS = 3
_MUTED = "color: palette(placeholder-text);"
_PROBLEM = f"color: {RED};"


@dataclasses.dataclass(slots=True)
class FilePreview:
    path: Path
    columns: list[str]
    rows: list[dict[str, str]]  # the first PREVIEW_ROWS
    total: int

    @classmethod
    def read(cls, path: Path) -> FilePreview:
        """Blocking: call it off the GUI thread."""
        columns, rows, total = preview_table(path, limit=PREVIEW_ROWS)
        return cls(path, columns, rows, total)

    def has(self, field: str) -> bool:
        """Whether a column means ``field`` (its canonical or Chinese name, any case)."""
        try:
            render_template("{" + field + "}", dict.fromkeys(self.columns, ""))
        except InputError:
            return False
        return True


class BatchFilePage(QWidget):
    """A drop hint until a file is chosen; then its preview, the prompt source and the template."""

    changed = Signal()  # a file was shown, or the prompt source or template changed
    file_chosen = Signal(Path)  # in the file picker

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._file: FilePreview | None = None
        self.file_stack = QStackedWidget(self)

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

        self.title_combo = QComboBox(loaded)
        self.title_combo.setObjectName("titleCombo")
        self.title_combo.setToolTip(
            self.tr("What each task is called in the task list (its title)")
        )
        self.title_combo.currentIndexChanged.connect(self.changed)
        self.title_row = QWidget(loaded)
        title_row = QHBoxLayout(self.title_row)
        title_row.setContentsMargins(0, 0, 0, 0)
        title_row.addWidget(QLabel(self.tr("Title column:"), self.title_row))
        title_row.addWidget(self.title_combo)
        title_row.addStretch(1)

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
        body.addWidget(self.title_row)
        body.addWidget(self.template_problem)
        body.addWidget(QLabel(self.tr("Prompts of the first rows:"), loaded))
        body.addWidget(self.rendered)
        # The file's page scrolls when the dialog is short (a 1366×768 laptop with the system
        # prompt open): its parts together are taller than that screen has room for.
        scroll = QScrollArea(self.file_stack, widgetResizable=True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(loaded)
        scroll.viewport().setAutoFillBackground(False)  # the tab page shows through
        loaded.setAutoFillBackground(False)
        self.file_stack.addWidget(scroll)

        layout = QVBoxLayout(self)
        layout.addWidget(self.file_stack)

    @property
    def file(self) -> FilePreview | None:
        """The file shown; None while there is none or it is being read."""
        return self._file

    # ------------------------------------------------------------------------------ showing

    def show_reading(self, path: Path) -> None:
        self._file = None
        self.file_label.setText(path.name)
        self.file_label.setToolTip(str(path))
        self.file_summary.setText(self.tr("Reading…"))
        self.file_stack.setCurrentIndex(1)

    def show_drop_hint(self) -> None:
        """Back to choosing a file (the one being read cannot be used)."""
        self.file_stack.setCurrentIndex(0)

    def show_file(self, info: FilePreview) -> None:
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
        widest = latin_width(self.fontMetrics(), 40)
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

        self.title_combo.blockSignals(True)
        self.title_combo.clear()
        self.title_combo.addItem(self.tr("(none: the prompt's beginning)"), "")
        for column in info.columns:
            self.title_combo.addItem(column, column)
        chosen = default_title_column(info.columns, info.rows)
        self.title_combo.setCurrentIndex(max(self.title_combo.findData(chosen or ""), 0))
        self.title_combo.setEnabled(not info.has("title"))  # the file's own titles win
        self.title_combo.blockSignals(False)

        has_prompt = info.has("prompt")
        self.use_column.setEnabled(has_prompt)
        self.use_column.setText(
            self.tr("Prompt from the file's prompt column")
            if has_prompt
            else self.tr("Prompt from the file's prompt column (this file has none)")
        )
        (self.use_column if has_prompt else self.use_template).setChecked(True)
        self._on_template_changed()

    # --------------------------------------------------------------------------- the prompt

    def template(self) -> str | None:
        """The template to render prompts from; None: take the file's prompt column."""
        if not self.use_template.isChecked():
            return None
        return self.template_edit.toPlainText().strip() or None

    def title_column(self) -> str:
        """The column that titles the tasks ("" = none)."""
        return str(self.title_combo.currentData() or "")

    def problem(self) -> str | None:
        """Why no prompts can be made from this page yet (None: ready)."""
        if self._file is None:
            return self.tr("Choose a file.")
        return self._template_problem()

    def _template_problem(self) -> str | None:
        info = self._file
        if info is None or not self.use_template.isChecked():
            return None
        template = self.template()
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
        template = self.template() or "{prompt}"
        lines = [
            f"{n}. {render_template(template, row).strip().replace(chr(10), ' ⏎ ')}"
            for n, row in enumerate(info.rows[:RENDERED_ROWS], start=1)
        ]
        self.rendered.setPlainText("\n".join(lines))

    # ------------------------------------------------------------------------------- slots

    def _choose_file(self) -> None:
        patterns = " ".join(f"*{suffix}" for suffix in SUPPORTED_SUFFIXES)
        name, _ = QFileDialog.getOpenFileName(
            self.window(),
            self.tr("Choose a batch file"),
            str(self._file.path.parent) if self._file else "",
            self.tr("Batch files (%1);;All files (*)").replace("%1", patterns),
        )
        if name:
            self.file_chosen.emit(Path(name))

    def _on_template_changed(self) -> None:
        templated = self.use_template.isChecked()
        self.template_edit.setVisible(templated)
        self.chip_row.setVisible(templated)
        self._render_preview()
        self.changed.emit()

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
