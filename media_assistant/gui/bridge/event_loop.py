"""The app's asyncio loop: qasync's, plus the async-generator hooks asyncio's own loops install,
and a shorter GIL switch interval (see ``SWITCH_INTERVAL_S``).

qasync 0.28's ``run_forever`` runs Qt's event loop without calling ``sys.set_asyncgen_hooks``.
An async generator abandoned mid-iteration (httpx's stream iterators after a ``break``) is then
finalized by the garbage collector outside any task, and httpcore's cleanup fails noisily
("async generator ignored GeneratorExit"). With the hooks, asyncio closes it in a task of its
own, as on any standard loop; ``shutdown_asyncgens`` runs before the loop closes.
"""

from __future__ import annotations

import sys
from typing import Any

import qasync

# How long a thread may hold the GIL while another waits for it (Python's default: 5 ms).
# Background jobs (an export, history reads) run Python on worker threads; the window's thread
# needs the GIL for every Qt callback into Python (each cell of a repaint), and at 5 ms per
# hand-over a repaint under a busy job stalled the window (B7: lag p99 while exporting 102 ms
# at 5 ms, 11-27 ms at 1 ms; BENCHMARKS.md).
SWITCH_INTERVAL_S = 0.001


class AppEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        sys.setswitchinterval(SWITCH_INTERVAL_S)

    def run_forever(self) -> Any:
        old = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(
            firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook
        )
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
