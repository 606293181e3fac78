"""The fake chat site, driven by a real headless Chromium (Playwright) and by plain HTTP.

What is proven here is what an adapter written for this site will meet on a real one: a rich-text
composer that only takes typed text, a streamed answer whose done marker comes last, toasts,
a captcha, an expiring login, and one generation per account.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx
import psutil
import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

from media_assistant.sim import chat_site
from media_assistant.sim.chat_site import ChatSiteConfig, ChatSiteSimulator

CHROMIUM = "/usr/lib/chromium/chromium"
QUICK = ChatSiteConfig(latency_s=(100.0, 200.0), time_scale=0.003, seed=3)  # 0.3..0.6 s
SLOW = ChatSiteConfig(latency_s=(800.0, 800.0), time_scale=0.003, seed=3)  # 2.4 s: time to act
CONVERSATION_URL = re.compile(r"/chat/[0-9a-f-]{36}$")
PRESET_MARK = "资深新媒体编辑"  # from the page's div.preset-instructions

ASSISTANT = '.message[data-role="assistant"]'
COPY = 'button[aria-label="Copy"]'

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
]

NewContext = Callable[[], Awaitable[BrowserContext]]
MakeSim = Callable[[ChatSiteConfig], Awaitable[ChatSiteSimulator]]


# -- fixtures --------------------------------------------------------------------------------------


def _chromium_descendants() -> list[psutil.Process]:
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "chrom" in child.name().lower():
                found.append(child)
        except psutil.NoSuchProcess:
            pass
    return found


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        spawned = _chromium_descendants()  # renderers included, while they still exist
        await launched.close()
    assert spawned, "expected to see the Chromium processes this module started"
    _, alive = psutil.wait_procs(spawned, timeout=5)
    assert not alive, f"Chromium processes left behind: {alive}"


@pytest_asyncio.fixture(loop_scope="module")
async def new_context(browser: Browser) -> AsyncIterator[NewContext]:
    made: list[BrowserContext] = []
    problems: list[str] = []  # uncaught page errors and CSP violations: the page itself is broken

    def watch(page: Page) -> None:
        page.on("pageerror", lambda error: problems.append(f"pageerror: {error}"))
        page.on(
            "console",
            lambda message: (
                problems.append(f"console: {message.text}")
                if "Content Security Policy" in message.text
                else None
            ),
        )

    async def make() -> BrowserContext:
        context = await browser.new_context()
        context.on("page", watch)
        made.append(context)
        return context

    yield make
    for context in made:
        await context.close()
    assert not problems


@pytest_asyncio.fixture(loop_scope="module")
async def make_sim() -> AsyncIterator[MakeSim]:
    started: list[ChatSiteSimulator] = []

    async def make(config: ChatSiteConfig) -> ChatSiteSimulator:
        simulator = ChatSiteSimulator(config)
        await simulator.start()
        started.append(simulator)
        return simulator

    yield make
    for simulator in started:
        await simulator.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def sim(make_sim: MakeSim) -> ChatSiteSimulator:
    return await make_sim(QUICK)


@pytest_asyncio.fixture(loop_scope="module")
async def slow_sim(make_sim: MakeSim) -> ChatSiteSimulator:
    return await make_sim(SLOW)


# -- helpers ---------------------------------------------------------------------------------------


async def chat_page(context: BrowserContext, sim: ChatSiteSimulator, user: str) -> Page:
    page = await context.new_page()
    await page.goto(f"{sim.base_url}/_sim/autologin?user={user}")
    await expect(page).to_have_url(f"{sim.base_url}/chat")
    return page


async def type_and_send(page: Page, text: str) -> None:
    """What an adapter must do: type into the editor (Shift+Enter for newlines), then Enter."""
    await page.locator("#composer").click()
    for index, line in enumerate(text.split("\n")):
        if index:
            await page.keyboard.press("Shift+Enter")
        await page.keyboard.type(line)
    await page.keyboard.press("Enter")


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


def streaming(sim: ChatSiteSimulator, user: str) -> Callable[[], bool]:
    return lambda: sim.user_stats(user)["active"] == 1


# -- plain HTTP ------------------------------------------------------------------------------------


async def test_http_contract_without_a_browser(make_sim: MakeSim) -> None:
    sim = await make_sim(ChatSiteConfig(latency_s=(50.0, 50.0), time_scale=0.01, seed=1))
    assert sim.base_url.startswith("http://127.0.0.1:")
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=5) as http:
        page = await http.get("/chat")
        assert (page.status_code, page.headers["location"]) == (302, "/login")
        refused = await http.post("/api/chat/completion", json={"text": "hi"})
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "login_required"

        login = await http.get("/_sim/autologin", params={"user": "carol"})
        assert (login.status_code, login.headers["location"]) == (302, "/chat")
        cookie = login.headers["set-cookie"]
        assert cookie.startswith("sim_session=") and "HttpOnly" in cookie
        max_age = int(cookie.split("Max-Age=")[1].split(";")[0])
        assert max_age >= 30 * 24 * 3600
        assert (await http.get("/api/session")).json() == {"user": "carol"}

        started = time.monotonic()
        events, first_delta = [], None
        async with http.stream("POST", "/api/chat/completion", json={"text": "你好 hi"}) as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            async for line in resp.aiter_lines():
                if line.startswith("data: "):
                    events.append(json.loads(line[6:]))
                    if events[-1]["type"] == "delta" and first_delta is None:
                        first_delta = time.monotonic() - started
        took = time.monotonic() - started
    assert [e["type"] for e in events[:2]] == ["meta", "delta"] and events[-1]["type"] == "done"
    answer = "".join(e["text"] for e in events if e["type"] == "delta")
    assert answer.startswith("回答：你好 hi\n\n")  # a Chinese prompt gets a Chinese answer
    assert 300 <= len(answer) - len("回答：你好 hi\n\n") <= 1200
    # 50 simulated s × 0.01: first chunk after ~10 %, the rest spread over the remainder. Only
    # the lower bounds (a sleep never ends early); how late a loaded machine makes them is not
    # the simulator's contract.
    assert first_delta is not None and 0.03 <= first_delta < took
    assert took >= 0.45
    stats = sim.user_stats("carol")
    assert (stats["started"], stats["completed"], stats["texts"]) == (1, 1, ["你好 hi"])


async def test_sim_control_endpoints(sim: ChatSiteSimulator) -> None:
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=5) as http:
        bad = await http.post("/_sim/inject", json={"fault": "meteor"})
        assert bad.status_code == 400 and "rate_limited" in bad.json()["error"]["message"]
        ok = await http.post("/_sim/inject", json={"user": "dan", "fault": "busy", "count": 2})
        assert ok.json() == {"ok": True, "pending": 2}
        await http.get("/_sim/autologin", params={"user": "dan"})
        for _ in range(2):
            busy = await http.post("/api/chat/completion", json={"text": "x"})
            assert busy.status_code == 503 and busy.json()["error"]["code"] == "server_busy"
        stats = (await http.get("/_sim/stats")).json()
        assert stats["dan"]["rejected"] == 2 and stats["dan"]["texts"] == ["x", "x"]
        assert (await http.post("/_sim/reset")).json() == {"ok": True}
    assert sim.stats()["dan"]["rejected"] == 0 and sim.stats()["dan"]["texts"] == []


@pytest.mark.parametrize("keep_generating", [True, False])
async def test_a_page_that_goes_away(make_sim: MakeSim, keep_generating: bool) -> None:
    """Real sites finish the answer anyway (the account stays busy); False makes it a stop."""
    sim = await make_sim(
        ChatSiteConfig(
            latency_s=(500.0, 500.0),
            time_scale=0.01,
            keep_generating_on_disconnect=keep_generating,
        )
    )
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=5) as http:
        await http.get("/_sim/autologin", params={"user": "gus"})
        async with http.stream("POST", "/api/chat/completion", json={"text": "x"}) as response:
            async for line in response.aiter_lines():
                if '"delta"' in line:
                    break  # leave mid-answer
    # The server saw the page go away (and decided in the same step): only then is "still
    # generating" an answer, not a look taken before it noticed.
    await until(lambda: sim.user_stats("gus")["pages_left"] == 1)
    await until(lambda: sim.user_stats("gus")["active"] == (1 if keep_generating else 0))
    stats = sim.user_stats("gus")
    assert (stats["active"], stats["stopped"]) == ((1, 0) if keep_generating else (0, 1))


async def test_browser_crash_kills_nothing_that_is_not_a_chromium(sim: ChatSiteSimulator) -> None:
    """Fault ``browser_crash`` kills the asking Chromium (tests/faults/test_termination.py); a
    client that is no Chromium — a script here, a proxy elsewhere — is left alone, and gets its
    answer."""
    sim.inject("browser_crash", user="hal")
    client = f"""
import httpx
with httpx.Client(base_url={sim.base_url!r}, timeout=10) as http:
    http.get("/_sim/autologin", params={{"user": "hal"}})
    with http.stream("POST", "/api/chat/completion", json={{"text": "x"}}) as r:
        print([line for line in r.iter_lines() if line.startswith("data: ")][-1])
"""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", client, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0 and '"done"' in out.decode(), out
    stats = sim.user_stats("hal")
    assert (stats["completed"], stats["browsers_crashed"]) == (1, [])


# -- login -----------------------------------------------------------------------------------------


async def test_login_form_keeps_a_long_lived_session(
    make_sim: MakeSim, new_context: NewContext
) -> None:
    sim = await make_sim(ChatSiteConfig(time_scale=0.003, users={"alice": "s3cret"}))
    context = await new_context()
    page = await context.new_page()
    await page.goto(f"{sim.base_url}/chat")
    await expect(page).to_have_url(f"{sim.base_url}/login")

    await page.fill('input[name="username"]', "alice")
    await page.fill('input[name="password"]', "wrong")
    await page.get_by_role("button", name="登录 / Log in").click()
    await expect(page.locator('[role="alert"]')).to_contain_text("Wrong username or password")

    await page.fill('input[name="password"]', "s3cret")
    await page.get_by_role("button", name="登录 / Log in").click()
    await expect(page).to_have_url(f"{sim.base_url}/chat")
    await expect(page.locator("#composer")).to_be_visible()
    (cookie,) = [c for c in await context.cookies() if c["name"] == "sim_session"]
    assert cookie["expires"] - time.time() >= 30 * 24 * 3600
    assert cookie["httpOnly"]


async def test_autologin_lands_on_the_chat_page(
    sim: ChatSiteSimulator, new_context: NewContext
) -> None:
    page = await chat_page(await new_context(), sim, "bob")
    await expect(
        page.locator('div#composer[contenteditable="true"][role="textbox"]')
    ).to_be_visible()
    await expect(page.locator('button[aria-label="Send"]')).to_be_disabled()
    await expect(page.locator('button[aria-label="Stop generating"]')).to_be_hidden()
    await expect(page.locator('a[aria-label="New chat"]')).to_have_attribute("href", "/chat")
    await expect(page.locator("div.preset-instructions")).to_contain_text(PRESET_MARK)
    session = await page.request.get(f"{sim.base_url}/api/session")
    assert await session.json() == {"user": "bob"}


# -- sending and reading ---------------------------------------------------------------------------


async def test_typed_message_streams_in_and_copy_marks_the_end(
    slow_sim: ChatSiteSimulator, new_context: NewContext
) -> None:
    # The slow site (2.4 s per answer): on a loaded machine each look at the page can take a
    # while, and the quick one may finish between two looks.
    sim = slow_sim
    context = await new_context()
    # Count any write to the clipboard: the page must never copy by itself.
    await context.add_init_script(
        "window.__copies = 0;"
        "document.addEventListener('copy', () => window.__copies++);"
        "if (navigator.clipboard) {"  # only in secure contexts (loopback is one)
        "  const write = navigator.clipboard.writeText.bind(navigator.clipboard);"
        "  navigator.clipboard.writeText = (t) => { window.__copies++; return write(t); };"
        "}"
    )
    page = await chat_page(context, sim, "alice")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    await type_and_send(page, "写一篇关于春天的短文")
    answer = page.locator(ASSISTANT).last
    await expect(page.locator('button[aria-label="Stop generating"]')).to_be_visible()
    await expect(answer.locator(COPY)).to_have_count(0)
    lengths = []
    deadline = time.monotonic() + 10
    while await answer.locator(COPY).count() == 0 and time.monotonic() < deadline:
        lengths.append(len(await answer.locator(".markdown").inner_text()))
    final = await answer.locator(".markdown").inner_text()
    assert any(0 < n < len(final) for n in lengths), "the answer should grow chunk by chunk"
    assert final.startswith("回答：写一篇关于春天的短文\n\n")
    await expect(answer.locator(".message-actions")).to_be_visible()
    await expect(answer.locator('button[aria-label="Regenerate"]')).to_be_visible()
    await expect(page.locator('button[aria-label="Stop generating"]')).to_be_hidden()
    await expect(page).to_have_url(CONVERSATION_URL)
    await expect(page.locator('.message[data-role="user"]')).to_have_text("写一篇关于春天的短文")

    assert await page.evaluate("!!navigator.clipboard")  # so the count above means something
    assert await page.evaluate("window.__copies") == 0
    assert all(url.startswith(sim.base_url) for url in requested), requested
    stats = sim.user_stats("alice")
    assert stats["texts"] == ["写一篇关于春天的短文"]
    assert (stats["started"], stats["completed"], stats["max_concurrent"]) == (1, 1, 1)

    # The conversation's page shows the history, done marker included.
    await page.reload()
    await expect(page.locator(ASSISTANT).last.locator(".markdown")).to_have_text(final)
    await expect(page.locator(ASSISTANT).last.locator(COPY)).to_be_visible()


async def test_value_style_fill_does_not_land_but_insert_text_does(
    sim: ChatSiteSimulator, new_context: NewContext
) -> None:
    """Why adapters must type: like ProseMirror/Lexical, the editor ignores DOM writes."""
    page = await chat_page(await new_context(), sim, "erin")
    composer = page.locator("#composer")
    send = page.locator('button[aria-label="Send"]')
    await composer.evaluate(
        "el => { el.value = 'via value'; el.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    await composer.evaluate(
        "el => { el.innerText = 'via innerText';"
        " el.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText'})); }"
    )
    await expect(composer).to_have_text("")  # reverted
    await expect(send).to_be_disabled()
    await composer.press("Enter")
    await send.click(force=True)
    await expect(page.locator(".message")).to_have_count(0)

    await composer.click()
    await page.evaluate("document.execCommand('insertText', false, 'via insertText')")
    await expect(send).to_be_enabled()
    await send.click()
    await expect(page.locator(ASSISTANT).last.locator(COPY)).to_be_visible()
    # Had Enter or the forced click sent anything, the site would have received it before
    # this message (one page, one composer): it received this one alone.
    assert sim.user_stats("erin")["texts"] == ["via insertText"]
    await expect(page.locator(".message")).to_have_count(2)


async def test_texts_are_recorded_exactly(sim: ChatSiteSimulator, new_context: NewContext) -> None:
    page = await chat_page(await new_context(), sim, "frank")
    text = '标题：<b>"春天"</b> & 50% off 🌸\n第二行  with  spaces\n\nlast line'
    await type_and_send(page, text)
    answer = page.locator(ASSISTANT).last
    await expect(answer.locator(COPY)).to_be_visible()
    assert (await answer.locator(".markdown").inner_text()).startswith(f"回答：{text}\n\n")

    await page.locator('a[aria-label="New chat"]').click()
    await expect(page).to_have_url(f"{sim.base_url}/chat")
    await page.locator("#composer").click()
    await page.keyboard.insert_text("  inserted in one go\nsecond line  ")
    await page.keyboard.press("Enter")
    await expect(page.locator(ASSISTANT).last.locator(COPY)).to_be_visible()

    texts = sim.user_stats("frank")["texts"]
    assert texts == [text, "inserted in one go\nsecond line"]  # the page trims, as real ones do
    assert not any(PRESET_MARK in t for t in texts)


async def test_regenerate_replaces_the_last_answer(
    sim: ChatSiteSimulator, new_context: NewContext
) -> None:
    page = await chat_page(await new_context(), sim, "gina")
    await type_and_send(page, "again")
    await expect(page.locator(ASSISTANT).last.locator(COPY)).to_be_visible()
    await page.locator('button[aria-label="Regenerate"]').click()
    await expect(page.locator(ASSISTANT)).to_have_count(1)
    await expect(page.locator(ASSISTANT).last.locator(COPY)).to_be_visible()
    stats = sim.user_stats("gina")
    assert (stats["started"], stats["completed"], stats["texts"]) == (2, 2, ["again"])


# -- stopping and the one-generation rule ----------------------------------------------------------


async def test_stop_while_generating(slow_sim: ChatSiteSimulator, new_context: NewContext) -> None:
    page = await chat_page(await new_context(), slow_sim, "hank")
    await type_and_send(page, "long one")
    answer = page.locator(ASSISTANT).last
    await expect(answer.locator(".markdown")).not_to_have_text("")
    await page.locator('button[aria-label="Stop generating"]').click()
    await expect(answer.locator(".message-status")).to_have_text("(stopped)")
    await expect(answer.locator(COPY)).to_have_count(0)
    await expect(page.locator('button[aria-label="Stop generating"]')).to_be_hidden()
    stats = slow_sim.user_stats("hank")
    assert (stats["stopped"], stats["completed"], stats["active"]) == (1, 0, 0)


async def test_two_tabs_of_one_session_break_both(
    slow_sim: ChatSiteSimulator, new_context: NewContext
) -> None:
    context = await new_context()
    first = await chat_page(context, slow_sim, "ivy")
    second = await context.new_page()
    await second.goto(f"{slow_sim.base_url}/chat")
    await type_and_send(first, "first tab")
    await until(streaming(slow_sim, "ivy"))
    await type_and_send(second, "second tab")
    for page in (first, second):
        alert = page.locator('[role="alert"]')
        await expect(alert).to_contain_text("已有对话流正在输出 / Only one message at a time")
        await expect(page.locator(ASSISTANT).last.locator(COPY)).to_have_count(0)
        await expect(page.locator('button[aria-label="Stop generating"]')).to_be_hidden()
    stats = slow_sim.user_stats("ivy")
    assert (stats["conflicts"], stats["failed"], stats["max_concurrent"]) == (1, 2, 2)
    assert stats["completed"] == 0 and stats["active"] == 0


async def test_two_users_in_parallel_do_not_conflict(
    sim: ChatSiteSimulator, new_context: NewContext
) -> None:
    pages = [await chat_page(await new_context(), sim, user) for user in ("jo", "kim")]
    await asyncio.gather(*(type_and_send(page, f"from {i}") for i, page in enumerate(pages)))
    for page in pages:
        await expect(page.locator(ASSISTANT).last.locator(COPY)).to_be_visible()
    for user in ("jo", "kim"):
        stats = sim.user_stats(user)
        assert (stats["conflicts"], stats["max_concurrent"], stats["completed"]) == (0, 1, 1)


async def test_a_generation_outlives_its_page(
    slow_sim: ChatSiteSimulator, make_sim: MakeSim, new_context: NewContext
) -> None:
    """As on the real sites: closing or leaving the tab does not stop the answer."""
    context = await new_context()
    page = await chat_page(context, slow_sim, "lou")
    await type_and_send(page, "keep going")
    await expect(page).to_have_url(CONVERSATION_URL)  # the stream has named the conversation
    await page.reload()  # back on the conversation: the answer resumes and finishes
    await expect(page.locator('button[aria-label="Stop generating"]')).to_be_visible()
    answer = page.locator(ASSISTANT).last
    await expect(answer.locator(COPY)).to_be_visible(timeout=10_000)
    assert (await answer.locator(".markdown").inner_text()).startswith("Answer to: keep going")

    # An answer that outlasts the test (300 s): the next page meets it however slowly it opens.
    endless = await make_sim(ChatSiteConfig(latency_s=(1e5, 1e5), time_scale=0.003, seed=3))
    page = await chat_page(context, endless, "lou")
    await type_and_send(page, "abandoned")
    await until(streaming(endless, "lou"))
    await page.close()
    await until(lambda: endless.user_stats("lou")["pages_left"] == 1)
    assert endless.user_stats("lou")["active"] == 1  # the site noticed, and kept generating
    other = await chat_page(context, endless, "lou")
    await type_and_send(other, "next task")
    await expect(other.locator('[role="alert"]')).to_contain_text("Only one message at a time")
    stats = endless.user_stats("lou")
    assert (stats["completed"], stats["conflicts"]) == (0, 1)


# -- faults ----------------------------------------------------------------------------------------


async def test_login_expired_sends_the_page_to_login(
    sim: ChatSiteSimulator, new_context: NewContext
) -> None:
    page = await chat_page(await new_context(), sim, "max")
    sim.inject("login_expired", user="max")
    await type_and_send(page, "are you there")
    await expect(page.locator(".login-required")).to_contain_text("登录 / Log in")
    await expect(page).to_have_url(f"{sim.base_url}/login")
    await page.goto(f"{sim.base_url}/chat")
    await expect(page).to_have_url(f"{sim.base_url}/login")
    assert sim.user_stats("max")["started"] == 0


@pytest.mark.parametrize(
    ("fault", "toast", "rejected", "failed"),
    [
        ("rate_limited", "请求过于频繁，请稍后再试 / Too many requests", 1, 0),
        ("busy", "服务器繁忙，请稍后再试", 1, 0),
        ("error_midstream", "网络错误，请重试", 0, 1),
    ],
)
async def test_faults_show_a_toast(
    sim: ChatSiteSimulator,
    new_context: NewContext,
    fault: str,
    toast: str,
    rejected: int,
    failed: int,
) -> None:
    page = await chat_page(await new_context(), sim, "nia")
    sim.inject(fault, user="nia")
    await type_and_send(page, "hello")
    await expect(page.locator('div.toast[role="alert"]')).to_contain_text(toast)
    await expect(page.locator(ASSISTANT).last.locator(COPY)).to_have_count(0)
    await expect(page.locator('button[aria-label="Stop generating"]')).to_be_hidden()
    stats = sim.user_stats("nia")
    assert (stats["rejected"], stats["failed"], stats["completed"]) == (rejected, failed, 0)


async def test_a_silent_failure_shows_nothing_at_all(
    sim: ChatSiteSimulator, new_context: NewContext
) -> None:
    page = await chat_page(await new_context(), sim, "sid")
    sim.inject("silent_failure", user="sid")
    await type_and_send(page, "hello")
    await until(lambda: sim.user_stats("sid")["failed"] == 1)
    await expect(page.locator('button[aria-label="Stop generating"]')).to_be_hidden()
    # The question stays; no answer, no error, no toast: nothing a human (or a marker) could see.
    await expect(page.locator('.message[data-role="user"]')).to_have_count(1)
    await expect(page.locator(ASSISTANT)).to_have_count(0)
    await expect(page.locator('div.toast, .message-error, [role="alert"]')).to_have_count(0)
    await page.reload()  # the server kept no answer either
    await expect(page.locator('.message[data-role="user"]')).to_have_count(1)
    await expect(page.locator(ASSISTANT)).to_have_count(0)
    await type_and_send(page, "hello again")  # the next message is answered
    await expect(page.locator(ASSISTANT).last.locator(COPY)).to_be_visible()


async def test_captcha_shows_a_challenge_until_the_human_passes_it(
    sim: ChatSiteSimulator, new_context: NewContext
) -> None:
    page = await chat_page(await new_context(), sim, "oli")
    await expect(page.locator("div.captcha-challenge")).to_have_count(0)
    sim.inject("captcha", user="oli")
    await type_and_send(page, "hello")
    challenge = page.locator("div.captcha-challenge")
    await expect(challenge).to_contain_text("人机验证 / Verify you are human")
    await expect(page.locator('iframe[title="captcha"]')).to_be_visible()
    await page.reload()  # a challenge does not go away by itself
    await expect(challenge).to_be_visible()
    await challenge.get_by_role("button", name="我是真人 / I am human").click()
    await expect(challenge).to_have_count(0)
    await type_and_send(page, "hello again")
    await expect(page.locator(ASSISTANT).last.locator(COPY)).to_be_visible()
    stats = sim.user_stats("oli")
    assert (stats["rejected"], stats["completed"]) == (1, 1)


# -- lifecycle -------------------------------------------------------------------------------------


async def test_stop_in_thread_ends_a_stream_itself(
    new_context: NewContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # aiohttp's wait for handlers made an hour: stop_in_thread (which gives up after 30 s)
    # returns only if the simulator ends the 300 s stream itself.
    monkeypatch.setattr(chat_site, "_STOP_GRACE_S", 3600.0)
    sim = ChatSiteSimulator(ChatSiteConfig(latency_s=(300.0, 300.0), time_scale=1.0))
    base_url = sim.start_in_thread()
    try:
        page = await chat_page(await new_context(), sim, "pat")
        await type_and_send(page, "never ends")
        await until(streaming(sim, "pat"))
        await asyncio.to_thread(sim.stop_in_thread)
    finally:
        sim.stop_in_thread()
    await expect(page.locator('[role="alert"]')).to_be_visible()
    assert not any(t.name == "chat-site-simulator" for t in threading.enumerate())
    port = int(base_url.rsplit(":", 1)[1])
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), 1):
        pass
    assert sim.user_stats("pat")["failed"] == 1


async def test_command_line_prints_the_url_and_serves() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "media_assistant.sim.chat_site",
        "--time-scale",
        "0.01",
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        url = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().strip()
        assert url.startswith("http://127.0.0.1:")
        async with httpx.AsyncClient(timeout=5) as http:
            response = await http.get(f"{url}/login")
        assert response.status_code == 200 and "登录 / Log in" in response.text
    finally:
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 10) == 0
