"""The batches list: every batch with its name, source file, created time, progress, ETA and
failed count, newest on top; choosing one filters the task table and the lane panels. Per
batch: pause/resume, cancel, retry failed, priority, export — as buttons beside the list and in
its context menu. Actions are signals: the window's TaskActions carries them out (with the
confirmations), so this view only knows rows.

*All batches* is a button beside the heading, always in sight; the rows are the model's
(gui/batches/batch_model.py), rebuilt at most once per refresh of the window.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QStyle,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.gui.batches.batch_model import (
    ALL,
    BATCH_ROLE,
    COL_CREATED,
    COL_ETA,
    COL_FAILED,
    COL_NAME,
    COL_PROGRESS,
    COL_SHARE,
    COL_SOURCE,
    BatchLine,
    BatchListModel,
    ProgressDelegate,
)
from media_assistant.gui.common.style import bold, latin_width

__all__ = [
    "ALL",
    "COL_CREATED",
    "COL_ETA",
    "COL_FAILED",
    "COL_NAME",
    "COL_PROGRESS",
    "COL_SOURCE",
    "BatchLine",
    "BatchList",
    "BatchListModel",
]


class BatchList(QWidget):
    """The list and its actions. ``batch_selected`` carries "" for "all batches"."""

    batch_selected = Signal(str)
    pause_toggled = Signal(str, bool)  # batch id, pause (True) or resume (False)
    cancel_requested = Signal(str)
    retry_failed_requested = Signal(str)
    priority_requested = Signal(str, str)  # batch id, "top" | "bottom" | "set"
    export_requested = Signal(str)  # operator-b's export dialog (TaskActions.export_batch)

    def __init__(self, model: BatchListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.view = QTableView(self)
        self.view.setObjectName("batchList")
        self.view.setModel(model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.view.setItemDelegateForColumn(COL_PROGRESS, ProgressDelegate(self.view))
        header = self.view.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COL_NAME, QHeaderView.ResizeMode.Stretch)
        metrics = self.fontMetrics()
        for col, chars in (
            (COL_SOURCE, 16),
            (COL_CREATED, 10),
            (COL_PROGRESS, 14),
            (COL_ETA, 22),
            (COL_FAILED, 6),
            (COL_SHARE, 6),
        ):
            title = str(model.headerData(col, Qt.Orientation.Horizontal))
            header.resizeSection(
                col, max(latin_width(metrics, chars), metrics.horizontalAdvance(title) + 24)
            )
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._on_view_context_menu)
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)

        sp = QStyle.StandardPixmap
        self.pause_button = self._button(self.tr("Pause"), sp.SP_MediaPause, self._on_pause)
        self.cancel_button = self._button(
            self.tr("Cancel"), sp.SP_DialogCancelButton, self._on_cancel
        )
        self.retry_button = self._button(
            self.tr("Retry failed…"), sp.SP_BrowserReload, self._on_retry
        )
        self.priority_button = self._button(self.tr("Priority"), sp.SP_ArrowUp, None)
        menu = QMenu(self.priority_button)
        for text, where in (
            (self.tr("Move to the top"), "top"),
            (self.tr("Move to the bottom"), "bottom"),
            (self.tr("Set priority…"), "set"),
        ):
            menu.addAction(text).triggered.connect(
                lambda _=False, w=where: self.priority_requested.emit(self.current(), w)
            )
        self.priority_button.setMenu(menu)
        self.priority_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_button = self._button(
            self.tr("Export…"), sp.SP_DialogSaveButton, self._on_export
        )
        heading = QLabel(self.tr("Batches"), self)
        heading.setFont(bold(heading.font()))
        # "All batches" stays in sight however many batches there are (as the list's first
        # row it scrolled away): a button beside the heading, checked while no batch is chosen.
        # The model keeps its row 0 (the sums); the view hides it.
        self.all_button = QToolButton(self)
        self.all_button.setObjectName("allBatches")
        self.all_button.setCheckable(True)
        self.all_button.setChecked(True)
        self.all_button.clicked.connect(lambda: self.select(ALL))
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(heading)
        buttons.addWidget(self.all_button)
        buttons.addSpacing(self.fontMetrics().horizontalAdvance("MM"))
        for b in (
            self.pause_button,
            self.cancel_button,
            self.retry_button,
            self.priority_button,
            self.export_button,
        ):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(buttons)
        layout.addWidget(self.view, 1)
        # The header and two batches (more scroll): on a 1366×768 laptop each row kept here is
        # a row less of the task table.
        self.view.setMinimumHeight(self.view.verticalHeader().defaultSectionSize() * 3 + 4)
        model.modelReset.connect(self._show_all_row)
        model.dataChanged.connect(lambda *_: self._show_all_row())
        self._paused = False
        self._show_all_row()
        self.update_buttons()

    def _button(self, text: str, icon: QStyle.StandardPixmap, slot: Any) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setIcon(self.style().standardIcon(icon))
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        button.setAutoRaise(True)
        if slot is not None:
            button.clicked.connect(slot)
        return button

    # ---------------------------------------------------------------- state

    def current(self) -> str:
        rows = self.view.selectionModel().selectedRows()
        if not rows:
            return ALL
        return str(self.model.data(rows[0], BATCH_ROLE) or "")

    def select(self, batch_id: str) -> None:
        row = self.model.row_of(batch_id) if batch_id != ALL else None
        if row is None:
            self.view.clearSelection()
            self.all_button.setChecked(True)
            return
        if self.current() != batch_id:
            self.view.selectRow(row)

    def _show_all_row(self) -> None:
        """Row 0 ("all batches") is the button above the list: its words there, hidden here."""
        if self.model.rowCount() and not self.view.isRowHidden(0):
            self.view.setRowHidden(0, True)
        if not self.model.rowCount():
            self.all_button.setText(self.tr("All batches"))
            return
        line = self.model.line(0)
        text = self.tr("All batches · %1").replace(
            "%1", self.model.display_text(line, COL_PROGRESS)
        )
        if line.tally.failed:
            text += " · " + self.tr("%n failed", "", line.tally.failed)
        if line.status == "paused":
            text += " · " + self.model.status_text(line)
        if self.all_button.text() != text:
            self.all_button.setText(text)
            self.all_button.setToolTip(self.model.tooltip_text(line, COL_PROGRESS) or "")

    def after_rebuild(self, chosen: str) -> None:
        """Rows were rebuilt: keep the operator's choice selected."""
        if chosen:
            self.select(chosen)
        self.update_buttons()

    def update_buttons(self) -> None:
        """Actions enable only when they can apply; the tooltip says why not."""
        batch = self.current()
        row = self.model.row_of(batch)
        line = self.model.line(row) if row is not None else None
        pick = self.tr("Choose a batch in the list first")
        if not batch or line is None:
            for b in (
                self.pause_button,
                self.cancel_button,
                self.retry_button,
                self.priority_button,
                self.export_button,
            ):
                b.setEnabled(False)
                b.setToolTip(pick)
            self.pause_button.setText(self.tr("Pause"))
            return
        t = line.tally
        unfinished = t.pending + t.running
        self._paused = line.status in ("paused", "pausing")
        self.pause_button.setText(self.tr("Resume") if self._paused else self.tr("Pause"))
        self.pause_button.setIcon(
            self.style().standardIcon(
                QStyle.StandardPixmap.SP_MediaPlay
                if self._paused
                else QStyle.StandardPixmap.SP_MediaPause
            )
        )
        _enable(
            self.pause_button,
            bool(unfinished) or self._paused,
            self.tr("Start this batch's waiting tasks again")
            if self._paused
            else self.tr("Start nothing new from this batch; running tasks finish"),
            self.tr("Every task of this batch has finished"),
        )
        _enable(
            self.cancel_button,
            bool(unfinished),
            self.tr("Cancel every unfinished task of this batch"),
            self.tr("Every task of this batch has finished"),
        )
        _enable(
            self.retry_button,
            bool(t.failed),
            self.tr("Run this batch's failed tasks again"),
            self.tr("No task of this batch failed"),
        )
        _enable(
            self.priority_button,
            bool(t.pending),
            self.tr("Run this batch's waiting tasks sooner or later"),
            self.tr("No task of this batch is waiting"),
        )
        _enable(
            self.export_button,
            bool(t.total),
            self.tr("Write this batch's tasks to a file"),
            self.tr("This batch has no tasks"),
        )

    # ---------------------------------------------------------------- slots

    def _on_selection_changed(self) -> None:
        self.all_button.setChecked(self.current() == ALL)
        self.update_buttons()
        self.batch_selected.emit(self.current())

    def _on_pause(self) -> None:
        if self.current():
            self.pause_toggled.emit(self.current(), not self._paused)

    def _on_cancel(self) -> None:
        if self.current():
            self.cancel_requested.emit(self.current())

    def _on_retry(self) -> None:
        if self.current():
            self.retry_failed_requested.emit(self.current())

    def _on_export(self) -> None:
        if self.current():
            self.export_requested.emit(self.current())

    def _on_view_context_menu(self, pos: QPoint) -> None:
        if not self.current():
            return
        menu = QMenu(self)
        for button in (self.pause_button, self.cancel_button, self.retry_button):
            action = menu.addAction(button.text())
            action.setEnabled(button.isEnabled())
            action.triggered.connect(button.click)
        if self.priority_button.isEnabled() and self.priority_button.menu() is not None:
            sub = self.priority_button.menu()
            assert sub is not None
            menu.addMenu(sub).setText(self.tr("Priority"))
        export = menu.addAction(self.export_button.text())
        export.setEnabled(self.export_button.isEnabled())
        export.triggered.connect(self.export_button.click)
        menu.exec(self.view.viewport().mapToGlobal(pos))


def _enable(button: QToolButton, on: bool, what: str, why_not: str) -> None:
    button.setEnabled(on)
    button.setToolTip(what if on else why_not)
