"""A web account's pacing in the window: the accounts panel says why it waits and for how long,
the web lane's ETA includes the waits, and a risk pause is announced."""

from __future__ import annotations

import asyncio
import datetime as dt
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from media_assistant.core.model.clock import ScaledClock
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.pacing import PacingState
from media_assistant.core.store.pacing import PacingStore
from tests.gui.app_env import Env, running_app
from tests.gui.test_main_window import until

CONFIG = """
[simulation]
web_latency_s = [0.3, 0.3]
seed = 3

[[models]]
name = "web-model"
kind = "web"

[[accounts]]
id = "web-1"
kind = "web"
site = "fake"
models = ["web-model"]

[accounts.pacing]
min_gap_s = 600
max_per_window = 4
window_s = 1800
daily_cap = 50
cooldowns = { captcha = 2700 }
risk_events = 2
"""


def app(tmp_path: Path, qtbot: Any) -> AbstractAsyncContextManager[Env]:
    """The app, stopped inside the test: an async fixture's teardown runs after pytest-qt has
    processed Qt events outside the loop, which stepped the paced worker's timer with no loop
    running ("no running event loop", a worker crash logged at teardown)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    # Real time from today's local noon: "1 of 50 today" is counted on a local day, and the
    # real clock could pass midnight between the answer and the panel's refresh.
    noon = dt.datetime.now().astimezone().replace(hour=12, minute=0, second=0, microsecond=0)
    return running_app(data, qtbot, clock=ScaledClock(1.0, start=noon.timestamp()))


def state_text(env: Env) -> str:
    item = env.window.accounts.table.item(0, 1)
    assert item is not None
    return item.text()


async def test_the_accounts_panel_and_the_eta_show_the_pacing(tmp_path: Path, qtbot: Any) -> None:
    async with app(tmp_path, qtbot) as env:
        await the_accounts_panel_and_the_eta_show_the_pacing(env)


async def the_accounts_panel_and_the_eta_show_the_pacing(env: Env) -> None:
    tasks = [NewTask(f"t{i}", "web-model", ModelKind.WEB, f"prompt {i}", "b") for i in range(2)]
    await env.controller.submit(tasks)
    await until(lambda: {r.state for r in env.window.model.rows()} >= {"success"})
    env.window.accounts.refresh()
    text = state_text(env)
    assert "next task in 9:" in text or "next task in 10:00" in text
    assert "1 of 4 in 30 min" in text and "1 of 50 today" in text
    # The second task waits ten minutes for its account: the ETA says so, not 0.3 s.
    env.window.refresh()
    estimate = env.window.lanes["web"].last_estimate
    assert estimate is not None and estimate.eta_s is not None and estimate.eta_s > 590


async def test_a_risk_pause_is_announced_once(tmp_path: Path, qtbot: Any) -> None:
    async with app(tmp_path, qtbot) as env:
        await a_risk_pause_is_announced_once(env)


async def a_risk_pause_is_announced_once(env: Env) -> None:
    pacer = env.controller.scheduler.lanes[ModelKind.WEB].pacer  # type: ignore[attr-defined]
    env.window.accounts.refresh()
    now = env.controller.now()
    notices: list[tuple[str, str]] = []
    env.window.accounts.attention_needed.connect(lambda t, m: notices.append((t, m)))
    state = PacingState(paused_until=now + 6 * 3600, pause_reason="captcha, rate_limited")
    await asyncio.to_thread(PacingStore(env.services.engine).save, "web-1", state, now)
    pacer.states["web-1"] = state
    env.window.accounts.refresh()
    env.window.accounts.refresh()
    assert len(notices) == 1
    assert notices[0][0] == "Account web-1 paused"
    assert "2 risk signals in a row (captcha, rate limit)" in notices[0][1]
    assert "paused until" in state_text(env)
    await asyncio.sleep(0)
