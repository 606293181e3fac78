"""The global log: the app's log lines in a list, fed by a logging handler, one row per line.

A row is one line however long the message: its first line, cut at :data:`MAX_CHARS`; the rest
(a site's call log, a long error) is the row's tooltip. A traceback never reaches the list: the
handler does not format ``exc_info`` (the log file has it, and the support bundle). Lines that
carry an event code (core/model/event_codes.py ``log_extra``: what an attempt did) are said in the
operator's language, as in a task's own event log; the English message stays in the tooltip.
Lines from the browser thread cross to the GUI thread through a queued signal."""

from __future__ import annotations

import logging
import re
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QListView, QVBoxLayout, QWidget

from media_assistant.core.model.event_codes import LOG_CODE, LOG_PARAMS
from media_assistant.gui.common import labels
from media_assistant.gui.common.event_text import coded_text
from media_assistant.gui.common.style import AMBER, RED

MAX_LINES = 5000
MAX_CHARS = 300  # a row shows at most this much of its first line
TOOLTIP_LINES = 25  # ... and its tooltip at most this many lines of the message
LEVEL_ROLE = Qt.ItemDataRole.UserRole + 1
LANE_ROLE = Qt.ItemDataRole.UserRole + 2
_LANE_PREFIX = re.compile(r"^\[(web|api)(?: ([^\]]*))?\] ?")
_TRACEBACK = "Traceback (most recent call last)"


@dataclass(frozen=True, slots=True)
class LogLine:
    """One log record as the window keeps it (taken on the thread that logged it)."""

    at: float
    level: int
    message: str  # as logged, English, without its traceback
    lane: str = ""  # "web" / "api" for a lane's line ("[web ds-web-1] ...")
    account: str = ""
    code: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    had_traceback: bool = False

    @classmethod
    def of(cls, record: logging.LogRecord) -> LogLine:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: show what there is
            message = str(record.msg)
        lane = account = ""
        if match := _LANE_PREFIX.match(message):
            lane, account = match.group(1), match.group(2) or ""
            message = message[match.end() :]
        cut = message.find(_TRACEBACK)
        if cut >= 0:
            message = message[:cut].rstrip()
        code = getattr(record, LOG_CODE, None)
        params = getattr(record, LOG_PARAMS, None)
        return cls(
            record.created,
            record.levelno,
            message,
            lane,
            account,
            str(code) if code else None,
            dict(params) if isinstance(params, Mapping) else {},
            bool(record.exc_info) or cut >= 0,
        )

    def text(self) -> str:
        """The row: time, level, lane and account, the line in the operator's language."""
        body = self.message
        if self.code:  # "<task id>: <English>" from an attempt; the words from the catalogue
            task, sep, english = body.partition(": ")
            said = coded_text(self.code, self.params, english)
            body = f"{task}{sep}{said}" if sep else said
        first, _, rest = body.strip().partition("\n")
        if len(first) > MAX_CHARS:
            first, rest = first[:MAX_CHARS], first[MAX_CHARS:] + rest
        more = " …" if rest.strip() or self.had_traceback else ""
        tag = f"[{labels.lane(self.lane)} {self.account}] ".replace(" ]", "]") if self.lane else ""
        stamp = time.strftime("%H:%M:%S", time.localtime(self.at))
        return f"{stamp}  {level_word(self.level)}  {tag}{first}{more}"

    def tooltip(self) -> str:
        lines = self.message.strip().splitlines()
        if len(lines) > TOOLTIP_LINES:
            lines = [*lines[:TOOLTIP_LINES], "…"]
        text = "\n".join(line if len(line) <= 200 else line[:200] + "…" for line in lines)
        if self.had_traceback:
            text += "\n\n" + QCoreApplication.translate(
                "LogPanel",
                "The full report is in the app's log file (Help → Create support bundle…).",
            )
        return text


def level_word(level: int) -> str:
    if level >= logging.ERROR:
        return QCoreApplication.translate("LogPanel", "Error")
    if level >= logging.WARNING:
        return QCoreApplication.translate("LogPanel", "Warning")
    return QCoreApplication.translate("LogPanel", "Info")


class LogModel(QAbstractListModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # The row's text is made once, when the line arrives: a filter reads every row.
        self._lines: deque[tuple[LogLine, str]] = deque()

    def append(self, line: LogLine) -> None:
        if len(self._lines) >= MAX_LINES:
            self.beginRemoveRows(QModelIndex(), 0, 0)
            self._lines.popleft()
            self.endRemoveRows()
        row = len(self._lines)
        self.beginInsertRows(QModelIndex(), row, row)
        self._lines.append((line, line.text()))
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
        line, text = self._lines[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == Qt.ItemDataRole.ToolTipRole:
            return line.tooltip()
        if role == LEVEL_ROLE:
            return line.level
        if role == LANE_ROLE:
            return line.lane
        if role == Qt.ItemDataRole.ForegroundRole and line.level >= logging.WARNING:
            return QBrush(QColor(RED if line.level >= logging.ERROR else AMBER))
        return None


class _Emitter(QObject):
    line = Signal(object)


class QtLogHandler(logging.Handler):
    """A logging handler usable from any thread. The HTTP client's request lines (one per
    request, at INFO) stay in the log file: in the window they would bury what matters."""

    def __init__(self, model: LogModel) -> None:
        super().__init__(logging.INFO)
        self._emitter = _Emitter()
        self._emitter.line.connect(model.append, Qt.ConnectionType.QueuedConnection)

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.WARNING and record.name.startswith(("httpx", "httpcore")):
            return
        try:
            self._emitter.line.emit(LogLine.of(record))
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
        if self.lane and index.data(LANE_ROLE) != self.lane:
            return False
        if int(index.data(LEVEL_ROLE)) < self.min_level:
            return False
        return not self.text or self.text in str(index.data()).lower()


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
        # One line per row, every row the same height: a long message is cut, not wrapped.
        self.view.setUniformItemSizes(True)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
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
