"""Demo mode: a banner saying what this is and what to press, with the sample batch one click
away. What it says follows the demo's own queue, not the button: a sample batch that runs
("running" — also after a restart in the middle of one), one that ended ("finished"), or none
yet; so it never says "running" long after the batch finished."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from media_assistant.demo import SAMPLE_PREFIX
from media_assistant.gui.tasks.rows import BatchCounts

FRESH, RUNNING, FINISHED = "fresh", "running", "finished"


class DemoBanner(QWidget):
    run_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("demo-banner")
        self.setStyleSheet(
            "#demo-banner { background: #fff8e1; border: 1px solid #ffe082; "
            "border-radius: 4px; } QLabel { color: #5d4037; }"
        )
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.button = QPushButton(self)
        self.button.setDefault(True)
        font = self.button.font()
        font.setBold(True)
        self.button.setFont(font)
        self.button.clicked.connect(self.run_requested)
        self.button.clicked.connect(lambda: self._show(RUNNING))  # its tasks follow at once
        row = QHBoxLayout(self)
        row.addWidget(self.text, 1)
        row.addWidget(self.button)
        self.state = ""
        self._show(FRESH)

    def follow(self, counts: BatchCounts) -> None:
        """The demo's queue as the window has it (once a second)."""
        samples = [b for b in counts.counts if b.startswith(SAMPLE_PREFIX)]
        running = any((tally := counts.tally(b)).pending or tally.running for b in samples)
        self._show(RUNNING if running else FINISHED if samples else FRESH)

    def _show(self, state: str) -> None:
        if state == self.state:
            return
        self.state = state
        if state == FRESH:
            self.text.setText(
                self.tr(
                    "Demo mode: simulated web and API models, a demo data folder of its own. "
                    "Nothing here touches your real accounts.<br><b>Press “Run the sample "
                    "batch” to watch 14 tasks run on both lanes.</b>"
                )
            )
            self.button.setText(self.tr("Run the sample batch"))
        elif state == RUNNING:
            self.text.setText(
                self.tr(
                    "Demo mode: the sample batch is running. Watch the lane panels and the "
                    "table; double-click a finished task to read its result."
                )
            )
            self.button.setText(self.tr("Run it again"))
        else:
            self.text.setText(
                self.tr(
                    "Demo mode: the sample batch has finished. Double-click a task to read its "
                    "result, export them, or run the batch again."
                )
            )
            self.button.setText(self.tr("Run it again"))
