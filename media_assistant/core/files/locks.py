"""Cross-process locks: one scheduler per data dir, one user of each browser profile.

Profile locks live in the per-user runtime directory platformdirs gives (``$XDG_RUNTIME_DIR``,
``/run/user/<uid>``, else a ``runtime-<uid>`` folder in the temporary directory; on Windows and
macOS the user's own temporary folders), in a folder whose name carries a hash of the OS user
name: two users on one machine never share (or block) each other's locks, while two instances
of the app (or two data dirs) run by the same user cannot drive one profile at once.

Where that folder sits in a shared place, another local user could create it first and so hold
or swap our lock files. So it is checked on every use: a directory (not a symbolic link),
owned by us, mode 0700 — else :class:`UnsafeLockDir` (exit 2) names it and what to do.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import os
import socket
import time
import warnings
from pathlib import Path

import platformdirs
from filelock import FileLock, Timeout

from media_assistant.core.files.held import replace_file
from media_assistant.core.files.paths import APP_NAME
from media_assistant.core.files.private_files import dir_problem
from media_assistant.core.model.errors import SchedulerBusy, UserError


class UnsafeLockDir(UserError):
    """The lock folder is not ours alone (exit 2, like any other setup problem)."""


def _user_hash() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no user name (some containers): fall back to the uid
        user = str(os.getuid()) if hasattr(os, "getuid") else "unknown"
    return hashlib.sha256(user.encode("utf-8")).hexdigest()[:12]


def runtime_dir() -> Path:
    """The folder for this user's lock files, created and checked (see the module docstring)."""
    with warnings.catch_warnings():
        # platformdirs warns when it falls back (no XDG_RUNTIME_DIR): expected on servers.
        warnings.simplefilter("ignore")
        try:
            base = Path(platformdirs.user_runtime_dir(APP_NAME, appauthor=False))
        except PermissionError as exc:
            raise UnsafeLockDir(
                f"no private runtime folder for lock files ({exc}); set XDG_RUNTIME_DIR to a "
                "folder only you can use"
            ) from None
    path = base / f"locks-{_user_hash()}"
    for folder in (base, path):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        problem = dir_problem(folder)
        if problem is not None:
            raise UnsafeLockDir(
                f"the lock folder {folder} {problem}: another local user may have created it "
                "to block or take over Media Assistant's locks. Remove it (it only ever holds "
                "lock files), or set XDG_RUNTIME_DIR to a folder only you can use"
            )
    return path


def _write_whole(path: Path, text: str) -> None:
    """``text`` into ``path`` through a temporary file and a rename: never half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        replace_file(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise


class ProfileLock:
    """Held while an account's browser profile is in use by this process."""

    def __init__(self, profile_dir: Path) -> None:
        self.profile_dir = profile_dir.resolve()
        digest = hashlib.sha256(str(self.profile_dir).encode("utf-8")).hexdigest()[:16]
        self.path = runtime_dir() / f"profile-{digest}.lock"
        self._lock = FileLock(self.path, timeout=0, thread_local=False)

    def try_acquire(self) -> bool:
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            return False
        return True

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release(force=True)

    @property
    def held(self) -> bool:
        return self._lock.is_locked


class DataDirLock:
    """One scheduler per data directory; a second one is refused with who holds it.

    Nothing is left behind: the owner file is written whole or not at all (a full disk must not
    leave a 0-byte one), and both files are removed at release — the lock file while it is
    still held, so a process that opened it a moment earlier finds it unlinked (filelock then
    does not count it as held) and tries again on a fresh one."""

    ATTEMPTS = 3  # a lock file unlinked under us by a releasing holder: look again

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "scheduler.lock"
        self.owner_path = data_dir / "scheduler.owner"
        self._lock = FileLock(self.path, timeout=0, thread_local=False)

    def acquire(self) -> None:
        for attempt in range(self.ATTEMPTS):
            try:
                self._lock.acquire(timeout=0)
                break
            except Timeout:
                if attempt + 1 < self.ATTEMPTS and not self.owner_path.exists():
                    time.sleep(0.05)  # its holder is just letting go
                    continue
                raise SchedulerBusy(
                    f"another scheduler is running on {self.path.parent} "
                    f"({self._describe_owner()}); stop it first, or use its window"
                ) from None
        try:
            _write_whole(
                self.owner_path,
                json.dumps({"pid": os.getpid(), "host": socket.gethostname()}),
            )
        except BaseException:
            self.release()  # e.g. a full disk: no lock left held, no file left behind
            raise

    def _describe_owner(self) -> str:
        try:
            info = json.loads(self.owner_path.read_text(encoding="utf-8"))
            return f"pid {info['pid']} on {info['host']}"
        except (OSError, ValueError, KeyError):
            return "owner unknown"

    def release(self) -> None:
        if self._lock.is_locked:
            try:
                self.owner_path.unlink(missing_ok=True)
                self.path.unlink(missing_ok=True)
            except OSError:
                pass  # a file we cannot remove is harmless: the lock is the flock, not the file
            finally:
                self._lock.release(force=True)

    def __enter__(self) -> DataDirLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
