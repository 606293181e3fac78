"""The app as ``media_assistant.app`` composes it, for GUI tests: services bound to the running
qasync loop, the window loaded and shown, the database follower started, the scheduler started
(unless asked not to); torn down in the app's order, whatever the test did."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtWidgets import QApplication

from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.scheduler import Scheduler
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
    data_dir: Path, qtbot: Any, *, start_scheduler: bool = True
) -> AsyncIterator[Env]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    quits = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)  # as the app: closing the window is not the end
    services = Services.open(Paths.resolve(data_dir))
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
