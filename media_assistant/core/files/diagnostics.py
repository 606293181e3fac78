"""Diagnostics of failed web tasks (page screenshots, DOM dumps of logged-in sessions): private,
and kept only ``keep_days`` days and ``max_mb`` megabytes (``[diagnostics]`` in the config).

They are written when a web task fails in a way a human must look at; a night of a broken site
would otherwise fill the disk with screenshots, and every one of them shows a logged-in page.
Pruning runs after each save and when a scheduler starts: files older than ``keep_days`` go,
then the oldest until the folder holds at most ``max_mb``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from media_assistant.core.files.private_files import make_private, private_dir

DEFAULT_KEEP_DAYS = 14.0
DEFAULT_MAX_MB = 200.0


@dataclass(frozen=True, slots=True)
class DiagnosticsRetention:
    keep_days: float = DEFAULT_KEEP_DAYS
    max_mb: float = DEFAULT_MAX_MB


def prepare_folder(folder: Path) -> None:
    """The folder exists and is 0700 before anything is saved into it."""
    private_dir(folder)


def settle(folder: Path, saved: Sequence[Path], retention: DiagnosticsRetention) -> list[Path]:
    """After a save: the new files are 0600, then the folder is pruned. Returns what was removed."""
    make_private(saved)
    return prune(folder, retention)


def prune(folder: Path, retention: DiagnosticsRetention, *, now: float | None = None) -> list[Path]:
    """Remove files older than ``keep_days``, then the oldest until at most ``max_mb`` remain."""
    if not folder.is_dir():
        return []
    now = time.time() if now is None else now
    files: list[tuple[float, int, Path]] = []
    for path in folder.iterdir():
        with contextlib.suppress(OSError):
            st = path.lstat()
            if path.is_file() and not path.is_symlink():
                files.append((st.st_mtime, st.st_size, path))
    files.sort()  # oldest first
    cutoff = now - retention.keep_days * 86400
    budget = int(retention.max_mb * 1_000_000)
    total = sum(size for _, size, _ in files)
    removed: list[Path] = []
    for mtime, size, path in files:
        if mtime >= cutoff and total <= budget:
            break
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        total -= size
        removed.append(path)
    return removed
