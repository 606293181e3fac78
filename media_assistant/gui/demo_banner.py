"""Demo mode: a banner saying what this is, with the sample batch one click away."""

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
        text = QLabel(
            self.tr(
                "Demo mode: simulated web and API models, a demo data folder of its own. "
                "Nothing here touches your real accounts."
            ),
            self,
        )
        text.setWordWrap(True)
        self.button = QPushButton(self.tr("Run the sample batch"), self)
        self.button.clicked.connect(self.run_requested)
        row = QHBoxLayout(self)
        row.addWidget(text, 1)
        row.addWidget(self.button)
