"""Opening an account's browser profile, and closing it within a bound.

One way for everyone who opens a profile — the web provider's warm browser, signing in, the
login check, ``sites probe`` — so they launch the same browser the same way (the profile folder
0700, over Playwright's pipe, never a debugging port) and none of them can leave a browser or a
Playwright driver running behind it: closing is graceful for :data:`CLOSE_GRACE_S`, then every
process on the profile is killed with its tree — found by the profile folder on its command
line, so also when the browser's PID was never learnt — and the driver gets
:data:`DRIVER_STOP_S` to stop before its process is killed too. A launch that fails stops the
driver it started.

A browser window the operator did not ask for never takes the screen or the keyboard (issue 26):
shown (``[browser] headless = false``), a web account's browser opens minimised — Chromium's
``--start-minimized`` where the platform honours it, and the DevTools protocol's
``Browser.setWindowBounds`` (``windowState: minimized``) right after the launch, before any page
loads — and sized to fit the screen (:func:`set_screen`: the app's screen; the page takes the
window's size instead of a fixed 1280×900 viewport, which made a 1288×1031 window on a 768-pixel
screen). Playwright's own launch flags keep a minimised page running at full speed
(no background throttling). Only a window the operator asked for — *Log in*, ``sites probe
--show`` — opens ``foreground``: normal and brought to the front.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
from playwright.async_api import BrowserContext, Playwright, async_playwright

from media_assistant.providers.proxy import ProxyRoute, browser_args, playwright_proxy
from media_assistant.providers.web.executable import BrowserChoice
from media_assistant.providers.web.processes import browser_processes, stop_process_tree

log = logging.getLogger(__name__)

CLOSE_GRACE_S = 3.0  # a browser that has not closed by then is killed with its process tree
DRIVER_STOP_S = 3.0  # a Playwright driver that has not stopped by then is killed
KILL_GRACE_S = 1.0  # SIGTERM, then this long, then SIGKILL
# The longest a close can take: graceful close, the wait for its processes, the kill.
CLOSE_BOUND_S = CLOSE_GRACE_S * 2 + KILL_GRACE_S * 2
LAUNCH_ARGS = ("--no-first-run", "--no-default-browser-check", "--disable-sync")
VIEWPORT = {"width": 1280, "height": 900}  # headless pages (no window to size them)
WINDOW_MAX = (1280, 900)  # a shown browser window at most, and at most this share of the screen:
SCREEN_SHARE = 0.9
_screen: list[tuple[int, int]] = []  # the available screen area the app told us (set_screen)


def set_screen(width: int, height: int) -> None:
    """The screen area a browser window must fit in (the app tells it from Qt's screen)."""
    _screen[:] = [(width, height)]


def window_size() -> tuple[int, int]:
    """The outer size of a shown browser window: within the screen, at most WINDOW_MAX."""
    width, height = _screen[0] if _screen else (1366, 728)  # else: the smallest laptop's
    return (
        min(WINDOW_MAX[0], int(width * SCREEN_SHARE)),
        min(WINDOW_MAX[1], int(height * SCREEN_SHARE)),
    )


def prepare_profile(profile: Path) -> None:
    profile.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(OSError):  # made by an older version, or by hand
        os.chmod(profile, 0o700)


async def launch_profile(
    pw: Playwright,
    profile: Path,
    choice: BrowserChoice,
    *,
    headless: bool,
    foreground: bool = False,
    proxy: ProxyRoute | None = None,
) -> BrowserContext:
    """The profile's browser, launched on ``pw`` (a persistent context), through the
    account's ``proxy`` (providers/proxy.py: its password goes over Playwright's pipe, never
    on the browser's command line). Shown, it opens minimised within the screen, unless
    ``foreground`` (the operator asked to see it)."""
    prepare_profile(profile)
    args = [*LAUNCH_ARGS, *browser_args(proxy)]
    if headless:
        return await pw.chromium.launch_persistent_context(
            user_data_dir=str(profile),
            executable_path=choice.executable_path,
            channel=choice.channel,
            headless=True,
            viewport=VIEWPORT,  # type: ignore[arg-type]
            args=args,
            proxy=playwright_proxy(proxy),  # type: ignore[arg-type]
        )
    width, height = window_size()
    args.append(f"--window-size={width},{height}")
    if not foreground:
        args.append("--start-minimized")
    context = await pw.chromium.launch_persistent_context(
        user_data_dir=str(profile),
        executable_path=choice.executable_path,
        channel=choice.channel,
        headless=False,
        no_viewport=True,  # the page takes the window's size, which fits the screen
        args=args,
        proxy=playwright_proxy(proxy),  # type: ignore[arg-type]
    )
    try:
        await place_window(context, foreground=foreground)
    except BaseException:
        with contextlib.suppress(Exception):
            await context.close()
        raise
    return context


async def place_window(context: BrowserContext, *, foreground: bool) -> str | None:
    """Minimise the browser's window (or, ``foreground``, bring it to the front); returns the
    window's state as the browser reports it (None where it cannot say)."""
    page = context.pages[0] if context.pages else await context.new_page()
    if foreground:
        await page.bring_to_front()
    try:
        cdp = await context.new_cdp_session(page)
        try:
            window = await cdp.send("Browser.getWindowForTarget")
            if not foreground:
                await cdp.send(
                    "Browser.setWindowBounds",
                    {"windowId": window["windowId"], "bounds": {"windowState": "minimized"}},
                )
            bounds = await cdp.send("Browser.getWindowBounds", {"windowId": window["windowId"]})
            return str(bounds["bounds"].get("windowState"))
        finally:
            with contextlib.suppress(Exception):
                await cdp.detach()
    except Exception as exc:  # a browser without the protocol's window domain: it stays shown
        log.warning("could not minimise the browser window of %s: %s", context, exc)
        return None


async def close_profile(
    context: BrowserContext | None, profile: Path, pid: int | None = None
) -> None:
    """Close the profile's browser: gracefully, then whatever still runs on the profile is
    killed with its tree. Ends within :data:`CLOSE_BOUND_S`, also when cancelled meanwhile
    (the kill is not left out)."""
    closed = context is None
    if context is not None:
        try:
            await asyncio.wait_for(context.close(), CLOSE_GRACE_S)
            closed = True
        except Exception:  # hung or already dead: the kill below settles it
            log.debug("graceful close of %s failed", profile, exc_info=True)
        except asyncio.CancelledError:
            await asyncio.to_thread(kill_profile_processes, profile, pid, 0.0)
            raise
    # A browser that closed gracefully exits on its own in a moment; one that did not is
    # killed at once.
    await asyncio.shield(
        asyncio.to_thread(kill_profile_processes, profile, pid, CLOSE_GRACE_S if closed else 0.0)
    )


def kill_profile_processes(profile: Path, pid: int | None = None, wait_s: float = 0.0) -> None:
    """Wait up to ``wait_s`` for the processes on ``profile`` to end, then kill the rest with
    their trees (and ``pid``'s, if it still runs)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if not browser_processes(profile):
            return
        time.sleep(0.1)
    for proc in browser_processes(profile):
        stop_process_tree(proc, grace_s=KILL_GRACE_S)
    if pid is not None:
        with contextlib.suppress(psutil.Error):
            stop_process_tree(psutil.Process(pid), grace_s=KILL_GRACE_S)


async def start_driver() -> tuple[Any, Playwright]:
    """Playwright's driver (a Node.js process of its own): (its manager, the API)."""
    manager = async_playwright()
    return manager, await manager.start()


async def stop_driver(manager: Any, pw: Playwright | None) -> None:
    """Stop the driver within :data:`DRIVER_STOP_S`, else kill its process."""
    if pw is None:
        return
    try:
        await asyncio.wait_for(pw.stop(), DRIVER_STOP_S)
        return
    except Exception:
        log.warning("the browser driver did not stop within %.0f s; killed", DRIVER_STOP_S)
    # The driver's process (Playwright keeps it on its pipe transport): not public, so looked
    # up with care; a driver we cannot find was not started by us.
    proc = getattr(getattr(getattr(manager, "_client", None), "_transport", None), "_proc", None)
    if proc is not None and proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, psutil.Error):
            await asyncio.to_thread(stop_process_tree, psutil.Process(proc.pid), grace_s=0.5)


@contextlib.asynccontextmanager
async def open_profile(
    profile: Path,
    choice: BrowserChoice,
    *,
    headless: bool,
    foreground: bool = False,
    proxy: ProxyRoute | None = None,
) -> AsyncIterator[BrowserContext]:
    """A driver and the profile's browser for one job (signing in, a check, a probe); both
    are gone when it ends, however it ends. ``foreground``: see :func:`launch_profile`."""
    manager, pw = await start_driver()
    try:
        try:
            context = await launch_profile(
                pw, profile, choice, headless=headless, foreground=foreground, proxy=proxy
            )
        except BaseException:  # a browser that started and then failed is not left running
            await asyncio.shield(asyncio.to_thread(kill_profile_processes, profile))
            raise
        try:
            yield context
        finally:
            await close_profile(context, profile)
    finally:
        await stop_driver(manager, pw)
