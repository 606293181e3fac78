"""Long work as background jobs: a worker thread, progress, a cancel button, then the result.

The pattern of Anki's ``QueryOp``/``CollectionOp``: the window describes the work (a plain
function of a :class:`JobControl`), :class:`JobRunner` runs it on a worker thread and the
window awaits the result, so the event loop — and the scheduler on it — never waits. A progress
dialog with *Cancel* appears only when a job takes more than a second; the work checks
:meth:`JobControl.check` between steps and stops with :class:`JobCanceled`.

A job whose awaiting coroutine is cancelled is cancelled too (nobody wants its result). When the
app closes, :func:`stop_jobs` tells every job to stop at once (an export's child process is
killed, nothing written) and waits for them a bounded time. Each job has a daemon thread of its
own, not an executor's: Python joins an executor's threads at exit, so one stuck job (a support
bundle reading a file on a network share that stopped answering) would keep the process alive
after its window is gone.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QProgressDialog, QWidget

from media_assistant.core.model.jobs import JobCanceled, JobControl
from media_assistant.core.store.backends.postgres import is_unreachable

__all__ = ["JobCanceled", "JobControl", "JobRunner", "spawn", "stop_jobs"]

R = TypeVar("R")

log = logging.getLogger(__name__)

SHOW_AFTER_MS = 1000  # a job that ends sooner never shows a dialog
STOP_WAIT_S = 5.0  # how long a closing app waits for its jobs to stop

# Every job still running, of every window, with its control: the app stops them when it closes.
_running: dict[concurrent.futures.Future[Any], JobControl] = {}
_running_lock = threading.Lock()


def _start(
    label: str, work: Callable[[JobControl], R], control: JobControl
) -> concurrent.futures.Future[R]:
    future: concurrent.futures.Future[R] = concurrent.futures.Future()
    future.set_running_or_notify_cancel()

    def run() -> None:
        try:
            future.set_result(work(control))
        except BaseException as exc:  # handed to whoever awaits the job
            future.set_exception(exc)

    with _running_lock:
        _running[future] = control
    future.add_done_callback(_forget)
    threading.Thread(target=run, name=f"job: {label}", daemon=True).start()
    return future


def _forget(future: concurrent.futures.Future[Any]) -> None:
    with _running_lock:
        _running.pop(future, None)


class JobRunner(QObject):
    """Runs jobs for one window (their dialogs are its children)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window

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
            try:
                loop.call_soon_threadsafe(show, done, total)
            except RuntimeError:  # the loop is closed: the app is ending, nobody watches
                pass

        control = JobControl(report)
        dialog.canceled.connect(control.cancel_requested.set)
        future = _start(label, work, control)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            control.cancel_requested.set()  # whoever waited is gone: nobody wants the result
            raise
        finally:
            dialog.canceled.disconnect()
            dialog.close()
            dialog.deleteLater()


def running_jobs() -> int:
    with _running_lock:
        return len(_running)


async def stop_jobs(wait_s: float = STOP_WAIT_S) -> int:
    """The app closes: every job is told to stop now (JobControl.close_now) and waited for up
    to ``wait_s``. Returns how many were still running (their daemon threads end with the
    process)."""
    with _running_lock:
        jobs = dict(_running)
    if not jobs:
        return 0
    for control in jobs.values():
        control.close_now()
    _, left = await asyncio.to_thread(concurrent.futures.wait, list(jobs), wait_s)
    if left:
        log.warning(
            "%d background job(s) did not stop within %.0f s; left to end with the app",
            len(left),
            wait_s,
        )
    return len(left)


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
    if isinstance(exc, RuntimeError) and str(exc) == "no running event loop":
        # Qt stepped the task after the loop had stopped (the window's or a test's end): the
        # job is simply over, as a cancelled one is; nothing went wrong in it.
        log.warning("%s: stopped with the event loop", task.get_name())
        return
    if is_unreachable(exc):
        first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
        log.warning("%s: the team database cannot be reached (%s)", task.get_name(), first)
        for handler in list(unreachable_handlers):
            handler(task.get_name(), exc)
        return
    log.error("%s failed", task.get_name(), exc_info=exc)
