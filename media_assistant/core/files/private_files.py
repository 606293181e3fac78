"""Files that hold prompts and answers are the operator's alone (POSIX modes; no-ops elsewhere).

The data directory is 0700 and what it holds 0600: the task store (every prompt and answer) with
its ``-wal``/``-shm`` files, logs, exports, backups and diagnostics (screenshots and DOM dumps
of logged-in sessions). SQLite creates its ``-wal`` and ``-shm`` files with the mode of the
database file, so making the database 0600 covers them from then on.

Windows has no mode bits: a user's profile folders are already private there, and ``chmod``
only toggles the read-only flag, so every function here does nothing on non-POSIX systems.
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging.handlers
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

POSIX = os.name == "posix"
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def _my_uid() -> int:
    """The effective user id (POSIX only: the callers check ``POSIX`` first). Spelled with
    ``sys.platform`` so that ``mypy --platform win32`` knows this branch."""
    if sys.platform == "win32":
        raise OSError("no user ids on Windows")
    return os.geteuid()


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) if missing; make it 0700 when we own it."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    if POSIX:
        st = path.stat()
        if st.st_uid == _my_uid() and stat.S_IMODE(st.st_mode) != PRIVATE_DIR_MODE:
            path.chmod(PRIVATE_DIR_MODE)
    return path


def make_private(paths: Iterable[Path] | Path) -> None:
    """chmod 0600 every existing regular file we own among ``paths`` (missing ones are skipped)."""
    if not POSIX:
        return
    for path in [paths] if isinstance(paths, Path) else paths:
        with contextlib.suppress(FileNotFoundError):
            st = path.stat()
            if (
                stat.S_ISREG(st.st_mode)
                and st.st_uid == _my_uid()
                and stat.S_IMODE(st.st_mode) != PRIVATE_FILE_MODE
            ):
                path.chmod(PRIVATE_FILE_MODE)


def create_private(path: Path) -> None:
    """Create an empty file with mode 0600 from the start (it must not exist yet), so what is
    written into it later is never readable by others, not even for a moment."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    os.close(fd)


def sqlite_files(database: Path) -> list[Path]:
    """The database and the files SQLite keeps beside it."""
    return [database, *(database.with_name(database.name + s) for s in ("-wal", "-shm"))]


def dir_problem(path: Path) -> str | None:
    """Why ``path`` is not a directory that only this user controls (None: it is).

    A directory in a shared place (the temporary folder, a runtime dir) that another local user
    created, or could write into, would let that user plant or hold our lock files.
    """
    try:
        st = path.lstat()
    except FileNotFoundError:
        return "does not exist"
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if POSIX:
        if st.st_uid != _my_uid():
            return f"belongs to another user (uid {st.st_uid})"
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o077:
            return f"is open to other users (mode {mode:04o}; expected 0700)"
    return None


_FULL = frozenset(e for e in (errno.ENOSPC, getattr(errno, "EDQUOT", None)) if e)


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose files (the current one and each new one after a rollover) are 0600.

    On a full disk a line that cannot be written is dropped, and the terminal is told once —
    not with logging's own report (a traceback per line, thousands of them a minute)."""

    _told_full = False

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError) and exc.errno in _FULL:
            if not self._told_full:
                self._told_full = True
                with contextlib.suppress(Exception):
                    print(
                        f"log file {self.baseFilename}: disk full; log lines are dropped until "
                        "there is room again",
                        file=sys.stderr,
                        flush=True,
                    )
            return
        super().handleError(record)

    def _open(self) -> io.TextIOWrapper:
        path = Path(self.baseFilename)
        if POSIX and not path.exists():
            with contextlib.suppress(FileExistsError):
                create_private(path)
        make_private(path)
        return super()._open()
