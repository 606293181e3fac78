"""Where database statements run: on database threads, never on the event loop's thread.

The scheduler and the window share one asyncio loop (qasync's, on the GUI thread). A statement
that waits — for a busy database another process holds, a disk that is slow, a server on the
network one day — must not freeze both, so the loop only ever *awaits* statements:

- **one writer thread** runs every write, in the order they were asked for. SQLite admits one
  writer at a time anyway; one thread also makes the order of this process's commits the order
  in which their events reach the loop (see :meth:`EventBus.bind_loop`), which the window relies
  on to never show an older state after a newer one;
- **reader threads** run reads. With WAL a read never waits for a writer, so a long export or a
  page of history does not hold up heartbeats, and a writer stuck behind another process's lock
  does not hold up the window's reads.

``concurrent.futures`` rather than a library: the standard executor plus ``asyncio.wrap_future``
is all this needs, and it works on every event loop we run on (asyncio's, qasync's).

In a process that marks its loop thread (:func:`media_assistant.core.store.db.mark_loop_thread`), a
statement that still runs there is logged with its call site; a test asserts there are none.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

READER_THREADS = 2


class DbThreads:
    def __init__(self, readers: int = READER_THREADS) -> None:
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="db-writer")
        self._readers = concurrent.futures.ThreadPoolExecutor(
            readers, thread_name_prefix="db-reader"
        )
        self.closed = False
        # Asked first about a failed fire-and-forget write (the scheduler's disk guard: a full
        # disk is said once, not once per dropped log line); True means "handled, stay quiet".
        self.on_write_error: Callable[[BaseException], bool] | None = None

    def submit_write(
        self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs
    ) -> concurrent.futures.Future[R]:
        """Queue a write on the writer thread; the caller may or may not wait for it."""
        return self._writer.submit(functools.partial(fn, *args, **kwargs))

    def submit_read(
        self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs
    ) -> concurrent.futures.Future[R]:
        """Queue a read on a reader thread; the caller may or may not wait for it."""
        return self._readers.submit(functools.partial(fn, *args, **kwargs))

    async def write(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run a write on the writer thread and await it.

        Once queued, a write runs whatever happens to its caller: cancelling the caller does
        not cancel it, even while it still waits behind other writes (``asyncio.wrap_future``
        alone would: a lane stopping while its answer's write waited lost the answer, and the
        generation ran again). The caller just does not see the result; a failure nobody
        awaits any more is logged.
        """
        future = self.submit_write(fn, *args, **kwargs)
        try:
            return await asyncio.shield(asyncio.wrap_future(future))
        except asyncio.CancelledError:
            future.add_done_callback(self._log_failure)
            raise

    async def read(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run a read on a reader thread and await it."""
        return await asyncio.wrap_future(self.submit_read(fn, *args, **kwargs))

    def write_soon(self, fn: Callable[P, object], /, *args: P.args, **kwargs: P.kwargs) -> None:
        """Fire and forget (log lines): queued behind earlier writes, errors logged."""
        if self.closed:
            log.debug("database threads closed; dropped %s", getattr(fn, "__name__", fn))
            return
        future = self.submit_write(fn, *args, **kwargs)
        future.add_done_callback(self._log_failure)

    def close(self) -> None:
        """Let queued writes finish, then stop the threads."""
        self.closed = True
        self._writer.shutdown(wait=True)
        self._readers.shutdown(wait=True)

    def _log_failure(self, future: concurrent.futures.Future[Any]) -> None:
        if future.cancelled() or (exc := future.exception()) is None:
            return
        hook = self.on_write_error
        if hook is not None and hook(exc):
            log.debug("a background database write failed: %s", exc)
            return
        log.warning("a background database write failed: %s", exc)
