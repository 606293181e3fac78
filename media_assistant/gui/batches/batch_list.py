"""The batches list: every batch with its name, source file, created time, progress, ETA and
failed count, newest on top; choosing one filters the task table and the lane panels. Per
batch: pause/resume, cancel, retry failed, priority, export — as buttons beside the list and in
its context menu. Actions are signals: the window's TaskActions carries them out (with the
confirmations), so this view only knows rows.

The list is small (a row per batch) and rebuilt from the task model's per-batch counts
(``BatchCounts``, kept up to date as rows change) and the batch rows (``QueueHolds``), at most
once per refresh of the window and only when either changed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.gui.bridge.queue_holds import QueueHolds
from media_assistant.gui.common.pacing_labels import minutes
from media_assistant.gui.common.style import (
    AMBER,
    RED,
    STATE_COLORS,
    bold,
    format_duration,
    latin_width,
)
from media_assistant.gui.tasks.rows import BatchCounts, BatchTally

Index = QModelIndex | QPersistentModelIndex
BATCH_ROLE = Qt.ItemDataRole.UserRole + 1
PROGRESS_ROLE = Qt.ItemDataRole.UserRole + 2  # (ended, total)
COL_NAME, COL_SOURCE, COL_CREATED, COL_PROGRESS, COL_ETA, COL_FAILED = range(6)
ALL = ""  # the first row: every batch together


@dataclass(frozen=True, slots=True)
class BatchLine:
    batch_id: str  # "" for the "all batches" row
    name: str
    source: str
    source_path: str
    created_at: float | None
    tally: BatchTally
    # "" | "paused" | "pausing" | "scheduled" | "done" | "eta" | "no_eta" | "learning"
    status: str
    until: float | None = None  # scheduled: start; eta: finish
    finish: float | None = None  # scheduled: its expected end from that start, if known


class BatchListModel(QAbstractTableModel):
    def __init__(self, now: Callable[[], float], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._now = now
        self._lines: list[BatchLine] = []
        self._created: dict[str, float] = {}  # earliest task of batches without a row
        self._headers = [
            self.tr("Batch"),
            self.tr("Source file"),
            self.tr("Created"),
            self.tr("Progress"),
            self.tr("ETA"),
            self.tr("Failed"),
        ]

    # ---------------------------------------------------------------- feeding

    def note_created(self, batch_id: str, created_at: float) -> None:
        """The earliest task of a batch (its time, when the store has no batch row for it)."""
        known = self._created.get(batch_id)
        if known is None or created_at < known:
            self._created[batch_id] = created_at

    def rebuild(
        self,
        counts: BatchCounts,
        holds: QueueHolds,
        finishes: Mapping[str, float | None],
        starts: Mapping[str, float] | None = None,
    ) -> bool:
        """New lines from the counts, batch rows and ETAs (``starts``: when each batch's first
        task should start); True if the set of rows changed (the view then restores its
        selection)."""
        now = self._now()
        starts = starts or {}
        lines = [
            self._line(b, counts.tally(b), holds, finishes, starts, now) for b in counts.counts
        ]
        lines.sort(key=lambda line: (-(line.created_at or 0.0), line.batch_id))
        total = _sum(line.tally for line in lines)
        everything = BatchLine(
            ALL,
            self.tr("All batches"),
            "",
            "",
            None,
            total,
            "paused" if holds.all_paused else "",
        )
        lines.insert(0, everything)
        same_rows = [x.batch_id for x in lines] == [x.batch_id for x in self._lines]
        if same_rows:
            changed = [i for i, (a, b) in enumerate(zip(self._lines, lines, strict=True)) if a != b]
            self._lines = lines
            if changed:
                self.dataChanged.emit(
                    self.index(min(changed), 0), self.index(max(changed), len(self._headers) - 1)
                )
            return False
        self.beginResetModel()
        self._lines = lines
        self.endResetModel()
        return True

    def _line(
        self,
        batch_id: str,
        tally: BatchTally,
        holds: QueueHolds,
        finishes: Mapping[str, float | None],
        starts: Mapping[str, float],
        now: float,
    ) -> BatchLine:
        record = holds.batches.get(batch_id)
        source = record.source_file if record is not None and record.source_file else ""
        created = record.created_at if record is not None else self._created.get(batch_id)
        status, until, finish = "", None, None
        unfinished = tally.pending + tally.running
        hold = holds.batch_hold(batch_id, None, now)
        if not unfinished:
            status = "done"
        elif hold is not None and hold.kind == "paused":
            status = "pausing" if tally.running else "paused"
        elif hold is not None and hold.until is not None and not tally.running:
            status, until = "scheduled", starts.get(batch_id, hold.until)
            finish = finishes.get(batch_id)
        elif batch_id in finishes:
            finish = finishes[batch_id]
            status, until = ("eta", finish) if finish is not None else ("no_eta", None)
        else:
            status = "learning"  # no lane of its has finished a task yet: no durations
        return BatchLine(
            batch_id,
            holds.label(batch_id),
            Path(source).name if source else "",
            source,
            created,
            tally,
            status,
            until,
            finish,
        )

    # ---------------------------------------------------------------- lookups

    def line(self, row: int) -> BatchLine:
        return self._lines[row]

    def row_of(self, batch_id: str) -> int | None:
        for i, line in enumerate(self._lines):
            if line.batch_id == batch_id:
                return i
        return None

    # ---------------------------------------------------------------- Qt model API

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._lines)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._headers)

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section] if 0 <= section < len(self._headers) else None
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._lines):
            return None
        line, col = self._lines[index.row()], index.column()
        if role == BATCH_ROLE:
            return line.batch_id
        if role == PROGRESS_ROLE and col == COL_PROGRESS:
            return (line.tally.ended, line.tally.total)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(line, col)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(line, col)
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == COL_FAILED and line.tally.failed:
                return QBrush(QColor(RED))
            if col == COL_ETA and line.status in ("paused", "pausing", "scheduled"):
                return QBrush(QColor(AMBER))
            if col == COL_ETA and line.status == "done":
                return QBrush(QColor(STATE_COLORS["success"]))
        if role == Qt.ItemDataRole.FontRole and not line.batch_id and col == COL_NAME:
            font = QApplication.font()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and col == COL_FAILED:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, line: BatchLine, col: int) -> str:
        if col == COL_NAME:
            return line.name
        if col == COL_SOURCE:
            return line.source
        if col == COL_CREATED:
            if line.created_at is None:
                return ""
            moment = dt.datetime.fromtimestamp(line.created_at)
            today = dt.datetime.fromtimestamp(self._now()).date()
            return moment.strftime("%H:%M" if moment.date() == today else "%m-%d %H:%M")
        if col == COL_PROGRESS:
            return (
                self.tr("%1 of %2")
                .replace("%1", str(line.tally.ended))
                .replace("%2", str(line.tally.total))
            )
        if col == COL_ETA:
            return self.status_text(line)
        if col == COL_FAILED:
            return str(line.tally.failed) if line.tally.failed else ""
        return ""

    def status_text(self, line: BatchLine) -> str:
        now = self._now()
        if line.status == "done":
            return self.tr("Done")
        if line.status == "paused":
            return self.tr("Paused")
        if line.status == "pausing":
            return self.tr("Pausing after the current task")
        if line.status == "scheduled" and line.until is not None:
            moment = dt.datetime.fromtimestamp(line.until)
            today = dt.datetime.fromtimestamp(now).date()
            when = moment.strftime("%H:%M" if moment.date() == today else "%m-%d %H:%M")
            if line.finish is not None:  # its durations are known: how long from that start
                return (
                    self.tr("After %1 + %2", "a start time of day + how long it takes")
                    .replace("%1", when)
                    .replace("%2", minutes(max(0.0, line.finish - line.until)))
                )
            return self.tr("Scheduled %1").replace("%1", when)
        if line.status == "eta" and line.until is not None:
            at = dt.datetime.fromtimestamp(line.until).strftime("%H:%M")
            return (
                self.tr("%1 (about %2)")
                .replace("%1", format_duration(max(0.0, line.until - now)))
                .replace("%2", at)
            )
        if line.status == "no_eta":
            return self.tr("No account can take it now")
        if line.status == "learning":
            return self.tr("After the first result")
        return ""

    def _tooltip(self, line: BatchLine, col: int) -> str | None:
        if col == COL_NAME and line.batch_id:
            return self.tr("Batch id: %1").replace("%1", line.batch_id)
        if col == COL_SOURCE and line.source_path:
            return line.source_path
        if col == COL_PROGRESS:
            t = line.tally
            return (
                self.tr("%1 running · %2 waiting · %3 done · %4 failed")
                .replace("%1", str(t.running))
                .replace("%2", str(t.pending))
                .replace("%3", str(t.ended - t.not_successful))
                .replace("%4", str(t.failed))
            )
        return None


def _sum(tallies: Sequence[BatchTally] | Any) -> BatchTally:
    total = ended = bad = failed = running = pending = 0
    for t in tallies:
        total += t.total
        ended += t.ended
        bad += t.not_successful
        failed += t.failed
        running += t.running
        pending += t.pending
    return BatchTally(total, ended, bad, failed, running, pending)


class ProgressDelegate(QStyledItemDelegate):
    """The Progress cell: its text over a bar filled to the share of ended tasks."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        value = index.data(PROGRESS_ROLE)
        if value:
            ended, total = value
            rect = QRect(option.rect).adjusted(2, 3, -2, -3)
            painter.save()
            painter.setPen(QColor(STATE_COLORS["success"]))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect.adjusted(0, 0, -1, -1))
            if total and ended:
                done = QRect(rect)
                done.setWidth(max(1, rect.width() * ended // total))
                painter.fillRect(done, QColor(STATE_COLORS["success"]).lighter(170))
            painter.restore()
        super().paint(painter, option, index)


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
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(heading)
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
        # The header, "All batches" and a batch (more scroll): on a 1366×768 laptop each row
        # kept here is a row less of the task table.
        self.view.setMinimumHeight(self.view.verticalHeader().defaultSectionSize() * 3 + 4)
        self._paused = False
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
        row = self.model.row_of(batch_id)
        if row is None:
            self.view.clearSelection()
            return
        if self.current() != batch_id:
            self.view.selectRow(row)

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
