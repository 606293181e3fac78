"""The desktop session ends under the app: Windows sign-out, shutdown, an update's restart, an
installer's Restart Manager (issue 29 item 1).

Qt says so with ``commitDataRequest`` (WM_QUERYENDSESSION) and then quits its event loop, or
only with ``aboutToQuit``; Windows may end the process soon after. The window's graceful close
(running tasks back to the queue, browsers and exports stopped) is started, but the rows are
first returned synchronously (core/lanes/session_end.py), since the loop may never turn again.
qasync then finds its loop stopped before the app's coroutine finished and raises
``RuntimeError("Event loop stopped before Future completed.")``: :func:`run_app_loop` takes that
for the end it is (exit 0), never an error box in front of the installer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication

log = logging.getLogger(__name__)

LOOP_STOPPED = "Event loop stopped before Future completed"


class SessionEndGuard(QObject):
    """Installed while the window runs; ``uninstall()`` once the graceful stop has begun (its
    own ``app.quit()`` must not look like a session end)."""

    def __init__(
        self,
        app: QGuiApplication,
        release_rows: Callable[[], object],
        close_window: Callable[[], object],
    ) -> None:
        super().__init__(app)
        self._app = app
        self._release_rows = release_rows
        self._close_window = close_window
        self.ended = False
        app.commitDataRequest.connect(self._on_app_commit_data_request)
        app.aboutToQuit.connect(self._on_app_about_to_quit)

    def uninstall(self) -> None:
        self._app.commitDataRequest.disconnect(self._on_app_commit_data_request)
        self._app.aboutToQuit.disconnect(self._on_app_about_to_quit)

    def _on_app_commit_data_request(self, _manager: object) -> None:
        self.end("the desktop session is ending")

    def _on_app_about_to_quit(self) -> None:
        self.end("the application was told to quit")

    def end(self, why: str) -> None:
        if self.ended:
            return
        self.ended = True
        log.info("%s: running tasks go back to the queue now", why)
        self._release_rows()
        self._close_window()  # the graceful path, if the loop turns again


def run_app_loop(loop: asyncio.AbstractEventLoop, main: Coroutine[Any, Any, int]) -> int:
    """``loop.run_until_complete(main)``; a loop stopped from outside (the session's end) is a
    shutdown, exit 0: what had to be saved was saved by :class:`SessionEndGuard`."""
    try:
        return int(loop.run_until_complete(main))
    except RuntimeError as exc:
        if LOOP_STOPPED not in str(exc):
            raise
        log.info("the event loop was stopped from outside (the session ended): exiting")
        return 0
