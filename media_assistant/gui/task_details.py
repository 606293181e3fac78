"""One task up close: its answer (Markdown), the prompt as sent, and its event log.

Non-modal and live: the app calls :meth:`TaskDetailsDialog.update_record` and
:meth:`TaskDetailsDialog.update_events` while the task runs; neither resets the reader's scroll
position or selection.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.records import TaskEventRecord, TaskRecord
from media_assistant.gui.style import (
    AMBER,
    LANE_COLORS,
    RED,
    STATE_COLORS,
    bold,
    format_duration,
    state_icon,
)

_Index = QModelIndex | QPersistentModelIndex
_MUTED = "color: palette(placeholder-text);"

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
        self._headers = [self.tr("Time"), self.tr("Kind"), self.tr("Attempt"), self.tr("Message")]
        self._kinds = {
            "state": self.tr("State"),
            "retry": self.tr("Retry"),
            "selfcheck": self.tr("Self-check"),
            "log": self.tr("Log"),
            "error": self.tr("Error"),
            "cancel": self.tr("Cancel"),
        }

    def set_events(self, events: Sequence[TaskEventRecord]) -> None:
        known = [e.id for e in self._events]
        if [e.id for e in events[: len(known)]] != known:
            self.beginResetModel()  # history was rewritten (rare): start over
            self._events = list(events)
            self.endResetModel()
            return
        if len(events) > len(known):
            self.beginInsertRows(QModelIndex(), len(known), len(events) - 1)
            self._events.extend(events[len(known) :])
            self.endInsertRows()

    def kind_labels(self) -> list[str]:
        return list(self._kinds.values())

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
                return self._kinds.get(event.kind, event.kind)
            if column == self.ATTEMPT:
                return "" if event.attempt is None else str(event.attempt)
            return event.message
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == self.TIME:
                return local_time(event.at)
            if column == self.MESSAGE:
                return event.message
        if role == Qt.ItemDataRole.DecorationRole and column == self.KIND:
            return state_icon(icon_state)
        if role == Qt.ItemDataRole.ForegroundRole and (
            column == self.KIND or event.kind in ("error", "selfcheck", "retry")
        ):
            return QColor(colour)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == self.ATTEMPT:
            return Qt.AlignmentFlag.AlignCenter
        return None


class TaskDetailsDialog(QDialog):
    """The result viewer and per-task log. ``now`` is the clock the running duration uses."""

    def __init__(
        self,
        record: TaskRecord,
        events: Sequence[TaskEventRecord],
        parent: QWidget | None = None,
        *,
        now: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(parent)
        self.setModal(False)
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint)
        self._now = now
        self._record = record
        self._shown_result: str | None = None
        self._shown_reasoning: str | None = None
        self._clock = QTimer(self, interval=1000)
        self._clock.timeout.connect(self._on_clock_timeout)

        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._build_result_tab(), self.tr("&Result"))
        self.tabs.addTab(self._build_prompt_tab(), self.tr("&Prompt"))
        self.tabs.addTab(self._build_log_tab(), self.tr("&Event log"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(self._build_header())
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
        metrics = self.fontMetrics()
        self.resize(metrics.averageCharWidth() * 120, metrics.lineSpacing() * 46)

        self.update_record(record)
        self.update_events(events)

    # -------------------------------------------------------------------------- live updates

    def update_record(self, record: TaskRecord) -> None:
        self._record = record
        self.setWindowTitle(self.tr("Task %1").replace("%1", record.task_id))
        self._fill_header(record)
        self._fill_result(record)
        if self.prompt_view.toPlainText() != record.prompt:
            self.prompt_view.setPlainText(record.prompt)
        system = record.system_prompt or ""
        if self.system_view.toPlainText() != system:
            self.system_view.setPlainText(system)
        self.system_box.setVisible(bool(system))
        if record.state == "running":
            self._clock.start()
        else:
            self._clock.stop()

    def update_events(self, events: Sequence[TaskEventRecord]) -> None:
        bar = self.log_view.verticalScrollBar()
        following = bar.value() >= bar.maximum()  # at the bottom: keep following the tail
        self.log_model.set_events(events)
        if following:
            self.log_view.scrollToBottom()
        self.tabs.setTabText(2, self.tr("&Event log (%n)", "", self.log_model.rowCount()))

    # ------------------------------------------------------------------------------ header

    def _build_header(self) -> QVBoxLayout:
        self.title_label = QLabel(self, wordWrap=True)
        self.title_label.setObjectName("titleLabel")
        font = bold(self.title_label.font())
        font.setPointSizeF(font.pointSizeF() * 1.25)
        self.title_label.setFont(font)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.id_label = QLabel(self)
        self.id_label.setObjectName("idLabel")
        self.id_label.setStyleSheet(_MUTED)
        self.id_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.state_icon = QLabel(self)
        self.state_label = QLabel(self)
        self.state_label.setObjectName("stateLabel")
        self.state_label.setFont(bold(self.state_label.font()))
        state_row = QHBoxLayout()
        state_row.addWidget(self.state_icon)
        state_row.addWidget(self.state_label)
        state_row.addStretch(1)

        self.fields: dict[str, QLabel] = {}
        grid = QGridLayout()
        grid.setHorizontalSpacing(self.fontMetrics().averageCharWidth() * 2)
        names = [
            ("model", self.tr("Model:")),
            ("lane", self.tr("Lane:")),
            ("account", self.tr("Account:")),
            ("attempt", self.tr("Attempt:")),
            ("started", self.tr("Started:")),
            ("finished", self.tr("Finished:")),
            ("duration", self.tr("Duration:")),
            ("priority", self.tr("Priority:")),
        ]
        for i, (key, text) in enumerate(names):
            row, col = divmod(i, 4)
            label = QLabel(text, self)
            label.setStyleSheet(_MUTED)
            value = QLabel(self)
            value.setObjectName(f"{key}Field")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(label, row, col * 2)
            grid.addWidget(value, row, col * 2 + 1)
            self.fields[key] = value
        for col in range(4):
            grid.setColumnStretch(col * 2 + 1, 1)

        self.error_label = QLabel(self, wordWrap=True)
        self.error_label.setObjectName("errorLabel")
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setStyleSheet(
            f"color: {RED}; border: 1px solid {RED}; border-radius: 4px; padding: 4px;"
        )
        header = QVBoxLayout()
        header.addWidget(self.title_label)
        header.addWidget(self.id_label)
        header.addLayout(state_row)
        header.addLayout(grid)
        header.addWidget(self.error_label)
        return header

    def _fill_header(self, record: TaskRecord) -> None:
        head = record.title or next(iter(record.prompt.strip().splitlines()), "")
        metrics = self.title_label.fontMetrics()
        width = metrics.averageCharWidth() * 90
        self.title_label.setText(metrics.elidedText(head, Qt.TextElideMode.ElideRight, width))
        self.title_label.setToolTip(record.prompt)
        size = self.state_label.fontMetrics().height()
        self.state_icon.setPixmap(state_icon(record.state).pixmap(size, size))
        self.state_label.setText(self._state_text(record))
        self.state_label.setStyleSheet(f"color: {STATE_COLORS.get(record.state, '#8a8f98')};")
        lane_colour = LANE_COLORS.get(record.model_kind, "#8a8f98")
        self.fields["model"].setText(record.model)
        self.fields["lane"].setText(record.model_kind.upper())
        self.fields["lane"].setStyleSheet(f"color: {lane_colour}; font-weight: bold;")
        self.fields["account"].setText(record.account_id or "—")
        self.fields["attempt"].setText(f"{record.attempt}/{record.max_attempts}")
        self.fields["started"].setText(local_time(record.started_at) or "—")
        self.fields["finished"].setText(local_time(record.finished_at) or "—")
        self.fields["priority"].setText(str(record.priority))
        ids = self.tr("Task %1 · batch %2").replace("%1", record.task_id)
        self.id_label.setText(ids.replace("%2", record.batch_id))
        self._on_clock_timeout()
        failed = record.state == "failed" or (record.state != "success" and record.error_kind)
        if failed and (record.error_kind or record.error_message):
            kind = self._error_kind_text(record.error_kind or "")
            self.error_label.setText(f"{kind}\n{record.error_message or ''}".strip())
            self.error_label.show()
        else:
            self.error_label.hide()

    def _on_clock_timeout(self) -> None:
        record = self._record
        if record.started_at is None:
            text = "—"
        elif record.finished_at is not None:
            text = format_duration(record.finished_at - record.started_at)
        else:
            elapsed = format_duration(max(0.0, self._now() - record.started_at))
            text = self.tr("%1 so far").replace("%1", elapsed)
        self.fields["duration"].setText(text)

    def _state_text(self, record: TaskRecord) -> str:
        texts = {
            "pending": self.tr("Pending"),
            "running": self.tr("Running"),
            "success": self.tr("Succeeded"),
            "failed": self.tr("Failed"),
            "canceled": self.tr("Canceled"),
        }
        text = texts.get(record.state, record.state)
        if record.state == "running" and record.cancel_requested:
            return self.tr("%1 — cancel requested").replace("%1", text)
        if record.state == "pending" and record.not_before is not None and record.attempt > 0:
            when = local_time(record.not_before, with_date=False)
            return self.tr("Waiting to retry at %1").replace("%1", when)
        return text

    def _error_kind_text(self, kind: str) -> str:
        texts = {
            "auth_rejected": self.tr("Credentials rejected"),
            "bad_request": self.tr("Request refused as invalid"),
            "context_too_long": self.tr("Prompt too long for the model"),
            "content_policy": self.tr("Blocked by the content policy"),
            "insufficient_quota": self.tr("Account quota used up"),
            "login_required": self.tr("The web account is logged out"),
            "bad_input": self.tr("Bad input"),
            "bad_config": self.tr("Configuration problem"),
            "profile_in_use": self.tr("Browser profile used by another program"),
            "no_account": self.tr("No enabled account serves this model"),
            "deadline": self.tr("Deadline passed while waiting"),
            "rate_limited": self.tr("Rate limited"),
            "site_busy": self.tr("The site is busy"),
            "captcha": self.tr("A captcha needs solving"),
            "server_error": self.tr("Server error"),
            "network": self.tr("Network error"),
            "timeout": self.tr("Timed out"),
            "protocol": self.tr("Malformed response"),
            "session_conflict": self.tr("Two generations overlapped in one session"),
            "browser_crashed": self.tr("The browser crashed"),
            "lost": self.tr("Lost (the worker stopped responding)"),
            "internal": self.tr("Internal error"),
            "canceled": self.tr("Canceled"),
        }
        return texts.get(kind, kind)

    # ------------------------------------------------------------------------------- tabs

    def _build_result_tab(self) -> QWidget:
        page = QWidget(self)
        self.raw_toggle = QCheckBox(self.tr("Show ra&w text"), page)
        self.raw_toggle.setObjectName("rawToggle")
        self.raw_toggle.toggled.connect(self._on_raw_toggle_toggled)
        self.copy_button = QPushButton(self.tr("&Copy"), page)
        self.copy_button.setObjectName("copyButton")
        self.copy_button.setToolTip(self.tr("Copy the answer's raw text to the clipboard"))
        self.copy_button.clicked.connect(self._on_copy_button_clicked)
        self.result_info = QLabel(page)
        self.result_info.setObjectName("resultInfo")
        self.result_info.setStyleSheet(_MUTED)
        bar = QHBoxLayout()
        bar.addWidget(self.result_info, 1)
        bar.addWidget(self.raw_toggle)
        bar.addWidget(self.copy_button)

        self.reasoning_toggle = QToolButton(page)
        self.reasoning_toggle.setCheckable(True)
        self.reasoning_toggle.setObjectName("reasoningToggle")
        self.reasoning_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.reasoning_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.reasoning_toggle.setAutoRaise(True)
        self.reasoning_toggle.toggled.connect(self._on_reasoning_toggle_toggled)
        self.reasoning_view = QPlainTextEdit(page, readOnly=True)
        self.reasoning_view.setObjectName("reasoningView")
        self.reasoning_view.setStyleSheet(_MUTED)
        self.reasoning_view.hide()

        self.result_view = QTextBrowser(page, openExternalLinks=True)
        self.result_view.setObjectName("resultView")
        self.raw_view = QPlainTextEdit(page, readOnly=True)
        self.raw_view.setObjectName("rawView")
        self.answer_stack = QStackedWidget(page)
        self.answer_stack.addWidget(self.result_view)
        self.answer_stack.addWidget(self.raw_view)

        self.progress_label = QLabel(page, wordWrap=True)
        self.progress_label.setObjectName("progressLabel")
        self.progress_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.progress_label.setStyleSheet(_MUTED)
        font = self.progress_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.progress_label.setFont(font)
        self.busy_bar = QProgressBar(page)  # no total is known: an indeterminate "still alive"
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setMaximumWidth(self.fontMetrics().averageCharWidth() * 40)
        progress_page = QWidget(page)
        progress = QVBoxLayout(progress_page)
        progress.addStretch(1)
        progress.addWidget(self.progress_label)
        progress.addWidget(self.busy_bar, 0, Qt.AlignmentFlag.AlignHCenter)
        progress.addStretch(1)

        with_result = QWidget(page)
        inner = QVBoxLayout(with_result)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addLayout(bar)
        inner.addWidget(self.reasoning_toggle, 0, Qt.AlignmentFlag.AlignLeft)
        inner.addWidget(self.reasoning_view, 1)  # a third of the room: the answer matters most
        inner.addWidget(self.answer_stack, 2)
        self.result_stack = QStackedWidget(page)
        self.result_stack.addWidget(progress_page)
        self.result_stack.addWidget(with_result)
        layout = QVBoxLayout(page)
        layout.addWidget(self.result_stack)
        return page

    def _fill_result(self, record: TaskRecord) -> None:
        text = record.result_text
        if text is None:
            self.result_stack.setCurrentIndex(0)
            self.progress_label.setText(self._no_result_text(record))
            self.busy_bar.setVisible(record.state == "running")
            self.copy_button.setEnabled(False)
            return
        self.result_stack.setCurrentIndex(1)
        self.copy_button.setEnabled(True)
        if text != self._shown_result:
            self._shown_result = text
            _keep_scroll(self.result_view, lambda: self.result_view.setMarkdown(text))
            _keep_scroll(self.raw_view, lambda: self.raw_view.setPlainText(text))
            self._show_char_count()
        reasoning = record.reasoning_text or ""
        self.reasoning_toggle.setVisible(bool(reasoning))
        self.reasoning_view.setVisible(bool(reasoning) and self.reasoning_toggle.isChecked())
        if reasoning != self._shown_reasoning:
            self._shown_reasoning = reasoning
            _keep_scroll(self.reasoning_view, lambda: self.reasoning_view.setPlainText(reasoning))
            self.reasoning_toggle.setText(
                self.tr("Reasoning (%Ln character(s))", "", len(reasoning))
            )

    def _no_result_text(self, record: TaskRecord) -> str:
        if record.state == "running":
            if record.progress_chars:
                return self.tr("Generating… %Ln character(s) so far", "", record.progress_chars)
            return self.tr("Generating… waiting for the first characters")
        if record.state == "pending":
            return self.tr("Waiting for a free account")
        if record.state == "failed":
            return self.tr("No answer: the task failed (see the error above and the event log)")
        if record.state == "canceled":
            return self.tr("No answer: the task was canceled")
        return self.tr("The task finished without an answer")

    def _on_raw_toggle_toggled(self, raw: bool) -> None:
        self.answer_stack.setCurrentIndex(1 if raw else 0)

    def _on_reasoning_toggle_toggled(self, shown: bool) -> None:
        self.reasoning_toggle.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )
        self.reasoning_view.setVisible(shown)

    def _on_copy_button_clicked(self) -> None:
        if self._record.result_text is not None:
            QGuiApplication.clipboard().setText(self._record.result_text)
            self.result_info.setText(self.tr("Copied to the clipboard"))
            QTimer.singleShot(2500, self, self._show_char_count)

    def _show_char_count(self) -> None:
        length = len(self._record.result_text or "")
        self.result_info.setText(self.tr("%Ln character(s)", "", length))

    def _build_prompt_tab(self) -> QWidget:
        page = QWidget(self)
        self.prompt_view = QPlainTextEdit(page, readOnly=True)
        self.prompt_view.setObjectName("promptView")
        self.system_view = QPlainTextEdit(page, readOnly=True)
        self.system_view.setObjectName("systemView")
        self.system_box = QWidget(page)
        box = QVBoxLayout(self.system_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(QLabel(self.tr("System prompt:"), self.system_box))
        box.addWidget(self.system_view)
        layout = QVBoxLayout(page)
        layout.addWidget(self.system_box, 1)
        layout.addWidget(QLabel(self.tr("Prompt:"), page))
        layout.addWidget(self.prompt_view, 3)
        return page

    def _build_log_tab(self) -> QWidget:
        page = QWidget(self)
        self.log_model = EventLogModel(self)
        self.log_view = QTableView(page)
        self.log_view.setObjectName("eventLog")
        self.log_view.setModel(self.log_model)
        self.log_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.log_view.setAlternatingRowColors(True)
        self.log_view.verticalHeader().hide()
        self.log_view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.log_view.horizontalHeader()
        header.setStretchLastSection(True)
        metrics = self.fontMetrics()
        model = self.log_model
        pad = metrics.averageCharWidth() * 3
        kind_width = max(metrics.horizontalAdvance(k) for k in model.kind_labels())
        header.resizeSection(model.TIME, metrics.horizontalAdvance("00:00:00") + pad)
        header.resizeSection(model.KIND, kind_width + metrics.height() + pad)
        attempt = model.headerData(model.ATTEMPT, Qt.Orientation.Horizontal)
        header.resizeSection(model.ATTEMPT, metrics.horizontalAdvance(attempt) + pad)
        # Whole messages, wrapped: a self-check finding is read, not skimmed (logs are short).
        self.log_view.setWordWrap(True)
        rows = self.log_view.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(EventLogModel.MESSAGE, QHeaderView.ResizeMode.Stretch)
        copy = QAction(self.tr("Copy"), self.log_view)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        copy.triggered.connect(self._on_copy_action_triggered)
        self.log_view.addAction(copy)
        layout = QVBoxLayout(page)
        layout.addWidget(self.log_view)
        return page

    def _on_copy_action_triggered(self) -> None:
        rows = sorted({i.row() for i in self.log_view.selectionModel().selectedRows()})
        lines = []
        for row in rows:
            e = self.log_model.event_at(row)
            attempt = "" if e.attempt is None else str(e.attempt)
            lines.append("\t".join([local_time(e.at), e.kind, attempt, e.message]))
        if lines:
            QGuiApplication.clipboard().setText("\n".join(lines))


def _keep_scroll(view: QTextBrowser | QPlainTextEdit, change: Callable[[], None]) -> None:
    """Replace a view's text without throwing the reader back to the top."""
    bar = view.verticalScrollBar()
    value, at_end = bar.value(), bar.value() >= bar.maximum() > 0
    change()
    bar.setValue(bar.maximum() if at_end else value)
