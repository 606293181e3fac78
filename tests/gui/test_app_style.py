"""One look on every PC (issue 29 item 8): whatever style and palette the system hands the app
(Windows 11's style, its dark mode), the window gets Fusion with its light palette, the one
the hard-coded colours were chosen for. The system's dark palette is stood in for by setting
one: the offscreen platform here has no dark mode of its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from media_assistant.gui.common.app_style import apply_app_style


@pytest.fixture
def restored(qapp: QApplication) -> Iterator[QApplication]:
    style, palette = qapp.style().name(), QPalette(qapp.palette())
    yield qapp
    qapp.setStyle(QStyleFactory.create(style))
    qapp.setPalette(palette)
    qapp.styleHints().unsetColorScheme()


def test_a_dark_system_still_gets_the_light_fusion_look(restored: QApplication) -> None:
    app = restored
    dark = QPalette()
    for role, colour in (
        (QPalette.ColorRole.Window, "#202020"),
        (QPalette.ColorRole.Base, "#1b1b1b"),
        (QPalette.ColorRole.Text, "#f0f0f0"),
        (QPalette.ColorRole.WindowText, "#f0f0f0"),
    ):
        dark.setColor(role, QColor(colour))
    app.setStyle(QStyleFactory.create("Windows"))
    app.setPalette(dark)

    apply_app_style(app)

    assert app.style().name().lower() == "fusion"
    assert app.styleHints().colorScheme() in (Qt.ColorScheme.Light, Qt.ColorScheme.Unknown)
    palette = app.palette()
    assert palette.color(QPalette.ColorRole.Window).lightness() > 200
    assert palette.color(QPalette.ColorRole.Base).lightness() > 200
    assert palette.color(QPalette.ColorRole.Text).lightness() < 60
