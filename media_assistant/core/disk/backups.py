"""Backups of the task store with SQLite's online backup API, and restoring one.

- **Daily, automatic** (:func:`daily_backup`): when a scheduler starts (``run``, the desktop
  app), at most once per calendar day: ``PRAGMA quick_check`` on the live store first (a damaged
  store is reported, and never copied over a good backup), then a copy to
  ``<data>/backups/media-assistant-YYYYmmdd-HHMMSS.db``; the newest :data:`KEEP` are kept.
- **On demand**: ``media-assistant backup [-o FILE]`` (works while a scheduler runs).
- **Restore** (:func:`restore_backup`): the caller holds the data dir's scheduler lock (no
  scheduler may write meanwhile). The backup is checked first (header, ``quick_check``, schema
  version); the current store is renamed aside (with its ``-wal``/``-shm``, so nothing it held
  is lost), never deleted; then the copy takes its place.

``sqlite3.Connection.backup`` rather than copying the file: it reads a consistent snapshot while
other processes keep writing (WAL), and it never copies a half-written page. Every copy is
written to a 0600 temporary file beside its target, verified, flushed to disk, then renamed:
a crash leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from media_assistant.core.disk.backup_files import (
    STAMP,
    BackupInfo,
    backup_name,
    latest_backup,
    list_backups,
)
from media_assistant.core.disk.full import is_disk_full
from media_assistant.core.disk.store_file import damaged, quick_check
from media_assistant.core.files.atomic import fsync_folder
from media_assistant.core.files.held import replace_file
from media_assistant.core.files.private_files import (
    create_private,
    make_private,
    private_dir,
    sqlite_files,
)
from media_assistant.core.model.errors import InputError
from media_assistant.core.store import schema

KEEP = 7


@dataclass(frozen=True, slots=True)
class BackupResult:
    path: Path
    tasks: int
    size: int


@dataclass(frozen=True, slots=True)
class DailyOutcome:
    """What the start-of-day backup did: made one, found today's, or found the store damaged."""

    made: BackupResult | None = None
    existing: BackupInfo | None = None
    damage: str | None = None  # quick_check's finding; no backup was made


def daily_backup(
    database: Path, folder: Path, *, now: dt.datetime | None = None, keep: int = KEEP
) -> DailyOutcome:
    """The start-of-day check and backup (see the module docstring). Slow on a big store (a
    full read of it, twice): run it off the GUI thread."""
    now = now or dt.datetime.now()
    if not database.exists() or database.stat().st_size == 0:
        return DailyOutcome()
    latest = latest_backup(folder)
    if latest is not None and latest.made_at.date() == now.date():
        return DailyOutcome(existing=latest)
    if not has_tasks(database):  # nothing to lose yet: no copy to push a real one out
        return DailyOutcome()
    problem = quick_check(database)
    if problem is not None:
        return DailyOutcome(damage=problem)
    made = backup_store(database, folder / backup_name(now))
    prune_backups(folder, keep)
    return DailyOutcome(made=made)


def has_tasks(database: Path) -> bool:
    """Whether the store holds any task (never creates the file)."""
    if not database.exists() or database.stat().st_size == 0:
        return False
    try:
        con = sqlite3.connect(database, timeout=10)
        try:
            return con.execute("SELECT 1 FROM tasks LIMIT 1").fetchone() is not None
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return True  # let the check say what is wrong


def backup_store(database: Path, target: Path) -> BackupResult:
    """Copy the live store to ``target`` (0600), verified. :class:`StoreDamaged` if the store
    cannot be copied or its copy fails the check (nothing is left at ``target`` then)."""
    if target.resolve() in {p.resolve() for p in sqlite_files(database)}:
        raise InputError(f"{target}: that is the task store itself; choose another file")
    if target.is_dir():
        raise InputError(f"{target}: is a folder")
    if target.parent == database.parent / "backups":
        private_dir(target.parent)
    elif not target.parent.is_dir():
        raise InputError(f"{target}: the folder {target.parent} does not exist")
    try:
        tasks = _copy_verified(database, target, source_read_only=True)
    except _CopyFailed as exc:
        raise damaged(database, str(exc), database.parent / "backups") from None
    return BackupResult(target, tasks, target.stat().st_size)


def prune_backups(folder: Path, keep: int = KEEP) -> list[Path]:
    removed = []
    for old in list_backups(folder)[keep:]:
        with contextlib.suppress(FileNotFoundError):
            old.path.unlink()
        removed.append(old.path)
    return removed


@dataclass(frozen=True, slots=True)
class RestoreResult:
    tasks: int
    kept_aside: Path | None  # the store that was replaced (None: there was none)


def check_backup(source: Path) -> int:
    """The number of tasks in ``source`` if it can be restored; else :class:`InputError`."""
    if not source.is_file():
        raise InputError(f"{source}: no such file")
    problem = quick_check(source)
    if problem is not None:
        raise InputError(f"{source}: cannot be restored: {problem}")
    try:
        con = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
        try:
            version = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            tasks = con.execute("SELECT count(*) FROM tasks").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise InputError(f"{source}: not a Media Assistant task store ({exc})") from None
    if version is None or int(version[0]) > schema.SCHEMA_VERSION:
        raise InputError(
            f"{source}: made by a newer Media Assistant (schema {version and version[0]}); "
            "update the app first"
        )
    return int(tasks)


def restore_backup(
    database: Path, source: Path, *, now: dt.datetime | None = None
) -> RestoreResult:
    """Replace the store by a verified copy of ``source``; the current one is kept aside as
    ``<store>.before-restore-YYYYmmdd-HHMMSS`` (with its -wal/-shm). The caller holds the
    scheduler lock of the data dir."""
    now = now or dt.datetime.now()
    if source.resolve() in {p.resolve() for p in sqlite_files(database)}:
        raise InputError(f"{source}: that is the task store itself")
    check_backup(source)
    try:
        tasks = _copy_verified(source, database, stage_only=True)
    except _CopyFailed as exc:
        raise InputError(f"{source}: cannot be restored: {exc}") from None
    staged = _staged(database)
    kept: Path | None = None
    if database.exists():
        kept = database.with_name(f"{database.name}.before-restore-{now.strftime(STAMP)}")
        for current, aside in zip(sqlite_files(database), sqlite_files(kept), strict=True):
            if current.exists():
                os.replace(current, aside)
    try:
        os.replace(staged, database)
    except OSError:
        if kept is not None:  # put the old store back rather than leave none
            for current, aside in zip(sqlite_files(database), sqlite_files(kept), strict=True):
                if aside.exists():
                    os.replace(aside, current)
        raise
    fsync_folder(database.parent)
    if kept is not None:
        make_private(sqlite_files(kept))
    return RestoreResult(tasks, kept)


# ------------------------------------------------------------------------------- copying


class _CopyFailed(Exception):
    pass


def _staged(target: Path) -> Path:
    return target.with_name(f".{target.name}.restore.tmp")


def _copy_verified(
    source: Path, target: Path, *, source_read_only: bool = False, stage_only: bool = False
) -> int:
    """Online-backup ``source`` into a 0600 temporary file, check it, fsync it, then rename it
    to ``target`` (``stage_only``: leave it at :func:`_staged` for the caller). Returns the
    number of tasks in the copy."""
    tmp = (
        _staged(target)
        if stage_only
        else target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    )
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    create_private(tmp)
    try:
        uri = f"{source.resolve().as_uri()}{'?mode=ro' if source_read_only else ''}"
        src = sqlite3.connect(uri, uri=True, timeout=30)
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst)
            # A stand-alone copy: no -wal/-shm beside it. The store's next writer sets WAL again.
            dst.execute("PRAGMA journal_mode=DELETE")
            rows = [r[0] for r in dst.execute("PRAGMA quick_check(5)")]
            if rows != ["ok"]:
                raise _CopyFailed("; ".join(str(r) for r in rows))
            tasks = int(dst.execute("SELECT count(*) FROM tasks").fetchone()[0])
        finally:
            dst.close()
            src.close()
        with tmp.open("rb+") as f:
            os.fsync(f.fileno())
        if not stage_only:
            replace_file(tmp, target)
            fsync_folder(target.parent)
        return tasks
    except sqlite3.OperationalError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if "locked" in str(exc) or "busy" in str(exc) or is_disk_full(exc):
            raise  # the store is fine: busy, or no room for the copy (core/disk/full.py)
        raise _CopyFailed(str(exc)) from None
    except sqlite3.DatabaseError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise _CopyFailed(str(exc)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
