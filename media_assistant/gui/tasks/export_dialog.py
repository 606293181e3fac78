"""The export dialog: which tasks (the rows the filter shows, the selection, a batch, all), the
format, the header language and where; the file name is proposed from the batch and the time.

Non-modal (the scheduler keeps running meanwhile); the export itself runs as a background job
(gui/tasks/actions.py). The dialog only decides: :meth:`request` says what to export.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QLocale, QStandardPaths
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.exports.fields import Headers
from media_assistant.core.exports.write import FORMAT_SUFFIX, ExportScope, default_export_name
from media_assistant.gui.bridge.local_state import LocalStateKeeper

# Where the last export went and its format: remembered per data folder (the window's state).
STATE_FOLDER = "export_folder"
STATE_FORMAT = "export_format"
SCOPE_FILTER, SCOPE_SELECTION, SCOPE_BATCH, SCOPE_ALL = "filter", "selection", "batch", "all"


@dataclass(frozen=True, slots=True)
class ExportRequest:
    scope: ExportScope
    path: Path
    fmt: str
    headers: Headers


class ExportDialog(QDialog):
    def __init__(
        self,
        parent: QWidget | None,
        *,
        shown: Callable[[], Sequence[str]],
        shown_count: int,
        selected: Sequence[str],
        batches: Sequence[str],
        preset: ExportScope | None = None,
        filtered: bool = False,
        remembered: LocalStateKeeper | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Export tasks"))
        self._remembered = remembered
        self._shown = shown
        self._selected = tuple(selected)
        self._path_edited = False

        self.scope_group = QButtonGroup(self)
        self.scope_filter = QRadioButton(
            self.tr("The %n task(s) the table shows", "", shown_count)
            if filtered
            else self.tr("The %n task(s) in the table", "", shown_count),
            self,
        )
        self.scope_selection = QRadioButton(
            self.tr("The %n selected task(s)", "", len(self._selected))
            if self._selected
            else self.tr("Selected tasks (none selected)"),
            self,
        )
        self.scope_selection.setEnabled(bool(self._selected))
        if not self._selected:
            self.scope_selection.setToolTip(self.tr("Select tasks in the table first"))
        self.scope_batch = QRadioButton(self.tr("Batch:"), self)
        self.batch = QComboBox(self)
        for batch in batches:
            self.batch.addItem(batch, batch)
        self.scope_batch.setEnabled(bool(batches))
        self.scope_all = QRadioButton(self.tr("Every task in the store"), self)
        for i, button in enumerate(
            (self.scope_filter, self.scope_selection, self.scope_batch, self.scope_all)
        ):
            self.scope_group.addButton(button, i)

        self.format = QComboBox(self)
        for label, fmt in (
            (self.tr("Excel workbook (.xlsx)"), "xlsx"),
            (self.tr("Word document (.docx), one heading per task"), "docx"),
            (self.tr("CSV (.csv)"), "csv"),
            (self.tr("Markdown, one file (.md)"), "md"),
            (self.tr("Markdown folder, one file per task"), "md-folder"),
            (self.tr("JSON lines (.jsonl)"), "jsonl"),
        ):
            self.format.addItem(label, fmt)
        saved = str(self._recall(STATE_FORMAT) or "xlsx")
        self.format.setCurrentIndex(max(0, self.format.findData(saved)))

        self.headers = QComboBox(self)
        self.headers.addItem(self.tr("Chinese (中文)"), "zh")
        self.headers.addItem(self.tr("English (field names)"), "en")
        self.headers.setCurrentIndex(0 if QLocale().name().startswith("zh") else 1)

        self.path = QLineEdit(self)
        self.path.textEdited.connect(self._on_path_text_edited)
        browse = QPushButton(self.tr("Browse…"), self)
        browse.clicked.connect(self._browse)
        where = QHBoxLayout()
        where.addWidget(self.path, 1)
        where.addWidget(browse)

        scope_box = QVBoxLayout()
        scope_box.addWidget(self.scope_filter)
        scope_box.addWidget(self.scope_selection)
        batch_row = QHBoxLayout()
        batch_row.addWidget(self.scope_batch)
        batch_row.addWidget(self.batch, 1)
        scope_box.addLayout(batch_row)
        scope_box.addWidget(self.scope_all)
        form = QFormLayout()
        form.addRow(self.tr("Tasks:"), scope_box)
        form.addRow(self.tr("Format:"), self.format)
        form.addRow(self.tr("Column names:"), self.headers)
        form.addRow(self.tr("Save to:"), where)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(self.tr("Export"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)

        self._preset(preset)
        self.scope_group.idToggled.connect(self._on_scope_toggled)
        self.batch.currentIndexChanged.connect(lambda _i: self._propose_path())
        self.format.currentIndexChanged.connect(lambda _i: self._propose_path())
        self._propose_path()
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("M") * 60)

    # ---------------------------------------------------------------- state

    def _preset(self, preset: ExportScope | None) -> None:
        if preset is not None and preset.batch_id is not None and preset.task_ids is None:
            index = self.batch.findData(preset.batch_id)
            if index < 0:
                self.batch.addItem(preset.batch_id, preset.batch_id)
                index = self.batch.count() - 1
            self.batch.setCurrentIndex(index)
            self.scope_batch.setEnabled(True)
            self.scope_batch.setChecked(True)
        elif preset is not None and preset.task_ids is not None and self._selected:
            self.scope_selection.setChecked(True)
        else:
            self.scope_filter.setChecked(True)

    def scope_kind(self) -> str:
        return (SCOPE_FILTER, SCOPE_SELECTION, SCOPE_BATCH, SCOPE_ALL)[
            max(0, self.scope_group.checkedId())
        ]

    def scope(self) -> ExportScope:
        kind = self.scope_kind()
        if kind == SCOPE_SELECTION:
            return ExportScope(task_ids=self._selected)
        if kind == SCOPE_BATCH:
            return ExportScope(batch_id=str(self.batch.currentData()))
        if kind == SCOPE_ALL:
            return ExportScope()
        return ExportScope(task_ids=tuple(self._shown()))

    def fmt(self) -> str:
        return str(self.format.currentData())

    def request(self) -> ExportRequest:
        headers: Headers = "zh" if self.headers.currentData() == "zh" else "en"
        return ExportRequest(self.scope(), Path(self.path.text().strip()), self.fmt(), headers)

    def accept(self) -> None:
        if not self.path.text().strip():
            self._browse()
            if not self.path.text().strip():
                return
        if self._remembered is not None:
            self._remembered.set(STATE_FOLDER, str(Path(self.path.text().strip()).parent))
            self._remembered.set(STATE_FORMAT, self.fmt())
        super().accept()

    def _recall(self, key: str) -> str:
        return str(self._remembered.get(key) or "") if self._remembered is not None else ""

    # ---------------------------------------------------------------- the file name

    def _folder(self) -> Path:
        saved = self._recall(STATE_FOLDER)
        if saved and Path(str(saved)).is_dir():
            return Path(str(saved))
        docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return Path(docs) if docs and Path(docs).is_dir() else Path.home()

    def _proposed_name(self) -> str:
        kind = self.scope_kind()
        scope = (
            ExportScope(batch_id=str(self.batch.currentData()))
            if kind == SCOPE_BATCH
            else ExportScope()
        )
        label = {SCOPE_SELECTION: "selection", SCOPE_FILTER: "tasks", SCOPE_ALL: "all-tasks"}
        return default_export_name(scope, self.fmt(), now=dt.datetime.now(), label=label.get(kind))

    def _propose_path(self) -> None:
        if self._path_edited and self.path.text().strip():
            current = Path(self.path.text().strip())  # keep the operator's name, fix the suffix
            suffix = FORMAT_SUFFIX[self.fmt()]
            stem = current.name.removesuffix(current.suffix) if current.suffix else current.name
            self.path.setText(str(current.with_name(stem + suffix)))
            return
        self.path.setText(str(self._folder() / self._proposed_name()))

    def _on_path_text_edited(self, _text: str) -> None:
        self._path_edited = True

    def _on_scope_toggled(self, _id: int, checked: bool) -> None:
        if checked:
            self._propose_path()

    def _browse(self) -> None:
        current = self.path.text().strip() or str(self._folder() / self._proposed_name())
        if self.fmt() == "md-folder":
            parent = QFileDialog.getExistingDirectory(
                self, self.tr("Folder to create the export in"), str(Path(current).parent)
            )
            path = str(Path(parent) / Path(current).name) if parent else ""
        else:
            path, _ = QFileDialog.getSaveFileName(self, self.tr("Export tasks"), current)
        if path:
            self.path.setText(path)
            self._path_edited = True
