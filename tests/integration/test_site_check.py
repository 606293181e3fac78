"""The site check (issue 21 item 1) through a running scheduler, as the window's *Check site*
runs it: every adapter step reported, a broken one named with what it looked for, never while
the account works, and after its pacing allows a prompt. Real Chromium, loopback chat site."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from media_assistant.core.config.schema import parse_config
from media_assistant.core.rules.site_breakage import AdapterStep, StepStatus
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_site_breakage import fast_adapter
from tests.integration.test_web_lane import WebEnv, our_chromiums, web_tasks

pytestmark = pytest.mark.chromium


def env_for(root: Path, sim: ChatSiteSimulator, pacing: dict[str, float] | None = None) -> WebEnv:
    env = WebEnv(root, sim, accounts=1)
    data = env.config.model_dump(mode="json", exclude_none=True)
    account = data["accounts"][0]
    account.pop("site")
    account["site_file"] = str(fast_adapter(root))
    if pacing:
        account["pacing"] = pacing
    env.config = parse_config(data, "test")
    return env


async def test_a_working_site_passes_every_step_and_a_broken_one_names_its_step(
    tmp_path: Path,
) -> None:
    sim = ChatSiteSimulator(ChatSiteConfig(latency_s=(40, 80), time_scale=0.005, seed=2))
    sim.start_in_thread()
    env = env_for(tmp_path, sim)
    try:
        await env.sign_in("web-1")
        s = await env.start()
        report = await asyncio.wait_for(s.check_site("web-1"), 60)
        assert report.ok, "\n".join(report.lines())
        assert [r.step for r in report.steps] == list(AdapterStep)
        # The sim declares each step; no proxy here, so the first step is skipped (issue 32).
        assert report.steps[0].step is AdapterStep.THROUGH_PROXY
        assert report.steps[0].status is StepStatus.SKIPPED
        assert {r.status for r in report.steps[1:]} == {StepStatus.OK}
        by_step = {r.step: r for r in report.steps}
        assert 'div#composer[contenteditable="true"]' in by_step[AdapterStep.COMPOSER_FOUND].detail
        assert "Stop generating" in by_step[AdapterStep.GENERATING_SEEN].detail
        payload = report.to_json()
        assert payload["account"] == "web-1" and payload["site"] == "sim" and payload["ok"]
        assert all(set(step) == {"step", "ok", "detail", "seconds"} for step in payload["steps"])
        assert sim.user_stats("web-1")["completed"] == 1  # one real prompt

        sim.break_page("composer_renamed")
        broken = await asyncio.wait_for(s.check_site("web-1"), 60)
        assert not broken.ok
        assert broken.failed is not None and broken.failed.step is AdapterStep.COMPOSER_FOUND
        assert broken.failed.detail.startswith('div#composer[contenteditable="true"], ')
        assert "matched nothing" in broken.failed.detail
        statuses = {r.step: r.status for r in broken.steps}
        assert statuses[AdapterStep.PAGE_LOADED] is StepStatus.OK
        assert statuses[AdapterStep.SIGNED_IN] is StepStatus.OK
        assert statuses[AdapterStep.SENT] is StepStatus.SKIPPED
        assert sim.user_stats("web-1")["completed"] == 1  # nothing was sent
    finally:
        await env.close()
        sim.stop_in_thread()
    assert not our_chromiums(tmp_path)


async def test_a_check_waits_for_the_running_task_and_the_accounts_pacing(tmp_path: Path) -> None:
    """Asked while the account answers a task: the check's prompt goes out only after that
    answer, and after the account's min_gap_s — one generation at a time, no conflict."""
    sim = ChatSiteSimulator(ChatSiteConfig(latency_s=(2.0, 2.0), time_scale=1.0, seed=2))
    sim.start_in_thread()
    env = env_for(tmp_path, sim, pacing={"min_gap_s": 3})
    try:
        await env.sign_in("web-1")
        s = await env.start()
        await s.submit(web_tasks(1, prefix="p"))
        while sim.user_stats("web-1")["active"] == 0:  # the task's prompt is on the site
            await asyncio.sleep(0.05)
        report = await asyncio.wait_for(s.check_site("web-1"), 60)
        checked_at = time.time()
        assert report.ok, "\n".join(report.lines())
        row = env.store.get("p0")
        assert row is not None and row.state == "success" and row.finished_at is not None
        took = sum(r.seconds for r in report.steps)
        assert checked_at - took - row.finished_at >= 3.0 - 0.5  # the gap after the answer
        stats = sim.user_stats("web-1")
        assert (stats["completed"], stats["conflicts"], stats["max_concurrent"]) == (2, 0, 1)
    finally:
        await env.close()
        sim.stop_in_thread()
    assert not our_chromiums(tmp_path)
