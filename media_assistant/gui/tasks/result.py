"""The Result tab of the task details: the answer, and what the task is doing until there is one.

The answer shows as rendered Markdown or as raw text, with the model's reasoning folded away
above it; a live update that leaves the text as it was keeps the reader's place. Web answers
are Markdown rebuilt from the page; their plain text (as the page showed it) can be copied too.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.model.records import TaskRecord
from media_assistant.gui.common.style import latin_width

_MUTED = "color: palette(placeholder-text);"


class TaskResultPage(QWidget):
    """Shows one task's answer; call :meth:`show_record` with each new version of the task."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text: str | None = None  # the answer as the model wrote it
        self._plain: str | None = None  # web answers: the text as the page showed it
        self._shown_result: str | None = None
        self._shown_reasoning: str | None = None

        self.raw_toggle = QCheckBox(self.tr("Show ra&w text"), self)
        self.raw_toggle.setObjectName("rawToggle")
        self.raw_toggle.toggled.connect(self._on_raw_toggle_toggled)
        self.copy_button = QPushButton(self.tr("&Copy"), self)
        self.copy_button.setObjectName("copyButton")
        self.copy_button.setToolTip(self.tr("Copy the answer's raw text to the clipboard"))
        self.copy_button.clicked.connect(self._on_copy_button_clicked)
        self.copy_plain_button = QPushButton(self.tr("Copy &plain text"), self)
        self.copy_plain_button.setObjectName("copyPlainButton")
        self.copy_plain_button.setToolTip(
            self.tr("Copy the answer as plain text (as the page showed it)")
        )
        self.copy_plain_button.clicked.connect(self._on_copy_plain_button_clicked)
        self.copy_plain_button.hide()
        self.result_info = QLabel(self)
        self.result_info.setObjectName("resultInfo")
        self.result_info.setStyleSheet(_MUTED)
        bar = QHBoxLayout()
        bar.addWidget(self.result_info, 1)
        bar.addWidget(self.raw_toggle)
        bar.addWidget(self.copy_button)
        bar.addWidget(self.copy_plain_button)

        self.reasoning_toggle = QToolButton(self)
        self.reasoning_toggle.setCheckable(True)
        self.reasoning_toggle.setObjectName("reasoningToggle")
        self.reasoning_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.reasoning_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.reasoning_toggle.setAutoRaise(True)
        self.reasoning_toggle.toggled.connect(self._on_reasoning_toggle_toggled)
        self.reasoning_view = QPlainTextEdit(self, readOnly=True)
        self.reasoning_view.setObjectName("reasoningView")
        self.reasoning_view.setStyleSheet(_MUTED)
        self.reasoning_view.hide()

        self.result_view = QTextBrowser(self, openExternalLinks=True)
        self.result_view.setObjectName("resultView")
        self.raw_view = QPlainTextEdit(self, readOnly=True)
        self.raw_view.setObjectName("rawView")
        self.answer_stack = QStackedWidget(self)
        self.answer_stack.addWidget(self.result_view)
        self.answer_stack.addWidget(self.raw_view)

        self.progress_label = QLabel(self, wordWrap=True)
        self.progress_label.setObjectName("progressLabel")
        self.progress_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.progress_label.setStyleSheet(_MUTED)
        font = self.progress_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.progress_label.setFont(font)
        self.busy_bar = QProgressBar(self)  # no total is known: an indeterminate "still alive"
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setMaximumWidth(latin_width(self.fontMetrics(), 40))
        progress_page = QWidget(self)
        progress = QVBoxLayout(progress_page)
        progress.addStretch(1)
        progress.addWidget(self.progress_label)
        progress.addWidget(self.busy_bar, 0, Qt.AlignmentFlag.AlignHCenter)
        progress.addStretch(1)

        with_result = QWidget(self)
        inner = QVBoxLayout(with_result)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addLayout(bar)
        inner.addWidget(self.reasoning_toggle, 0, Qt.AlignmentFlag.AlignLeft)
        inner.addWidget(self.reasoning_view, 1)  # a third of the room: the answer matters most
        inner.addWidget(self.answer_stack, 2)
        self.result_stack = QStackedWidget(self)
        self.result_stack.addWidget(progress_page)
        self.result_stack.addWidget(with_result)
        layout = QVBoxLayout(self)
        layout.addWidget(self.result_stack)

    def show_record(self, record: TaskRecord) -> None:
        text = self._text = record.result_text
        self._plain = record.result_plain
        self.copy_plain_button.setVisible(text is not None and bool(record.result_plain))
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
        if self._text is not None:
            QGuiApplication.clipboard().setText(self._text)
            self.result_info.setText(self.tr("Copied to the clipboard"))
            QTimer.singleShot(2500, self, self._show_char_count)

    def _on_copy_plain_button_clicked(self) -> None:
        if self._plain:
            QGuiApplication.clipboard().setText(self._plain)
            self.result_info.setText(self.tr("Copied to the clipboard"))
            QTimer.singleShot(2500, self, self._show_char_count)

    def _show_char_count(self) -> None:
        length = len(self._text or "")
        self.result_info.setText(self.tr("%Ln character(s)", "", length))


def _keep_scroll(view: QTextBrowser | QPlainTextEdit, change: Callable[[], None]) -> None:
    """Replace a view's text without throwing the reader back to the top."""
    bar = view.verticalScrollBar()
    value, at_end = bar.value(), bar.value() >= bar.maximum() > 0
    change()
    bar.setValue(bar.maximum() if at_end else value)
