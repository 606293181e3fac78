"""The team database stops answering (team mode): noticed once, said once, waited out; nothing
received is lost.

A workstation's link to a shared PostgreSQL fails — the network drops, the server restarts —
where a SQLite file never does. What the scheduler does then (issue 19 item 5):

- **no new claim**: workers that meet the error wait here (:meth:`StoreLink.wait`), probing the
  server with backoff (0.5 s doubling to 5 s), instead of restarting with a traceback;
- **running generations go on**; an outcome that cannot be written is **held** in memory and
  written, fenced as always, when the server answers again (core/lanes/attempt.py
  ``_persist``); at a shutdown while still unreachable it goes to the disk guard's last writes
  (core/disk/last_writes.py), kept in the data dir's reserve for the next start;
- **heartbeats** cannot be written either: once our rows may have been taken back by another
  workstation (no beat for ``dead_after_s``), our attempts are stopped — their outcomes would
  be fenced out, and another workstation runs the task (:meth:`StoreLink.beats_lost`);
- **when it answers again**, the reaper waits one heartbeat interval so every workstation can
  beat first (the scheduler's ``reap_hold_until``), and the window's follower reloads.

The window shows a banner from :class:`StoreLinkChanged`; ``run`` prints a line. A SQLite store
never goes down here: :func:`is_unreachable` only recognises a server's connection errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable

from media_assistant.core.model.clock import Clock, wait_event
from media_assistant.core.model.events import EventBus, StoreLinkChanged
from media_assistant.core.store.backends.postgres import is_server_full, is_unreachable

log = logging.getLogger("media_assistant.scheduler")

PROBE_FIRST_S = 0.5
PROBE_MAX_S = 5.0


class StoreLink:
    def __init__(
        self,
        *,
        clock: Clock,
        bus: EventBus | None = None,
        probe: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """``probe``: one round trip to the server (on a database thread); raises while it
        cannot be reached."""
        self.clock = clock
        self.bus = bus
        self.probe = probe
        self.down_since: float | None = None  # wall clock
        self._down_mono: float | None = None
        self.held = 0
        self.outages = 0
        # Issue 28: the server answered that it has no free connection (said as such, waited
        # out as an outage is).
        self.full = False
        self.last_beat_ok = time.monotonic()
        self.on_back: Callable[[], None] | None = None
        self.on_down: Callable[[], None] | None = None
        self._lock = threading.Lock()
        self._back = asyncio.Event()
        self._prober: asyncio.Task[None] | None = None

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def absorb(self, exc: BaseException) -> bool:
        """``exc`` says the database cannot be reached: noted (said once), True."""
        if not is_unreachable(exc):
            return False
        self.note_down(exc)
        return True

    def note_down(self, exc: BaseException | None = None) -> None:
        with self._lock:
            if self.down_since is not None:
                return
            self.down_since = self.clock.now()
            self.full = exc is not None and is_server_full(exc)
            self._down_mono = time.monotonic()
            self.outages += 1
            self._back.clear()
        log.warning("[scheduler] %s (%s)", self.describe(), _first_line(exc))
        if self.on_down is not None:
            self.on_down()
        self._publish()
        with contextlib.suppress(RuntimeError):  # no running loop: nobody waits here
            loop = asyncio.get_running_loop()
            if self._prober is None or self._prober.done():
                self._prober = loop.create_task(self._probe_until_back(), name="store-link")

    def note_up(self) -> None:
        with self._lock:
            if self.down_since is None:
                return
            self.down_since = None
            self._down_mono = None
        log.warning("[scheduler] %s", self.describe())
        self._back.set()
        if self.on_back is not None:
            self.on_back()
        self._publish()

    def describe(self) -> str:
        if self.down_since is None:
            return "the team database answers again: work goes on"
        held = (
            f"; {self.held} answer(s) received are kept until they can be written"
            if self.held
            else ""
        )
        if self.full:
            return (
                "the team database has no free connection: waiting for one; no new task "
                f"starts, running ones go on{held}"
            )
        return f"the team database cannot be reached: no new task starts, running ones go on{held}"

    def down_for(self) -> float:
        return 0.0 if self._down_mono is None else time.monotonic() - self._down_mono

    # ---------------------------------------------------------------- held answers

    def hold(self) -> None:
        self.held += 1
        self._publish()

    def unhold(self) -> None:
        self.held = max(0, self.held - 1)
        self._publish()

    # ---------------------------------------------------------------- heartbeats

    def beat_written(self) -> None:
        self.last_beat_ok = time.monotonic()

    def beats_lost(self, dead_after_s: float, heartbeat_s: float) -> bool:
        """No heartbeat written for so long that another workstation may take our rows back."""
        return time.monotonic() - self.last_beat_ok > dead_after_s - heartbeat_s

    # ---------------------------------------------------------------- waiting it out

    async def wait(self, stopping: asyncio.Event) -> bool:
        """Until the database answers again (True) or the scheduler stops (False)."""
        if not self.down:
            return True
        if self._prober is None or self._prober.done():
            self._prober = asyncio.get_running_loop().create_task(
                self._probe_until_back(), name="store-link"
            )
        stop = asyncio.ensure_future(stopping.wait())
        back = asyncio.ensure_future(self._back.wait())
        try:
            await asyncio.wait({stop, back}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            back.cancel()
        return not self.down

    async def _probe_until_back(self) -> None:
        delay = PROBE_FIRST_S
        while self.down:
            await wait_event(self._back, delay, self.clock)
            if not self.down:
                return
            if self.probe is None:
                continue
            try:
                await self.probe()
            except Exception as exc:
                if not is_unreachable(exc):
                    log.warning("[scheduler] probing the team database: %s", _first_line(exc))
                delay = min(delay * 2, PROBE_MAX_S)
                self._publish()  # the banner's count goes on
                continue
            self.note_up()

    async def stop(self) -> None:
        task, self._prober = self._prober, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def _publish(self) -> None:
        if self.bus is not None:
            self.bus.publish(
                StoreLinkChanged(
                    reachable=not self.down,
                    down_since=self.down_since,
                    held=self.held,
                    message=self.describe(),
                )
            )


def _first_line(exc: BaseException | None) -> str:
    if exc is None:
        return ""
    original = getattr(exc, "orig", None) or exc
    text = str(original).strip().splitlines()
    return text[0][:200] if text else type(original).__name__
