"""The global log: every line of the app's log (``[web acct]`` / ``[api acct]`` prefixes
included) in a list, fed by a logging handler. Lines from the browser thread cross to the GUI
thread through a queued signal."""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QListView, QVBoxLayout, QWidget

from media_assistant.gui.common import labels
from media_assistant.gui.common.style import AMBER, RED

MAX_LINES = 5000
LEVEL_ROLE = Qt.ItemDataRole.UserRole + 1


class LogModel(QAbstractListModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lines: deque[tuple[int, str]] = deque()

    def append(self, level: int, text: str) -> None:
        if len(self._lines) >= MAX_LINES:
            self.beginRemoveRows(QModelIndex(), 0, 0)
            self._lines.popleft()
            self.endRemoveRows()
        row = len(self._lines)
        self.beginInsertRows(QModelIndex(), row, row)
        self._lines.append((level, text))
        self.endInsertRows()

    def rowCount(
        self,
        parent: QModelIndex | QPersistentModelIndex = QModelIndex(),  # noqa: B008, N802
    ) -> int:
        return 0 if parent.isValid() else len(self._lines)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid():
            return None
        level, text = self._lines[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == LEVEL_ROLE:
            return level
        if role == Qt.ItemDataRole.ForegroundRole and level >= logging.WARNING:
            return QBrush(QColor(RED if level >= logging.ERROR else AMBER))
        return None


class _Emitter(QObject):
    line = Signal(int, str)


class QtLogHandler(logging.Handler):
    """A logging handler usable from any thread."""

    def __init__(self, model: LogModel) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-7s %(message)s", datefmt="%H:%M:%S")
        )
        self._emitter = _Emitter()
        self._emitter.line.connect(model.append, Qt.ConnectionType.QueuedConnection)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._emitter.line.emit(record.levelno, self.format(record))
        except RuntimeError:  # the model is gone (shutdown)
            pass


class LogFilter(QSortFilterProxyModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lane = ""
        self.min_level = logging.INFO
        self.text = ""

    def filterAcceptsRow(
        self,
        row: int,  # noqa: N802
        parent: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        index = self.sourceModel().index(row, 0, parent)
        line = str(index.data())
        if self.lane and f"[{self.lane}" not in line:
            return False
        if int(index.data(LEVEL_ROLE)) < self.min_level:
            return False
        return not self.text or self.text in line.lower()


class LogPanel(QWidget):
    def __init__(self, model: LogModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.proxy = LogFilter(self)
        self.proxy.setSourceModel(model)
        self.lane = QComboBox(self)
        for label, lane in (
            (self.tr("All lines"), ""),
            (labels.lane_title("web"), "web"),
            (labels.lane_title("api"), "api"),
        ):
            self.lane.addItem(label, lane)
        self.level = QComboBox(self)
        for label, level in (
            (self.tr("Info and up"), logging.INFO),
            (self.tr("Warnings and errors"), logging.WARNING),
            (self.tr("Errors only"), logging.ERROR),
        ):
            self.level.addItem(label, level)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText(self.tr("Filter log…"))
        self.search.setClearButtonEnabled(True)
        self.view = QListView(self)
        self.view.setModel(self.proxy)
        self.view.setUniformItemSizes(True)
        self.view.setAlternatingRowColors(True)
        top = QHBoxLayout()
        top.addWidget(self.lane)
        top.addWidget(self.level)
        top.addWidget(self.search, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.view)
        self.lane.currentIndexChanged.connect(self._on_filter_changed)
        self.level.currentIndexChanged.connect(self._on_filter_changed)
        self.search.textChanged.connect(self._on_filter_changed)
        model.rowsInserted.connect(self._on_model_rows_inserted)

    def _on_filter_changed(self) -> None:
        self.proxy.beginFilterChange()
        self.proxy.lane = str(self.lane.currentData() or "")
        self.proxy.min_level = int(self.level.currentData())
        self.proxy.text = self.search.text().strip().lower()
        self.proxy.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def _on_model_rows_inserted(self) -> None:
        bar = self.view.verticalScrollBar()
        if bar.value() >= bar.maximum() - 2:  # follow the tail unless the user scrolled up
            self.view.scrollToBottom()
