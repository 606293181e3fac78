"""The frozen app's on-demand Chromium download: the progress dialog over a stand-in for
Playwright's installer (this machine has no internet), the installed browser then found by
``resolve_browser``, a failure shown with the installer's words, and Cancel stopping it."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from PySide6.QtWidgets import QApplication, QPushButton

from media_assistant.gui.accounts.browser_download import BrowserDownloadDialog
from media_assistant.providers.web.executable import BrowserSearch, resolve_browser

# Prints what Playwright's installer prints when stdout is not a terminal, then unpacks a
# "browser" where Playwright would (PLAYWRIGHT_BROWSERS_PATH/chromium-<rev>/...).
FAKE_INSTALLER = r"""
import os, sys, time
from pathlib import Path
assert sys.argv[1:] == ["install", "--no-shell", "chromium"], sys.argv
mode = os.environ.get("FAKE_MODE", "ok")
NAME = "Chrome for Testing 159.0.8154.6 (playwright chromium v1255)"
print(f"Downloading {NAME} from https://x/c.zip", flush=True)
for pct in range(0, 101, 10):
    bar = "\u25a0" * (pct * 8 // 10)
    print(f"|{bar:<80}| {pct:3d}% of 170.3 MiB", flush=True)
    time.sleep(30 if mode == "slow" else 0.01)
    if mode == "fail" and pct == 30:
        print("Error: getaddrinfo ENOTFOUND cdn.example", flush=True)
        sys.exit(1)
binary = Path(os.environ["PLAYWRIGHT_BROWSERS_PATH"]) / "chromium-1255/chrome-linux64/chrome"
binary.parent.mkdir(parents=True, exist_ok=True)
binary.write_text("#!/bin/sh\nexit 0\n")
binary.chmod(0o755)
print(f"{NAME} downloaded to {binary.parent.parent}", flush=True)
"""


@pytest.fixture(autouse=True)
def keep_running(qapp: QApplication) -> Iterator[None]:
    """As in the app: closing the last window (this dialog) must not quit the loop."""
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(True)


def installer(tmp_path: Path) -> tuple[str, ...]:
    script = tmp_path / "fake_installer.py"
    script.write_text(FAKE_INSTALLER, encoding="utf-8")
    return (sys.executable, str(script))


def frozen_search(browsers: Path) -> BrowserSearch:
    return BrowserSearch(
        platform="linux",
        playwright_dir=browsers,
        playwright_revision="1255",
        channels=(),
        system=(),
        path=None,
        frozen=True,
    )


async def wait_for(predicate: object, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():  # type: ignore[operator]
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_download_shows_progress_and_the_browser_is_then_found(
    tmp_path: Path, qtbot: Any
) -> None:
    browsers = tmp_path / "browsers"
    dialog = BrowserDownloadDialog(browsers_dir=browsers, command=installer(tmp_path))
    qtbot.addWidget(dialog)  # deleted on the GUI thread at the end, never by a stray GC
    seen: list[int] = []
    done: list[str] = []
    dialog.downloaded.connect(done.append)
    original = dialog.setValue
    dialog.setValue = lambda v: (seen.append(v), original(v))  # type: ignore[method-assign]

    dialog.start()
    await wait_for(lambda: done)

    assert done == [str(browsers)]
    assert seen[-1] == 100 and 50 in seen
    assert "playwright chromium v1255" in dialog.labelText()
    choice = resolve_browser(None, frozen_search(browsers))
    assert choice.executable_path == str(browsers / "chromium-1255/chrome-linux64/chrome")


async def test_a_failed_download_reports_the_installers_words(tmp_path: Path, qtbot: Any) -> None:
    import os

    os.environ["FAKE_MODE"] = "fail"
    try:
        dialog = BrowserDownloadDialog(browsers_dir=tmp_path / "b", command=installer(tmp_path))
        qtbot.addWidget(dialog)
        failures: list[str] = []
        dialog.failed.connect(failures.append)
        dialog.start()
        await wait_for(lambda: failures)
    finally:
        del os.environ["FAKE_MODE"]
    assert "ENOTFOUND" in failures[0] and "exit code 1" in failures[0]
    assert not dialog.isVisible()


async def test_cancel_stops_the_installer(tmp_path: Path, qtbot: Any) -> None:
    import os

    os.environ["FAKE_MODE"] = "slow"
    try:
        dialog = BrowserDownloadDialog(browsers_dir=tmp_path / "b", command=installer(tmp_path))
        qtbot.addWidget(dialog)
        dialog.start()
        me, script = psutil.Process(), installer(tmp_path)[-1]

        def installers() -> list[psutil.Process]:  # not another test's child still ending
            found = []
            for p in me.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    if script in p.cmdline():
                        found.append(p)
            return found

        await wait_for(installers)
        child = installers()[0]
        await wait_for(lambda: dialog.value() >= 0 and "%" in dialog.labelText())
        cancel = dialog.findChild(QPushButton)
        assert cancel is not None and cancel.text() == "Cancel"
        cancel.click()  # as the operator does (QProgressDialog.cancel() alone emits nothing)
        await wait_for(lambda: not dialog.running)
    finally:
        del os.environ["FAKE_MODE"]
    assert not child.is_running() or child.status() == psutil.STATUS_ZOMBIE
    assert not (tmp_path / "b" / "chromium-1255").exists()
