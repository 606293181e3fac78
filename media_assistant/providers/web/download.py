"""Download Playwright's Chromium on demand: the frozen app's last resort when the PC has no
Edge, no Chrome and no Chromium (executable.py). Never on the start-up path: the GUI offers it
and shows the progress (gui/accounts/browser_download.py).

This runs Playwright's own installer, the bundled driver's ``node cli.js install --no-shell
chromium`` with the driver's environment, rather than fetching archives ourselves: it knows
the build that matches this Playwright, its mirrors, checksums and unpacking. The headless
shell is skipped (``--no-shell``): we always launch the full browser by path. The target is
``PLAYWRIGHT_BROWSERS_PATH`` (set by ``prepare_frozen_playwright`` to the per-user folder).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil

from media_assistant.providers.web.executable import BROWSERS_PATH_ENV, managed_browsers_dir
from media_assistant.providers.web.processes import stop_process_tree

# Playwright's installer, when stdout is not a terminal, prints a line per 10 %:
#   |■■■■■■■■■■■■■■■■        (80 columns of bar)        |  20% of 170.3 MiB
_PROGRESS = re.compile(r"\|\s*(\d{1,3})% of ([\d.]+ \w+)")
_ITEM = re.compile(r"^Downloading (.+?) from ")
_TAIL_LINES = 12


@dataclass(frozen=True, slots=True)
class DownloadProgress:
    item: str  # what is being downloaded ("Chrome for Testing 159.0… (playwright chromium v1255)")
    percent: int | None  # of this item; None: not known yet
    size: str | None  # "170.3 MiB"
    line: str  # the installer's own line


class DownloadFailed(RuntimeError):
    """The installer failed; the message carries its last lines (no network, disk full…)."""


def driver_command() -> tuple[str, str]:
    """(node, cli.js) of the Playwright driver in use (inside the bundle when frozen)."""
    from playwright._impl._driver import compute_driver_executable

    return compute_driver_executable()


def driver_env(browsers_dir: Path) -> dict[str, str]:
    from playwright._impl._driver import get_driver_env

    env: dict[str, str] = get_driver_env()
    env[BROWSERS_PATH_ENV] = str(browsers_dir)
    return env


def parse_line(line: str, item: str) -> DownloadProgress:
    started = _ITEM.match(line)
    if started:
        return DownloadProgress(started.group(1), 0, None, line)
    progress = _PROGRESS.search(line)
    if progress:
        return DownloadProgress(item, min(100, int(progress.group(1))), progress.group(2), line)
    return DownloadProgress(item, None, None, line)


def no_console_window() -> int:
    """Windows: the installer is a console program (node.exe); started from the windowed app it
    would open a blank console window, and closing that window kills the download. None is made.
    Elsewhere 0, the only value POSIX accepts."""
    if sys.platform == "win32":
        return subprocess.CREATE_NO_WINDOW
    return 0


async def download_chromium(
    on_progress: Callable[[DownloadProgress], None],
    *,
    browsers_dir: Path | None = None,
    command: tuple[str, ...] | None = None,
) -> Path:
    """Install Chromium into ``browsers_dir``; returns it. Cancelling stops the installer.

    ``command`` replaces ``node cli.js`` (tests run a stand-in installer: there is no network).
    """
    target = browsers_dir or Path(os.environ.get(BROWSERS_PATH_ENV) or managed_browsers_dir())
    target.mkdir(parents=True, exist_ok=True)
    argv = [*(command or driver_command()), "install", "--no-shell", "chromium"]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=driver_env(target),
        creationflags=no_console_window(),
    )
    assert proc.stdout is not None
    tail: list[str] = []
    item = "Chromium"
    try:
        async for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip()
            if not line:
                continue
            tail = [*tail[-(_TAIL_LINES - 1) :], line]
            progress = parse_line(line, item)
            item = progress.item
            on_progress(progress)
        code = await proc.wait()
    except BaseException:  # cancelled (the operator pressed Cancel) or the loop is closing
        # The installer downloads in a child process of its own: stop the whole tree.
        with contextlib.suppress(psutil.Error):
            await asyncio.to_thread(stop_process_tree, psutil.Process(proc.pid), grace_s=2.0)
        with contextlib.suppress(Exception):
            await asyncio.shield(proc.wait())
        raise
    if code != 0:
        details = "\n".join(tail) or "(no output)"
        raise DownloadFailed(f"the browser download failed (exit code {code}):\n{details}")
    return target
