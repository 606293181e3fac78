"""Demo mode: a banner saying what this is and what to press, with the sample batch one click
away."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


class DemoBanner(QWidget):
    run_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("demo-banner")
        self.setStyleSheet(
            "#demo-banner { background: #fff8e1; border: 1px solid #ffe082; "
            "border-radius: 4px; } QLabel { color: #5d4037; }"
        )
        self.text = QLabel(
            self.tr(
                "Demo mode: simulated web and API models, a demo data folder of its own. "
                "Nothing here touches your real accounts.<br><b>Press “Run the sample batch” "
                "to watch 14 tasks run on both lanes.</b>"
            ),
            self,
        )
        self.text.setWordWrap(True)
        self.button = QPushButton(self.tr("Run the sample batch"), self)
        self.button.setDefault(True)
        font = self.button.font()
        font.setBold(True)
        self.button.setFont(font)
        self.button.clicked.connect(self.run_requested)
        self.button.clicked.connect(self._on_button_clicked)
        row = QHBoxLayout(self)
        row.addWidget(self.text, 1)
        row.addWidget(self.button)

    def _on_button_clicked(self) -> None:
        self.text.setText(
            self.tr(
                "Demo mode: the sample batch is running. Watch the lane panels and the table; "
                "double-click a finished task to read its result."
            )
        )
        self.button.setText(self.tr("Run it again"))
