"""Injectable time.

Everything in the core that reads the time or waits goes through a :class:`Clock`, so tests can
run heartbeat, reaper and backoff logic in milliseconds instead of minutes.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Wall-clock seconds since the epoch (what the database stores)."""

    def monotonic(self) -> float:
        """Seconds on a clock that never jumps (for measuring intervals)."""

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class ServerAlignedClock:
    """The team database's clock, read on this workstation: a team's workstations compare
    heartbeats, the reaper's cutoff, ``not_before``, cool-downs, schedules and the rate budgets'
    times (GCRA) on one clock, not on each PC's own (core/store/team.py).

    The server's time is measured (``offset``: how far it is ahead of this PC's wall clock) and
    then carried forward on the **monotonic** clock, which no NTP step, hand fix or VM resume
    moves: a wall clock stepped by minutes changes nothing here (issue 27 item 2 — a PC stepped
    forward saw every other workstation's live work as dead and took it back). When the wall
    and the monotonic clock part by more than :data:`DIVERGENCE_S` in either direction (a step,
    or a suspend, which stops the monotonic clock on Linux and macOS) :attr:`diverged` asks the
    scheduler to measure again at once; the new offset anchors the clock anew. Intervals
    (``monotonic``, ``sleep``) are the underlying clock's."""

    def __init__(self, base: Clock, offset: float = 0.0) -> None:
        self.base = base
        self.offset = offset

    @property
    def offset(self) -> float:
        return self._offset

    @offset.setter
    def offset(self, value: float) -> None:
        # Replaced whole (one tuple assignment is atomic): read from database threads too.
        self._anchor = (self.base.now() + value, self.base.monotonic())
        self._offset = value

    @property
    def diverged(self) -> bool:
        """The wall clock moved against the monotonic one since the offset was measured."""
        return abs(self.base.now() + self._offset - self.now()) > DIVERGENCE_S

    def now(self) -> float:
        server, mono = self._anchor
        return server + (self.base.monotonic() - mono)

    def monotonic(self) -> float:
        return self.base.monotonic()

    async def sleep(self, seconds: float) -> None:
        await self.base.sleep(seconds)


# How far the wall clock may part from the monotonic one before the offset is measured again.
DIVERGENCE_S = 1.0


class ScaledClock:
    """Real time running ``speed`` times faster: 90 s of simulated time pass in 90/speed s.

    Keeps every real concurrency effect (the event loop really interleaves coroutines) while a
    15 s heartbeat and a 90 s dead-line take milliseconds.
    """

    def __init__(self, speed: float, start: float | None = None) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.speed = speed
        self._wall0 = time.time() if start is None else start
        self._mono0 = time.monotonic()

    def _elapsed(self) -> float:
        return (time.monotonic() - self._mono0) * self.speed

    def now(self) -> float:
        return self._wall0 + self._elapsed()

    def monotonic(self) -> float:
        return self._mono0 + self._elapsed()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / self.speed)


class ManualClock:
    """A clock that moves only when told to; sleepers wake when :meth:`advance` passes them."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._mono = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._counter = itertools.count()

    def now(self) -> float:
        return self._now

    def monotonic(self) -> float:
        return self._mono

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._mono + seconds, next(self._counter), fut))
        await fut

    def advance_sync(self, seconds: float) -> None:
        """Move time forward and wake due sleepers (they run at the next loop iteration)."""
        self._now += seconds
        self._mono += seconds
        while self._sleepers and self._sleepers[0][0] <= self._mono:
            _, _, fut = heapq.heappop(self._sleepers)
            if not fut.done():
                fut.set_result(None)

    async def advance(self, seconds: float) -> None:
        self.advance_sync(seconds)
        for _ in range(5):
            await asyncio.sleep(0)


async def wait_event(event: asyncio.Event, timeout: float, clock: Clock) -> bool:
    """Wait until ``event`` is set or ``timeout`` seconds of ``clock`` time pass. True if set."""
    if event.is_set():
        return True
    if timeout <= 0:
        return False
    waiter = asyncio.ensure_future(event.wait())
    sleeper = asyncio.ensure_future(clock.sleep(timeout))
    try:
        await asyncio.wait({waiter, sleeper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        sleeper.cancel()
    return event.is_set()
