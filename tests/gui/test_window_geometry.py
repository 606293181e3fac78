"""The main window's first size comes from the screen, the next from where the operator left
it; at what a 1366×768 laptop offers, every panel, the status bar and the State column show;
the window and the tray carry the app icon."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, QSettings
from PySide6.QtWidgets import QApplication

from media_assistant.core.files.paths import Paths
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.tasks.rows import COL_STATE
from media_assistant.gui.window.log_panel import LogModel
from media_assistant.gui.window.main_window import FIRST_SCREEN_SHARE, FIRST_SIZE, MainWindow
from media_assistant.services import Services

CONFIG = """
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "NO_KEY"
models = ["api-model"]

[[models]]
name = "web-model"
kind = "web"

[[accounts]]
id = "web-1"
kind = "web"
site = "fake"
models = ["web-model"]
"""
# A 1366×768 screen less a 40 px Windows taskbar, and the first window the app makes there.
# Windows' display scaling (125 %, 150 %): the same laptop has fewer logical pixels. The
# suite runs these tests again at QT_SCALE_FACTOR 1.25 and 1.5 (tests/gui/test_scaling.py).
SCALE = float(os.environ.get("QT_SCALE_FACTOR") or 1)
LAPTOP_AREA = QRect(0, 0, int(1366 / SCALE), int(728 / SCALE))
LAPTOP_WINDOW = (
    int(LAPTOP_AREA.width() * FIRST_SCREEN_SHARE),
    int(LAPTOP_AREA.height() * FIRST_SCREEN_SHARE),
)


@pytest.fixture
def settings_dir(tmp_path: Path) -> Iterator[Path]:
    """The window's saved geometry in a folder of the test's own."""
    folder = tmp_path / "settings"
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(folder))
    QSettings().remove("main/geometry")
    yield folder
    QSettings().remove("main/geometry")


@pytest.fixture
def controller(tmp_path: Path) -> Iterator[AppController]:
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    services = Services.open(Paths.resolve(data))
    controller = AppController(services, services.scheduler())
    yield controller
    controller.bridge.close()
    services.close()


def make_window(controller: AppController, qtbot: Any) -> MainWindow:
    window = MainWindow(controller, LogModel())
    qtbot.addWidget(window)  # no rows loaded: the layout does not depend on them
    return window


def test_the_first_window_fits_the_screen_and_the_next_opens_where_it_was_left(
    controller: AppController, qtbot: Any, settings_dir: Path
) -> None:
    window = make_window(controller, qtbot)
    screen = window.screen() or QApplication.primaryScreen()
    area = screen.availableGeometry()
    expected = (
        min(FIRST_SIZE[0], int(area.width() * FIRST_SCREEN_SHARE)),
        min(FIRST_SIZE[1], int(area.height() * FIRST_SCREEN_SHARE)),
    )
    assert (window.width(), window.height()) == expected
    assert area.contains(window.frameGeometry().center())
    assert abs(window.frameGeometry().center().x() - area.center().x()) <= 1

    window.setGeometry(40, 30, 500, 400)
    window.close()  # saves where it is, as the operator closing it does
    again = make_window(controller, qtbot)
    assert (again.x(), again.y(), again.width(), again.height()) == (40, 30, 500, 400)


def test_at_a_1366x768_laptop_every_panel_the_status_bar_and_the_state_column_show(
    controller: AppController, qtbot: Any, settings_dir: Path
) -> None:
    window = make_window(controller, qtbot)
    window.resize(*LAPTOP_WINDOW)
    window.show()
    # At 150 % the window's own minimum is a little more than 90 % of the screen: it takes that.
    size = (
        max(LAPTOP_WINDOW[0], window.minimumWidth()),
        max(LAPTOP_WINDOW[1], window.minimumHeight()),
    )
    qtbot.waitExposed(window)
    QApplication.processEvents()

    # The contents do not force the window past the laptop's screen.
    assert window.minimumSizeHint().width() <= LAPTOP_AREA.width()
    assert window.minimumSizeHint().height() <= LAPTOP_AREA.height()
    assert (window.width(), window.height()) == size
    inside = window.rect()
    room = window.table_room
    folded = room._vertical.sizes()[1] == 0
    # Scaled (125 %, 150 %), the timeline/log tabs fold away for the table's rows: their
    # splitter handle stays in sight, to drag them back. Unscaled they show.
    assert not folded or SCALE > 1
    shown = [] if folded else [window.bottom]
    if folded:
        handle = room._vertical.handle(1)
        assert inside.contains(handle.mapTo(window, handle.rect().bottomRight()))
    for widget in (
        *window.lanes.values(),
        window.table,
        window.accounts,
        *shown,
        window.statusBar(),
    ):
        assert widget.isVisible() and widget.height() > 20, widget
        top_left = widget.mapTo(window, widget.rect().topLeft())
        bottom_right = widget.mapTo(window, widget.rect().bottomRight())
        assert inside.contains(top_left) and inside.contains(bottom_right), widget
    view = window.table.view
    header = view.horizontalHeader()
    assert not view.isColumnHidden(COL_STATE)
    state_right = header.sectionViewportPosition(COL_STATE) + header.sectionSize(COL_STATE)
    assert header.sectionViewportPosition(COL_STATE) >= 0
    assert state_right <= view.viewport().width()  # the whole State column, no scrolling
    if shots := os.environ.get("MA_FIT_SHOTS"):  # for a person to look at (test_scaling.py)
        window.grab().save(str(Path(shots) / f"fit-{SCALE}-main-window.png"))


def test_the_window_and_the_tray_show_the_app_icon(
    controller: AppController, qtbot: Any, settings_dir: Path
) -> None:
    window = make_window(controller, qtbot)
    assert not window.windowIcon().isNull()
    assert len(window.windowIcon().availableSizes()) >= 4  # crisp at 16 px and at 256 px
    if window.tray is not None:  # offscreen has no system tray
        assert window.tray.icon().cacheKey() == window.windowIcon().cacheKey()
