"""GUI tests run offscreen; async ones on a qasync loop (the app's own kind of loop).

Never call blocking qtbot waits (wait, waitUntil, waitSignal) inside a coroutine: they spin a
nested Qt loop that wedges the asyncio one. Coroutines wait with ``asyncio.sleep`` instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MEDIA_ASSISTANT_NO_ERROR_DIALOG", "1")

from PySide6.QtWidgets import QApplication  # noqa: E402

from media_assistant.gui.bridge.event_loop import AppEventLoop  # noqa: E402


def _qasync_loop() -> AppEventLoop:
    """The app's own loop class (qasync + asyncio's async-generator hooks)."""
    app = QApplication.instance() or QApplication([])
    return AppEventLoop(app, already_running=False)


def pytest_asyncio_loop_factories(config: Any, item: Any) -> Mapping[str, Callable[[], Any]]:
    return {"qasync": _qasync_loop}


import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402


@pytest.fixture(autouse=True)
def _private_settings(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test's QSettings (window geometry, unread notifications, the export folder) in a
    folder of its own: nothing leaks between tests or into the real user's settings."""
    folder = tmp_path_factory.mktemp("qsettings")
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(folder))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
