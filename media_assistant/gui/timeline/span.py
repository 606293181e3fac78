"""The timeline's span picker (30 s web tasks and a 4-hour batch both fit), made to sit in the
bottom tabs' corner: on a 1366×768 laptop a row of its own would cost the task table a row.
Its words keep the main window's translation context, where it was made before."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from media_assistant.gui.timeline.view import TimelineWidget


def span_picker(timeline: TimelineWidget, parent: QWidget) -> tuple[QWidget, QComboBox]:
    """(the corner widget, its combo box), the span set on ``timeline`` as it changes."""
    holder = QWidget(parent)
    zoom = QComboBox(holder)
    for label, seconds in (
        (QCoreApplication.translate("MainWindow", "Last 5 minutes"), 300),
        (QCoreApplication.translate("MainWindow", "Last 15 minutes"), 900),
        (QCoreApplication.translate("MainWindow", "Last hour"), 3600),
        (QCoreApplication.translate("MainWindow", "Last 4 hours"), 14400),
    ):
        zoom.addItem(label, seconds)
    zoom.setCurrentIndex(1)
    zoom.currentIndexChanged.connect(lambda _i: timeline.set_window(float(zoom.currentData())))
    row = QHBoxLayout(holder)
    row.setContentsMargins(0, 0, 4, 0)
    row.addWidget(QLabel(QCoreApplication.translate("MainWindow", "Span:"), holder))
    row.addWidget(zoom)
    return holder, zoom
