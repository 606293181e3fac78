"""The task table's model: rows keyed by task id, updated by the smallest possible signals.

- A change touches only its row: ``dataChanged`` per run of adjacent changed rows, for the
  changed columns only — never one range spanning unchanged rows (that repaints everything).
- Heartbeats change no signal at all: the age column is computed when a visible row is painted,
  and the view repaints the ticking columns of its visible rows once a second.
- Filtering and sorting happen here, on plain Python keys: 10k rows filter and sort in a few
  milliseconds. (A QSortFilterProxyModel re-runs a Python ``filterAcceptsRow`` for every row on
  every layout change — 120-300 ms per re-sort at 10k rows, measured in benchmarks/bench_gui.)
  After live changes the view is settled with the smallest signals: rows leaving the filter
  are removed, rows entering are inserted, and a reorder is one ``layoutChanged`` that keeps
  the selection. Columns that move every second (heartbeat, duration) sort on request only.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QDateTime,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from media_assistant.gui.bridge.queue_holds import QueueHolds
from media_assistant.gui.common import labels
from media_assistant.gui.common.event_text import attempt_cell, attempt_text
from media_assistant.gui.common.style import (
    AMBER,
    HEARTBEAT_AMBER_S,
    HEARTBEAT_RED_S,
    RED,
    STATE_COLORS,
    format_duration,
    state_icon,
)
from media_assistant.gui.tasks.rows import (
    COL_ACCOUNT,
    COL_ATTEMPT,
    COL_DURATION,
    COL_ERROR,
    COL_HEARTBEAT,
    COL_LANE,
    COL_MODEL,
    COL_PRIORITY,
    COL_STARTED,
    COL_STATE,
    COL_TASK,
    COL_WORKSTATION,
    COLUMN_COUNT,
    ROW_FIELDS,
    TICKING,
    BatchCounts,
    LaneIndex,
    Row,
    TaskFilter,
    make_row,
    sort_key,
)

Index = QModelIndex | QPersistentModelIndex

TASK_ID_ROLE = Qt.ItemDataRole.UserRole + 1

# Which columns a changed field shows up in.
FIELD_COLUMNS: dict[str, tuple[int, ...]] = {
    "state": (COL_STATE, COL_HEARTBEAT, COL_DURATION, COL_TASK),
    "attempt": (COL_ATTEMPT,),
    "max_attempts": (COL_ATTEMPT,),
    "attempt_base": (COL_ATTEMPT,),
    "operator_retries": (COL_ATTEMPT,),
    "priority": (COL_PRIORITY,),
    "prompt_head": (COL_TASK,),
    "account_id": (COL_ACCOUNT,),
    "started_at": (COL_STARTED, COL_DURATION),
    "finished_at": (COL_DURATION,),
    "error_kind": (COL_ERROR,),
    "error_message": (COL_ERROR,),
    "cancel_requested": (COL_STATE,),
    "not_before": (COL_STATE,),
    "title": (COL_TASK,),
    "workstation": (COL_WORKSTATION,),
}
_ROLES = frozenset(
    {
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.DecorationRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.TextAlignmentRole,
        TASK_ID_ROLE,
    }
)
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_RIGHT_ALIGNED = frozenset({COL_ATTEMPT, COL_HEARTBEAT, COL_DURATION, COL_PRIORITY})
_STATE_BRUSHES = {state: QBrush(QColor(hex_)) for state, hex_ in STATE_COLORS.items()}
_AMBER_BRUSH, _RED_BRUSH = QBrush(QColor(AMBER)), QBrush(QColor(RED))


class TaskTableModel(QAbstractTableModel):
    def __init__(self, now: Callable[[], float] = time.time, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._now = now
        self._all: dict[str, Row] = {}  # every task loaded, by id
        self._rows: list[Row] = []  # the visible ones, in display order
        # Position of each visible row, as ``slot - self._front``: history inserted at the top
        # lowers ``_front`` and gives only the new rows slots, instead of renumbering them all.
        self._row_by_id: dict[str, int] = {}
        self._front = 0
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._filter = TaskFilter()
        self.lanes: dict[str, LaneIndex] = {"web": LaneIndex(), "api": LaneIndex()}
        # The same per batch: the lane panels follow the batch the operator picked.
        self.batch_lanes: dict[str, dict[str, LaneIndex]] = {}
        self.batches = BatchCounts()
        self.prioritized: set[str] = set()  # tasks with a priority other than 0
        # Pauses and schedules (the window feeds it): a pending task says what it waits for.
        self.holds = QueueHolds()
        self._dirty = False  # a change may have moved rows in or out of the filter or order
        self._headers = [
            self.tr("Task"),
            self.tr("Model"),
            self.tr("Lane"),
            self.tr("Account"),
            self.tr("State"),
            self.tr("Attempt"),
            self.tr("Heartbeat"),
            self.tr("Started"),
            self.tr("Duration"),
            self.tr("Error"),
            self.tr("Priority"),
            self.tr("Workstation"),
        ]
        # Looked up on every paint: translated once.
        self._state_names = labels.task_states()
        self._lane_names = {kind: labels.lane(kind) for kind in ("web", "api")}

    # ---------------------------------------------------------------- loading and updates

    def load(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self.beginResetModel()  # the one full reset: the initial load
        self._all = {}
        for r in rows:
            row = make_row(r)
            self._all[row.task_id] = row
        self._rows = self._target_rows()
        self._reindex()
        self.lanes = {
            lane: LaneIndex.build(r for r in self._all.values() if r.model_kind == lane)
            for lane in ("web", "api")
        }
        self.batches = BatchCounts()
        self.batch_lanes = {}
        self.prioritized = {r.task_id for r in self._all.values() if r.priority}
        by_batch: dict[tuple[str, str], list[Row]] = {}
        for row in self._all.values():
            self.batches.add(row)
            by_batch.setdefault((row.batch_id, row.model_kind), []).append(row)
        for (batch, lane), batch_rows in by_batch.items():
            self.batch_lanes.setdefault(batch, {})[lane] = LaneIndex.build(batch_rows)
        self.endResetModel()

    def append(self, rows: Sequence[Mapping[str, Any]]) -> None:
        new = [make_row(r) for r in rows if r["task_id"] not in self._all]
        if not new:
            return
        for row in new:
            self._all[row.task_id] = row
            self.lanes.setdefault(row.model_kind, LaneIndex()).add(row)
            self.batch_lane(row).add(row)
            self.batches.add(row)
            if row.priority:
                self.prioritized.add(row.task_id)
        new.sort(key=lambda r: r.seq)
        plain = self._sort is None and not self._filter.active
        if plain and (not self._rows or new[0].seq > self._rows[-1].seq):
            first = len(self._rows)  # the common case: newer tasks go to the end
            self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
            for i, row in enumerate(new, start=self._front + first):
                self._rows.append(row)
                self._row_by_id[row.task_id] = i
            self.endInsertRows()
        elif plain and new[-1].seq < self._rows[0].seq:
            self.beginInsertRows(QModelIndex(), 0, len(new) - 1)  # history loaded behind
            self._rows[:0] = new
            self._front -= len(new)
            for i, row in enumerate(new, start=self._front):
                self._row_by_id[row.task_id] = i
            self.endInsertRows()
        else:
            self.settle(force=True)

    def apply_changes(self, changes: Mapping[str, Mapping[str, Any]]) -> set[str]:
        """Apply merged per-task changes; signal only the rows (and columns) that moved.
        Returns the ids not in the model (the caller loads them)."""
        unknown: set[str] = set()
        touched: dict[int, set[int]] = {}
        for task_id, values in changes.items():
            row = self._all.get(task_id)
            if row is None:
                unknown.add(task_id)
                continue
            old_state = row.state
            cols: set[int] = set()
            for name, value in values.items():
                if name in ROW_FIELDS and getattr(row, name) != value:
                    setattr(row, name, value)
                    cols.update(FIELD_COLUMNS.get(name, ()))
            if not cols:
                continue
            if "priority" in values:
                (self.prioritized.add if row.priority else self.prioritized.discard)(task_id)
            if row.state != old_state:
                self.lanes.setdefault(row.model_kind, LaneIndex()).moved(row, old_state)
                self.batch_lane(row).moved(row, old_state)
                self.batches.moved(row, old_state)
            self._dirty = True
            r = self.row_for(task_id)
            if r is not None:
                touched[r] = cols
        self._emit_rows(touched)
        return unknown

    def apply_heartbeats(self, beats: Mapping[str, Mapping[str, Any]]) -> None:
        """No signal: the age is computed at paint time for visible rows."""
        for task_id, values in beats.items():
            row = self._all.get(task_id)
            if row is not None:
                row.heartbeat_at = values.get("heartbeat_at", row.heartbeat_at)
                row.progress_chars = values.get("progress_chars", row.progress_chars)

    def _emit_rows(self, touched: Mapping[int, set[int]]) -> None:
        """dataChanged per run of adjacent rows, spanning only the columns that changed."""
        rows = sorted(touched)
        i = 0
        while i < len(rows):
            j = i
            cols = set(touched[rows[i]])
            while j + 1 < len(rows) and rows[j + 1] == rows[j] + 1:
                j += 1
                cols |= touched[rows[j]]
            self.dataChanged.emit(self.index(rows[i], min(cols)), self.index(rows[j], max(cols)))
            i = j + 1

    def _reindex(self) -> None:
        self._front = 0
        self._row_by_id = {row.task_id: i for i, row in enumerate(self._rows)}

    def batch_lane(self, row: Row) -> LaneIndex:
        lanes = self.batch_lanes.setdefault(row.batch_id, {})
        index = lanes.get(row.model_kind)
        if index is None:
            index = lanes[row.model_kind] = LaneIndex()
        return index

    # ---------------------------------------------------------------- lookups

    def row_for(self, task_id: str) -> int | None:
        slot = self._row_by_id.get(task_id)
        return None if slot is None else slot - self._front

    def task_at(self, row: int) -> Row:
        return self._rows[row]

    def task(self, task_id: str) -> Row | None:
        return self._all.get(task_id)

    def repaint_states(self) -> None:
        """Pauses or schedules changed: what pending tasks wait for may read differently."""
        if self._rows:
            self.dataChanged.emit(
                self.index(0, COL_STATE), self.index(len(self._rows) - 1, COL_STATE)
            )

    def rows(self) -> Sequence[Row]:
        """The visible rows, in display order."""
        return self._rows

    def search_text(self, row: Row) -> str:
        error = labels.error_text(row.error_kind, row.error_message)  # the kind as shown, too
        where = row.workstation or ""  # "pc-03" finds what ran there (team mode)
        return f"{row.task_id} {row.title or ''} {row.prompt_head} {error} {where}"

    # ---------------------------------------------------------------- Qt model API

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else COLUMN_COUNT

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,  # noqa: N802
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section] if 0 <= section < COLUMN_COUNT else None
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return _FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Painting asks every visible cell for ~10 roles: the unused ones leave at once.
        if role not in _ROLES:
            return None
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, col = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, col)
        if role == TASK_ID_ROLE:
            return row.task_id
        if role == Qt.ItemDataRole.DecorationRole and col == COL_STATE:
            return state_icon(row.state)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._foreground(row, col)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, col)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in _RIGHT_ALIGNED:
            return _RIGHT
        return None

    def _display(self, row: Row, col: int) -> str:
        if col == COL_TASK:
            return row.label
        if col == COL_MODEL:
            return row.model
        if col == COL_LANE:
            return self._lane_names.get(row.model_kind, row.model_kind)
        if col == COL_ACCOUNT:
            return row.account_id or ""
        if col == COL_STATE:
            text = self._state_names.get(row.state, row.state)
            if row.state == "running" and row.cancel_requested:
                return self.tr("Canceling…")
            if row.state == "pending":
                hold = self.holds.batch_hold(row.batch_id, row.model_kind, self._now())
                if hold is not None and hold.kind == "paused":
                    return self.tr("Paused")
                if hold is not None and hold.until is not None:
                    return self.tr("Scheduled %1").replace("%1", self.clock_text(hold.until))
                if row.not_before and row.not_before > self._now():
                    wait = format_duration(row.not_before - self._now())
                    return self.tr("Retry in %1").replace("%1", wait)
            return text
        if col == COL_ATTEMPT:
            return attempt_cell(
                row.attempt, row.max_attempts, row.attempt_base, row.operator_retries
            )
        if col == COL_PRIORITY:
            return str(row.priority) if row.priority else ""
        if col == COL_WORKSTATION:
            return row.workstation or ""
        if col == COL_HEARTBEAT:
            age = self.heartbeat_age(row)
            return format_duration(age) if age is not None else ""
        if col == COL_STARTED:
            if row.started_at is None:
                return ""
            return QDateTime.fromSecsSinceEpoch(int(row.started_at)).toString("HH:mm:ss")
        if col == COL_DURATION:
            return format_duration(self.duration(row))
        if col == COL_ERROR:
            if row.error_kind == "canceled":  # the operator's own cancel is no error
                return ""
            return labels.error_text(row.error_kind, row.error_message) if row.error_kind else ""
        return ""

    def clock_text(self, ts: float) -> str:
        """``01:00`` within the next day (the usual night run), ``12-02 01:00`` further off."""
        moment = QDateTime.fromSecsSinceEpoch(int(ts))
        return moment.toString("HH:mm" if ts - self._now() < 20 * 3600 else "MM-dd HH:mm")

    def state_texts(self) -> list[str]:
        """What the state column can show, the longest derived texts included (to size it)."""
        retry = self.tr("Retry in %1").replace("%1", format_duration(599))
        scheduled = self.tr("Scheduled %1").replace("%1", "23:59")
        return [*self._state_names.values(), self.tr("Canceling…"), retry, scheduled]

    def heartbeat_age(self, row: Row) -> float | None:
        if row.state != "running" or row.heartbeat_at is None:
            return None
        return max(0.0, self._now() - row.heartbeat_at)

    def duration(self, row: Row) -> float | None:
        if row.started_at is None:
            return None
        end = (
            row.finished_at
            if row.finished_at is not None
            else (self._now() if row.state == "running" else None)
        )
        return None if end is None else max(0.0, end - row.started_at)

    def _foreground(self, row: Row, col: int) -> QBrush | None:
        if col == COL_STATE:
            return _STATE_BRUSHES.get(row.state)
        if col == COL_HEARTBEAT:
            age = self.heartbeat_age(row)
            if age is not None and age > HEARTBEAT_RED_S:
                return _RED_BRUSH
            if age is not None and age > HEARTBEAT_AMBER_S:
                return _AMBER_BRUSH
        if col == COL_ERROR and row.error_kind and row.error_kind != "canceled":
            # Amber while it will be tried again, red once it failed.
            return _STATE_BRUSHES["failed"] if row.state == "failed" else _AMBER_BRUSH
        return None

    def _tooltip(self, row: Row, col: int) -> str | None:
        if col == COL_TASK:
            return f"{row.task_id}\n{row.title or ''}\n{row.prompt_head}".strip()
        if col == COL_ERROR and row.error_message:
            return row.error_message
        if col == COL_ATTEMPT and row.attempt:
            return attempt_text(
                row.attempt, row.max_attempts, row.attempt_base, row.operator_retries
            )
        if col == COL_HEARTBEAT and row.state == "running":
            return self.tr("%n characters so far", "", row.progress_chars)
        return None

    # ---------------------------------------------------------------- filter and sort

    @property
    def filter(self) -> TaskFilter:
        return self._filter

    def set_filter(self, task_filter: TaskFilter) -> None:
        if task_filter != self._filter:
            self._filter = task_filter
            self.settle(force=True)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort = (column, order) if column >= 0 else None
        self.settle(force=True)

    def settle(self, *, force: bool = False) -> bool:
        """Bring the visible rows in line with the filter and the sort after changes (called
        on a coalescing timer). A sort on a ticking column is not re-applied by itself."""
        if not force:
            if not self._dirty:
                return False
            if not self._filter.active and (self._sort is None or self._sort[0] in TICKING):
                self._dirty = False
                return False
        self._dirty = False
        target = self._target_rows()
        target_ids = {r.task_id for r in target}
        gone = [i for i, r in enumerate(self._rows) if r.task_id not in target_ids]
        for first, last in _runs_descending(gone[::-1]):
            self.beginRemoveRows(QModelIndex(), first, last)
            del self._rows[first : last + 1]
            self.endRemoveRows()
        shown = {r.task_id for r in self._rows}
        new = [r for r in target if r.task_id not in shown]
        if new:
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
            self._rows.extend(new)
            self.endInsertRows()
        if len(self._rows) == len(target) and all(map(operator.is_, self._rows, target)):
            if gone or new:
                self._reindex()
            return bool(gone or new)
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        ids = [self._rows[i.row()].task_id if 0 <= i.row() < len(self._rows) else None for i in old]
        self._rows = target
        self._reindex()
        self.changePersistentIndexList(
            old,
            [
                self.index(self._row_by_id[tid], i.column())  # _reindex: slot = row
                if tid in self._row_by_id
                else QModelIndex()
                for tid, i in zip(ids, old, strict=True)
            ],
        )
        self.layoutChanged.emit()
        return True

    def _target_rows(self) -> list[Row]:
        f = self._filter
        rows = (
            [r for r in self._all.values() if f.accepts(r, self.search_text)]
            if f.text
            else [r for r in self._all.values() if f.quick_accepts(r)]
            if f.active
            else list(self._all.values())
        )
        if self._sort is None:
            rows.sort(key=lambda r: r.seq)
        else:
            col, order = self._sort
            rows.sort(key=sort_key(col, self._now()), reverse=order == Qt.SortOrder.DescendingOrder)
        return rows


def _runs_descending(rows: Sequence[int]) -> Iterable[tuple[int, int]]:
    """Descending row numbers → (first, last) runs of adjacent rows, bottom run first."""
    i = 0
    while i < len(rows):
        last = first = rows[i]
        while i + 1 < len(rows) and rows[i + 1] == first - 1:
            i += 1
            first = rows[i]
        yield first, last
        i += 1
