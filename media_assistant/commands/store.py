"""``backup [-o FILE]`` and ``restore FILE``: copies of the task store (core/disk/backups.py).

On a team database (team mode) ``backup`` writes a SQLite snapshot of the team's queue
(core/disk/snapshot.py) — the server's own backups stay its administrator's — and ``restore``
is refused: it replaces a workstation's own file, and a team database is no file of ours (a
snapshot goes back in with ``store copy --from FILE --to URL``)."""

from __future__ import annotations

import argparse
import datetime as dt
import sys

from media_assistant.commands.common import configured_store_url, open_services
from media_assistant.core.disk.backup_files import backup_name
from media_assistant.core.disk.backups import backup_store, prune_backups, restore_backup
from media_assistant.core.disk.store_file import check_store, damaged
from media_assistant.core.files.locks import DataDirLock
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import InputError
from media_assistant.core.store.backends.postgres import redacted

EXIT_OK = 0


def cmd_backup(paths: Paths, args: argparse.Namespace) -> int:
    """An online backup: works while a scheduler runs. Without ``-o`` it goes with the daily
    ones into ``<data>/backups`` (the newest 7 are kept)."""
    if configured_store_url(paths, args) is not None:
        return _team_snapshot(paths, args)
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


def _team_snapshot(paths: Paths, args: argparse.Namespace) -> int:
    """``backup`` of a team database: the queue as it stands, into a SQLite file."""
    from media_assistant.commands.team_store import copy_progress
    from media_assistant.core.disk.snapshot import snapshot_store

    target = (args.output or paths.backups / backup_name(dt.datetime.now())).expanduser()
    services = open_services(paths, args, read_only=True, require_config=False)
    try:
        url = redacted(services.store_url or "")
        result, _ = snapshot_store(
            services.engine, target.absolute(), backups=paths.backups, progress=copy_progress
        )
    finally:
        services.close()
    if args.output is None:
        prune_backups(paths.backups)
    print(
        f"snapshot of the team database {url} written: {result.path} ({result.tasks} tasks, "
        f"{result.size / 1e6:.1f} MB, checked; the server's own backups are its administrator's)"
    )
    return EXIT_OK


def cmd_restore(paths: Paths, args: argparse.Namespace) -> int:
    """Refused while a scheduler (``run``, the app) holds the data dir: SchedulerBusy, exit 3;
    and on a team database (InputError, exit 2)."""
    url = configured_store_url(paths, args)
    if url is not None:
        raise InputError(
            f"restore replaces this workstation's own SQLite file; the task store here is the "
            f"team database {redacted(url)}, which it cannot replace. To bring a snapshot's "
            f"tasks into it: media-assistant store copy --from {args.file} --to {redacted(url)} "
            "(tasks there as they are in it are skipped, tasks there with other content refused); "
            "to restore the server itself, use its own "
            "backups (pg_dump / pg_restore)"
        )
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
