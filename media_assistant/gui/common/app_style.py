"""One look on every PC: Qt's Fusion style with its light palette (issue 29 item 8).

The views hard-code light-theme colours (state colours, muted greys, the outage banner). On
Windows 11 Qt picks the "windows11" style, and with the system in dark mode a dark palette:
grey text on near-black, our colours on the wrong background. Fusion draws the same on
Windows, macOS and Linux (the screenshots and the tests see what operators see), and asking
Qt for the light colour scheme keeps its palette light whatever the system's setting.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QStyleFactory


def apply_app_style(app: QApplication) -> None:
    """Fusion, light, before any window is made."""
    app.styleHints().setColorScheme(Qt.ColorScheme.Light)
    style = QStyleFactory.create("Fusion")
    if style is not None:
        app.setStyle(style)
        app.setPalette(style.standardPalette())
