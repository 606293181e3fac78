"""The team as the window sees it (team mode): every workstation that works on the shared queue,
online or not, the web accounts it holds and what it runs — read every 10 s on a database
reader (``AsyncStore.workstations``), never on the GUI thread.

The status bar says "Team: 4 workstations online" from it, and the accounts panel says where
another workstation's web accounts are and whether that workstation is on. Workstations come and
go slowly (a session is declared dead after ``dead_after_s``, 90 s by default), so a look every
10 s is timely; a change of an account's state comes sooner, through the database follower.

A look that meets an unreachable team database keeps what it saw last (with its time) and tells
the scheduler's link, which shows the banner at once even while no task is under way.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from media_assistant.core.model.records import WorkstationInfo
from media_assistant.core.store.backends.postgres import is_unreachable
from media_assistant.services import Services

log = logging.getLogger(__name__)

LOOK_EVERY_MS = 10_000
CATCH_UP_MS = 1_000  # while this workstation is not seen online yet, at most
MAX_CATCH_UPS = 10  # ... this many times


class TeamWatch(QObject):
    changed = Signal()  # a new look at the workstations

    def __init__(self, services: Services, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.workstations: list[WorkstationInfo] = []
        self.seen_at: float | None = None  # time.time() of the last look that answered
        # Told when a look finds the team database away (the scheduler's link: the banner).
        self.on_unreachable: Callable[[BaseException], object] | None = None
        self._catch_ups = 0
        self._timer = QTimer(self)
        self._timer.setInterval(LOOK_EVERY_MS)
        self._timer.timeout.connect(self._look_soon)
        self._looking: asyncio.Task[None] | None = None

    @property
    def team(self) -> bool:
        """The window works on a team database (a single PC's own file has no team)."""
        return self.services.store_url is not None

    @property
    def me(self) -> str:
        return self.services.workstation

    def start(self) -> None:
        if self.team and not self._timer.isActive():
            self._timer.start()
            self._look_soon()

    def stop(self) -> None:
        self._timer.stop()
        if self._looking is not None:
            self._looking.cancel()
            self._looking = None

    def online(self) -> int:
        return sum(1 for w in self.workstations if w.online)

    def info(self, workstation: str) -> WorkstationInfo | None:
        return next((w for w in self.workstations if w.workstation == workstation), None)

    def _look_soon(self) -> None:
        if self._looking is not None and not self._looking.done():
            return  # the last look still waits for the server
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a timer Qt ran at a shutdown, outside the loop
            return
        self._looking = loop.create_task(self.look(), name="team-watch")

    async def look(self) -> None:
        dead_after = self.services.config.scheduler.dead_after_s
        try:
            seen = await self.services.async_store.workstations(dead_after=dead_after)
        except Exception as exc:
            if is_unreachable(exc):
                if self.on_unreachable is not None:
                    self.on_unreachable(exc)
            else:
                log.warning("[team] reading the workstations failed: %s", exc)
            return
        self.workstations = seen
        self.seen_at = time.time()
        self.changed.emit()
        me = self.info(self.me)
        if me is not None and me.online:
            self._catch_ups = 0
        elif self._catch_ups < MAX_CATCH_UPS and self._timer.isActive():
            # The window's first looks come before its scheduler has written its session (it
            # starts once the window is drawn): look again soon rather than say for 10 s that
            # this workstation is offline.
            self._catch_ups += 1
            QTimer.singleShot(CATCH_UP_MS, self._look_soon)
