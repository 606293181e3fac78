"""Signing an account's browser profile in, and checking that it still is.

``accounts login ID`` opens the profile in a visible window on the site so the operator can sign
in however the site wants (QR code, SMS, password); ``accounts check ID`` loads a new chat
headless and reads the adapter's login markers. Both run on the caller's loop (CLI commands own
theirs) and must not run while a scheduler drives the same profile: the caller holds its lock.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import BrowserContext, async_playwright

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.providers.web.adapter import SiteAdapter
from media_assistant.providers.web.executable import BrowserChoice
from media_assistant.providers.web.page import ChatPage


@dataclass(frozen=True, slots=True)
class LoginState:
    logged_in: bool
    detail: str


async def _open(
    profile: Path, choice: BrowserChoice, *, headless: bool
) -> tuple[object, BrowserContext]:
    profile.mkdir(mode=0o700, parents=True, exist_ok=True)
    manager = async_playwright()
    pw = await manager.start()
    context = await pw.chromium.launch_persistent_context(
        user_data_dir=str(profile),
        executable_path=choice.executable_path,
        channel=choice.channel,
        headless=headless,
        viewport={"width": 1280, "height": 900},
        args=["--no-first-run", "--no-default-browser-check", "--disable-sync"],
    )
    return pw, context


async def _close(pw: object, context: BrowserContext) -> None:
    with contextlib.suppress(Exception):
        await context.close()
    with contextlib.suppress(Exception):
        await pw.stop()  # type: ignore[attr-defined]


async def check_login(
    profile: Path, choice: BrowserChoice, adapter: SiteAdapter, origin: str | None
) -> LoginState:
    pw, context = await _open(profile, choice, headless=True)
    try:
        page = context.pages[0] if context.pages else await context.new_page()
        chat = ChatPage(page, adapter, origin)
        try:
            await chat.open_new_chat()
        except ProviderError as exc:
            if exc.kind in (ErrorKind.LOGIN_REQUIRED, ErrorKind.CAPTCHA):
                return LoginState(False, exc.message)
            return LoginState(False, f"cannot tell: {exc.message}")
        return LoginState(True, f"composer present on {page.url}")
    finally:
        await _close(pw, context)


async def login_interactive(
    profile: Path,
    choice: BrowserChoice,
    adapter: SiteAdapter,
    origin: str | None,
    *,
    timeout_s: float = 900.0,
) -> LoginState:
    """A visible window on the site; returns once the page shows a composer and no login
    marker (signed in), or when the operator closes the window, or after ``timeout_s``."""
    pw, context = await _open(profile, choice, headless=False)
    closed = asyncio.Event()
    context.on("close", lambda _c: closed.set())
    try:
        page = context.pages[0] if context.pages else await context.new_page()
        page.on("close", lambda _p: closed.set())
        start = adapter.url(adapter.login_url or adapter.new_chat_url, origin)
        await page.goto(start, wait_until="domcontentloaded")
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
                    return LoginState(True, f"signed in ({page.url})")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(closed.wait(), 1.0)
        return LoginState(
            False,
            "window closed before the sign-in finished"
            if closed.is_set()
            else f"no sign-in within {timeout_s:.0f} s",
        )
    finally:
        await _close(pw, context)


async def visit(profile: Path, choice: BrowserChoice, url: str) -> None:
    """Open ``url`` once in the profile (the simulator's autologin link, for demos and tests)."""
    pw, context = await _open(profile, choice, headless=True)
    try:
        page = context.pages[0] if context.pages else await context.new_page()
        await page.goto(url, wait_until="domcontentloaded")
    finally:
        await _close(pw, context)
