"""Long work as background jobs: a worker thread, progress, a cancel button, then the result.

The pattern of Anki's ``QueryOp``/``CollectionOp``: the window describes the work (a plain
function of a :class:`JobControl`), :class:`JobRunner` runs it on a worker thread and the
window awaits the result, so the event loop — and the scheduler on it — never waits. A progress
dialog with *Cancel* appears only when a job takes more than a second; the work checks
:meth:`JobControl.check` between steps and stops with :class:`JobCanceled`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QProgressDialog, QWidget

from media_assistant.core.model.jobs import JobCanceled, JobControl
from media_assistant.core.store.backends.postgres import is_unreachable

__all__ = ["JobCanceled", "JobControl", "JobRunner", "spawn"]

R = TypeVar("R")

SHOW_AFTER_MS = 1000  # a job that ends sooner never shows a dialog


class JobRunner(QObject):
    """Runs jobs for one window (their dialogs are its children)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self.running: set[asyncio.Future[Any]] = set()

    async def run(self, label: str, work: Callable[[JobControl], R]) -> R:
        """Run ``work`` on a worker thread; raises :class:`JobCanceled` if the operator
        canceled it, or whatever the work raised."""
        loop = asyncio.get_running_loop()
        dialog = QProgressDialog(label, self.tr("Cancel"), 0, 0, self._window)
        dialog.setWindowModality(Qt.WindowModality.NonModal)
        dialog.setMinimumDuration(SHOW_AFTER_MS)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.setValue(0)

        def show(done: int, total: int) -> None:
            if dialog.maximum() != total:
                dialog.setMaximum(total)
            dialog.setValue(min(done, total))

        def report(done: int, total: int) -> None:  # on the worker thread
            loop.call_soon_threadsafe(show, done, total)

        control = JobControl(report)
        dialog.canceled.connect(control.cancel_requested.set)
        future = loop.run_in_executor(None, work, control)
        self.running.add(future)
        try:
            return await future
        finally:
            self.running.discard(future)
            dialog.canceled.disconnect()
            dialog.close()
            dialog.deleteLater()


# Strong references to the coroutines widgets start (a slot cannot await): a task nobody
# references may be garbage-collected mid-flight. Failures are logged, not lost.
_spawned: set[asyncio.Task[Any]] = set()
# Told when an action failed because the team database cannot be reached (the window says so
# in its status bar and shows the banner): never a traceback for the network being away.
unreachable_handlers: list[Callable[[str, BaseException], object]] = []


def spawn(coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
    """Run ``coro`` on the loop from a slot or a callback that cannot await it."""
    task = asyncio.get_running_loop().create_task(coro, name=name)
    _spawned.add(task)
    task.add_done_callback(_spawned.discard)
    task.add_done_callback(_report)
    return task


def _report(task: asyncio.Task[Any]) -> None:
    if task.cancelled() or (exc := task.exception()) is None:
        return
    log = logging.getLogger(__name__)
    if is_unreachable(exc):
        first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
        log.warning("%s: the team database cannot be reached (%s)", task.get_name(), first)
        for handler in list(unreachable_handlers):
            handler(task.get_name(), exc)
        return
    log.error("%s failed", task.get_name(), exc_info=exc)
