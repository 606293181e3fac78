"""New chat as steps ([new_chat] steps), driven by ChatPage on the simulator's page in real
Chromium: through a confirm dialog, straight past it when the chat is already empty, and the
one-click form still working."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Page, async_playwright, expect

from media_assistant.assets import sites_dir
from media_assistant.providers.web.adapter import SiteAdapter, parse_adapter
from media_assistant.providers.web.page import ChatPage
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator

CHROMIUM = "/usr/lib/chromium/chromium"

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
]

SIM_TOML = (sites_dir() / "sim.toml").read_text(encoding="utf-8")
ONE_CLICK = next(line for line in SIM_TOML.splitlines() if line.startswith("new_chat = "))
STEPS = parse_adapter(
    SIM_TOML.replace(ONE_CLICK, "")
    + """
[new_chat]
steps = [['button[data-testid="new-chat"]'], ['.new-chat-dialog button:has-text("Confirm")']]
""",
    "steps",
)
DIALOG = ".new-chat-dialog"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def sim() -> AsyncIterator[ChatSiteSimulator]:
    simulator = ChatSiteSimulator(
        ChatSiteConfig(
            latency_s=(40, 40),
            time_scale=0.005,
            seed=5,
            new_chat_button=True,
            new_chat_s=0.3,
            new_chat_confirm=True,
        )
    )
    await simulator.start()
    yield simulator
    await simulator.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def page(sim: ChatSiteSimulator) -> AsyncIterator[Page]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = await browser.new_page()
        await page.goto(f"{sim.base_url}/_sim/autologin?user=nc")
        await expect(page).to_have_url(f"{sim.base_url}/chat")
        yield page
        await browser.close()


async def ask(chat: ChatPage, text: str) -> None:
    """One message answered on the page (its Copy button is the done marker)."""
    before = await chat.snapshot()
    await chat.type_prompt(text)
    await chat.send(before)
    await expect(
        chat.page.locator('.message[data-role="assistant"] .message-actions')
    ).to_have_count(before.answers + 1)


async def open_timed(chat: ChatPage) -> float:
    started = time.monotonic()
    snap = await chat.open_new_chat()
    took = time.monotonic() - started
    assert chat.used_new_chat_control and not chat.new_chat_fell_back
    assert (snap.answers, snap.users, snap.generating) == (0, 0, False)
    return took


async def test_steps_click_through_the_confirm_dialog(sim: ChatSiteSimulator, page: Page) -> None:
    chat = ChatPage(page, STEPS, sim.base_url)
    loads = sim.user_stats("nc")["page_loads"]
    await ask(chat, "first question")
    await page.locator('button[data-testid="new-chat"]').click()  # what a one-click adapter does
    await expect(page.locator(DIALOG)).to_be_visible()  # the dialog is real, and waits
    await page.locator(f"{DIALOG} .dialog-cancel").click()
    took = await open_timed(chat)
    await expect(page.locator(DIALOG)).to_have_count(0)
    # The button, the dialog (150 ms animation) and the site's 0.3 s: well within the timeout.
    assert took < STEPS.timing.new_chat_timeout_s
    assert sim.user_stats("nc")["page_loads"] == loads  # no page load


async def test_an_empty_chat_needs_no_confirming(sim: ChatSiteSimulator, page: Page) -> None:
    # The chat is empty: the site clears without asking; the step that waits for the dialog
    # sees the empty chat instead of waiting out new_chat_timeout_s.
    chat = ChatPage(page, STEPS, sim.base_url)
    await chat.open_new_chat()
    took = await open_timed(chat)
    assert took < STEPS.timing.new_chat_timeout_s / 2


async def test_the_one_click_form_is_still_a_list_of_fallbacks(
    sim: ChatSiteSimulator, page: Page
) -> None:
    one_click: SiteAdapter = parse_adapter(
        SIM_TOML.replace(
            ONE_CLICK, "new_chat = ['#no-such-control', 'button[data-testid=\"new-chat\"]']"
        ),
        "one-click",
    )
    assert one_click.new_chat_steps == [["#no-such-control", 'button[data-testid="new-chat"]']]
    chat = ChatPage(page, one_click, sim.base_url)
    await chat.open_new_chat()
    await open_timed(chat)  # an empty chat: no dialog, the first present fallback is clicked


async def _dialog_page(
    config: ChatSiteConfig, user: str
) -> AsyncIterator[tuple[ChatSiteSimulator, Page]]:
    simulator = ChatSiteSimulator(config)
    await simulator.start()
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
            page = await browser.new_page()
            await page.goto(f"{simulator.base_url}/_sim/autologin?user={user}")
            await expect(page).to_have_url(f"{simulator.base_url}/chat")
            yield simulator, page
            await browser.close()
    finally:
        await simulator.stop()


def _dialog_config(**variation: object) -> ChatSiteConfig:
    return ChatSiteConfig(
        latency_s=(40, 40),
        time_scale=0.005,
        seed=7,
        new_chat_button=True,
        new_chat_s=0.3,
        new_chat_confirm=True,
        **variation,  # type: ignore[arg-type]
    )


async def test_confirm_is_clicked_while_the_dialog_still_animates() -> None:
    """A dialog that takes 20 s to zoom in: Playwright's click would wait for its box to hold
    still (past new_chat_timeout_s: a page load instead). The visible, enabled Confirm is
    clicked at once, and the dialog goes."""
    async for sim, page in _dialog_page(_dialog_config(new_chat_dialog_s=20.0), "slow-dialog"):
        chat = ChatPage(page, STEPS, sim.base_url)
        loads = sim.user_stats("slow-dialog")["page_loads"]
        await ask(chat, "first question")
        await open_timed(chat)
        await expect(page.locator(DIALOG)).to_have_count(0)
        # A click that waited for the box to hold still would have run past new_chat_timeout_s
        # and loaded the page instead: no page load means Confirm was clicked as it animated.
        assert sim.user_stats("slow-dialog")["page_loads"] == loads


async def test_a_confirm_that_wants_the_users_own_click_still_gets_it() -> None:
    """A Confirm button whose handler ignores clicks that are not trusted: the dispatched click
    does nothing, the dialog stays, and Playwright's own click follows (CONFIRM_GONE_S later)."""
    config = _dialog_config(new_chat_trusted_only=True)
    async for sim, page in _dialog_page(config, "trusted"):
        chat = ChatPage(page, STEPS, sim.base_url)
        loads = sim.user_stats("trusted")["page_loads"]
        await ask(chat, "first question")
        await open_timed(chat)
        await expect(page.locator(DIALOG)).to_have_count(0)
        assert sim.user_stats("trusted")["page_loads"] == loads
