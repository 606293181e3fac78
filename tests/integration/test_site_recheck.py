"""The canary (issue 27 item 8): a web account held by "the site's page changed" re-checks its
site by itself — one short prompt through its page after 1 minute, then 2, 4 … up to 30 — and
works again once every step passes; ``status`` says when it looks next. Real Chromium on the
loopback chat site; the back-off on an injected clock (core/model/clock.py ManualClock), the
rest of the scheduler on the real one."""

from __future__ import annotations

from pathlib import Path

import pytest

from media_assistant.core.config.schema import parse_config
from media_assistant.core.lanes.web import WebLane
from media_assistant.core.model.accounts import AccountStatus
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.recheck import RECHECK_REASON, Recheck
from media_assistant.core.store.accounts import AccountStore
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_site_breakage import fast_adapter, wait_for
from tests.integration.test_web_lane import WebEnv, our_chromiums, web_tasks

pytestmark = [pytest.mark.chromium, pytest.mark.timeout(300)]


def test_the_back_off_doubles_from_the_first_wait_up_to_the_cap() -> None:
    recheck = Recheck(100.0, 60.0, 1800.0)
    assert recheck.due == 160.0
    waits = [recheck.failed(1000.0) for _ in range(7)]
    assert waits == [120.0, 240.0, 480.0, 960.0, 1800.0, 1800.0, 1800.0]
    assert recheck.due == 2800.0


async def test_a_held_account_rechecks_by_itself_and_works_again_when_the_site_is_back(
    tmp_path: Path,
) -> None:
    site = ChatSiteSimulator(ChatSiteConfig(latency_s=(40, 80), time_scale=0.005, seed=3))
    site.start_in_thread()
    env = WebEnv(tmp_path, site, accounts=1)
    data = env.config.model_dump(mode="json", exclude_none=True)
    data["accounts"][0].pop("site")
    data["accounts"][0]["site_file"] = str(fast_adapter(tmp_path))
    data["lanes"] = {"web": {"backoff_base_s": 0.5, "backoff_cap_s": 1.0}}
    env.config = parse_config(data, "test")
    accounts = AccountStore(env.store.engine, env.clock, env.store.bus)

    def status() -> AccountStatus:
        found = accounts.get("web-1")
        assert found is not None
        return found

    clock = ManualClock()
    try:
        await env.sign_in("web-1")
        s = await env.start()
        lane = s.lanes[ModelKind.WEB]
        assert isinstance(lane, WebLane)
        lane.rechecks.clock = clock  # the back-off's time moves only when told to
        site.break_page("composer_renamed")  # the site's update, before the batch
        await s.submit(web_tasks(3))
        await wait_for(lambda: status().problem_code == "site_changed", 120, "the verdict")
        # Held; the first re-check is due in a minute, and the row says so.
        await wait_for(lambda: status().cooldown_reason == RECHECK_REASON, 30, "the re-check")
        first = status().recheck_in(env.clock.now())
        assert first is not None and 50 < first <= 60
        assert "re-checked by itself in 1 min" in status().reason(env.clock.now())
        loads = site.user_stats("web-1")["page_loads"]

        await clock.advance(59)  # not yet
        recheck = lane.rechecks._held["web-1"]
        assert recheck.failures == 0 and recheck.due - clock.monotonic() == 1
        assert site.user_stats("web-1")["page_loads"] == loads
        await clock.advance(1)  # due: the check runs, the site is still broken
        await wait_for(
            lambda: (status().recheck_in(env.clock.now()) or 0) > 60, 60, "the next re-check"
        )
        assert site.user_stats("web-1")["page_loads"] == loads + 1
        second = status().recheck_in(env.clock.now())
        assert second is not None and 110 < second <= 120  # twice the first wait
        assert status().problem_code == "site_changed"  # still held
        assert {r.state for r in env.store.list_tasks()} == {"pending"}  # no attempt burnt

        site.break_page(None)  # the site is back
        await clock.advance(120)
        await wait_for(lambda: status().problem_code is None, 60, "the verdict lifted")
        assert status().cooldown_reason is None  # nothing left to wait for
        assert await env.run(timeout=120) == []
        rows = env.store.list_tasks()
        assert {r.state for r in rows} == {"success"}
        assert all(r.attempt <= 2 for r in rows)  # the held tasks kept their attempts
    finally:
        await env.close()
        site.stop_in_thread()
    assert not our_chromiums(tmp_path)
