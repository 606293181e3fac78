"""Verification pages wait for a person (issue 32), with real Chromium against the loopback chat
site: its challenge pages in the shapes real sites show are recognised by the built-in markers
(the ``sim`` adapter declares none of them), the account waits — "needs you" — with its task
back in the queue and no attempt used, and it works again by itself once a person passed."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from media_assistant.core.config.schema import parse_config
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.provider import ShowOutcome
from media_assistant.core.model.states import AccountState
from media_assistant.providers.web.adapter import load_adapter
from media_assistant.providers.web.challenges import CHALLENGE_SELECTORS
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.launch import open_profile, place_window
from media_assistant.providers.web.page import ChatPage
from media_assistant.providers.web.processes import browser_processes, main_process
from media_assistant.sim.chat_challenges import SHAPES
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_web_lane import CHROMIUM, WebEnv, _cli, our_chromiums, web_tasks
from tests.support.proxies import PROXY_PASSWORD, PROXY_USER, TinyProxy, logged
from tests.support.web_config import one_web_account_toml
from tests.support.xvfb import virtual_display

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


def _main_cmdline(profile: Path) -> list[str]:
    main = main_process(browser_processes(profile))
    assert main is not None, f"no browser runs on {profile}"
    return main.cmdline()


async def _held(env: WebEnv, s: Scheduler) -> None:
    for _ in range(600):
        status = await s.accounts.get("web-1")
        if status is not None and status.state(env.clock.now()) is AccountState.NEEDS_ATTENTION:
            return
        await asyncio.sleep(0.05)
    pytest.fail("the account was never held by the verification page")


async def test_show_browser_reopens_a_headless_browser_in_a_window_through_its_proxy(
    tmp_path: Path,
    chat_sim: ChatSiteSimulator,
    http_proxy: TinyProxy,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """*Show browser* on an account a verification holds, in a headless run: the profile is
    reopened in a window (no ``--headless``), through the account's proxy, on the page it was
    on; once a person passed it the account works on by itself, no attempt used."""
    monkeypatch.setenv("MA_PROXY_PW", PROXY_PASSWORD)
    e = WebEnv(tmp_path, chat_sim, accounts=1)
    data = e.config.model_dump(mode="json", exclude_none=True)
    data["accounts"][0]["proxy"] = http_proxy.url.replace("http://", f"http://{PROXY_USER}@")
    data["accounts"][0]["proxy_password_env"] = "MA_PROXY_PW"
    e.config = parse_config(data, "test")
    port = int(chat_sim.base_url.rsplit(":", 1)[1].rstrip("/"))
    profile = e.paths.profile("web-1")
    try:
        await e.sign_in("web-1")
        with virtual_display() as display:
            monkeypatch.setenv("DISPLAY", display)
            monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
            chat_sim.show_challenge("web-1", "cloudflare")
            s = await e.start()
            not_yet = await s.show_browser("web-1")  # nothing holds it yet
            assert not_yet.outcome is ShowOutcome.NOT_HELD
            await s.submit(web_tasks(2))
            await _held(e, s)
            assert "--headless" in " ".join(_main_cmdline(profile))
            before = http_proxy.requests_to(port)
            shown = await s.show_browser("web-1")
            assert shown.outcome is ShowOutcome.REOPENED, shown
            assert shown.detail == f"{chat_sim.base_url}/chat"  # the page it was on
            shown_line = " ".join(_main_cmdline(profile))
            assert (
                "--headless" not in shown_line
                and f"--proxy-server=http://127.0.0.1:{http_proxy.port}" in shown_line
            )
            await logged(
                lambda: http_proxy.requests_to(port), before + 1, http_proxy.log_text
            )  # tinyproxy logs after relaying
            status = await s.accounts.get("web-1")
            assert status is not None and status.problem_code == "captcha"  # still the person's
            chat_sim.pass_challenge("web-1")  # the person passed it in the shown window
            for _ in range(600):  # the lane sees the page go on to the chat, by itself
                status = await s.accounts.get("web-1")
                if status is not None and status.state(e.clock.now()) is AccountState.ENABLED:
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail("the account did not resume by itself")
            assert await e.run(timeout=120) == []
            rows = e.store.list_tasks()
            assert {(r.state, r.attempt) for r in rows} == {("success", 1)}
            assert chat_sim.user_stats("web-1")["completed"] == 2
            after = await s.show_browser("web-1")
            assert after.outcome is ShowOutcome.NOT_HELD
            await e.close()
    finally:
        await e.close()
    left = our_chromiums(tmp_path)
    assert not left, f"chromium processes left behind: {[p.pid for p in left]}"


async def _window_state(browser: Any) -> str:
    """The account's browser window's state as Chromium reports it (run on the driver loop)."""
    page = browser.chat.page
    cdp = await browser.context.new_cdp_session(page)
    try:
        window = await cdp.send("Browser.getWindowForTarget")
        return str(window["bounds"]["windowState"])
    finally:
        await cdp.detach()


@pytest.mark.skipif(shutil.which("openbox") is None, reason="needs openbox (scripts/setup.sh)")
async def test_show_browser_restores_a_shown_minimised_window_and_minimises_it_after(
    tmp_path: Path, chat_sim: ChatSiteSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[browser] headless = false``: the account's browser has a window; minimised, *Show
    browser* restores it in front, and once the page is past the verification it goes back."""
    e = WebEnv(tmp_path, chat_sim, accounts=1)
    data = e.config.model_dump(mode="json", exclude_none=True)
    data["browser"]["headless"] = False
    e.config = parse_config(data, "test")
    try:
        await e.sign_in("web-1")
        with virtual_display("1366x768x24") as display:
            monkeypatch.setenv("DISPLAY", display)
            monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
            wm = subprocess.Popen(
                ["openbox", "--sm-disable"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            try:
                chat_sim.show_challenge("web-1", "turnstile")
                s = await e.start()
                await s.submit(web_tasks(1))
                await _held(e, s)
                assert e.registry is not None
                driver = e.registry.driver
                browser = driver.browsers["web-1"]
                # The hold brought the page forward; the operator put it away meanwhile.
                await driver.service.call(place_window(browser.context, foreground=False))
                assert await driver.service.call(_window_state(browser)) == "minimized"
                shown = await s.show_browser("web-1")
                assert shown.outcome is ShowOutcome.BROUGHT_FORWARD, shown
                assert await driver.service.call(_window_state(browser)) == "normal"
                chat_sim.pass_challenge("web-1")
                for _ in range(600):
                    status = await s.accounts.get("web-1")
                    if status is not None and status.state(e.clock.now()) is AccountState.ENABLED:
                        break
                    await asyncio.sleep(0.05)
                else:
                    pytest.fail("the account did not resume by itself")
                assert await driver.service.call(_window_state(browser)) == "minimized"
                assert await e.run(timeout=120) == []
                assert {(r.state, r.attempt) for r in e.store.list_tasks()} == {("success", 1)}
                await e.close()
            finally:
                wm.terminate()
                wm.wait(10)
    finally:
        await e.close()
    left = our_chromiums(tmp_path)
    assert not left, f"chromium processes left behind: {[p.pid for p in left]}"


def test_a_terminal_run_says_the_verification_waits_for_a_person_and_exits_11(
    tmp_path: Path, chat_sim: ChatSiteSimulator
) -> None:
    """``run`` (headless, no window to show) cannot pass a verification page: it ends saying
    the account waits for a person and what to do, exit 11 (README); once the page is past it
    ``accounts check`` sees the chat and lifts the hold, and the next ``run`` finishes."""
    e = WebEnv(tmp_path, chat_sim, accounts=1)
    e.store.engine.dispose()
    data = e.paths.data_dir
    (data / "config.toml").write_text(
        one_web_account_toml(chat_sim.base_url),
        encoding="utf-8",
    )
    asyncio.run(e.sign_in("web-1"))
    batch = tmp_path / "b.csv"
    batch.write_text("task_id,prompt,model\nv1,hello,web-model\n", encoding="utf-8")
    chat_sim.show_challenge("web-1", "hcaptcha")
    held = _cli(data, "run", str(batch))
    assert held.returncode == 11, held.stdout + held.stderr
    assert (
        "waiting for a person: 1 pending task(s) for model web-model: a verification page "
        '(captcha, "checking your browser") holds web-1'
    ) in held.stdout
    assert "'media-assistant accounts login web-1'" in held.stdout
    assert "Show browser" in held.stdout and "cannot progress" not in held.stdout
    assert "fix the account(s)" not in held.stdout and "Traceback" not in held.stderr
    chat_sim.pass_challenge("web-1")  # a person passed it in a window
    checked = _cli(data, "accounts", "check", "web-1")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    again = _cli(data, "run")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "1 succeeded" in again.stdout
    assert not our_chromiums(tmp_path)
