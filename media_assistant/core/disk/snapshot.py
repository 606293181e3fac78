"""A SQLite snapshot of a store on any engine (``backup`` of a team database): ``store copy``
into a new file, made whole before it is given its name.

The team's PostgreSQL server has its own backups (``pg_dump``, base backups), which stay its
administrator's; what a workstation can keep is the queue as it stood, in the same format as
its own backups — a SQLite file that ``restore`` and ``store copy --from`` take. Written like
every backup here (core/disk/backups.py): a 0600 temporary file beside the target, filled in
one transaction (core/store/copy.py), checked (``quick_check``), made stand-alone (no
``-wal``), flushed, then renamed; a failure leaves no file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
from pathlib import Path

from sqlalchemy import Engine

from media_assistant.core.disk.backups import BackupResult
from media_assistant.core.files.atomic import fsync_folder
from media_assistant.core.files.held import replace_file
from media_assistant.core.files.private_files import create_private, private_dir, sqlite_files
from media_assistant.core.model.errors import InputError
from media_assistant.core.store.copy import CopyReport, Progress, copy_store
from media_assistant.core.store.db import open_engine, sqlite_url


def snapshot_store(
    source: Engine,
    target: Path,
    *,
    backups: Path | None = None,
    progress: Progress | None = None,
) -> tuple[BackupResult, CopyReport]:
    """Copy ``source`` into a new SQLite file at ``target`` (replacing one that is there), checked.
    ``backups``: the data dir's backups folder, made (0700) when ``target`` is in it."""
    if target.is_dir():
        raise InputError(f"{target}: is a folder")
    if backups is not None and target.parent == backups:
        private_dir(target.parent)
    elif not target.parent.is_dir():
        raise InputError(f"{target}: the folder {target.parent} does not exist")
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    create_private(tmp)
    try:
        engine = open_engine(sqlite_url(tmp))
        try:
            report = copy_store(source, engine, progress=progress)
        finally:
            engine.dispose()
        con = sqlite3.connect(tmp)
        try:
            # A stand-alone copy: no -wal/-shm beside it (a store that opens it sets WAL again).
            con.execute("PRAGMA journal_mode=DELETE")
            rows = [r[0] for r in con.execute("PRAGMA quick_check(5)")]
            tasks = int(con.execute("SELECT count(*) FROM tasks").fetchone()[0])
        finally:
            con.close()
        if rows != ["ok"]:
            raise InputError(f"{target}: the snapshot failed its check: {'; '.join(rows)}")
        with tmp.open("rb+") as f:
            os.fsync(f.fileno())
        replace_file(tmp, target)
        fsync_folder(target.parent)
    except BaseException:
        for leftover in sqlite_files(tmp):
            with contextlib.suppress(OSError):
                leftover.unlink()
        raise
    return BackupResult(target, tasks, target.stat().st_size), report
