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

import qasync  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def _qasync_loop() -> qasync.QEventLoop:
    app = QApplication.instance() or QApplication([])
    return qasync.QEventLoop(app, already_running=False)


def pytest_asyncio_loop_factories(config: Any, item: Any) -> Mapping[str, Callable[[], Any]]:
    return {"qasync": _qasync_loop}
