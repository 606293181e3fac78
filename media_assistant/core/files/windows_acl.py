"""A data folder outside the user's profile is made private on Windows (issue 29 item 3).

``--data-dir D:\\媒体助理`` (or ``MEDIA_ASSISTANT_HOME``) inherits the drive's ACL: on a
typical office PC "Users: read" and "Authenticated Users: modify", so the task store, the logs,
the diagnostics and the browser profiles' session cookies would be readable by every local
user, where the README promises them private. Inside the user's own profile
(``%USERPROFILE%``, ``%LOCALAPPDATA%``, the default) the inherited ACL is already the user's
alone and nothing is changed.

Elsewhere the folder gets an ACL for this user and SYSTEM only (backup agents run as SYSTEM),
inheritance cut, with Windows' own ``icacls`` — the supported tool for exactly this, already
on every PC — rather than hand-built security descriptors through ctypes. It runs once per
folder (a marker file records it). If icacls fails, the caller logs a warning naming the
folder; the app still starts. The decision and the command line are plain Python, tested on
Linux; icacls itself runs on Windows only (not run here: docs/PACKAGING.md).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

MARKER = ".acl-private"
SYSTEM_SID = "*S-1-5-18"  # LocalSystem, by SID: its name is translated on non-English Windows


def inside_profile(folder: Path, env: Mapping[str, str]) -> bool:
    """Whether ``folder`` lies in this user's profile, whose ACL is already theirs alone."""
    homes = [env.get(name) for name in ("USERPROFILE", "LOCALAPPDATA", "APPDATA")]
    here = os.path.normcase(os.path.abspath(folder))
    for home in homes:
        if home:
            base = os.path.normcase(os.path.abspath(home))
            if here == base or here.startswith(base.rstrip("\\/") + os.sep):
                return True
    return False


def icacls_command(folder: Path, env: Mapping[str, str]) -> list[str]:
    """icacls: inheritance removed (inherited entries dropped), full control for this user and
    SYSTEM on the folder and everything below it."""
    user = env.get("USERNAME", "")
    domain = env.get("USERDOMAIN")
    account = f"{domain}\\{user}" if domain else user
    return [
        "icacls",
        str(folder),
        "/inheritance:r",
        "/grant:r",
        f"{account}:(OI)(CI)F",
        "/grant:r",
        f"{SYSTEM_SID}:(OI)(CI)F",
        "/T",
        "/Q",
    ]


def protect_data_folder(
    folder: Path,
    *,
    env: Mapping[str, str] | None = None,
    run: Callable[[Sequence[str]], int] | None = None,
    windows: bool = sys.platform == "win32",
) -> str | None:
    """Make ``folder`` private on Windows when it lies outside the profile; None when done (or
    nothing to do), else why not (for a warning)."""
    env = os.environ if env is None else env
    if not windows or inside_profile(folder, env) or (folder / MARKER).exists():
        return None
    if not env.get("USERNAME"):
        return f"{folder}: cannot make it private (no USERNAME in the environment)"
    code = (run or _run_icacls)(icacls_command(folder, env))
    if code != 0:
        return f"{folder}: icacls could not make it private (exit {code}); other users may read it"
    (folder / MARKER).write_text("icacls: this user and SYSTEM only\n", encoding="utf-8")
    return None


def _run_icacls(argv: Sequence[str]) -> int:
    flags = 0
    if sys.platform == "win32":  # no console window flashing up over the app
        flags = subprocess.CREATE_NO_WINDOW
    done = subprocess.run(list(argv), capture_output=True, check=False, creationflags=flags)
    return done.returncode
