"""Signing an account's browser profile in, and checking that it still is.

``accounts login ID`` (and *Log in* in the window) opens the profile in a visible window on the
site so the operator can sign in however the site wants (QR code, SMS, password); ``accounts
check ID`` loads a new chat headless and reads the adapter's login markers. Neither may run
while a scheduler drives the same profile: the caller holds its lock.

What came of it is a :class:`LoginOutcome`, not a yes/no: only *signed in* and *signed out*
(the site showed its sign-in) say anything about the account's login. A window closed early, a
sign-in that timed out or a site that could not be reached (no network, a DNS failure) leave
the account's login state as it was — a network problem is not a lost login. Messages are short
English lines (the window words the outcome itself): never Playwright's call log.

The window runs a sign-in on a thread and loop of its own (:func:`login_apart`): Playwright's
subprocesses cannot run on qasync's loop on Windows, and a sign-in can last 15 minutes, which
an app that is closing must not wait for — cancelled, it closes its browser within
:data:`STOP_BOUND_S` and its thread ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import urllib.parse
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from playwright.async_api import Error as PlaywrightError

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.providers.web.adapter import SiteAdapter
from media_assistant.providers.web.executable import BrowserChoice
from media_assistant.providers.web.launch import (
    CLOSE_BOUND_S,
    DRIVER_STOP_S,
    kill_profile_processes,
    open_profile,
)
from media_assistant.providers.web.page import ChatPage
from media_assistant.providers.web.service import BrowserService

LOGIN_TIMEOUT_S = 900.0
POLL_S = 0.5  # how often the sign-in window is looked at
# A cancelled sign-in: its browser closed and its driver stopped (launch.py's bounds), its
# thread ended.
STOP_BOUND_S = CLOSE_BOUND_S + DRIVER_STOP_S + 1.0
_NET_ERROR = re.compile(r"net::(ERR_[A-Z_]+)")


class LoginOutcome(StrEnum):
    SIGNED_IN = "signed_in"
    SIGNED_OUT = "signed_out"  # the site shows its sign-in (or a captcha)
    NOT_FINISHED = "not_finished"  # the window was closed before the sign-in finished
    TIMED_OUT = "timed_out"
    UNREACHABLE = "unreachable"  # the site's page could not be loaded
    UNKNOWN = "unknown"  # the check could not tell
    FAILED = "failed"  # no browser, a broken adapter: the detail says
    BUSY = "busy"  # the profile is still in use (a task runs on it)
    ALREADY_OPEN = "already_open"  # a sign-in window of this account is open already


@dataclass(frozen=True, slots=True)
class LoginState:
    outcome: LoginOutcome
    detail: str  # one English line for logs and the command line
    where: str = ""  # the page's address when signed in; the site's host when unreachable

    @property
    def logged_in(self) -> bool:
        return self.outcome is LoginOutcome.SIGNED_IN

    @property
    def says_logged_out(self) -> bool:
        """The site itself showed that the account is not signed in."""
        return self.outcome is LoginOutcome.SIGNED_OUT


def short_error(exc: BaseException) -> str:
    """An error's first line, without Playwright's call log."""
    text = str(exc).split("\nCall log:", 1)[0].strip()
    return (text.splitlines() or [type(exc).__name__])[0][:300]


def _unreachable(url: str, exc: BaseException) -> LoginState:
    host = urllib.parse.urlsplit(url).netloc or url
    found = _NET_ERROR.search(str(exc))
    why = found.group(1) if found else short_error(exc)
    return LoginState(LoginOutcome.UNREACHABLE, f"cannot reach {host} ({why})", host)


async def check_login(
    profile: Path, choice: BrowserChoice, adapter: SiteAdapter, origin: str | None
) -> LoginState:
    async with open_profile(profile, choice, headless=True) as context:
        page = context.pages[0] if context.pages else await context.new_page()
        chat = ChatPage(page, adapter, origin)
        try:
            await chat.open_new_chat()
        except ProviderError as exc:
            if exc.kind in (ErrorKind.LOGIN_REQUIRED, ErrorKind.CAPTCHA):
                return LoginState(LoginOutcome.SIGNED_OUT, exc.message)
            return LoginState(LoginOutcome.UNKNOWN, f"cannot tell: {exc.message}")
        except PlaywrightError as exc:
            return _unreachable(adapter.url(adapter.new_chat_url, origin), exc)
        return LoginState(LoginOutcome.SIGNED_IN, f"composer present on {page.url}", page.url)


async def login_interactive(
    profile: Path,
    choice: BrowserChoice,
    adapter: SiteAdapter,
    origin: str | None,
    *,
    timeout_s: float = LOGIN_TIMEOUT_S,
    headless: bool = False,
) -> LoginState:
    """A visible window on the site; returns once the page shows a composer and no login
    marker (signed in), or when the operator closes the window, or after ``timeout_s``.
    ``headless``: the same without a window (tests; a site that signs in by a link)."""
    # The one browser the operator asked to see: in front, not minimised.
    async with open_profile(profile, choice, headless=headless, foreground=True) as context:
        closed = asyncio.Event()
        context.on("close", lambda _c: closed.set())
        page = context.pages[0] if context.pages else await context.new_page()
        page.on("close", lambda _p: closed.set())
        start = adapter.url(adapter.login_url or adapter.new_chat_url, origin)
        try:
            await page.goto(start, wait_until="domcontentloaded")
        except PlaywrightError as exc:
            if closed.is_set():
                return _not_finished()
            return _unreachable(start, exc)
        chat = ChatPage(page, adapter, origin)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        composer = chat.composer()
        while not closed.is_set() and loop.time() < deadline:
            with contextlib.suppress(Exception):
                snap = await chat.snapshot()
                problem = snap.problem()
                if (problem is None or problem[0] not in ("login_lost", "captcha")) and (
                    await composer.count() and await composer.is_visible()
                ):
                    return LoginState(LoginOutcome.SIGNED_IN, f"signed in on {page.url}", page.url)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(closed.wait(), POLL_S)
        if closed.is_set():
            return _not_finished()
        return LoginState(LoginOutcome.TIMED_OUT, f"no sign-in within {timeout_s:.0f} s")


def _not_finished() -> LoginState:
    return LoginState(LoginOutcome.NOT_FINISHED, "window closed before the sign-in finished")


async def login_apart(
    profile: Path,
    choice: BrowserChoice,
    adapter: SiteAdapter,
    origin: str | None,
    *,
    timeout_s: float = LOGIN_TIMEOUT_S,
    headless: bool = False,
) -> LoginState:
    """:func:`login_interactive` on a thread and loop of its own, awaited from the caller's
    loop. Cancelling the caller stops it: the browser closes and the driver stops within
    :data:`STOP_BOUND_S` (whatever still runs on the profile then is killed), the thread
    ends, and the cancellation goes on."""
    service = BrowserService("sign-in")
    await asyncio.to_thread(service.start)
    finished = threading.Event()

    async def tracked() -> LoginState:
        try:
            return await login_interactive(
                profile, choice, adapter, origin, timeout_s=timeout_s, headless=headless
            )
        finally:
            finished.set()

    future = asyncio.run_coroutine_threadsafe(tracked(), service.loop)
    try:
        return await asyncio.shield(asyncio.wrap_future(future))
    except asyncio.CancelledError:
        future.cancel()  # the sign-in's own cleanup closes its browser and driver
        if not await asyncio.to_thread(finished.wait, STOP_BOUND_S):
            await asyncio.to_thread(kill_profile_processes, profile)
        raise
    finally:
        await asyncio.to_thread(service.stop, 2.0)


async def visit(profile: Path, choice: BrowserChoice, url: str) -> None:
    """Open ``url`` once in the profile (the simulator's autologin link, for demos and tests)."""
    async with open_profile(profile, choice, headless=True) as context:
        page = context.pages[0] if context.pages else await context.new_page()
        await page.goto(url, wait_until="domcontentloaded")
