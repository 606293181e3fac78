"""The settings a whole batch shares: model, priority, batch id and an optional system prompt.

Notes under the fields say what a batch file's own columns, or the chosen model, change about
them, so the operator is not surprised by the tasks that come out.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from PySide6.QtCore import QDateTime, QRectF, QSize, Qt, QTime, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateTimeEdit,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QTimeEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.model.states import ModelKind
from media_assistant.gui.batches.file_page import FilePreview
from media_assistant.gui.common import labels
from media_assistant.gui.common.style import LANE_COLORS

_MUTED = "color: palette(placeholder-text);"


def lane_tag_icon(kind: str, font: QFont) -> QIcon:
    """A small coloured pill naming the lane (WEB, API), so it shows at a glance in a list."""
    tag_font = QFont(font)
    tag_font.setPointSizeF(max(6.0, font.pointSizeF() * 0.75))
    tag_font.setBold(True)
    text = labels.lane(kind).upper()
    probe = QPixmap(1, 1)
    painter = QPainter(probe)
    painter.setFont(tag_font)
    metrics = painter.fontMetrics()
    width, height = metrics.horizontalAdvance(text) + 8, metrics.height() + 2
    painter.end()
    pix = QPixmap(width * 2, height * 2)  # drawn at 2x for high-DPI screens
    pix.setDevicePixelRatio(2.0)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(LANE_COLORS.get(kind, "#8a8f98")))
    painter.drawRoundedRect(QRectF(0, 0, width, height), height / 2, height / 2)
    painter.setPen(QColor("white"))
    painter.setFont(tag_font)
    painter.drawText(QRectF(0, 0, width, height), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return QIcon(pix)


class BatchOptionsForm(QFormLayout):
    """The form under the dialog's tabs; its widgets belong to ``owner``, the dialog.

    A layout rather than a widget: nested in the dialog's layout, the word-wrapped notes get the
    height their real width needs (inside a widget of its own, each kept room for two lines).
    ``user_content_only``: models that are sent no system text.
    """

    changed = Signal()  # the model, the batch id or the system prompt's visibility changed

    def __init__(
        self,
        models: Mapping[str, ModelKind],
        user_content_only: Collection[str],
        owner: QWidget,
    ) -> None:
        super().__init__()
        self._models = models
        self._user_content_only = frozenset(user_content_only)
        self._batch_id_edited = False

        self.model_combo = QComboBox(owner)
        self.model_combo.setObjectName("modelCombo")
        tag_height = owner.fontMetrics().height()
        self.model_combo.setIconSize(QSize(tag_height * 2, tag_height))
        for name, kind in self._models.items():
            self.model_combo.addItem(lane_tag_icon(kind.value, owner.font()), name, name)
        if not self._models:
            self.model_combo.setPlaceholderText(self.tr("No models are configured"))
        self.model_combo.currentIndexChanged.connect(self.changed)
        self.model_note = _note(owner)

        self.priority_spin = QSpinBox(owner, minimum=-9999, maximum=9999)
        self.priority_spin.setObjectName("prioritySpin")
        self.priority_spin.setToolTip(
            self.tr(
                "Above 0 is urgent, 0 normal, below 0 low. While all three have work waiting "
                "they share the accounts by the weights in [scheduling] (70/25/5 by default); "
                "a class alone gets everything."
            )
        )
        priority_hint = QLabel(self.tr("above 0: urgent · below 0: low"), owner)
        priority_hint.setStyleSheet(_MUTED)
        priority_row = QWidget(owner)
        row = QHBoxLayout(priority_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.priority_spin)
        row.addWidget(priority_hint, 1)
        self.priority_note = _note(owner)
        self.share_spin = QSpinBox(owner, minimum=1, maximum=100)
        self.share_spin.setObjectName("shareSpin")
        self.share_spin.setToolTip(
            self.tr(
                "The batch's weight among your batches: 2 gets twice what each of your other "
                "batches gets. Your colleagues' batches keep their part."
            )
        )
        share_hint = QLabel(self.tr("1 = as much as each of your other batches"), owner)
        share_hint.setStyleSheet(_MUTED)
        share_row = QWidget(owner)
        row = QHBoxLayout(share_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.share_spin)
        row.addWidget(share_hint, 1)
        self.batch_edit = QLineEdit(owner)
        self.batch_edit.setObjectName("batchIdEdit")
        self.batch_edit.textEdited.connect(self._on_batch_edit_text_edited)
        self.batch_edit.textChanged.connect(self.changed)

        self.system_toggle = QToolButton(owner)
        self.system_toggle.setCheckable(True)
        self.system_toggle.setObjectName("systemToggle")
        self.system_toggle.setText(self.tr("&System prompt (optional)"))
        self.system_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.system_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.system_toggle.setAutoRaise(True)
        self.system_toggle.toggled.connect(self._on_system_toggle_toggled)
        self.system_edit = QPlainTextEdit(owner)
        self.system_edit.setObjectName("systemEdit")
        self.system_edit.setMaximumHeight(owner.fontMetrics().lineSpacing() * 4)
        self.system_edit.hide()
        self.system_note = _note(owner)

        self.start_check = QCheckBox(self.tr("S&tart at"), owner)
        self.start_check.setObjectName("startCheck")
        self.start_check.setToolTip(self.tr("Nothing of the batch starts before this time"))
        self.start_edit = QDateTimeEdit(QDateTime.currentDateTime().addSecs(3600), owner)
        self.start_edit.setObjectName("startEdit")
        self.start_edit.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.start_edit.setCalendarPopup(True)
        self.start_edit.setEnabled(False)
        self.start_check.toggled.connect(self.start_edit.setEnabled)
        self.hours_check = QCheckBox(self.tr("&Only between"), owner)
        self.hours_check.setObjectName("hoursCheck")
        self.hours_check.setToolTip(
            self.tr("Tasks start only inside these hours each day (e.g. night runs)")
        )
        self.hours_from = QTimeEdit(QTime(22, 0), owner)
        self.hours_until = QTimeEdit(QTime(6, 0), owner)
        for edit in (self.hours_from, self.hours_until):
            edit.setDisplayFormat("HH:mm")
            edit.setEnabled(False)
            self.hours_check.toggled.connect(edit.setEnabled)
            edit.timeChanged.connect(self.changed)
        for check in (self.start_check, self.hours_check):
            check.toggled.connect(self.changed)
        schedule_row = QWidget(owner)
        row = QHBoxLayout(schedule_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.start_check)
        row.addWidget(self.start_edit)
        row.addSpacing(owner.fontMetrics().horizontalAdvance("MM"))
        row.addWidget(self.hours_check)
        row.addWidget(self.hours_from)
        row.addWidget(QLabel(self.tr("and"), owner))
        row.addWidget(self.hours_until)
        row.addStretch(1)

        self.addRow(self.tr("&Model:"), _stacked(self.model_combo, self.model_note))
        self.addRow(self.tr("P&riority:"), _stacked(priority_row, self.priority_note))
        self.addRow(self.tr("S&hare:"), share_row)
        self.addRow(self.tr("&Batch id:"), self.batch_edit)
        self.addRow(self.tr("Schedule:"), schedule_row)
        self.addRow(_stacked(self.system_toggle, self.system_edit, self.system_note))

    # ------------------------------------------------------------------------------ values

    def model(self) -> str:
        return str(self.model_combo.currentData())

    def batch_id(self) -> str:
        return self.batch_edit.text().strip()

    def priority(self) -> int:
        return self.priority_spin.value()

    def share(self) -> float | None:
        """The batch's own weight (None: the default, 1)."""
        return float(self.share_spin.value()) if self.share_spin.value() != 1 else None

    def system_prompt(self) -> str | None:
        return self.system_edit.toPlainText().strip() or None

    def start_at(self) -> float | None:
        """Epoch seconds of the chosen start (local time), or None."""
        if not self.start_check.isChecked():
            return None
        return float(self.start_edit.dateTime().toSecsSinceEpoch())

    def active_hours(self) -> str | None:
        """``"22:00-06:00"`` (may wrap midnight), or None."""
        if not self.hours_check.isChecked():
            return None
        start, end = (e.time().toString("HH:mm") for e in (self.hours_from, self.hours_until))
        return f"{start}-{end}"

    def schedule_problem(self) -> str | None:
        if self.hours_check.isChecked() and self.hours_from.time() == self.hours_until.time():
            return self.tr("The active hours start and end at the same time.")
        return None

    def suggest_batch_id(self, batch_id: str) -> None:
        """Fill in ``batch_id`` unless the operator has typed one of their own."""
        if not self._batch_id_edited and self.batch_edit.text() != batch_id:
            self.batch_edit.setText(batch_id)

    # ------------------------------------------------------------------------------- notes

    def update_notes(self, file: FilePreview | None) -> None:
        """Explain what ``file`` (None: pasted prompts) and the model change about the fields."""
        model = self.model_combo.currentData()
        self.model_note.setText(
            self.tr("The file has a model column: it wins; rows that leave it empty use this one.")
            if file and file.has("model")
            else ""
        )
        file_priority = file is not None and file.has("priority")
        self.priority_spin.setEnabled(not file_priority)
        self.priority_note.setText(
            self.tr("Taken from the file's priority column (empty cells count as 0).")
            if file_priority
            else ""
        )
        notes = []
        if self.system_toggle.isChecked():
            if file and file.has("system_prompt"):
                notes.append(self.tr("Rows with their own system_prompt keep it."))
            if model in self._user_content_only:
                notes.append(self.tr("This model is sent only the prompt: no system prompt."))
            elif self._models.get(model) is ModelKind.WEB:
                notes.append(
                    self.tr("Web model: the system prompt is typed into the chat page as text.")
                )
        self.system_note.setText("\n".join(notes))  # one per line: no spacing rule to get wrong
        for note in (self.model_note, self.priority_note, self.system_note):
            note.setVisible(bool(note.text()))

    # ------------------------------------------------------------------------------- slots

    def _on_batch_edit_text_edited(self, _text: str) -> None:
        self._batch_id_edited = True

    def _on_system_toggle_toggled(self, shown: bool) -> None:
        self.system_toggle.setArrowType(
            Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        )
        self.system_edit.setVisible(shown)
        if shown:
            self.system_edit.setFocus()
        self.changed.emit()


def _note(parent: QWidget) -> QLabel:
    label = QLabel(parent, wordWrap=True)
    label.setStyleSheet(_MUTED)
    label.hide()
    return label


def _stacked(*widgets: QWidget) -> QWidget:
    box = QWidget(widgets[0].parentWidget())
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget)
    return box
