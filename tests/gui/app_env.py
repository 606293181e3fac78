"""The app as ``media_assistant.app`` composes it, for GUI tests: services bound to the running
qasync loop, the window loaded and shown, the database follower started, the scheduler started
(unless asked not to); torn down in the app's order, whatever the test did. ``two_accounts_app``:
that app on a config with a web and an API account (the dialogs' tests open every dialog on it)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication

from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import Clock
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.window.log_panel import LogModel
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.services import Services


@dataclass
class Env:
    window: MainWindow
    controller: AppController
    scheduler: Scheduler
    services: Services


@contextlib.asynccontextmanager
async def running_app(
    data_dir: Path, qtbot: Any, *, start_scheduler: bool = True, clock: Clock | None = None
) -> AsyncIterator[Env]:
    """``clock``: the services' clock (default: the system's)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    quits = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)  # as the app: closing the window is not the end
    services = Services.open(Paths.resolve(data_dir), clock=clock)
    services.bind_loop()
    scheduler = services.scheduler()
    controller = AppController(services, scheduler)
    window = MainWindow(controller, LogModel())
    qtbot.addWidget(window)
    try:
        await controller.follower.start(await window.load())
        if start_scheduler:
            await scheduler.start()
        window.show()
        yield Env(window, controller, scheduler, services)
    finally:
        await scheduler.stop()
        await controller.close()
        if shiboken6.isValid(window):  # qtbot may have closed and deleted it already
            window.close()
            await window.local_state.flush()  # as the app does after its window closed
        services.close()
        app.setQuitOnLastWindowClosed(quits)


# A web account and an API account (its key in an environment variable), three models: every
# dialog has something to show (tests/gui/test_dialogs_fit.py, test_every_dialog_twice.py).
KEY_ENV = "MA_GUI_TEST_KEY"
TWO_ACCOUNTS = f"""
[[models]]
name = "web-model"
kind = "web"

[[models]]
name = "api-model"
kind = "api"

[[models]]
name = "api-other"
kind = "api"

[[accounts]]
id = "web-1"
kind = "web"
site = "fake"
models = ["web-model"]

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "{KEY_ENV}"
models = ["api-model", "api-other"]
"""


@contextlib.asynccontextmanager
async def two_accounts_app(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Env]:
    """The app (no scheduler) on :data:`TWO_ACCOUNTS` in ``tmp_path/data``."""
    monkeypatch.setenv(KEY_ENV, "sk-gui-test")
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(TWO_ACCOUNTS, encoding="utf-8")
    async with running_app(data, qtbot, start_scheduler=False) as env:
        yield env
