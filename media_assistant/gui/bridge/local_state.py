"""The window's memory of this queue (core/files/local_state.py), saved off the window's
thread: views change it as often as they like (a click on a notice, a batch chosen); a save
follows a moment later on a worker thread, one at a time, and the app awaits the last one when
it shuts down. A slow or full disk never stalls a click."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, QTimer

from media_assistant.core.files.local_state import LocalState

log = logging.getLogger(__name__)

SAVE_AFTER_MS = 300  # a burst of changes (Mark all read on 200 notices) is one write
# Values the window kept in the user-wide Qt settings before they moved into the data folder.
# Only what cannot leak from one queue into another is carried over (an export folder is a
# preference); unread notices are not: the old list mixed every data folder's notices, and
# importing it here is exactly the leak the move ends (issue 20).
_FROM_QSETTINGS = {"export/folder": "export_folder", "export/format": "export_format"}
_DROPPED_QSETTINGS = ("notifications/unread",)


class LocalStateKeeper(QObject):
    def __init__(self, state: LocalState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_AFTER_MS)
        self._timer.timeout.connect(self._save_soon)
        self._saving: asyncio.Task[bool] | None = None

    @classmethod
    def open(cls, path: Path, parent: QObject | None = None) -> LocalStateKeeper:
        """Read at once: for a window built without the app (tests, tools). The app reads the
        file on a worker thread and passes the state in."""
        return cls(LocalState.load(path), parent)

    def get(self, key: str, default: Any = None) -> Any:
        return self.state.get(key, default)

    def set(self, key: str, value: Any) -> None:
        if self.state.set(key, value):
            self._timer.start()

    def _save_soon(self) -> None:
        if self._saving is not None and not self._saving.done():
            self._timer.start()  # one write at a time; this change goes with the next
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a test without one, a shutdown): write now
            self.state.save()
            return
        self._saving = loop.create_task(asyncio.to_thread(self.state.save), name="local-state")

    async def flush(self) -> None:
        """Every change written (the app awaits it after the window closed)."""
        self._timer.stop()
        if self._saving is not None:
            await asyncio.wait({self._saving})
        if self.state.dirty:
            await asyncio.to_thread(self.state.save)


def migrate_qsettings(state: LocalState) -> None:
    """Values the window used to keep in QSettings: the export folder and format seed a data
    folder's state that has none yet (each folder once; they are left for the next folder),
    and the user-wide notice list is dropped (see above)."""
    settings = QSettings()
    for old, new in _FROM_QSETTINGS.items():
        value = settings.value(old)
        if value is not None and state.get(new) is None:
            state.set(new, str(value))
    for old in _DROPPED_QSETTINGS:
        settings.remove(old)
