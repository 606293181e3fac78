"""One task up close: its answer (Markdown), the prompt as sent, and its event log.

Non-modal and live: the app calls :meth:`TaskDetailsDialog.update_record` and
:meth:`TaskDetailsDialog.update_events` while the task runs; neither resets the reader's scroll
position or selection.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.model.records import TaskEventRecord, TaskRecord
from media_assistant.gui.common import labels
from media_assistant.gui.common.event_text import attempt_of
from media_assistant.gui.common.style import (
    LANE_COLORS,
    RED,
    STATE_COLORS,
    bold,
    format_duration,
    latin_width,
    resize_within_screen,
    state_icon,
)
from media_assistant.gui.tasks.event_log import EventLogView, local_time
from media_assistant.gui.tasks.result import TaskResultPage

_MUTED = "color: palette(placeholder-text);"
_ERROR_STYLE = f"color: {RED}; border: 1px solid {RED}; border-radius: 4px; padding: 4px;"
_NOTE_STYLE = "border: 1px solid palette(mid); border-radius: 4px; padding: 4px;"


class TaskDetailsDialog(QDialog):
    """The result viewer and per-task log. ``now`` is the clock the running duration uses.

    A failed or canceled task can be run again from here: *Retry*, or *Edit prompt and retry*
    (the prompt tab becomes editable; the edited prompt replaces the task's own)."""

    retry_requested = Signal(str)  # task id
    retry_with_prompt_requested = Signal(str, str)  # task id, the edited prompt

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
        self._clock = QTimer(self, interval=1000)
        self._clock.timeout.connect(self._on_clock_timeout)

        self.tabs = QTabWidget(self)
        self.result_page = TaskResultPage(self)
        self.tabs.addTab(self.result_page, self.tr("&Result"))
        self.tabs.addTab(self._build_prompt_tab(), self.tr("&Prompt"))
        self.tabs.addTab(self._build_log_tab(), self.tr("&Event log"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        self.retry_button = QPushButton(self.tr("Retry"), self)
        self.retry_button.setObjectName("retryButton")
        self.retry_button.clicked.connect(self._on_retry_button_clicked)
        self.edit_button = QPushButton(self.tr("Edit prompt and retry…"), self)
        self.edit_button.setObjectName("editRetryButton")
        self.edit_button.clicked.connect(self._on_edit_button_clicked)
        buttons.addButton(self.retry_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.edit_button, QDialogButtonBox.ButtonRole.ActionRole)
        self._editing = False

        # Header and tabs scroll inside on a short screen (a laptop at 150 % scaling leaves
        # ~405 px); when there is room they fill the window as before. The buttons stay below.
        body = QWidget(self)
        inside = QVBoxLayout(body)
        inside.setContentsMargins(0, 0, 0, 0)
        inside.addLayout(self._build_header())
        inside.addWidget(self.tabs, 1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(buttons)
        metrics = self.fontMetrics()
        resize_within_screen(self, latin_width(metrics, 120), metrics.lineSpacing() * 46)

        self.update_record(record)
        self.update_events(events)

    # -------------------------------------------------------------------------- live updates

    def update_record(self, record: TaskRecord) -> None:
        self._record = record
        self.setWindowTitle(self.tr("Task %1").replace("%1", record.task_id))
        self._fill_header(record)
        self.result_page.show_record(record)
        if not self._editing and self.prompt_view.toPlainText() != record.prompt:
            self.prompt_view.setPlainText(record.prompt)
        system = record.system_prompt or ""
        if self.system_view.toPlainText() != system:
            self.system_view.setPlainText(system)
        self.system_box.setVisible(bool(system))
        if record.state == "running":
            self._clock.start()
        else:
            self._clock.stop()
        self._update_retry_buttons(record)

    def _update_retry_buttons(self, record: TaskRecord) -> None:
        can = record.state in ("failed", "canceled")
        why_not = (
            self.tr("It has not finished yet")
            if record.state in ("pending", "running")
            else self.tr("It succeeded: nothing to retry")
        )
        self.retry_button.setEnabled(can)
        self.retry_button.setToolTip(
            self.tr("Run this task again (same row, 3 more attempts)") if can else why_not
        )
        self.edit_button.setEnabled(can or self._editing)
        if not self._editing:
            self.edit_button.setToolTip(
                self.tr("Change the prompt, then run the task again with it") if can else why_not
            )

    def _on_retry_button_clicked(self) -> None:
        self.retry_requested.emit(self._record.task_id)

    def _on_edit_button_clicked(self) -> None:
        if not self._editing:
            self._editing = True
            self.prompt_view.setReadOnly(False)
            self.tabs.setCurrentIndex(1)
            self.prompt_view.setFocus()
            self.edit_button.setText(self.tr("Retry with this prompt"))
            self.edit_button.setToolTip(self.tr("Run the task again with the prompt as edited"))
            return
        prompt = self.prompt_view.toPlainText().strip()
        if not prompt:
            self.edit_button.setToolTip(self.tr("The prompt cannot be empty"))
            return
        self._editing = False
        self.prompt_view.setReadOnly(True)
        self.edit_button.setText(self.tr("Edit prompt and retry…"))
        self.retry_with_prompt_requested.emit(self._record.task_id, prompt)

    def update_events(self, events: Sequence[TaskEventRecord]) -> None:
        self.log_view.set_events(events)
        count = self.log_view.log_model.rowCount()
        self.tabs.setTabText(2, self.tr("&Event log (%n)", "", count))

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
        grid.setHorizontalSpacing(latin_width(self.fontMetrics(), 2))
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
        self.error_label.setStyleSheet(_ERROR_STYLE)
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
        width = latin_width(metrics, 90)
        self.title_label.setText(metrics.elidedText(head, Qt.TextElideMode.ElideRight, width))
        self.title_label.setToolTip(record.prompt)
        size = self.state_label.fontMetrics().height()
        self.state_icon.setPixmap(state_icon(record.state).pixmap(size, size))
        self.state_label.setText(self._state_text(record))
        self.state_label.setStyleSheet(f"color: {STATE_COLORS.get(record.state, '#8a8f98')};")
        lane_colour = LANE_COLORS.get(record.model_kind, "#8a8f98")
        self.fields["model"].setText(record.model)
        self.fields["lane"].setText(labels.lane(record.model_kind))
        self.fields["lane"].setStyleSheet(f"color: {lane_colour}; font-weight: bold;")
        self.fields["account"].setText(record.account_id or "—")
        self.fields["attempt"].setText(
            attempt_of(
                record.attempt, record.max_attempts, record.attempt_base, record.operator_retries
            )
        )
        self.fields["started"].setText(local_time(record.started_at) or "—")
        self.fields["finished"].setText(local_time(record.finished_at) or "—")
        self.fields["priority"].setText(str(record.priority))
        ids = self.tr("Task %1 · batch %2").replace("%1", record.task_id)
        self.id_label.setText(ids.replace("%2", record.batch_id))
        self._on_clock_timeout()
        failed = record.state == "failed" or (record.state != "success" and record.error_kind)
        if record.state == "canceled" or record.error_kind == "canceled":
            # The operator's own cancel: said plainly, not styled as an error.
            self.error_label.setText(self.tr("Canceled, as you asked."))
            self.error_label.setStyleSheet(_NOTE_STYLE)
            self.error_label.setToolTip(record.error_message or "")
            self.error_label.show()
        elif failed and (record.error_kind or record.error_message):
            kind = labels.error_kind(record.error_kind or "")
            detail = labels.error_detail(record.error_kind, record.error_message)
            if record.state == "pending":  # a retry follows: a note, not an alarm
                kind = self.tr("The last attempt failed; another follows: %1").replace("%1", kind)
            self.error_label.setText(f"{kind}\n{detail}".strip())
            self.error_label.setStyleSheet(
                _ERROR_STYLE if record.state == "failed" else _NOTE_STYLE
            )
            self.error_label.setToolTip(record.error_message or "")
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
        text = labels.task_state(record.state)
        if record.state == "running" and record.cancel_requested:
            return self.tr("%1 — cancel requested").replace("%1", text)
        if record.state == "pending" and record.not_before is not None and record.attempt > 0:
            when = local_time(record.not_before, with_date=False)
            return self.tr("Waiting to retry at %1").replace("%1", when)
        return text

    # ------------------------------------------------------------------------------- tabs

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
        self.log_view = EventLogView(page)
        layout = QVBoxLayout(page)
        layout.addWidget(self.log_view)
        return page
