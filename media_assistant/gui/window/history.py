"""Older history, a page at a time, once the window is on screen and the scheduler runs.

The window loads every unfinished task and the newest finished ones before it shows; older
finished tasks follow in pages of :data:`HISTORY_PAGE`, each read on a database reader and then
added to the model, with room for the window's own turns between pages."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from media_assistant.core.model.states import TERMINAL_STATES
from media_assistant.core.store.facade import AsyncStore
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.tasks.model import TaskTableModel

FINISHED = sorted(TERMINAL_STATES)
HISTORY_PAGE = 200  # read on a database reader; 500 per page kept the window busy > 50 ms a
# page with the batch list and timeline (B7 history p99)
HISTORY_PAUSE_MS = 10  # between pages: the window stays responsive while history loads


class HistoryPages:
    def __init__(
        self,
        store: AsyncStore,
        model: TaskTableModel,
        loaded: Callable[[Sequence[dict[str, Any]]], None],
        visible: Callable[[], bool],
    ) -> None:
        self.store = store
        self.model = model
        self._loaded = loaded  # the window's views take each page too
        self._visible = visible
        self.before: int | None = None  # older finished tasks still to load (their seq bound)
        self.task: asyncio.Task[None] | None = None
        self.held = False  # the app holds it until the scheduler has started

    def hold(self) -> None:
        """Older history waits for :meth:`release` (the app: until the scheduler has started).
        Starting the scheduler imports and builds the providers on worker threads; history
        pages read and added meanwhile compete with them for the interpreter, and the window
        stalled 50-190 ms at a time (B7's history phase): one after the other, neither waits
        long."""
        self.held = True

    def release(self) -> None:
        self.held = False
        if self._visible():
            self.start()

    def start(self) -> None:
        """Older history, once the window is on screen: a timer started before ``show()``
        could fire first (``scheduler.start()`` imports the providers meanwhile) and hold back
        the first paint by a page."""
        if self.held:
            return
        before, self.before = self.before, None
        if before is not None:  # after the first paint, with room for events between pages
            self.task = spawn(self._load(before), "history")

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def _load(self, before_seq: int) -> None:
        """Pages of older history: each read on a database reader, then added to the model
        (rows a change already brought in are not overwritten by the older page)."""
        await asyncio.sleep(HISTORY_PAUSE_MS * 4 / 1000)
        while True:
            rows = await self.store.view_rows(
                states=FINISHED, before_seq=before_seq, limit=HISTORY_PAGE, newest_first=True
            )
            if not rows:
                return
            self.model.append(rows)
            self._loaded(rows)
            before_seq = rows[-1]["seq"]
            await asyncio.sleep(HISTORY_PAUSE_MS / 1000)
