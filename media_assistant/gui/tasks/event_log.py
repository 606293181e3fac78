"""One task's event log: a table model that only ever appends, and a view that follows its tail."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QAction, QColor, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from media_assistant.core.model.records import TaskEventRecord
from media_assistant.gui.common import labels
from media_assistant.gui.common.event_text import event_text, event_tooltip
from media_assistant.gui.common.style import AMBER, RED, STATE_COLORS, latin_width, state_icon

_Index = QModelIndex | QPersistentModelIndex

# Event kind -> the state icon that reads like it, and the colour of the row's kind cell.
EVENT_STYLE: dict[str, tuple[str, str]] = {
    "state": ("running", STATE_COLORS["running"]),
    "retry": ("pending", AMBER),
    "selfcheck": ("canceled", "#6a1b9a"),
    "log": ("pending", STATE_COLORS["pending"]),
    "error": ("failed", RED),
    "cancel": ("canceled", STATE_COLORS["canceled"]),
}


def local_time(ts: float | None, *, with_date: bool = True) -> str:
    if ts is None:
        return ""
    moment = dt.datetime.fromtimestamp(ts)
    return moment.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S")


class EventLogModel(QAbstractTableModel):
    """The task's events, oldest first; new ones are appended as rows, never by a reset."""

    TIME, KIND, ATTEMPT, MESSAGE = range(4)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._events: list[TaskEventRecord] = []
        self._attempts: list[str] = []  # the attempt column as shown
        self._base = 0
        self._headers = [self.tr("Time"), self.tr("Kind"), self.tr("Attempt"), self.tr("Message")]

    def set_events(self, events: Sequence[TaskEventRecord]) -> None:
        known = [e.id for e in self._events]
        if [e.id for e in events[: len(known)]] != known:
            self.beginResetModel()  # history was rewritten (rare): start over
            self._events, self._attempts, self._base = [], [], 0
            self._extend(events)
            self.endResetModel()
            return
        if len(events) > len(known):
            self.beginInsertRows(QModelIndex(), len(known), len(events) - 1)
            self._extend(events[len(known) :])
            self.endInsertRows()

    def _extend(self, events: Sequence[TaskEventRecord]) -> None:
        """The attempt column counts within the operator's retry round, as the table does: an
        attempt started with ``base`` 1 (after a retry) shows as 1, not 2."""
        for event in events:
            if event.code == "started":
                self._base = int(event.params.get("base") or 0)
            self._events.append(event)
            self._attempts.append(
                "" if event.attempt is None else str(max(event.attempt - self._base, 0))
            )

    def kind_labels(self) -> list[str]:
        return labels.event_kinds()

    def event_at(self, row: int) -> TaskEventRecord:
        return self._events[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self._events)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self._headers)

    def headerData(  # noqa: N802 (Qt API)
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        event, column = self._events[index.row()], index.column()
        icon_state, colour = EVENT_STYLE.get(event.kind, EVENT_STYLE["log"])
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.TIME:
                return local_time(event.at, with_date=False)
            if column == self.KIND:
                return labels.event_kind(event.kind)
            if column == self.ATTEMPT:
                return self._attempts[index.row()]
            return event_text(event)  # the operator's language; the English line is the tooltip
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == self.TIME:
                return local_time(event.at)
            if column == self.MESSAGE:
                return event_tooltip(event)
        if role == Qt.ItemDataRole.DecorationRole and column == self.KIND:
            return state_icon(icon_state)
        if role == Qt.ItemDataRole.ForegroundRole and (
            column == self.KIND or event.kind in ("error", "selfcheck", "retry")
        ):
            return QColor(colour)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == self.ATTEMPT:
            return Qt.AlignmentFlag.AlignCenter
        return None


class EventLogView(QTableView):
    """The event table: whole messages wrapped, selected rows copied as tab-separated text."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.log_model = EventLogModel(self)
        self.setObjectName("eventLog")
        self.setModel(self.log_model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.horizontalHeader()
        header.setStretchLastSection(True)
        metrics = self.fontMetrics()
        model = self.log_model
        pad = latin_width(metrics, 3)
        kind_width = max(metrics.horizontalAdvance(k) for k in model.kind_labels())
        header.resizeSection(model.TIME, metrics.horizontalAdvance("00:00:00") + pad)
        header.resizeSection(model.KIND, kind_width + metrics.height() + pad)
        attempt = model.headerData(model.ATTEMPT, Qt.Orientation.Horizontal)
        header.resizeSection(model.ATTEMPT, metrics.horizontalAdvance(attempt) + pad)
        # Whole messages, wrapped: a self-check finding is read, not skimmed (logs are short).
        self.setWordWrap(True)
        rows = self.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(EventLogModel.MESSAGE, QHeaderView.ResizeMode.Stretch)
        copy = QAction(self.tr("Copy"), self)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        copy.triggered.connect(self._on_copy_action_triggered)
        self.addAction(copy)

    def set_events(self, events: Sequence[TaskEventRecord]) -> None:
        bar = self.verticalScrollBar()
        following = bar.value() >= bar.maximum()  # at the bottom: keep following the tail
        self.log_model.set_events(events)
        if following:
            self.scrollToBottom()

    def _on_copy_action_triggered(self) -> None:
        rows = sorted({i.row() for i in self.selectionModel().selectedRows()})
        lines = []
        for row in rows:
            e = self.log_model.event_at(row)
            attempt = str(self.log_model.data(self.log_model.index(row, EventLogModel.ATTEMPT)))
            kind = labels.event_kind(e.kind)  # as shown
            lines.append("\t".join([local_time(e.at), kind, attempt, event_text(e)]))
        if lines:
            QGuiApplication.clipboard().setText("\n".join(lines))
