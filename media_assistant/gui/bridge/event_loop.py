"""The app's asyncio loop: qasync's, plus the async-generator hooks asyncio's own loops install,
a shorter GIL switch interval (see ``SWITCH_INTERVAL_S``), and callbacks run only while the loop
runs (``_WhileRunningTimer``).

qasync 0.28's ``run_forever`` runs Qt's event loop without calling ``sys.set_asyncgen_hooks``.
An async generator abandoned mid-iteration (httpx's stream iterators after a ``break``) is then
finalized by the garbage collector outside any task, and httpcore's cleanup fails noisily
("async generator ignored GeneratorExit"). With the hooks, asyncio closes it in a task of its
own, as on any standard loop; ``shutdown_asyncgens`` runs before the loop closes.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import qasync
from PySide6.QtCore import QTimerEvent

# How long a thread may hold the GIL while another waits for it (Python's default: 5 ms).
# Background jobs (an export, history reads) run Python on worker threads; the window's thread
# needs the GIL for every Qt callback into Python (each cell of a repaint), and at 5 ms per
# hand-over a repaint under a busy job stalled the window (B7: lag p99 while exporting 102 ms
# at 5 ms, 11-27 ms at 1 ms; BENCHMARKS.md).
SWITCH_INTERVAL_S = 0.001


class _WhileRunningTimer(qasync._SimpleTimer):  # type: ignore[misc]
    """qasync's timer (every ``call_soon``/``call_later`` of the loop is one of its Qt timers),
    except that a callback coming due while the loop is not running is held for its next run.

    Qt dispatches the timers whenever its events are processed, and they are processed while no
    asyncio loop runs: qasync's own ``run_until_complete`` processes them once more after its
    loop stopped (the app's ``run_until_complete(main)`` at exit), pytest-qt between a test's
    phases. A task stepped then had no running loop, and its next ``await`` raised "no running
    event loop" inside it (a web lane's worker died of it). asyncio's loops never run a callback
    while stopped; this makes qasync's hold to that too."""

    def __init__(self, loop: qasync.QEventLoop) -> None:
        super().__init__()
        self._loop = loop
        self._held: list[asyncio.Handle] = []

    def timerEvent(self, event: QTimerEvent) -> None:  # noqa: N802 - Qt's name
        if self._stopped or self._loop.is_running():
            super().timerEvent(event)
            return
        timer_id = event.timerId()
        self.killTimer(timer_id)
        handle = self._SimpleTimer__callbacks.pop(timer_id, None)  # qasync 0.28's own map
        if handle is not None and not handle.cancelled():
            self._held.append(handle)

    def release_held(self) -> None:
        """Before the loop runs again: the held callbacks, in the order they came due."""
        held, self._held = self._held, []
        for handle in held:
            if not handle.cancelled():
                self.add_callback(handle)


class AppEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer = _WhileRunningTimer(self)
        sys.setswitchinterval(SWITCH_INTERVAL_S)

    def run_forever(self) -> Any:
        old = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(
            firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook
        )
        self._timer.release_held()
        try:
            return super().run_forever()
        finally:
            sys.set_asyncgen_hooks(*old)

    def close(self) -> None:
        if not self.is_closed() and not self.is_running():
            try:
                self.run_until_complete(self.shutdown_asyncgens())
            except RuntimeError:  # already stopping: nothing left to finalize
                pass
        super().close()
