"""The window's exports run in a child process: the window's loop never shares a core with them.

Threads of one process share Python's global interpreter lock. An export on a worker thread
kept the window's loop waiting whenever the export ran long stretches of C code that hold that
lock: openpyxl's XML writer (lxml) closing a 100,000-row sheet held it for 150-300 ms at a
time, and python-docx builds a whole document in Python objects. B7 measured those pauses in the
window (BENCHMARKS.md). A child process has its own interpreter and its own lock, so nothing it
does can pause the window; it reads the store through its own read-only connection (WAL: a
reader never waits for the writers; a team database: one connection, which the window's pool
lends it, so the workstation holds no more than ``[store] connections``: issue 28 item 1) and
writes the file with the same code as ``media-assistant export``
(:func:`media_assistant.core.exports.write.export_scope`), atomically.

``multiprocessing`` with the *spawn* start method on every system (never *fork*: the window's
process has Qt and database threads that a forked child would inherit half-way), rather than a
hand-made subprocess protocol: it carries the arguments, a pipe and the exit code, and
PyInstaller supports it in a frozen app (``multiprocessing.freeze_support()`` in
``packaging/entry.py``). The pipe carries, child → parent, ``("progress", done, total)``,
``("done", count)``, ``("canceled",)`` or ``("failed", message, traceback)``, and every second
``("alive",)`` from a thread of its own; parent → child, ``"cancel"``. The child runs at a
lower CPU priority: on a two-core laptop the export takes longer rather than the window and the
scheduler taking turns with it.

If the child dies without an answer (killed, a missing module in a broken install) the export
fails with the exit code, and a child that says nothing for :data:`SILENCE_LIMIT_S` (stopped,
frozen) is killed; either way nothing is left behind: the temporary file beside the target is
removed. When the app closes, the child is killed at once (``JobControl.closing``). A database
that is not a file (an in-memory store in tests) cannot be opened by another process:
:func:`can_run_in_child` says so and the caller exports on its worker thread instead.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import shutil
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import Engine

from media_assistant.core.model.errors import StoreDamaged, StoreLocked, UserError
from media_assistant.core.model.jobs import JobCanceled, JobControl

if TYPE_CHECKING:
    from media_assistant.core.store import Store

log = logging.getLogger(__name__)

POLL_S = 0.1  # how often the waiting thread looks at the pipe and at Cancel
CANCEL_GRACE_S = 15.0  # a child that has not stopped this long after Cancel is killed
EXIT_GRACE_S = 5.0  # how long to wait for a child that answered to exit before killing it
HEARTBEAT_S = 1.0  # the child says it is alive this often, whatever its export does
# A child silent this long (no progress, no heartbeat: stopped, frozen, swapped out, stuck in
# C code that holds its interpreter) is killed; its longest honest silence is a heartbeat.
SILENCE_LIMIT_S = 30.0


class Pipe(Protocol):
    """Either end of ``multiprocessing.Pipe()``: a ``Connection`` on POSIX, a
    ``PipeConnection`` on Windows (typeshed gives them no common base)."""

    def send(self, obj: Any) -> None: ...
    def recv(self) -> Any: ...
    def poll(self, timeout: float | None = ...) -> bool: ...
    def close(self) -> None: ...


class ExportFailed(UserError):
    """The export could not be written; the message says why (for the operator)."""


def can_run_in_child(engine: Engine) -> bool:
    """Whether another process can open this store: a database file or a server, not memory."""
    if engine.dialect.name != "sqlite":
        return True
    database = engine.url.database
    in_memory = not database or database == ":memory:" or database.startswith("file::memory")
    return not in_memory


def export_borrowing(
    store: Store,
    scope: Any,
    path: Path,
    fmt: str | None,
    headers: Any,
    control: JobControl,
    *,
    password: str | None = None,
    application_name: str | None = None,
) -> int:
    """The window's export: in a child process when the store can be opened there and, on a
    team database, the window's engine lends it one of the workstation's connections
    (core/store/backends/postgres_pool.py: the export borrows, it does not add — issue 28
    item 1); else on the caller's thread through the window's own connections (an in-memory
    store; ``[store] connections = 1``, or another export holds the connection to lend). The
    lend waits for the connection it frees to be given back (the end of a transaction);
    Cancel meanwhile stops the export (:class:`JobCanceled`)."""
    from media_assistant.core.exports.write import export_scope
    from media_assistant.core.store.backends.postgres_pool import connection_lent

    engine = store.engine
    if can_run_in_child(engine):
        with connection_lent(engine, control.canceled) as lent:
            control.check()
            if lent:
                return export_in_child(
                    engine,
                    scope,
                    path,
                    fmt,
                    headers,
                    control,
                    password=password,
                    application_name=application_name,
                )
        log.info("no team database connection to lend the export: it runs in the window")
    return export_scope(store, scope, path, fmt, headers=headers, track=control.track)


def export_in_child(
    engine: Engine,
    scope: Any,
    path: Path,
    fmt: str | None,
    headers: str,
    control: JobControl,
    *,
    silence_limit_s: float = SILENCE_LIMIT_S,
    password: str | None = None,
    application_name: str | None = None,
) -> int:
    """Export ``scope`` to ``path`` in a child process; returns the number of tasks written.

    ``password``: the team database's, when the parent found it in the OS keyring (the URL
    never holds one; issue 27 item 7: the child got the URL alone and could not connect). It
    reaches the child with the rest of its arguments, pickled over the pipe ``spawn`` starts it
    with — never on its command line, in its environment or in a file. On a team database the
    child holds one connection (``application_name``: the workstation's, so ``store info``
    counts it), which the caller lends it (:func:`export_borrowing`).

    Runs on the caller's (worker) thread and blocks it until the child answers: progress goes to
    ``control``; Cancel there cancels the child (:class:`JobCanceled`, nothing written), the
    app closing (``control.closing``) kills it at once; a child silent for ``silence_limit_s``
    is killed (:class:`ExportFailed`). Nothing is written then, and no process is left."""
    url = engine.url.render_as_string(hide_password=False)
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    child = context.Process(
        target=child_main,
        args=(theirs, url, scope, str(path), fmt, headers, password, application_name),
        name="media-assistant-export",
        daemon=True,  # ended with the app if the app ends first
    )
    started = time.time()
    child.start()
    theirs.close()  # ours alone: EOF on it means the child is gone
    try:
        return _wait(child, ours, control, silence_limit_s)
    except BaseException:
        _stop(child)
        _remove_leftovers(path, started)
        raise
    finally:
        ours.close()
        _stop(child, grace_s=EXIT_GRACE_S)


def _wait(child: Any, pipe: Pipe, control: JobControl, silence_limit_s: float) -> int:
    canceled_at: float | None = None
    heard = time.monotonic()
    while True:
        if control.closing.is_set():  # the app closes: no grace, the caller kills the child
            raise JobCanceled
        if canceled_at is None and control.canceled():
            canceled_at = time.monotonic()
            with contextlib.suppress(OSError):
                pipe.send("cancel")
        if canceled_at is not None and time.monotonic() - canceled_at > CANCEL_GRACE_S:
            raise JobCanceled
        try:
            ready = pipe.poll(POLL_S)
            message = pipe.recv() if ready else None
        except (EOFError, OSError):
            child.join(EXIT_GRACE_S)
            raise ExportFailed(
                f"the export stopped without an answer (exit code {child.exitcode}); "
                "nothing was written"
            ) from None
        now = time.monotonic()
        if message is not None:
            heard = now
        elif now - heard > silence_limit_s:
            log.error("the export process said nothing for %.0f s; stopped", silence_limit_s)
            raise ExportFailed(
                f"the export process stopped answering for {silence_limit_s:.0f} s and was "
                "stopped; nothing was written"
            )
        if message is None:
            continue
        match message:
            case ("progress", int(done), int(total)):
                with contextlib.suppress(JobCanceled):  # Cancel is handled above
                    control.progress(done, total)
            case ("alive",):
                pass
            case ("done", int(count)):
                return count
            case ("canceled",):
                raise JobCanceled
            case ("failed", str(text), details):
                if details:
                    log.error("the export failed in its process:\n%s", details)
                raise ExportFailed(text)
            case _:
                log.warning("the export process said something unexpected: %r", message)


def _stop(child: Any, grace_s: float = 0.0) -> None:
    child.join(grace_s)
    if child.is_alive():
        child.kill()
        child.join(EXIT_GRACE_S)


def _remove_leftovers(path: Path, since: float) -> None:
    """A killed child cannot remove its temporary file or folder (``.<name>.<hex>.tmp`` beside
    the target: core/exports/write.py ``write_atomically``, core/exports/folder.py): remove the ones
    made since it started."""
    with contextlib.suppress(OSError):
        for tmp in path.parent.glob(f".{path.name}.*.tmp"):
            with contextlib.suppress(OSError):
                if tmp.stat().st_mtime < since - 1:
                    continue
                if tmp.is_dir():
                    shutil.rmtree(tmp)
                else:
                    tmp.unlink()


class _Sender:
    """The child's end of the pipe, shared by the export and the heartbeat: one send at a time
    (a Connection is not safe to write from two threads)."""

    def __init__(self, pipe: Pipe) -> None:
        self.pipe = pipe
        self._lock = threading.Lock()

    def send(self, message: Any) -> None:
        with self._lock:
            self.pipe.send(message)

    def beat(self, stop: threading.Event) -> None:
        while not stop.wait(HEARTBEAT_S):
            try:
                self.send(("alive",))
            except OSError:  # the parent is gone
                return


class _PipeControl(JobControl):
    """The child's side: progress into the pipe, Cancel out of it."""

    def __init__(self, sender: _Sender) -> None:
        super().__init__(lambda done, total: sender.send(("progress", done, total)))
        self._pipe = sender.pipe

    def canceled(self) -> bool:
        if not self.cancel_requested.is_set():
            try:
                if self._pipe.poll():
                    self._pipe.recv()  # "cancel" is the only thing the parent sends
                    self.cancel_requested.set()
            except (EOFError, OSError):  # the parent is gone: nobody wants the file any more
                self.cancel_requested.set()
        return self.cancel_requested.is_set()


def child_main(
    pipe: Pipe,
    url: str,
    scope: Any,
    path: str,
    fmt: str | None,
    headers: Any,
    password: str | None = None,
    application_name: str | None = None,
) -> None:
    """The child process: open the store read-only (a team database: one connection, the one
    its parent lent it), export, answer on the pipe."""
    _lower_priority()
    sender = _Sender(pipe)
    stop_beating = threading.Event()
    threading.Thread(target=sender.beat, args=(stop_beating,), daemon=True).start()
    engine: Engine | None = None
    try:
        from media_assistant.core.exports.write import export_scope
        from media_assistant.core.model.clock import SystemClock
        from media_assistant.core.store import Store
        from media_assistant.core.store.db import open_engine

        engine = open_engine(
            url,
            read_only=True,
            password=password,
            connections=1,
            application_name=application_name,
        )
        control = _PipeControl(sender)
        count = export_scope(
            Store(engine, SystemClock()),
            scope,
            Path(path),
            fmt,
            headers=headers,
            track=control.track,
        )
        answer: tuple[Any, ...] = ("done", count)
    except JobCanceled:
        answer = ("canceled",)
    except (UserError, StoreLocked, StoreDamaged) as exc:  # worded for the operator already
        answer = ("failed", str(exc), None)
    except Exception as exc:  # a bug or a damaged store: say it, keep the details for the log
        from media_assistant.core.store.backends.postgres import is_unreachable, redacted

        if is_unreachable(exc):  # not a bug: the team database is away (the window says so)
            answer = ("failed", f"the team database cannot be reached: {redacted(url)}", None)
        else:
            answer = ("failed", f"{type(exc).__name__}: {exc}", traceback.format_exc())
    finally:
        stop_beating.set()
        if engine is not None:
            engine.dispose()
    with contextlib.suppress(OSError):
        sender.send(answer)
    pipe.close()


def _lower_priority() -> None:
    with contextlib.suppress(Exception):  # a nicety: an export that cannot be niced still runs
        if sys.platform == "win32":
            import psutil

            psutil.Process().nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)
        else:
            os.nice(5)
