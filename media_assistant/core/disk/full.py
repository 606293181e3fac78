"""A full disk (issue 9, item 3): noticed once, said once, waited out; nothing received is lost.

SQLite reports a full disk as ``database or disk is full`` (``SQLITE_FULL``), the OS as
``ENOSPC`` (or ``EDQUOT`` for a quota). Before this module a full disk looked like a busy
database: every worker restarted in a loop, answers already received were dropped after two
minutes of retries and requested again, and Ctrl-C left the rows ``running``. Now:

- whoever meets the error hands it to the scheduler's :class:`DiskGuard` (``absorb``), which
  marks the disk full, tells the operator once (``disk full: 12 MB free on <path>``, on the
  CLI and as a :class:`DiskSpaceChanged` event for the window's banner) and from then on:
- the lanes stop claiming tasks (a claim is a write; nothing new should start);
- an attempt whose answer arrived keeps it in memory and writes it when space returns
  (``AttemptRunner._persist``): never requested twice;
- the guard looks at the free space every :data:`POLL_S` seconds (``shutil.disk_usage``) and
  declares the disk usable again once there is room for its reserve and a margin.

**The reserve.** When the disk is full at a shutdown, the rows still ``running`` and the answers
held in memory must be written all the same: otherwise the answers are lost and the rows cost an
attempt at the next start. So while the scheduler runs it keeps a small file of its own in the
data dir (:data:`RESERVE_BYTES`, ``disk-reserve``). At a shutdown on a full disk, the answers not
yet written and the session's id are first written *into* that file, in place — bytes it
already owns, so this needs no free space, even if another process takes every byte the moment
it is freed — and the rest of the file is given up (truncated) for the last writes to the
store. If those succeed the file goes; if not, the next start writes the answers from it and
returns the session's rows to the queue without using an attempt (core/disk/reserve.py,
core/disk/last_writes.py). It is
written again when space returns and removed at a clean exit. (A "ballast file" is the usual
remedy for this; SQLite cannot preallocate room for a WAL.)

Disk-full errors raised in a command with no scheduler (``submit``, ``export``, the start of
``run``) become :class:`DiskFull`: one line, exit code 6.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from media_assistant.core.disk.reserve import DiskReserve, Spill
from media_assistant.core.model.events import DiskSpaceChanged, EventBus
from media_assistant.core.model.provider import GenerationResult
from media_assistant.core.model.records import Claim

log = logging.getLogger("media_assistant.scheduler")

EXIT_DISK_FULL = 6
SQLITE_FULL = 13  # primary result code (sqlite3.Error.sqlite_errorcode & 0xFF)
SQLITE_IOERR = 10  # "disk I/O error": what a full disk gives when SQLite cannot map its -shm
LOW_FREE_BYTES = 1024 * 1024  # an I/O error with less than this free is a full disk
_FULL_ERRNOS = frozenset(e for e in (errno.ENOSPC, getattr(errno, "EDQUOT", None)) if e)

RESUME_MARGIN_BYTES = 1024 * 1024  # free space beyond the reserve before tasks start again
POLL_S = 2.0  # how often a full disk is looked at again
ROOM_EVERY_S = 10.0  # ... and how often the store's write-ahead log is truncated meanwhile


def is_disk_full(exc: BaseException | None) -> bool:
    """True if ``exc`` (or what it wraps: SQLAlchemy's ``orig``, a cause, a context) is a full
    disk or an exceeded quota, as SQLite or the OS reports it."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc] if exc is not None else []
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, OSError) and e.errno in _FULL_ERRNOS:
            return True
        if isinstance(e, sqlite3.Error):
            code = getattr(e, "sqlite_errorcode", None)
            if (code is not None and code & 0xFF == SQLITE_FULL) or "disk is full" in str(e):
                return True
        todo.extend(
            x
            for x in (getattr(e, "orig", None), e.__cause__, e.__context__)
            if isinstance(x, BaseException)
        )
    return False


def looks_full(exc: BaseException | None, folder: Path) -> bool:
    """:func:`is_disk_full`, or an SQLite "disk I/O error" on a disk with (almost) no free
    space: opening a WAL store needs room for its ``-shm`` file, and without it SQLite says
    I/O error, not full. (A real I/O error on a disk with room is not taken for one.)"""
    if is_disk_full(exc):
        return True
    seen: set[int] = set()
    todo: list[BaseException] = [exc] if exc is not None else []
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, sqlite3.Error):
            code = getattr(e, "sqlite_errorcode", None)
            if (code is not None and code & 0xFF == SQLITE_IOERR) or "disk I/O error" in str(e):
                free = free_bytes(folder)
                return free is not None and free < LOW_FREE_BYTES
        todo.extend(
            x
            for x in (getattr(e, "orig", None), e.__cause__, e.__context__)
            if isinstance(x, BaseException)
        )
    return False


def free_bytes(path: Path) -> int | None:
    """Free space for an ordinary user on the file system holding ``path`` (or its nearest
    existing parent); None if it cannot be read."""
    for candidate in (path, *path.parents):
        try:
            return shutil.disk_usage(candidate).free
        except OSError:
            continue
    return None


def human_bytes(n: int | None) -> str:
    if n is None:
        return "? bytes"
    if n < 1000 * 1000:
        return f"{n / 1000:.0f} KB" if n >= 1000 else f"{n} bytes"
    if n < 1000 * 1000 * 1000:
        return f"{n / 1e6:.1f} MB"
    return f"{n / 1e9:.1f} GB"


class DiskFull(Exception):  # noqa: N818 - reads as what happened
    """The disk holding the data (or an output file) is full (CLI exit code 6)."""

    exit_code = EXIT_DISK_FULL

    def __init__(self, folder: Path, free: int | None, what: str = "") -> None:
        text = f"disk full: {human_bytes(free)} free on {folder}"
        super().__init__(f"{text}; {what}" if what else text)
        self.folder = folder
        self.free = free


def disk_full(folder: Path, what: str = "") -> DiskFull:
    return DiskFull(folder, free_bytes(folder), what)


def folder_of(exc: BaseException, default: Path) -> Path:
    """Where the disk is full: the folder of the file an OSError names, else ``default``."""
    name = getattr(exc, "filename", None)
    if isinstance(name, str | os.PathLike):
        return Path(name).parent
    return default


class DiskGuard:
    """The scheduler's view of its disk: full or not, since when, and what it holds.

    ``absorb`` and ``note_full`` may be called from any thread (a database thread's failed
    write); everything else runs on the event loop. While the disk is full one watcher task
    looks at it every ``poll_s`` seconds; everybody else waits for its verdict.

    ``make_room`` (the scheduler gives SQLite's ``wal_checkpoint(TRUNCATE)``, run on the
    database's writer thread): the write-ahead log grows to a few megabytes between
    checkpoints, so on a nearly full disk the store's own log is what fills it; copying it into
    the database and truncating it gives that room back."""

    def __init__(
        self,
        folder: Path,
        *,
        bus: EventBus | None = None,
        reserve: DiskReserve | None = None,
        poll_s: float = POLL_S,
        resume_margin: int = RESUME_MARGIN_BYTES,
        make_room: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.folder = folder
        self.bus = bus
        self.reserve = reserve
        self.poll_s = poll_s
        self.resume_margin = resume_margin
        self.make_room = make_room
        self.full = False
        self.since: float | None = None  # time.monotonic() when the disk was found full
        self.free: int | None = None
        self.held = 0
        self.held_written = 0  # answers held on a full disk, written later
        self.held_lost = 0  # ... that could not be written even in the reserve's room
        self.spilled = 0  # ... written into the reserve instead, for the next start
        self.unwritten: list[tuple[Claim, GenerationResult]] = []  # at a shutdown, not written
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._usable = asyncio.Event()
        self._watcher: asyncio.Task[None] | None = None
        self._last_room = float("-inf")

    # ---------------------------------------------------------------- noticing

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """At scheduler start (off the loop: it writes the reserve). Without room for the
        reserve, the disk is as good as full."""
        self._loop = loop
        if self.reserve is not None and not self.reserve.ensure():
            self.note_full()

    def absorb(self, exc: BaseException) -> bool:
        """``exc`` is a full disk: noted (said once), True. Anything else: False."""
        if not looks_full(exc, self.folder):
            return False
        self.note_full()
        return True

    def note_full(self) -> None:
        with self._lock:
            if self.full:
                return
            self.full = True
            self.since = time.monotonic()
            self.free = free_bytes(self.folder)
        log.warning("[scheduler] %s", self.describe())
        self._publish()
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                loop.call_soon_threadsafe(self._ensure_watcher)

    def describe(self) -> str:
        if not self.full:
            return f"disk space is back ({human_bytes(self.free)} free on {self.folder})"
        held = (
            f"; {self.held} answer(s) received are kept in memory until they can be written"
            if self.held
            else ""
        )
        return (
            f"disk full: {human_bytes(self.free)} free on {self.folder}: no new task starts"
            f"{held}; free some space and the run goes on"
        )

    # ---------------------------------------------------------------- held answers

    def hold(self) -> None:
        self.held += 1
        self._publish()

    def unhold(self, *, written: bool) -> None:
        self.held = max(0, self.held - 1)
        if written:
            self.held_written += 1
        else:
            self.held_lost += 1
        self._publish()

    # ---------------------------------------------------------------- waiting it out

    async def wait_for_space(
        self, stop: asyncio.Event | None = None, timeout: float | None = None
    ) -> bool:
        """Until the disk is usable (True), ``stop`` is set or ``timeout`` passed (False)."""
        if not self.full:
            return True
        self._ensure_watcher()
        waits = [asyncio.ensure_future(self._usable.wait())]
        if stop is not None:
            waits.append(asyncio.ensure_future(stop.wait()))
        try:
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        return not self.full

    def full_for(self) -> float:
        """Seconds the disk has been full (0 when it is not)."""
        since = self.since
        return 0.0 if since is None else time.monotonic() - since

    def _ensure_watcher(self) -> None:
        if not self.full or (self._watcher is not None and not self._watcher.done()):
            return
        self._usable.clear()
        self._watcher = asyncio.get_running_loop().create_task(
            self._watch(), name="disk-full-watcher"
        )

    async def _watch(self) -> None:
        while self.full:
            try:
                usable = await self._usable_again()
            except Exception:  # looking must not die of what it looks at
                log.exception("[scheduler] looking at the free disk space failed")
                usable = False
            if usable:
                with self._lock:
                    self.full = False
                    self.since = None
                log.warning("[scheduler] %s", self.describe())
                self._publish()
                self._usable.set()
                return
            await asyncio.sleep(self.poll_s)

    async def _usable_again(self) -> bool:
        """Enough free space for the reserve and a margin, and the reserve written back."""
        needed = self.resume_margin + (self.reserve.size if self.reserve is not None else 0)
        self.free = await asyncio.to_thread(free_bytes, self.folder)
        now = time.monotonic()
        if (self.free is None or self.free < needed) and now - self._last_room >= ROOM_EVERY_S:
            self._last_room = now
            await self._make_room()
            self.free = await asyncio.to_thread(free_bytes, self.folder)
        if self.free is None or self.free < needed:
            return False
        return self.reserve is None or await asyncio.to_thread(self.reserve.ensure)

    async def _make_room(self) -> None:
        # (Never at the reserve's expense: it is what the last writes of a shutdown need.)
        if self.make_room is not None and await self._try_make_room():
            log.info("[scheduler] disk full: the task store's write-ahead log was truncated")

    async def _try_make_room(self) -> bool:
        assert self.make_room is not None
        try:
            return await self.make_room()
        except Exception as exc:
            log.debug("checkpoint on a full disk failed: %s", exc)
            return False

    # ---------------------------------------------------------------- the last writes

    def spill(self, spill: Spill) -> int:
        """Into the reserve (see :meth:`DiskReserve.spill`); the answers kept, -1: none."""
        return -1 if self.reserve is None else self.reserve.spill(spill)

    def read_spill(self) -> Spill | None:
        return None if self.reserve is None else self.reserve.read_spill()

    def close(self) -> None:
        """At the scheduler's end: no watcher left, no reserve left behind — unless it holds a
        spill the next start needs."""
        if self._watcher is not None:
            self._watcher.cancel()
        if self.reserve is not None and not self.spilled_pending:
            self.reserve.release()

    spilled_pending = False  # a spill in the reserve that the store did not take in yet

    def _publish(self) -> None:
        if self.bus is not None:
            self.bus.publish(
                DiskSpaceChanged(self.full, str(self.folder), self.free, self.held, self.describe())
            )
