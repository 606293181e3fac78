"""The first start: no configuration yet. Instead of an error about a missing file, the window
offers the two ways in: try the built-in demo (nothing to set up), or set up the accounts.

Shown before the event loop runs (like the store recovery offer), so a modal ``exec`` is fine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.gui.common.app_icon import app_icon
from media_assistant.gui.common.style import bold, latin_width

Choice = Literal["demo", "setup"]


class FirstStartDialog(QDialog):
    def __init__(self, data_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Media Assistant"))
        self.setWindowIcon(app_icon())
        self.choice: Choice | None = None
        icon = QLabel(self)
        icon.setPixmap(app_icon().pixmap(64, 64))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        heading = QLabel(self.tr("Welcome to Media Assistant"), self)
        font = bold(heading.font())
        font.setPointSizeF(font.pointSizeF() * 1.4)
        heading.setFont(font)
        text = QLabel(
            self.tr(
                "No accounts are set up yet.<br><br>"
                "<b>Try the demo</b> to see the app at work first: a simulated chat site and "
                "API, with sample tasks. Nothing to set up, and nothing leaves this computer.<br>"
                "<br><b>Set up accounts</b> to add the chat sites you sign in to and the API "
                "keys your team uses, in a few clicks."
            ),
            self,
        )
        text.setWordWrap(True)
        where = QLabel(self.tr("Your data folder: %1").replace("%1", str(data_dir)), self)
        where.setWordWrap(True)
        where.setStyleSheet("color: #6d6d6d;")
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.demo_button = QPushButton(self.tr("Try the demo"), self)
        self.demo_button.clicked.connect(lambda: self._choose("demo"))
        self.setup_button = QPushButton(self.tr("Set up accounts"), self)
        self.setup_button.setDefault(True)
        self.setup_button.clicked.connect(lambda: self._choose("setup"))
        quit_button = QPushButton(self.tr("Quit"), self)
        quit_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(quit_button)
        buttons.addStretch(1)
        buttons.addWidget(self.demo_button)
        buttons.addWidget(self.setup_button)
        column = QVBoxLayout()
        column.addWidget(heading)
        column.addWidget(text)
        column.addWidget(where)
        row = QHBoxLayout()
        row.addWidget(icon)
        row.addLayout(column, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addStretch(1)
        layout.addLayout(buttons)
        self.setMinimumWidth(latin_width(self.fontMetrics(), 75))

    def _choose(self, choice: Choice) -> None:
        self.choice = choice
        self.accept()


def ask_first_start(app: QApplication, data_dir: Path) -> Choice | None:
    """Demo, set-up, or None (the operator quit). Before the event loop: a modal dialog."""
    from media_assistant.gui.common.i18n import install_translators

    install_translators(app, "auto")
    dialog = FirstStartDialog(data_dir)
    dialog.exec()
    return dialog.choice
