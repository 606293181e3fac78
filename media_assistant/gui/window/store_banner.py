"""A banner across the window while the team database does not answer (team mode, issue 19
item 5): "Team database unreachable — reconnecting, 12 s", counting, with how many answers are
held. No new task starts meanwhile; running generations go on and their answers are written
(fenced) when it answers again, which hides the banner.

Fed by :class:`StoreLinkChanged` from the scheduler's link (core/store/link.py), delivered on the
GUI thread by the store's bus; the count is the window's own one-second tick, so it goes on
between the link's probes."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from media_assistant.core.model.events import Event, EventBus, StoreLinkChanged
from media_assistant.gui.common.style import format_duration


class StoreBanner(QWidget):
    """Drawn over the top of the window's content, not in its layout (issue 26: appearing, it
    pushed everything 42 px down under the pointer): it follows its parent's width."""

    changed = Signal(bool)  # the database answers (True) or not (False)

    def __init__(
        self, bus: EventBus, now: Callable[[], float], parent: QWidget | None = None
    ) -> None:
        """``now``: the clock the link's ``down_since`` was read on (the services' clock)."""
        super().__init__(parent)
        self.setObjectName("store-banner")
        # A plain QWidget paints a style sheet's background only when asked to.
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(
            "#store-banner { background: #fff3e0; border: 1px solid #ffb74d; "
            "border-radius: 4px; } QLabel { color: #8a3c00; }"
        )
        self._now = now
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        row = QHBoxLayout(self)
        row.addWidget(self.text, 1)
        self.state: StoreLinkChanged | None = None
        self._down_mono: float | None = None  # when it stopped answering, on this monotonic
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._say)
        self.hide()
        if parent is not None:
            parent.installEventFilter(self)
        unsubscribe = bus.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: unsubscribe())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        """Across the top of the parent, above its other children."""
        parent = self.parentWidget()
        if parent is None:
            return
        margin = 6
        width = max(0, parent.width() - 2 * margin)
        self.setGeometry(margin, margin, width, self.heightForWidth(width))
        self.raise_()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
        layout = self.layout()
        if layout is not None and layout.hasHeightForWidth():
            return layout.totalHeightForWidth(width)
        return self.sizeHint().height()

    def _on_event(self, event: Event) -> None:
        if isinstance(event, StoreLinkChanged):
            self.show_state(event)

    def show_state(self, event: StoreLinkChanged) -> None:
        if event.reachable:
            self.state = None
            self._down_mono = None
            self._tick.stop()
            self.hide()
            self.changed.emit(True)
            return
        if self._down_mono is None:
            now = self._now()
            since = event.down_since if event.down_since is not None else now
            self._down_mono = time.monotonic() - max(0.0, now - since)
        self.state = event
        self._say()
        self._tick.start()
        self._place()
        self.show()
        self.changed.emit(False)

    def down_for(self) -> float:
        return 0.0 if self._down_mono is None else time.monotonic() - self._down_mono

    def _say(self) -> None:
        if self.state is None:
            return
        text = self.tr(
            "<b>Team database unreachable</b> — reconnecting, %1. No new task starts; "
            "running ones go on."
        ).replace("%1", format_duration(self.down_for()))
        if self.state.held:
            text += " " + self.tr(
                "%n answer(s) received are kept and will be written when it answers.",
                "",
                self.state.held,
            )
        if self.text.text() != text:
            self.text.setText(text)
            self._place()
