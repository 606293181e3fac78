"""Issue 21 items 2 and 5: a site update breaks one adapter step while a batch runs; the account
is paused with the step named after the second failing task, its tasks go back to the queue
without an attempt used, and the other account (on another site) goes on. Real Chromium on two
loopback chat sites; the adapter is the built-in sim adapter with short timeouts (the time the
verdict takes with the default ones is measured by B8, benchmarks/bench_breakage.py)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from media_assistant.assets import sites_dir
from media_assistant.core.config.schema import parse_config
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.rules.site_breakage import AdapterStep
from media_assistant.core.store.accounts import AccountStore
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_web_lane import WebEnv, our_chromiums, web_tasks

pytestmark = pytest.mark.chromium

# Short waits, so each broken step fails in seconds (the defaults: 30 s for a page's composer,
# 15 s for a send, 3 s of silence, 8 s for a done marker).
FAST = {
    "page_load_timeout_s": 4,
    "new_chat_timeout_s": 1.5,
    "send_timeout_s": 3,
    "silent_stop_s": 1.5,
    "done_grace_s": 1.5,
    "marker_persist_s": 1,
}

# What each site update breaks: the step, and what the verdict names.
BROKEN = {
    "composer_renamed": (AdapterStep.COMPOSER_FOUND, 'div#composer[contenteditable="true"]'),
    "send_moved": (AdapterStep.SENT, 'button[aria-label="Send"]'),
    "answer_renamed": (AdapterStep.ANSWER_READ, '.message[data-role="assistant"] .markdown'),
    "done_missing": (AdapterStep.DONE_SEEN, 'button[aria-label="Copy"]'),
    "login_wall": (AdapterStep.SIGNED_IN, "markers.login_lost"),
}


def fast_adapter(root: Path, timing: dict[str, float] | None = None) -> Path:
    lines = []
    for line in (sites_dir() / "sim.toml").read_text(encoding="utf-8").splitlines():
        if line.split(" = ")[0] in (timing or FAST):
            continue
        lines.append(line)
        if line == "[timing]":
            lines += [f"{k} = {v}" for k, v in (timing or FAST).items()]
    path = root / "sim-fast.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class TwoSites:
    """web-1 on site A (the one that gets updated), web-2 on site B; both serve web-model."""

    def __init__(self, root: Path) -> None:
        self.a = ChatSiteSimulator(ChatSiteConfig(latency_s=(40, 80), time_scale=0.005, seed=3))
        # B answers slower: web-1 keeps taking tasks after the update, as on a real night.
        self.b = ChatSiteSimulator(ChatSiteConfig(latency_s=(2, 3), time_scale=1.0, seed=4))
        self.a.start_in_thread()
        self.b.start_in_thread()
        self.env = WebEnv(root, self.a, accounts=2)
        data = self.env.config.model_dump(mode="json", exclude_none=True)
        site_file = str(fast_adapter(root))
        for account in data["accounts"]:
            account.pop("site")
            account["site_file"] = site_file
        data["accounts"][1]["origin"] = self.b.base_url
        data["lanes"] = {"web": {"backoff_base_s": 0.5, "backoff_cap_s": 1.0}}
        self.env.config = parse_config(data, "test")

    async def sign_in(self) -> None:
        await self.env.sign_in("web-1")
        self.env.sim = self.b
        await self.env.sign_in("web-2")
        self.env.sim = self.a

    async def close(self) -> None:
        await self.env.close()
        self.a.stop_in_thread()
        self.b.stop_in_thread()


async def wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("breakage", sorted(BROKEN))
async def test_a_site_update_pauses_its_account_with_the_step_named(
    tmp_path: Path, breakage: str
) -> None:
    step, selector = BROKEN[breakage]
    sites = TwoSites(tmp_path)
    env = sites.env
    try:
        await sites.sign_in()
        s = await env.start()
        await s.submit(web_tasks(12))
        # The batch runs; web-1 answers once, then its site is updated under it.
        await wait_for(lambda: sites.a.user_stats("web-1")["completed"] >= 1, 60, "an answer")
        sites.a.break_page(breakage)
        assert await env.run(timeout=240) == []

        status = AccountStore(env.store.engine, env.clock, env.store.bus).get("web-1")
        assert status is not None and status.problem_code == "site_changed"
        assert status.problem_detail is not None
        assert status.problem_detail.startswith(f"the site's page changed: {step.words} (")
        assert selector in status.problem_detail
        rows = env.store.list_tasks()
        assert {r.state for r in rows} == {"success"}  # no task failed for it
        assert all(r.attempt <= 2 for r in rows)  # the first failing task's retry, at most
        assert sites.b.user_stats("web-2")["completed"] >= 6  # the other site went on
        # The verdict: after the second failing task; every step failure in the logs names it.
        events = [e for r in rows for e in env.store.events(r.task_id)]
        failed = sorted(e.at for e in events if e.code == EventCode.STEP_FAILED.value)
        held = sorted(e.at for e in events if e.code == EventCode.HELD_SITE_CHANGED.value)
        assert len(failed) >= (1 if step is AdapterStep.DONE_SEEN else 2) and held
        assert held[0] - failed[0] < 120
        saved = [e for e in events if e.code == EventCode.DIAGNOSTICS_SAVED.value]
        assert any(step.value in (e.params_json or "") for e in saved)
    finally:
        await sites.close()
    assert not our_chromiums(tmp_path)


async def test_the_saved_page_of_a_failing_step_is_redacted_and_capped(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    from media_assistant.providers.web.diagnose import DOM_CAP_BYTES, save_page_evidence
    from tests.integration.test_web_lane import CHROMIUM

    page_html = (
        "<html><head><meta name='csrf-token' content='csrf-SECRET-1'>"
        "<script>window.__STATE__ = {accessToken: 'tok-SECRET-2'}</script></head><body>"
        "<form><input type='hidden' name='_csrf' value='csrf-SECRET-3'>"
        "<input type='password' value='pw-SECRET-4'><textarea>draft-SECRET-5</textarea></form>"
        "<div data-session-id='sess-SECRET-6'>chat</div>"
        "<a href='/cb?access_token=SECRET-7'>x</a>"
        "<p>" + "长文本" * 200_000 + "</p></body></html>"
    )
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = await browser.new_page()
        await page.set_content(page_html)
        saved = await save_page_evidence(page, tmp_path / "t1-attempt1-composer_found")
        await browser.close()
    assert sorted(p.suffix for p in saved) == [".html", ".jpg"]
    dom = (tmp_path / "t1-attempt1-composer_found.html").read_text(encoding="utf-8")
    assert "SECRET" not in dom and "chat" in dom
    assert len(dom.encode("utf-8")) < DOM_CAP_BYTES + 200 and "cut at 512 KB" in dom
    assert (tmp_path / "t1-attempt1-composer_found.jpg").stat().st_size < 500_000
