"""Verification pages wait for a person (issue 32), with real Chromium against the loopback chat
site: its challenge pages in the shapes real sites show are recognised by the built-in markers
(the ``sim`` adapter declares none of them), the account waits — "needs you" — with its task
back in the queue and no attempt used, and it works again by itself once a person passed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from media_assistant.core.model.states import AccountState
from media_assistant.providers.web.adapter import load_adapter
from media_assistant.providers.web.challenges import CHALLENGE_SELECTORS
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.launch import open_profile
from media_assistant.providers.web.page import ChatPage
from media_assistant.sim.chat_challenges import SHAPES
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_web_lane import CHROMIUM, WebEnv, our_chromiums, web_tasks

pytestmark = pytest.mark.chromium


@pytest.fixture
def chat_sim() -> Iterator[ChatSiteSimulator]:
    sim = ChatSiteSimulator(ChatSiteConfig(latency_s=(31, 370), time_scale=0.005, seed=7))
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


@pytest.fixture
async def env(tmp_path: Path, chat_sim: ChatSiteSimulator) -> AsyncIterator[WebEnv]:
    e = WebEnv(tmp_path, chat_sim, accounts=1)
    await e.sign_in("web-1")
    yield e
    await e.close()
    left = our_chromiums(tmp_path)
    assert not left, f"chromium processes left behind: {[p.pid for p in left]}"


async def test_every_challenge_shape_is_known_without_the_adapter_declaring_it(
    env: WebEnv, chat_sim: ChatSiteSimulator
) -> None:
    adapter = load_adapter(site="sim", site_file=None, user_dir=env.paths.sites)
    assert not set(adapter.markers.captcha.selectors) & set(CHALLENGE_SELECTORS)
    seen: dict[str, str | None] = {}
    async with open_profile(
        env.paths.profile("web-1"), resolve_browser(CHROMIUM), headless=True
    ) as context:
        page = context.pages[0] if context.pages else await context.new_page()
        chat = ChatPage(page, adapter, chat_sim.base_url)
        await page.goto(f"{chat_sim.base_url}/chat")
        plain = await chat.snapshot()
        assert plain.composer and not plain.markers.get("captcha")  # no challenge: none seen
        for shape in SHAPES:
            chat_sim.show_challenge("web-1", shape)
            await page.goto(f"{chat_sim.base_url}/chat")
            snap = await chat.snapshot()
            seen[shape] = snap.markers.get("captcha")
            assert not snap.markers.get("login_lost"), shape
            chat_sim.pass_challenge("web-1")
    assert all(seen.values()), seen


async def test_a_challenge_holds_the_account_and_it_resumes_once_a_person_passed(
    env: WebEnv, chat_sim: ChatSiteSimulator
) -> None:
    chat_sim.show_challenge("web-1", "cloudflare")
    s = await env.start()
    await s.submit(web_tasks(2))
    for _ in range(600):
        status = await s.accounts.get("web-1")
        held = status is not None and status.state(env.clock.now()) is AccountState.NEEDS_ATTENTION
        if held and {r.state for r in env.store.list_tasks()} == {"pending"}:
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the account was never held by the verification page")
    assert status is not None and status.problem_code == "captcha"
    assert "captcha" in (status.problem_detail or "")
    rows = env.store.list_tasks()
    # The task that met it went back without using its attempt; the other never started.
    assert {r.state for r in rows} == {"pending"} and sorted(r.attempt for r in rows) == [0, 1]
    events = [e.message for r in rows for e in env.store.events(r.task_id)]
    assert not any("site_changed" in m or "login_required" in m for m in events)
    assert chat_sim.user_stats("web-1")["completed"] == 0
    chat_sim.pass_challenge("web-1")  # a person passed it in the browser
    for _ in range(600):  # the lane sees the page go on to the chat, nobody resets anything
        status = await s.accounts.get("web-1")
        if status is not None and status.state(env.clock.now()) is AccountState.ENABLED:
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the account did not resume by itself")
    assert await env.run(timeout=120) == []
    rows = env.store.list_tasks()
    assert {r.state for r in rows} == {"success"}
    assert all(r.attempt == 1 for r in rows)  # the verification cost no attempt
    assert chat_sim.user_stats("web-1")["completed"] == 2
