"""Starting the app again: a new team database (or workstation name) takes effect only at a
start, since the store, the scheduler's workstation and every account's owner are chosen then.

*Restart now* closes the window the usual way (the scheduler stops; running tasks go back to
the queue without using an attempt), and once the app has let go of its data folder
(``app.main``, after the loop, the lock released) the same command starts again, detached,
in the environment and folder this process was started with (issue 26: whatever the app set in
its own environment since — the demo's key — stays behind, and a PyInstaller bundle's loader
variables are reset so the new process unpacks its own).
"""

from __future__ import annotations

import logging
import os
import sys

from PySide6.QtCore import QProcess, QProcessEnvironment
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)


class _Request:
    asked = False
    environment: dict[str, str] | None = None  # as the process was started (remember_start)
    folder: str | None = None


_request = _Request()


def remember_start() -> None:
    """Called first thing at the app's start: the environment and folder a restart gets."""
    _request.environment = dict(os.environ)
    _request.folder = os.getcwd()


def start_environment() -> dict[str, str]:
    """The environment to start again with: the one this process was started with."""
    env = dict(_request.environment if _request.environment is not None else os.environ)
    if getattr(sys, "frozen", False):
        # PyInstaller's loader prepends its folder to LD_LIBRARY_PATH (the user's value is
        # kept in *_ORIG) and marks its children as its own: a new start needs neither.
        for name in ("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"):
            original = env.pop(f"{name}_ORIG", None)
            if original is not None:
                env[name] = original
            else:
                env.pop(name, None)
        env["PYINSTALLER_RESET_ENVIRONMENT"] = "1"
    return env


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
    process = QProcess()
    process.setProgram(program)
    process.setArguments(args)
    process.setWorkingDirectory(_request.folder or os.getcwd())
    environment = QProcessEnvironment()
    for name, value in start_environment().items():
        environment.insert(name, value)
    process.setProcessEnvironment(environment)
    result = process.startDetached()
    started = result[0] if isinstance(result, tuple) else result
    if not started:
        log.error("could not start Media Assistant again: %s", " ".join(command()))
    return bool(started)
