"""Opening and closing a browser profile (providers/web/launch.py) leaves nothing running: not a
Playwright driver after a launch that failed, not a browser whose graceful close hung and whose
process id was never learnt. Real Playwright drivers, real Chromium."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from media_assistant.providers.web.adapter import SiteAdapter, load_adapter
from media_assistant.providers.web.browser import WebDriver
from media_assistant.providers.web.executable import BrowserChoice, resolve_browser
from media_assistant.providers.web.launch import CLOSE_BOUND_S, open_profile
from media_assistant.providers.web.processes import browser_processes
from media_assistant.providers.web.signin import check_login
from tests.integration.test_web_lane import CHROMIUM

pytestmark = pytest.mark.chromium


def sim_adapter(tmp_path: Path) -> SiteAdapter:
    return load_adapter(site="sim", site_file=None, user_dir=tmp_path / "sites")


def drivers() -> list[psutil.Process]:
    """Playwright drivers (Node.js) started by this test process."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if any("run-driver" in arg for arg in proc.cmdline()):
                found.append(proc)
        except psutil.Error:
            continue
    return found


async def test_a_launch_that_fails_leaves_no_driver_behind(tmp_path: Path) -> None:
    """Before: ``accounts check`` / *Log in* with a browser that cannot start left its Playwright
    driver (a Node.js process) running until the app ended."""
    before = {p.pid for p in drivers()}
    missing = BrowserChoice("/nonexistent/chromium", None, "a browser that is not there")
    with pytest.raises(Exception, match="nonexistent"):
        async with open_profile(tmp_path / "profile", missing, headless=True):
            raise AssertionError("launched")
    with pytest.raises(Exception, match="nonexistent"):
        await check_login(tmp_path / "profile", missing, sim_adapter(tmp_path), None)
    deadline = time.monotonic() + 5
    while {p.pid for p in drivers()} - before:
        assert time.monotonic() < deadline, "a Playwright driver was left running"
        await asyncio.sleep(0.05)


async def test_a_browser_whose_close_hangs_is_killed_without_its_pid(tmp_path: Path) -> None:
    """Before: a browser whose graceful close hung was killed only when its main process id was
    known (it is not, when the process scan missed it); its whole tree stayed."""
    profile = tmp_path / "profiles" / "web-1"
    driver = WebDriver(executable=CHROMIUM, headless=True, recycle_after=10)
    driver.start()
    try:
        browser = driver.account("web-1", profile, sim_adapter(tmp_path), None)

        async def launch() -> None:
            await browser._launch(resolve_browser(CHROMIUM), True)

        await driver.service.call(launch())
        procs = browser_processes(profile)
        assert procs
        main = next(p for p in procs if not any(a.startswith("--type=") for a in p.cmdline()))
        os.kill(main.pid, signal.SIGSTOP)  # it will not answer the close
        browser.pid = None  # as when the scan did not find it
        began = time.monotonic()
        await driver.service.call(browser.close())
        assert time.monotonic() - began < CLOSE_BOUND_S
        _, alive = psutil.wait_procs(procs, timeout=5)
        assert not alive, [p.pid for p in alive]
    finally:
        await driver.aclose()
    assert browser_processes(profile) == []
