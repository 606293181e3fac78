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
  does not hold up the window's reads;
- **one bulk thread** runs a team database's imports (``AsyncStore.submit``; issue 28 item 5):
  a 60,000-task import takes a minute on a busy server, and on the writer thread every
  heartbeat, claim and answer of this workstation would queue behind it. The order rule above
  still holds: every writer job runs holding :attr:`DbThreads.commit_order`, and an import
  takes it only for its end — its last statements, its commit and the publishing of its
  ``TasksAdded`` (core/store/queue.py ``submit``, ``commit_gate``). So no writer job runs
  between the import's commit and its event: a claim of a task just imported is heard of
  after the task's addition (the window drops a change of a task it does not know yet).
  The end waits for the writer job in progress, and the writer's next jobs wait for the end:
  milliseconds, never the import. The import holds no row or lock a writer job could wait for
  before that end (core/store/submits.py), so the two cannot wait for each other.
  SQLite keeps its imports on the writer thread: its one write lock is held for a whole
  transaction, so a second thread would only move the wait from the writer's queue to the
  file's lock (and past the busy timeout, into errors).

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
import threading
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
        self._bulk = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="db-bulk")
        # Held by every writer job while it runs, and by a bulk job from its end until its
        # events are published (see the module docstring). Re-entrant: a writer job may run a
        # store method that enters it again.
        self.commit_order = threading.RLock()
        self.closed = False
        # Asked first about a failed fire-and-forget write (the scheduler's disk guard: a full
        # disk is said once, not once per dropped log line); True means "handled, stay quiet".
        self.on_write_error: Callable[[BaseException], bool] | None = None

    def submit_write(
        self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs
    ) -> concurrent.futures.Future[R]:
        """Queue a write on the writer thread; the caller may or may not wait for it."""
        return self._writer.submit(self._in_order, functools.partial(fn, *args, **kwargs))

    def _in_order(self, call: Callable[[], R]) -> R:
        with self.commit_order:
            return call()

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

    async def bulk(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run a long write (an import) on the bulk thread and await it; like :meth:`write`,
        it runs to its end whatever happens to its caller."""
        future = self._bulk.submit(functools.partial(fn, *args, **kwargs))
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
        self._bulk.shutdown(wait=True)
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
