"""A console ``run`` closed with its window, or the Windows session ending under it (issue 29
item 1): on Windows neither is a signal asyncio can handle. ``SetConsoleCtrlHandler`` calls a
handler on a thread of its own, and Windows ends the process when it returns (for a closed
window, after at most about 5 s). So the handler asks the loop for the same graceful stop as
Ctrl-C on POSIX and waits for it; if the stop has not finished in time, it returns the running
rows itself, synchronously (core/lanes/session_end.py), so no attempt is lost either way.
Ctrl-C and Ctrl-Break: the first asks for the graceful stop, the second is Python's own
(KeyboardInterrupt, at once), as on POSIX.

The decision is :class:`ConsoleEvents` (plain Python, tested on Linux); the ctypes registration
runs on Windows only and is type-checked with ``mypy --platform win32``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

CTRL_C_EVENT, CTRL_BREAK_EVENT, CTRL_CLOSE_EVENT = 0, 1, 2
CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT = 5, 6
ENDING = (CTRL_CLOSE_EVENT, CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT)
# Windows ends a closed console's process about 5 s after the event; leave room for the rest.
GRACEFUL_WAIT_S = 3.0


class ConsoleEvents:
    """``request_stop`` is called thread-safely (it schedules on the loop); ``stopped`` is set
    when the graceful stop has finished; ``release_now`` returns the rows synchronously."""

    def __init__(
        self,
        request_stop: Callable[[], object],
        stopped: threading.Event,
        release_now: Callable[[], object],
        wait_s: float = GRACEFUL_WAIT_S,
    ) -> None:
        self.request_stop = request_stop
        self.stopped = stopped
        self.release_now = release_now
        self.wait_s = wait_s
        self.interrupts = 0

    def handle(self, event: int) -> bool:
        """True: handled here (no other handler runs); False: the next handler's (Python's)."""
        if event in (CTRL_C_EVENT, CTRL_BREAK_EVENT):
            self.interrupts += 1
            if self.interrupts > 1:
                return False  # a second Ctrl-C stops at once, as on POSIX
            self.request_stop()
            return True
        if event in ENDING:
            self.request_stop()
            if not self.stopped.wait(self.wait_s):
                self.release_now()
            return True
        return False


def install(events: ConsoleEvents) -> Callable[[], None]:
    """Register ``events`` with the console (Windows); returns the undo (a no-op elsewhere)."""
    if sys.platform != "win32":
        return lambda: None
    import ctypes
    from ctypes import wintypes

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    handler_type = ctypes.WINFUNCTYPE(wintypes.BOOL, wintypes.DWORD)
    handler = handler_type(lambda event: bool(events.handle(int(event))))
    kernel32.SetConsoleCtrlHandler(handler, True)

    def uninstall() -> None:
        kernel32.SetConsoleCtrlHandler(handler, False)  # the closure keeps ``handler`` alive

    return uninstall
