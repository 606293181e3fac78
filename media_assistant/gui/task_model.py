"""The task table's model: rows keyed by task id, updated by the smallest possible signals.

- A change touches only its row: ``dataChanged`` per run of adjacent changed rows, never one
  range spanning unchanged rows (that repaints everything).
- Heartbeats change no signal at all: the age column is computed when a visible row is painted,
  and the view repaints its visible rows once a second.
- Sorting happens here, on plain Python keys (10k rows sort in milliseconds); the proxy only
  filters. Columns that move every second (heartbeat, duration) are sorted on request only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QDateTime,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor

from media_assistant.gui import labels
from media_assistant.gui.style import (
    AMBER,
    HEARTBEAT_AMBER_S,
    HEARTBEAT_RED_S,
    RED,
    color,
    format_duration,
    state_icon,
)

Index = QModelIndex | QPersistentModelIndex

TASK_ID_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
STATE_ROLE = Qt.ItemDataRole.UserRole + 3
LANE_ROLE = Qt.ItemDataRole.UserRole + 4
BATCH_ROLE = Qt.ItemDataRole.UserRole + 5
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 6

(
    COL_TASK,
    COL_MODEL,
    COL_LANE,
    COL_ACCOUNT,
    COL_STATE,
    COL_ATTEMPT,
    COL_HEARTBEAT,
    COL_STARTED,
    COL_DURATION,
    COL_ERROR,
) = range(10)
COLUMN_COUNT = 10
# Columns whose value changes with the clock, not with events: never re-sorted live.
TICKING = frozenset({COL_HEARTBEAT, COL_DURATION})


@dataclass(slots=True)
class Row:
    task_id: str
    seq: int
    batch_id: str
    title: str | None
    prompt_head: str
    model: str
    model_kind: str
    account_id: str | None
    state: str
    attempt: int
    max_attempts: int
    started_at: float | None
    heartbeat_at: float | None
    finished_at: float | None
    not_before: float | None
    cancel_requested: bool
    progress_chars: int
    error_kind: str | None
    error_message: str | None
    created_at: float
    priority: int

    @property
    def label(self) -> str:
        text = self.title or self.prompt_head
        return " ".join(text.split())[:80]


ROW_FIELDS = frozenset(f.name for f in fields(Row))
# Which columns a changed field shows up in.
FIELD_COLUMNS: dict[str, tuple[int, ...]] = {
    "state": (COL_STATE, COL_HEARTBEAT, COL_DURATION, COL_TASK),
    "attempt": (COL_ATTEMPT,),
    "max_attempts": (COL_ATTEMPT,),
    "account_id": (COL_ACCOUNT,),
    "started_at": (COL_STARTED, COL_DURATION),
    "finished_at": (COL_DURATION,),
    "error_kind": (COL_ERROR,),
    "error_message": (COL_ERROR,),
    "cancel_requested": (COL_STATE,),
    "not_before": (COL_STATE,),
    "title": (COL_TASK,),
}


class TaskTableModel(QAbstractTableModel):
    rows_updated = Signal(int)  # how many rows the last batch of changes touched (tests, stats)

    def __init__(self, now: Callable[[], float] = time.time, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._now = now
        self._rows: list[Row] = []
        self._row_by_id: dict[str, int] = {}
        self._sort: tuple[int, Qt.SortOrder] | None = None
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
        ]
        # Looked up on every paint: translated once.
        self._state_names = labels.task_states()
        self._lane_names = {kind: labels.lane(kind) for kind in ("web", "api")}

    # ---------------------------------------------------------------- loading and updates

    def load(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self.beginResetModel()  # the one full reset: the initial load
        self._rows = [_row(r) for r in rows]
        self._reindex()
        if self._sort is not None:
            self._rows.sort(
                key=self._key(self._sort[0]), reverse=self._sort[1] == Qt.SortOrder.DescendingOrder
            )
            self._reindex()
        self.endResetModel()

    def append(self, rows: Sequence[Mapping[str, Any]]) -> None:
        new = [_row(r) for r in rows if r["task_id"] not in self._row_by_id]
        if not new:
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
        for i, row in enumerate(new):
            self._rows.append(row)
            self._row_by_id[row.task_id] = first + i
        self.endInsertRows()

    def apply_changes(self, changes: Mapping[str, Mapping[str, Any]]) -> set[str]:
        """Apply merged per-task changes; signal only the rows (and columns) that moved.
        Returns the ids not in the model (the caller loads them)."""
        unknown: set[str] = set()
        touched: dict[int, set[int]] = {}
        for task_id, values in changes.items():
            r = self._row_by_id.get(task_id)
            if r is None:
                unknown.add(task_id)
                continue
            row = self._rows[r]
            cols: set[int] = set()
            for name, value in values.items():
                if name in ROW_FIELDS and getattr(row, name) != value:
                    setattr(row, name, value)
                    cols.update(FIELD_COLUMNS.get(name, ()))
            if cols:
                touched[r] = cols
        self._emit_rows(touched)
        self.rows_updated.emit(len(touched))
        return unknown

    def apply_heartbeats(self, beats: Mapping[str, Mapping[str, Any]]) -> None:
        """No signal: the age is computed at paint time for visible rows."""
        for task_id, values in beats.items():
            r = self._row_by_id.get(task_id)
            if r is not None:
                row = self._rows[r]
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
        self._row_by_id = {row.task_id: i for i, row in enumerate(self._rows)}

    # ---------------------------------------------------------------- lookups

    def row_for(self, task_id: str) -> int | None:
        return self._row_by_id.get(task_id)

    def task_at(self, row: int) -> Row:
        return self._rows[row]

    def task(self, task_id: str) -> Row | None:
        r = self._row_by_id.get(task_id)
        return self._rows[r] if r is not None else None

    def rows(self) -> Sequence[Row]:
        return self._rows

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
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row, col = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, col)
        if role == TASK_ID_ROLE:
            return row.task_id
        if role == SORT_ROLE:
            return self._key(col)(row)
        if role == STATE_ROLE:
            return row.state
        if role == LANE_ROLE:
            return row.model_kind
        if role == BATCH_ROLE:
            return row.batch_id
        if role == SEARCH_ROLE:
            error = labels.error_text(row.error_kind, row.error_message)  # kind as shown, too
            return f"{row.task_id} {row.title or ''} {row.prompt_head} {error}"
        if role == Qt.ItemDataRole.DecorationRole and col == COL_STATE:
            return state_icon(row.state)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._foreground(row, col)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, col)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (
            COL_ATTEMPT,
            COL_HEARTBEAT,
            COL_DURATION,
        ):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
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
            if row.state == "pending" and row.not_before and row.not_before > self._now():
                wait = format_duration(row.not_before - self._now())
                return self.tr("Retry in %1").replace("%1", wait)
            return text
        if col == COL_ATTEMPT:
            return f"{row.attempt}/{row.max_attempts}" if row.attempt else ""
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
            return labels.error_text(row.error_kind, row.error_message) if row.error_kind else ""
        return ""

    def state_texts(self) -> list[str]:
        """What the state column can show, the longest derived texts included (to size it)."""
        retry = self.tr("Retry in %1").replace("%1", format_duration(599))
        return [*self._state_names.values(), self.tr("Canceling…"), retry]

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
            return QBrush(color(row.state))
        if col == COL_HEARTBEAT:
            age = self.heartbeat_age(row)
            if age is not None and age > HEARTBEAT_RED_S:
                return QBrush(QColor(RED))
            if age is not None and age > HEARTBEAT_AMBER_S:
                return QBrush(QColor(AMBER))
        if col == COL_ERROR and row.error_kind:
            return QBrush(color("failed"))
        return None

    def _tooltip(self, row: Row, col: int) -> str | None:
        if col == COL_TASK:
            return f"{row.task_id}\n{row.title or ''}\n{row.prompt_head}".strip()
        if col == COL_ERROR and row.error_message:
            return row.error_message
        if col == COL_HEARTBEAT and row.state == "running":
            return self.tr("%n characters so far", "", row.progress_chars)
        return None

    # ---------------------------------------------------------------- sorting

    def _key(self, col: int) -> Callable[[Row], Any]:
        now = self._now()
        keys: dict[int, Callable[[Row], Any]] = {
            COL_TASK: lambda r: r.label.lower(),
            COL_MODEL: lambda r: (r.model, r.seq),
            COL_LANE: lambda r: (r.model_kind, r.seq),
            COL_ACCOUNT: lambda r: (r.account_id or "", r.seq),
            COL_STATE: lambda r: (_STATE_ORDER.get(r.state, 9), r.seq),
            COL_ATTEMPT: lambda r: (r.attempt, r.seq),
            COL_HEARTBEAT: lambda r: (r.heartbeat_at or 0.0, r.seq),
            COL_STARTED: lambda r: (r.started_at or 0.0, r.seq),
            COL_DURATION: lambda r: (
                (r.finished_at or now) - r.started_at if r.started_at else -1.0,
                r.seq,
            ),
            COL_ERROR: lambda r: (r.error_kind or "", r.seq),
        }
        return keys.get(col, lambda r: r.seq)

    @property
    def sort_column(self) -> int | None:
        return self._sort[0] if self._sort else None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort = (column, order) if column >= 0 else None
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        ids = [self._rows[i.row()].task_id if 0 <= i.row() < len(self._rows) else None for i in old]
        if column < 0:
            self._rows.sort(key=lambda r: r.seq)
        else:
            self._rows.sort(key=self._key(column), reverse=order == Qt.SortOrder.DescendingOrder)
        self._reindex()
        new = [
            self.index(self._row_by_id[tid], i.column()) if tid is not None else QModelIndex()
            for tid, i in zip(ids, old, strict=True)
        ]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    def resort_if_live(self) -> bool:
        """Re-apply the current sort after changes, unless it is on a ticking column."""
        if self._sort is None or self._sort[0] in TICKING:
            return False
        self.sort(*self._sort)
        return True


_STATE_ORDER = {"running": 0, "pending": 1, "failed": 2, "canceled": 3, "success": 4}


def _row(r: Mapping[str, Any]) -> Row:
    return Row(
        **{name: r.get(name) for name in ROW_FIELDS}
        | {
            "prompt_head": r.get("prompt_head") or "",
            "cancel_requested": bool(r.get("cancel_requested")),
            "progress_chars": r.get("progress_chars") or 0,
            "priority": r.get("priority") or 0,
        }
    )
