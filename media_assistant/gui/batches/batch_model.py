"""The batches list's rows: every batch with its name, source file, created time, progress, ETA
and failed count, newest on top, after a first row of every batch together. Rebuilt from the
task model's per-batch counts (``BatchCounts``, kept up to date as rows change), the batch rows
(``QueueHolds``) and the latest plan's ETAs, at most once per refresh of the window and only
when either changed. The view is gui/batches/batch_list.py."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QBrush, QColor, QPainter
from PySide6.QtWidgets import QApplication, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from media_assistant.core.rules.pacing import time_of_day
from media_assistant.gui.bridge.queue_holds import QueueHolds
from media_assistant.gui.common.pacing_labels import minutes
from media_assistant.gui.common.style import AMBER, RED, STATE_COLORS, format_duration
from media_assistant.gui.tasks.rows import BatchCounts, BatchTally

Index = QModelIndex | QPersistentModelIndex
BATCH_ROLE = Qt.ItemDataRole.UserRole + 1
PROGRESS_ROLE = Qt.ItemDataRole.UserRole + 2  # (ended, total)
COL_NAME, COL_SOURCE, COL_CREATED, COL_PROGRESS, COL_ETA, COL_FAILED, COL_SHARE = range(7)
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
    share: float | None = None  # its fair share of the team's capacity (unfinished batches)


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
            self.tr("Share"),
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
        shares: Mapping[str, float] | None = None,
    ) -> bool:
        """New lines from the counts, batch rows and ETAs (``starts``: when each batch's first
        task should start; ``shares``: each unfinished batch's fair share of the capacity);
        True if the set of rows changed (the view then restores its selection)."""
        now = self._now()
        starts = starts or {}
        shares = shares or {}
        lines = [
            dataclasses.replace(
                self._line(b, counts.tally(b), holds, finishes, starts, now), share=shares.get(b)
            )
            for b in counts.counts
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
            return self.display_text(line, col)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tooltip_text(line, col)
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
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_FAILED, COL_SHARE):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def display_text(self, line: BatchLine, col: int) -> str:
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
        if col == COL_SHARE and line.share is not None and line.status != "done":
            return self.tr("%1 %").replace("%1", f"{line.share * 100:.0f}")
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
            when = time_of_day(line.until, now)  # as the lane panels say it
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

    def tooltip_text(self, line: BatchLine, col: int) -> str | None:
        if col == COL_NAME and line.batch_id:
            return self.tr("Batch id: %1").replace("%1", line.batch_id)
        if col == COL_SOURCE and line.source_path:
            return line.source_path
        if col == COL_SHARE and line.share is not None:
            return self.tr(
                "Its part of the team's accounts while every unfinished batch has work waiting "
                "(urgent, normal and low work by their weights, then each operator equally, then "
                "each batch by its share). The ETA counts with it."
            )
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
