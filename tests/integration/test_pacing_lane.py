"""Pacing in the web lane, on the scaled clock (200 simulated seconds per real second): gaps,
windows, daily caps that survive a restart, risk cooldowns and pauses — and none of it delays
the other accounts or the API lane."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

from media_assistant.core.config.schema import parse_config
from media_assistant.core.lanes.web import WebLane
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.pacing import Hold
from media_assistant.core.store.pacing import PacingStore
from tests.conftest import config_dict, make_tasks
from tests.integration.conftest import Harness
from tests.support.lane_watch import LaneWatch


def paced_config(
    pacing: dict[str, Any], *, web_accounts: int = 2, api_accounts: int = 1, **sections: Any
) -> Any:
    data = config_dict(web_accounts=web_accounts, api_accounts=api_accounts, **sections)
    data["accounts"][0]["pacing"] = pacing  # web-1 paced, web-2 (if any) not
    return parse_config(data, "test-config")


def web_lane(h: Harness) -> WebLane:
    assert h.scheduler is not None
    lane = h.scheduler.lanes[ModelKind.WEB]
    assert isinstance(lane, WebLane)
    return lane


def runs_of(h: Harness, account: str) -> list[tuple[float, float]]:
    return sorted(
        (r.started_at or 0.0, r.finished_at or 0.0)
        for r in h.store.list_tasks(kind=ModelKind.WEB)
        if r.account_id == account and r.state == "success"
    )


async def test_gaps_and_window_on_one_account_never_delay_the_other_or_the_api_lane(
    harness_factory: Callable[..., Harness],
) -> None:
    h = harness_factory(web_latency=(30, 60), api_latency=(8, 20))
    h.config = paced_config({"min_gap_s": 300, "max_per_window": 3, "window_s": 3600})
    s = await h.start()
    await s.submit(
        make_tasks(14, model="web-model", kind=ModelKind.WEB)
        + make_tasks(12, model="api-model", kind=ModelKind.API)
    )
    assert await h.run(timeout=60) == []
    assert set(h.states().values()) == {"success"}
    paced, free = runs_of(h, "web-1"), runs_of(h, "web-2")
    # The gap counts from the end of one answer to the next start on the same account.
    assert all(b[0] - a[1] >= 300 for a, b in zip(paced, paced[1:], strict=False))
    starts = [start for start, _ in paced]
    assert all(sum(1 for x in starts if t <= x < t + 3600) <= 3 for t in starts)
    # The unpaced account ran back to back (its gaps are loop turns, far below the paced
    # account's 300 s even on a loaded machine, where 1 real ms is 0.2 s here) and took most
    # of the work.
    assert len(free) > len(paced) >= 1
    assert max(b[0] - a[1] for a, b in zip(free, free[1:], strict=False)) < 150
    # The API lane was not held back by anything: its last task ended long before the web's.
    api_end = max(r.finished_at or 0 for r in h.store.list_tasks(kind=ModelKind.API))
    web_end = max(end for _, end in paced + free)
    assert api_end < web_end


async def test_a_daily_cap_survives_a_restart(harness_factory: Callable[..., Harness]) -> None:
    config = paced_config({"daily_cap": 2}, web_accounts=1, api_accounts=0)
    # The day is the local one: at noon, not wherever the real clock is (the scaled clock runs
    # minutes ahead of it, and just before midnight the two runs would count different days).
    noon = dt.datetime.now().astimezone().replace(hour=12, minute=0, second=0, microsecond=0)
    first = harness_factory(web_latency=(20, 20), start=noon.timestamp())
    first.config = config
    s = await first.start()
    await s.submit(make_tasks(2, model="web-model", kind=ModelKind.WEB, prefix="day1"))
    assert await first.run(timeout=30) == []
    await s.stop()

    second = harness_factory(web_latency=(20, 20), start=first.clock.now())
    second.config = config
    s2 = await second.start()
    lane = web_lane(second)
    view = lane.pacer.view("web-1")
    assert view is not None and view.hold is Hold.DAILY_CAP and view.today_used == 2
    asked: list[float] = []  # what the pacer told the worker at each of its turns
    wait_s = lane.pacer.wait_s

    def recorded(account_id: str) -> float:
        asked.append(wait_s(account_id))
        return asked[-1]

    lane.pacer.wait_s = recorded  # type: ignore[method-assign]
    watch = LaneWatch(lane)
    await s2.submit(make_tasks(1, model="web-model", kind=ModelKind.WEB, prefix="more"))
    while len(asked) < 2:  # the worker looked at the new task twice: the cap held both times
        await asyncio.sleep(0.01)
    assert all(w > 0 for w in asked) and watch.claims["web-1"] == 0
    assert second.states()["more-000"] == "pending"
    assert PacingStore(second.store.engine).load("web-1") is not None


async def test_a_clock_set_back_across_midnight_after_a_full_cap_waits_for_the_real_midnight(
    harness_factory: Callable[..., Harness], caplog: pytest.LogCaptureFixture
) -> None:
    # The PC's clock ran minutes fast: the account filled its daily cap "just after midnight";
    # the app restarted after NTP set the clock back to 23:55 the day before. Those
    # prompts were that day's: the account is free again at the real midnight, not a day later.
    config = paced_config({"daily_cap": 2}, web_accounts=1, api_accounts=0)
    today = dt.datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    midnight = today.timestamp()
    first = harness_factory(web_latency=(20, 20), start=midnight + 60)
    first.config = config
    s = await first.start()
    await s.submit(make_tasks(2, model="web-model", kind=ModelKind.WEB, prefix="fast"))
    assert await first.run(timeout=30) == []
    await s.stop()
    assert first.clock.now() < midnight + 600

    second = harness_factory(web_latency=(20, 20), start=midnight - 300)
    second.config = config
    s2 = await second.start()
    view = web_lane(second).pacer.view("web-1")
    assert view is not None and view.hold is Hold.DAILY_CAP and view.today_used == 2
    assert view.ready_at == midnight  # not the midnight after (24 h more)
    await s2.submit(make_tasks(1, model="web-model", kind=ModelKind.WEB, prefix="after"))
    assert await second.run(timeout=30) == []  # 300 simulated seconds: 1.5 real ones
    started = second.store.get("after-000")
    assert started is not None and started.state == "success"
    assert started.started_at is not None and started.started_at >= midnight
    saved = PacingStore(second.store.engine).load("web-1")  # the moved times were saved
    assert saved is not None and saved.day == today.date().isoformat() and saved.day_count == 1
    assert "[web web-1] the clock moved back" in caplog.text


@pytest.mark.expect_errors(r"risk guard: ")
async def test_risk_signals_cool_the_account_down_and_k_in_a_row_pause_it(
    harness_factory: Callable[..., Harness],
) -> None:
    h = harness_factory(web_latency=(20, 20))
    h.config = paced_config(
        {
            "cooldowns": {"rate_limited": 120, "busy": 120},
            "escalation": 2.0,
            "risk_events": 2,
            "risk_pause_s": 6 * 3600,
        },
        web_accounts=2,
        api_accounts=0,
        lanes={"web": {"cooldown_s": 30.0}},  # the lane's own short pause after a deferral
    )
    h.site.inject("web-1", ErrorKind.RATE_LIMITED)
    s = await h.start()
    pacer = web_lane(h).pacer
    # web-1 takes the first task (the workers' claims race each other through the database's
    # writer thread: web-2 waits switched off until web-1 has met the rate limit).
    await s.accounts.set_enabled("web-2", False)
    await s.submit(make_tasks(1, model="web-model", kind=ModelKind.WEB, prefix="first"))
    while (v := pacer.view("web-1")) is None or v.hold is not Hold.COOLDOWN:
        await asyncio.sleep(0.01)
    await s.accounts.set_enabled("web-2", True)
    assert await h.run(timeout=30) == []
    # web-1 met the rate limit first; the task went back to the queue and web-2 answered it.
    assert h.states()["first-000"] == "success"
    view = pacer.view("web-1")
    assert view is not None and view.hold is Hold.COOLDOWN and view.cooldown_kind == "rate_limited"
    assert 0 < view.wait_s <= 120
    assert "cooling down: rate_limited" in pacer.describe("web-1")
    events = [e.message for e in h.store.events("first-000")]
    assert any("pacing: rate_limited: cooling down 2 min" in m for m in events)

    # Once it has passed, a second risk signal in a row (no answer between) pauses web-1.
    while (v := pacer.view("web-1")) is not None and v.hold is Hold.COOLDOWN:
        await asyncio.sleep(0.1)
    h.site.inject("web-1", ErrorKind.SITE_BUSY)
    await s.submit(make_tasks(2, model="web-model", kind=ModelKind.WEB, prefix="second"))
    assert await h.run(timeout=30) == []
    view = pacer.view("web-1")
    assert view is not None and view.hold is Hold.PAUSED
    assert view.pause_reason == "rate_limited, busy"
    assert 5.9 * 3600 < view.wait_s <= 6 * 3600
    assert set(h.states().values()) == {"success"}  # web-2 did the work meanwhile


@pytest.mark.expect_errors(r"risk guard: ")
async def test_the_operator_clears_a_pause_and_the_account_works_again(
    harness_factory: Callable[..., Harness],
) -> None:
    h = harness_factory(web_latency=(20, 20))
    h.config = paced_config(
        {"cooldowns": {"conflict": 3600}, "risk_events": 1}, web_accounts=1, api_accounts=0
    )
    h.site.inject("web-1", ErrorKind.SESSION_CONFLICT)
    s = await h.start()
    pacer = web_lane(h).pacer
    await s.submit(make_tasks(1, model="web-model", kind=ModelKind.WEB))
    while (v := pacer.view("web-1")) is None or v.hold is not Hold.PAUSED:
        await asyncio.sleep(0.05)
    assert h.states()["web-000"] == "pending"  # retried later, on this (only) account
    # `accounts clear-pacing` writes from another process: the lane re-reads the row. The
    # lane's view changes at once, its row on its writer thread after: the other process sees
    # the pause once that save has landed (under load the row was read before it, unpaused).
    other = PacingStore(h.store.engine)
    deadline = asyncio.get_running_loop().time() + 30
    while (state := other.load("web-1")) is None or state.paused_until is None:
        assert asyncio.get_running_loop().time() < deadline, f"the pause never saved: {state}"
        await asyncio.sleep(0.05)
    state.paused_until = state.cooldown_until = None
    other.save("web-1", state, h.clock.now())
    assert await h.run(timeout=30) == []
    assert h.states()["web-000"] == "success"
