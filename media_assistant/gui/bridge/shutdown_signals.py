"""SIGTERM, SIGHUP and SIGINT close the desktop app exactly as closing its window does: running
tasks go back to the queue without using up an attempt (a logout, ``kill``, a service manager or
Ctrl-C in the terminal that started it).

A Python signal handler only runs when the interpreter next gets control, which Qt's event loop
may not give it for a long time. So the handler does nothing; ``signal.set_wakeup_fd`` writes
the signal's number into a socket, and a ``QSocketNotifier`` on the other end wakes the Qt loop,
which then calls ``on_signal`` on the GUI thread. Windows has neither SIGHUP nor a console
SIGTERM for a windowed app; there the window's close (and Qt's session end) is the path.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier

log = logging.getLogger(__name__)

SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name)
)


class ShutdownSignals(QObject):
    """Installed for the app's lifetime; ``uninstall()`` puts the previous handlers back."""

    def __init__(self, on_signal: Callable[[str], object], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._on_signal = on_signal
        self._previous: dict[int, Any] = {}
        self._old_wakeup_fd = -1
        self._reader: socket.socket | None = None
        self._writer: socket.socket | None = None
        self._notifier: QSocketNotifier | None = None

    def install(self) -> bool:
        if sys.platform == "win32":
            return False
        self._reader, self._writer = socket.socketpair()
        for end in (self._reader, self._writer):
            end.setblocking(False)
        try:
            self._old_wakeup_fd = signal.set_wakeup_fd(self._writer.fileno())
        except ValueError:  # not the main thread: leave signals alone
            self._close_sockets()
            return False
        for sig in SIGNALS:
            self._previous[sig] = signal.signal(sig, _noop)
        self._notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._on_notifier_activated)
        return True

    def _on_notifier_activated(self, *_args: object) -> None:
        assert self._reader is not None
        try:
            data = self._reader.recv(64)
        except OSError:
            return
        for number in data:
            with contextlib.suppress(ValueError):
                name = signal.Signals(number).name
                log.info("%s received: shutting down as if the window was closed", name)
                self._on_signal(name)

    def uninstall(self) -> None:
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier = None
        for sig, handler in self._previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, handler)
        self._previous.clear()
        if self._writer is not None:
            with contextlib.suppress(ValueError):
                signal.set_wakeup_fd(self._old_wakeup_fd)
        self._close_sockets()

    def _close_sockets(self) -> None:
        for end in (self._reader, self._writer):
            if end is not None:
                end.close()
        self._reader = self._writer = None


def _noop(_signum: int, _frame: FrameType | None) -> None:
    """The wakeup fd carries the signal; the Qt side acts on it."""
