"""The task store as a file: is it whole, is it free, is it private — checked before SQLAlchemy
or a migration touches it.

**Integrity, at every open** (:func:`check_store`): the file is opened through SQLite and its
schema read. SQLite itself refuses a file that is not a database ("file is not a database") and
one whose header declares more pages than the file holds ("malformed": truncated); a size that
is not a whole number of pages is refused here. That costs about a millisecond at any size and
catches what the field saw (a truncated file, a file that is not a database) before anything
could write into it. A full ``PRAGMA quick_check`` reads every page: measured on a store of
100,000 tasks (1 GB, ~9 KB of answer each), 1.4 s with the file in the page cache and 31 s from
a cold disk — too slow for every ``status``. It runs once a day instead, when a scheduler
starts, right before the daily backup (core/disk/backups.py), so a damaged store is found before a
night's work goes into it and never replaces a good backup.

The live file is only ever opened through SQLite, never with ``open()``: closing any descriptor
of a file drops every POSIX lock the process holds on it, SQLite's included, and another process
would then take the store's WAL for abandoned and delete it (SQLite's own connections share
their descriptors and do not have that problem).

**Locks**: SQLite's busy timeout waits in silence. Before a command opens the store, the same
look (a read, or ``BEGIN IMMEDIATE`` for commands that write) finds out whether another process
holds the database; if it does, the operator is told ("database busy (held by another process);
waiting up to N s") and it is retried until the bound, then :class:`StoreLocked` (CLI exit code
7). Read-only commands open the store ``query_only`` (core/store/db.py): in WAL mode an ordinary
writer never blocks them, only a process holding the file in exclusive locking mode does.

**Privacy**: the database and its ``-wal``/``-shm`` files are made 0600 after every open.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy import exc as sa_exc

from media_assistant.core.disk.backup_files import latest_backup
from media_assistant.core.disk.full import disk_full, looks_full
from media_assistant.core.files.private_files import make_private, sqlite_files
from media_assistant.core.model.errors import StoreDamaged, StoreLocked
from media_assistant.core.store.backends.sqlite import BUSY_TIMEOUT_MS
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.migrations import SchemaTooOld

PROBE_EVERY_S = 0.25

# Messages of sqlite3 errors that mean the file, not the statement, is the problem.
_DAMAGE_MARKERS = ("malformed", "not a database", "file is encrypted")
_LOCK_MARKERS = ("database is locked", "database table is locked", "database is busy")

Notify = Callable[[str], None]


def check_store(
    path: Path,
    *,
    write: bool = False,
    wait_s: float | None = None,
    notify: Notify | None = None,
) -> str | None:
    """Wait while another process holds the store, then look at it: the damage found, or None.

    ``wait_s`` bounds the wait (:class:`StoreLocked` after it; ``notify`` hears once that we
    wait); None leaves it to SQLite's busy timeout, in silence. ``write``: wait until it could
    be written (``BEGIN IMMEDIATE``), not only read. A missing or empty file is a new store.
    """
    if not path.exists() or path.stat().st_size == 0:
        return None
    if wait_s is None:
        return _look(path, write=write, timeout=BUSY_TIMEOUT_MS / 1000, final=True)
    deadline = time.monotonic() + wait_s
    told = False
    while True:
        final = time.monotonic() >= deadline
        try:
            return _look(path, write=write, timeout=0, final=final, waited_s=wait_s)
        except _Locked:
            pass
        if not told and notify is not None:
            notify(f"database busy (held by another process); waiting up to {wait_s:.0f} s: {path}")
            told = True
        time.sleep(min(PROBE_EVERY_S, max(0.0, deadline - time.monotonic())))


class _Locked(Exception):
    pass


def _look(
    path: Path, *, write: bool, timeout: float, final: bool, waited_s: float | None = None
) -> str | None:
    """Read the schema through SQLite: the damage found, or None. Locked: :class:`_Locked`
    (the caller retries), or on the ``final`` look :class:`StoreLocked`."""
    con = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        page_size = int(con.execute("PRAGMA page_size").fetchone()[0])
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        con.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        if looks_full(exc, path.parent):
            raise disk_full(
                path.parent, "the task store cannot be opened without room for its working files"
            ) from None
        if not _is_lock(str(exc)):
            return str(exc)
        if not final:
            raise _Locked from None
        waited = f" for {waited_s:.0f} s" if waited_s else ""
        raise StoreLocked(
            f"the database {path} stayed locked by another process{waited}; nothing was "
            "changed. Try again when it is free (--db-wait S waits longer)"
        ) from None
    except sqlite3.DatabaseError as exc:
        return _describe(str(exc), path)
    finally:
        con.close()
    size = path.stat().st_size
    if size % page_size:
        return f"truncated: {size:,} bytes is not a whole number of {page_size}-byte pages"
    return None


def _describe(error: str, path: Path) -> str:
    size = path.stat().st_size
    if "not a database" in error:
        return f"it is not an SQLite database ({size:,} bytes; SQLite says: {error})"
    if "malformed" in error:
        return f"it is truncated or corrupt ({size:,} bytes; SQLite says: {error})"
    return error


def quick_check(path: Path, *, max_errors: int = 5) -> str | None:
    """SQLite's ``PRAGMA quick_check`` over the whole file (reads every page): None if ok."""
    problem = check_store(path)
    if problem is not None:
        return problem
    con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        rows = [r[0] for r in con.execute(f"PRAGMA quick_check({int(max_errors)})")]
    except sqlite3.OperationalError as exc:
        if _is_lock(str(exc)):
            raise StoreLocked(f"{path}: the database stayed locked during its check") from None
        return str(exc)
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        con.close()
    return None if rows == ["ok"] else "; ".join(str(r) for r in rows)


def open_store(
    database: Path,
    *,
    read_only: bool = False,
    backups: Path | None = None,
    wait_s: float | None = None,
    notify: Notify | None = None,
) -> Engine:
    """Check the file, wait for it if another process holds it, open it, keep it private.

    Raises :class:`StoreDamaged` (the file is left as it is) or :class:`StoreLocked`. A store
    that does not exist yet (or is empty) is created, also by read-only commands.
    """
    problem = check_store(database, write=not read_only, wait_s=wait_s, notify=notify)
    if problem is not None:
        raise damaged(database, problem, backups)
    has_schema = database.exists() and database.stat().st_size > 0
    try:
        try:
            engine = open_engine(sqlite_url(database), read_only=read_only and has_schema)
        except SchemaTooOld:
            # The first command after an update that changed the tables migrates the store,
            # even a read-only one: it could not read it otherwise (migrations.OLDEST_READABLE).
            problem = check_store(database, write=True, wait_s=wait_s, notify=notify)
            if problem is not None:
                raise damaged(database, problem, backups) from None
            engine = open_engine(sqlite_url(database))
    except sa_exc.DBAPIError as exc:
        raise translate(exc, database, backups) from None
    make_private(sqlite_files(database))
    return engine


def translate(exc: BaseException, database: Path, backups: Path | None = None) -> BaseException:
    """A database error as :class:`StoreDamaged` / :class:`StoreLocked` when it is one (else
    ``exc`` itself): for errors met after the store opened, e.g. in the middle of a command."""
    original = exc.orig if isinstance(exc, sa_exc.DBAPIError) else exc
    if looks_full(exc, database.parent):
        return disk_full(database.parent, "nothing was half-written")
    if isinstance(original, sqlite3.DatabaseError):
        text = str(original)
        if _is_lock(text):
            return StoreLocked(
                f"the database {database} stayed locked by another process ({text}); "
                "nothing more was changed. Try again when it is free"
            )
        if any(marker in text for marker in _DAMAGE_MARKERS):
            return damaged(database, text, backups)
    return exc


def damaged(database: Path, detail: str, backups: Path | None) -> StoreDamaged:
    latest = latest_backup(backups) if backups is not None else None
    if latest is not None:
        advice = (
            f"It was left as it is. Restore the latest backup (made {latest.made_label}): "
            f"media-assistant restore {latest.path}"
        )
    else:
        advice = (
            "It was left as it is. There is no backup: move the file aside to start with an "
            "empty store, or try to salvage it with: sqlite3 <file> .recover"
        )
    return StoreDamaged(str(database), detail, advice)


def _is_lock(text: str) -> bool:
    return any(marker in text for marker in _LOCK_MARKERS)
