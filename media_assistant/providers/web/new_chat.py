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
        self,
        *,
        mark: bool = False,
        wait_ms: int = 0,
        after: Snapshot | None = None,
        empty: bool = False,
    ) -> Snapshot: ...


# A dispatched click on a dialog's button: the dialog must be gone this soon, else the button
# is clicked the ordinary way (Playwright waits for it to hold still, and for the hit test).
CONFIRM_GONE_S = 0.5
# After the last click: one read waits in the page up to this long for the chat to empty.
EMPTY_WAIT_S = 1.0


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
        await control.click(timeout=max(0.1, deadline - time.monotonic()) * 1000)
        for step in steps[1:]:
            # The next control (a dialog's Confirm) shows a moment after the click before
            # it; a chat that is already empty has nothing to confirm.
            found = await _next_step(chat, step, deadline)
            if isinstance(found, Snapshot) or found is None:
                return found
            await _click_shown(found, deadline)
        while time.monotonic() < deadline:
            # The read waits in the page until the chat is empty (the site's own New chat
            # takes ~0.4 s on a heavy UI): seen within a round trip, not a 50 ms poll.
            wait_ms = round(min(EMPTY_WAIT_S, max(0.0, deadline - time.monotonic())) * 1000)
            snap = await _empty_chat(chat, wait_ms)
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


async def _click_shown(control: Locator, deadline: float) -> None:
    """Click a control that has just shown (a dialog's Confirm) and see it go.

    Playwright's click waits until the element's box has held still for two animation frames:
    a dialog zooming in for 150 ms, as dialog libraries draw them, costs the whole animation
    (~270 ms with the round trips, B4c). A visible, enabled button does not need that: the
    click is dispatched on the element itself (no hit test, so a half-drawn overlay cannot take
    it), and the control must be gone — the dialog closed — within ``CONFIRM_GONE_S``. A page
    that ignores a dispatched click (a handler that wants trusted events) gets Playwright's
    full click after that."""
    timeout_ms = max(0.1, deadline - time.monotonic()) * 1000
    if await control.is_enabled():
        await control.dispatch_event("click", timeout=timeout_ms)
        gone_by = min(deadline, time.monotonic() + CONFIRM_GONE_S)
        while True:
            if not await control.is_visible():
                return
            if time.monotonic() >= gone_by:
                break
            await control.page.wait_for_timeout(25)
    await control.click(timeout=max(0.1, deadline - time.monotonic()) * 1000)


async def _empty_chat(chat: ChatPage, wait_ms: int = 0) -> Snapshot | None:
    """The (marking) snapshot of the page if it shows an empty chat — no answers, no user
    messages, nothing generating, a composer — else None; ``wait_ms``: the read first waits
    in the page up to that long for the chat to empty. Raises _NewChatAbandoned on a login
    or captcha marker."""
    try:
        snap = await chat.snapshot(mark=True, wait_ms=wait_ms, empty=True)
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
