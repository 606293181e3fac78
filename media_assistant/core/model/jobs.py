"""What long work sees of whoever waits for it: report progress, obey Cancel.

A job (an export, a support bundle…) is a plain function of a :class:`JobControl`; the window
runs it off its event loop (``gui/bridge/jobs.py``), an export even in a child process
(``core/exports/child.py``). The work calls :meth:`JobControl.check` between steps and stops
with :class:`JobCanceled`. No Qt here: a child process imports this without the GUI.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

REPORT_EVERY_S = 0.1  # progress reaches the waiter at most this often


class JobCanceled(Exception):
    """The operator pressed Cancel: the job stopped and wrote nothing."""


class JobControl:
    """Progress out, Cancel in. ``report(done, total)`` is called at most every
    :data:`REPORT_EVERY_S` (and at the end), from the thread doing the work."""

    def __init__(self, report: Callable[[int, int], None]) -> None:
        self._report = report
        self.cancel_requested = threading.Event()
        # The app is closing: stop now, with no grace (a child process waited for is killed at
        # once rather than asked to stop). Implies cancel_requested.
        self.closing = threading.Event()
        self._last = 0.0

    def canceled(self) -> bool:
        return self.cancel_requested.is_set()

    def close_now(self) -> None:
        """Cancel, and let whatever the work waits for go without grace (the app closes)."""
        self.closing.set()
        self.cancel_requested.set()

    def check(self) -> None:
        if self.canceled():
            raise JobCanceled

    def progress(self, done: int, total: int) -> None:
        self.check()
        now = time.monotonic()
        if now - self._last >= REPORT_EVERY_S or done >= total:
            self._last = now
            self._report(done, total)

    def track(self, items: Iterable[T], total: int, every: int = 200) -> Iterator[T]:
        """Iterate ``items`` (``total`` of them), reporting progress and checking Cancel every
        ``every`` items."""
        for i, item in enumerate(items):
            if i % every == 0:
                self.progress(i, total)
            yield item
        self.progress(total, total)
