"""A banner across the window while the data dir's disk is full (issue 9, item 3): no new task
starts, answers already received are kept until they can be written, and the work goes on by
itself once there is space. Fed by :class:`DiskSpaceChanged` events from the scheduler's disk
guard (core/disk/full.py), delivered on the GUI thread by the store's bus."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from media_assistant.core.disk.full import human_bytes
from media_assistant.core.model.events import DiskSpaceChanged, Event, EventBus


class DiskFullBanner(QWidget):
    def __init__(self, bus: EventBus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("disk-full-banner")
        self.setStyleSheet(
            "#disk-full-banner { background: #ffebee; border: 1px solid #ef9a9a; "
            "border-radius: 4px; } QLabel { color: #b71c1c; }"
        )
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        row = QHBoxLayout(self)
        row.addWidget(self.text, 1)
        self.hide()
        unsubscribe = bus.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: unsubscribe())

    def _on_event(self, event: Event) -> None:
        if isinstance(event, DiskSpaceChanged):
            self.show_state(event)

    def show_state(self, event: DiskSpaceChanged) -> None:
        if not event.full:
            self.hide()
            return
        text = (
            self.tr("<b>Disk full</b>: %1 free on %2. No new task starts until there is space.")
            .replace("%1", human_bytes(event.free_bytes))
            .replace("%2", event.folder)
        )
        if event.held:
            text += " " + self.tr(
                "%n answer(s) already received are kept and will be written then.", "", event.held
            )
        text += " " + self.tr("Free some space: the work goes on by itself.")
        self.text.setText(text)
        self.show()
