"""Starting the app again: a new team database (or workstation name) takes effect only at a
start, since the store, the scheduler's workstation and every account's owner are chosen then.

*Restart now* closes the window the usual way (the scheduler stops; running tasks go back to
the queue without using an attempt), and once the app has let go of its data folder
(``app.main``, after the loop, the lock released) the same command starts again, detached.
"""

from __future__ import annotations

import logging
import os
import sys

from PySide6.QtCore import QProcess
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)


class _Request:
    asked = False


_request = _Request()


def request(widget: QWidget) -> None:
    """Close ``widget``'s top window (the main window) and start the app again afterwards."""
    _request.asked = True
    top = widget
    while (parent := top.parentWidget()) is not None:
        top = parent
    top.close()


def requested() -> bool:
    return _request.asked


def command() -> list[str]:
    """The command that started this process: the bundle's executable with its arguments, or
    the interpreter with its own (``-m media_assistant``, a console script)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *sys.argv[1:]]
    return [sys.executable, *sys.orig_argv[1:]]


def start_again() -> bool:
    """Start the app again, detached from this process (which is about to exit)."""
    _request.asked = False
    program, *args = command()
    started, _pid = QProcess.startDetached(program, args, os.getcwd())
    if not started:
        log.error("could not start Media Assistant again: %s", " ".join(command()))
    return bool(started)
