"""New chat by clicking the site's control — one click, or several ([new_chat] steps: the
control, then a confirm dialog's button) — and seeing an empty chat, all within
``timing.new_chat_timeout_s``. Much faster than a page load on a heavy UI (~0.4 s against
2-4 s); ``ChatPage.open_new_chat`` loads ``new_chat_url`` when this gives no empty chat.
"""

from __future__ import annotations

import time
from typing import Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from media_assistant.providers.web.adapter import SiteAdapter
from media_assistant.providers.web.snapshot import Snapshot


class ChatPage(Protocol):
    """What the clicks need of the chat page (providers/web/page.py ``ChatPage``, which calls
    them): its page, adapter and composer, and a poll."""

    page: Page
    adapter: SiteAdapter
    composer_by_locator: bool

    def composer(self) -> Locator: ...

    async def first_present(self, selectors: list[str]) -> Locator | None: ...

    async def snapshot(
        self, *, mark: bool = False, wait_ms: int = 0, after: Snapshot | None = None
    ) -> Snapshot: ...


class _NewChatAbandoned(Exception):  # noqa: N818 - a reason to stop clicking, not a failure
    """A login or captcha marker showed while clicking New chat: the page load checks it."""


async def click_new_chat(chat: ChatPage) -> Snapshot | None:
    """Click through the New chat steps (one click, or the control and then a confirm
    dialog's button); the (marking) snapshot of the empty chat they show, or None when a
    step finds nothing to click or no empty chat shows within ``new_chat_timeout_s``, or a
    login/captcha marker comes up (the page load then checks those properly)."""
    steps = chat.adapter.new_chat_steps
    deadline = time.monotonic() + chat.adapter.timing.new_chat_timeout_s
    try:
        control = await chat.first_present(steps[0])
        if control is None:
            return None
        for i, step in enumerate(steps):
            if i:
                # The next control (a dialog's Confirm) shows a moment after the click
                # before it; a chat that is already empty has nothing to confirm.
                found = await _next_step(chat, step, deadline)
                if isinstance(found, Snapshot) or found is None:
                    return found
                control = found
            await control.click(timeout=max(0.1, deadline - time.monotonic()) * 1000)
        while time.monotonic() < deadline:
            snap = await _empty_chat(chat)
            if snap is not None:
                return snap
            await chat.page.wait_for_timeout(50)
    except (PlaywrightTimeout, PlaywrightError, _NewChatAbandoned):
        return None
    return None


async def _next_step(chat: ChatPage, step: list[str], deadline: float) -> Locator | Snapshot | None:
    """A visible control of ``step``; or the empty chat, if the page shows one before
    that; or None at the deadline."""
    while True:
        for sel in step:
            try:
                found = chat.page.locator(sel).filter(visible=True)
                if await found.count():
                    return found.first
            except PlaywrightError:  # navigating: the old page's context is gone
                break
        snap = await _empty_chat(chat)
        if snap is not None:
            return snap
        if time.monotonic() >= deadline:
            return None
        await chat.page.wait_for_timeout(50)


async def _empty_chat(chat: ChatPage) -> Snapshot | None:
    """The (marking) snapshot of the page if it shows an empty chat — no answers, no user
    messages, nothing generating, a composer — else None. Raises _NewChatAbandoned on a
    login or captcha marker."""
    try:
        snap = await chat.snapshot(mark=True)
        if snap.markers.get("login_lost") or snap.markers.get("captcha"):
            raise _NewChatAbandoned
        if snap.answers or snap.users or snap.generating:
            return None
        if snap.composer:
            return snap
        if chat.composer_by_locator:
            composer = chat.composer()
            if await composer.count() and await composer.is_visible():
                return snap
    except PlaywrightError:  # the control navigated: the old page's context is gone
        pass
    return None
