"""One persistent Chromium per web account, owned by the browser driver's loop.

The profile is ``<data>/profiles/<account-id>`` (mode 0700), driven over Playwright's pipe —
never a TCP remote-debugging port, which any local process could use to take over a logged-in
session. The browser stays warm between tasks (a new chat per task) and is recycled after N
tasks or any driver error. Closing is graceful first; whatever has not exited after 3 s is killed
with its whole process tree (providers/web/launch.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil
from playwright.async_api import BrowserContext, Page, Playwright

from media_assistant.core.model.provider import ShownBrowser, ShowOutcome
from media_assistant.providers.proxy import ProxyRoute
from media_assistant.providers.web.adapter import SiteAdapter
from media_assistant.providers.web.executable import BrowserChoice, resolve_browser
from media_assistant.providers.web.launch import (
    CLOSE_BOUND_S,
    DRIVER_STOP_S,
    close_profile,
    kill_profile_processes,
    launch_profile,
    place_window,
    start_driver,
    stop_driver,
)
from media_assistant.providers.web.page import ChatPage
from media_assistant.providers.web.processes import (
    browser_processes,
    main_process,
)
from media_assistant.providers.web.selfcheck import RecordedBrowser, SelfCheckReport, run_selfcheck
from media_assistant.providers.web.service import BrowserService

log = logging.getLogger(__name__)

# Closing every browser at once (launch.CLOSE_BOUND_S each, in parallel) and stopping the
# driver; then the driver's thread gets THREAD_STOP_S to end.
SHUTDOWN_BOUND_S = CLOSE_BOUND_S + DRIVER_STOP_S + 1.0
THREAD_STOP_S = 2.0


@dataclass(frozen=True, slots=True)
class LaunchInfo:
    pid: int | None
    started_at: float | None
    launched: bool  # False: the warm browser was reused
    description: str


class AccountBrowser:
    """Lives on the driver loop; every method is awaited through ``WebDriver.service.call``."""

    def __init__(
        self,
        driver: WebDriver,
        account_id: str,
        profile_dir: Path,
        adapter: SiteAdapter,
        origin: str | None,
    ) -> None:
        self.driver = driver
        self.account_id = account_id
        self.profile_dir = profile_dir
        self.adapter = adapter
        self.origin = origin
        self.context: BrowserContext | None = None
        self.chat: ChatPage | None = None
        self.pid: int | None = None
        self.started_at: float | None = None
        self.tasks_done = 0
        self._closed_by_itself = False
        # The account's proxy (providers/proxy.py) as its provider has it, and the one the
        # running browser was launched with: a change relaunches it.
        self.proxy: ProxyRoute | None = None
        self._launched_proxy: ProxyRoute | None = None
        self.headless: bool | None = None  # how the running browser was launched
        # Shown for a person (*Show browser*): minimised again once the page is past.
        self.shown_for_person = False

    @property
    def alive(self) -> bool:
        if self.context is None or self._closed_by_itself:
            return False
        return self.pid is None or psutil.pid_exists(self.pid)

    async def selfcheck(self, recorded: RecordedBrowser | None) -> SelfCheckReport:
        in_use = {self.account_id: self.pid} if self.alive and self.pid else None
        return await asyncio.to_thread(
            run_selfcheck,
            {self.account_id: self.profile_dir},
            {self.account_id: recorded} if recorded else None,
            in_use=in_use,
        )

    async def ensure(
        self,
        *,
        headless: bool | None = None,
        adapter: SiteAdapter | None = None,
        origin: str | None = None,
        proxy: ProxyRoute | None = None,
    ) -> LaunchInfo:
        """Reuse the warm browser, or (re)launch it. ``adapter`` / ``origin`` / ``proxy``:
        those of the provider asking (a rebuilt provider brings a fixed adapter: the page is
        driven with it from now on; a new proxy relaunches the browser)."""
        if adapter is not None and (adapter is not self.adapter or origin != self.origin):
            self.adapter, self.origin = adapter, origin
            self.chat = None  # rebuilt on the same tab with the new adapter
        if adapter is not None:
            self.proxy = proxy
        fresh = self.proxy == self._launched_proxy
        if self.alive and fresh and self.tasks_done < self.driver.recycle_after:
            await self._ensure_page()
            return LaunchInfo(self.pid, self.started_at, False, "warm")
        if self.context is not None:
            await self.close()
        choice = self.driver.browser_choice()
        await self._launch(choice, self.driver.headless if headless is None else headless)
        return LaunchInfo(self.pid, self.started_at, True, choice.description)

    async def _launch(
        self, choice: BrowserChoice, headless: bool, *, foreground: bool = False
    ) -> None:
        pw = await self.driver.playwright()
        try:
            self.context = await launch_profile(
                pw,
                self.profile_dir,
                choice,
                headless=headless,
                foreground=foreground,
                proxy=self.proxy,
            )
            self._launched_proxy = self.proxy
            self.headless = headless
        except BaseException:  # a browser that started and then failed is not left running
            await asyncio.shield(asyncio.to_thread(kill_profile_processes, self.profile_dir))
            raise
        self._closed_by_itself = False
        self.context.on("close", lambda _ctx: self._mark_closed())
        self.tasks_done = 0
        self.pid, self.started_at = await asyncio.to_thread(self._find_main)
        await self._ensure_page()

    def _mark_closed(self) -> None:
        self._closed_by_itself = True

    def _find_main(self) -> tuple[int | None, float | None]:
        """The browser's main process and its creation time (what the self-check compares)."""
        main = main_process(browser_processes(self.profile_dir))
        if main is None:
            return None, None
        try:
            return main.pid, main.create_time()
        except psutil.Error:
            return main.pid, None

    async def _ensure_page(self) -> None:
        assert self.context is not None
        page: Page | None = None
        if self.chat is not None and not self.chat.page.is_closed():
            page = self.chat.page
        else:
            pages = [p for p in self.context.pages if not p.is_closed()]
            page = pages[0] if pages else await self.context.new_page()
        for extra in self.context.pages[1:]:  # one tab per account: stray tabs could send too
            if extra is not page:
                with contextlib.suppress(Exception):
                    await extra.close()
        self.chat = ChatPage(page, self.adapter, self.origin)

    async def challenge_gone(self) -> bool:
        """The page is past a verification: no challenge or sign-in marker, the composer
        shows. A closed browser or a page in the middle of navigating: not yet."""
        if not self.alive or self.chat is None or self.chat.page.is_closed():
            return False
        try:
            snap = await self.chat.snapshot()
        except Exception:  # navigating (the challenge let the page through): look again
            return False
        gone = bool(
            snap.composer and not snap.markers.get("captcha") and not snap.markers.get("login_lost")
        )
        if gone and self.shown_for_person and self.context is not None:
            # The person is done: the window goes back out of their way (it stays open — a
            # site's verification cookie belongs to the browser it was passed in).
            self.shown_for_person = False
            with contextlib.suppress(Exception):
                await place_window(self.context, foreground=False)
        return gone

    async def show(self, proxy: ProxyRoute | None) -> ShownBrowser:
        """*Show browser* for a person to pass a verification page: a shown browser's window
        restored and brought to the front; a browser without a window (headless) closed and
        the profile reopened in one — through the account's proxy — on the page it was on
        (the site's chat page when there was none). The browser then serves the account's
        next tasks as it is, until it is recycled."""
        self.proxy = proxy
        if self.alive and self.headless is False and self.context is not None:
            await self._ensure_page()
            await place_window(self.context, foreground=True)
            self.shown_for_person = True
            return ShownBrowser(ShowOutcome.BROUGHT_FORWARD)
        page = self.chat.page if self.chat is not None else None
        url = page.url if page is not None and not page.is_closed() else ""
        if not url.startswith(("http://", "https://")):
            url = self.adapter.url(self.adapter.new_chat_url, self.origin)
        if self.context is not None or self.pid is not None:
            await self.close()
        choice = self.driver.browser_choice()
        try:
            await self._launch(choice, False, foreground=True)
        except Exception:  # no window possible here (no display): the page as it was, hidden
            with contextlib.suppress(Exception):
                await self._launch(choice, True)
                assert self.chat is not None
                await self.chat.page.goto(url, wait_until="domcontentloaded")
            raise
        assert self.chat is not None
        self.shown_for_person = True
        try:
            await self.chat.page.goto(url, wait_until="domcontentloaded")
        except Exception as exc:  # the window is there: what the page did is the person's to see
            text = str(exc).strip()
            return ShownBrowser(ShowOutcome.REOPENED, text.splitlines()[0] if text else url)
        return ShownBrowser(ShowOutcome.REOPENED, url)

    async def bring_forward(self) -> None:
        """The page to the front of its window: a person has something to do there."""
        if self.alive and self.chat is not None and not self.chat.page.is_closed():
            with contextlib.suppress(Exception):
                await self.chat.page.bring_to_front()

    async def close(self) -> None:
        """Graceful, then the whole process tree is killed if it lingers (launch.py)."""
        context, pid = self.context, self.pid
        self.context, self.chat, self.pid, self.headless = None, None, None, None
        self.shown_for_person = False
        if context is not None or pid is not None:
            await close_profile(context, self.profile_dir, pid)


class WebDriver:
    """The browser side of every web account: one Playwright on one dedicated thread."""

    def __init__(
        self,
        *,
        executable: str | None,
        headless: bool,
        recycle_after: int,
        resolve: Callable[[str | None], BrowserChoice] = resolve_browser,
    ) -> None:
        self.service = BrowserService()
        self.executable = executable
        self.headless = headless
        self.recycle_after = recycle_after
        self._resolve = resolve
        self._choice: BrowserChoice | None = None
        self._pw: Playwright | None = None
        self._pw_manager: object | None = None
        self.browsers: dict[str, AccountBrowser] = {}

    def browser_choice(self) -> BrowserChoice:
        if self._choice is None:
            self._choice = self._resolve(self.executable)
        return self._choice

    async def playwright(self) -> Playwright:
        """Started on first use, on the driver loop."""
        if self._pw is None:
            self._pw_manager, self._pw = await start_driver()
        return self._pw

    def account(
        self, account_id: str, profile_dir: Path, adapter: SiteAdapter, origin: str | None
    ) -> AccountBrowser:
        browser = self.browsers.get(account_id)
        if browser is None:
            browser = AccountBrowser(self, account_id, profile_dir, adapter, origin)
            self.browsers[account_id] = browser
        return browser

    def start(self) -> None:
        self.service.start()

    async def _shutdown(self) -> None:
        await asyncio.gather(*(b.close() for b in self.browsers.values()), return_exceptions=True)
        pw, self._pw = self._pw, None
        await stop_driver(self._pw_manager, pw)

    async def aclose(self) -> None:
        """Every browser closed, the driver stopped and its thread ended, within
        :data:`SHUTDOWN_BOUND_S` + :data:`THREAD_STOP_S`; a driver loop that does not answer (a
        call stuck on it) is left to its daemon thread, and the browsers on our profiles are
        killed from here."""
        if not self.service.running:
            return
        try:
            await asyncio.wait_for(self.service.call(self._shutdown()), SHUTDOWN_BOUND_S)
        except Exception:
            log.error("the browser driver did not shut down within %.0f s", SHUTDOWN_BOUND_S)
            for browser in self.browsers.values():
                await asyncio.to_thread(kill_profile_processes, browser.profile_dir)
        await asyncio.to_thread(self.service.stop, THREAD_STOP_S)
