"""``backup [-o FILE]`` and ``restore FILE``: copies of the task store (core/disk/backups.py)."""

from __future__ import annotations

import argparse
import datetime as dt
import sys

from media_assistant.core.disk.backup_files import backup_name
from media_assistant.core.disk.backups import backup_store, prune_backups, restore_backup
from media_assistant.core.disk.store_file import check_store, damaged
from media_assistant.core.files.locks import DataDirLock
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import InputError

EXIT_OK = 0


def cmd_backup(paths: Paths, args: argparse.Namespace) -> int:
    """An online backup: works while a scheduler runs. Without ``-o`` it goes with the daily
    ones into ``<data>/backups`` (the newest 7 are kept)."""
    database = paths.database
    if not database.exists():
        raise InputError(f"{database}: there is no task store yet: nothing to back up")
    problem = check_store(
        database,
        wait_s=args.db_wait,
        notify=lambda message: print(message, file=sys.stderr, flush=True),
    )
    if problem is not None:
        raise damaged(database, problem, paths.backups)
    target = args.output or paths.backups / backup_name(dt.datetime.now())
    result = backup_store(database, target.expanduser().absolute())
    if args.output is None:
        prune_backups(paths.backups)
    print(
        f"backup written: {result.path} ({result.tasks} tasks, {result.size / 1e6:.1f} MB, checked)"
    )
    return EXIT_OK


def cmd_restore(paths: Paths, args: argparse.Namespace) -> int:
    """Refused while a scheduler (``run``, the app) holds the data dir: SchedulerBusy, exit 3."""
    lock = DataDirLock(paths.data_dir)
    paths.ensure()
    lock.acquire()
    try:
        result = restore_backup(paths.database, args.file.expanduser().absolute())
    finally:
        lock.release()
    print(f"restored {result.tasks} tasks from {args.file}")
    if result.kept_aside is not None:
        print(f"the store it replaced was kept as {result.kept_aside}")
    return EXIT_OK
