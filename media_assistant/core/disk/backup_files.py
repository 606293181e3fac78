"""Our backup files in the backups folder: how they are named, which they are, the newest one.
Apart from :mod:`backups` so that a damaged store's message (``store_file``) can name the latest
backup without importing the code that makes them."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

PREFIX = "media-assistant-"
_NAME = re.compile(r"media-assistant-(\d{8}-\d{6})\.db")
STAMP = "%Y%m%d-%H%M%S"  # local time, in backup names and restored-aside names


@dataclass(frozen=True, slots=True)
class BackupInfo:
    path: Path
    made_at: dt.datetime  # local time, from the name

    @property
    def made_label(self) -> str:
        return self.made_at.strftime("%Y-%m-%d %H:%M")


def list_backups(folder: Path) -> list[BackupInfo]:
    """Our backups in ``folder``, newest first (other files there are not ours to touch)."""
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        match = _NAME.fullmatch(path.name)
        if match and path.is_file():
            found.append(BackupInfo(path, dt.datetime.strptime(match.group(1), STAMP)))
    return sorted(found, key=lambda b: b.made_at, reverse=True)


def latest_backup(folder: Path) -> BackupInfo | None:
    backups = list_backups(folder)
    return backups[0] if backups else None


def backup_name(now: dt.datetime) -> str:
    return f"{PREFIX}{now.strftime(STAMP)}.db"
