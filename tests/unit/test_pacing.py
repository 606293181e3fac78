"""Pacing and the risk guard as pure rules (core/rules/pacing.py), a day of them in milliseconds."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.rules.pacing import (
    CooldownsConfig,
    Hold,
    PacingConfig,
    PacingPlanner,
    PacingPolicy,
    PacingState,
    describe,
    gate,
    rebase,
    record_end,
    record_start,
    resolve_policy,
    view,
)

TZ = dt.timezone(dt.timedelta(hours=8))  # Beijing time, no DST: days are 86400 s
# 2026-12-01 10:00:00 +08:00
T0 = dt.datetime(2026, 12, 1, 10, 0, tzinfo=TZ).timestamp()


def at(hh: int, mm: int = 0, day: int = 1) -> float:
    return dt.datetime(2026, 12, day, hh, mm, tzinfo=TZ).timestamp()


def run_task(policy: PacingPolicy, state: PacingState, start: float, took: float) -> float:
    record_start(policy, state, start, TZ)
    record_end(policy, state, start + took, success=True, error=None, rng=random.Random(1))
    return start + took


def test_the_gap_counts_from_the_end_of_the_answer_not_its_start() -> None:
    policy = PacingPolicy(min_gap_s=120)
    state = PacingState()
    assert gate(policy, state, T0, TZ).hold is Hold.READY
    end = run_task(policy, state, T0, took=300)  # a 5-minute answer
    g = gate(policy, state, end + 10, TZ)
    assert g.hold is Hold.GAP
    assert g.ready_at == end + 120
    assert describe(view(policy, state, end + 18, TZ), end + 18, TZ) == "next task in 1:42"


def test_jitter_adds_a_random_part_chosen_once_per_gap() -> None:
    policy = PacingPolicy(min_gap_s=60, jitter_s=30)
    gaps = set()
    for seed in range(20):
        state = PacingState()
        record_end(policy, state, T0, success=True, error=None, rng=random.Random(seed))
        first = gate(policy, state, T0, TZ).ready_at
        assert first == gate(policy, state, T0 + 5, TZ).ready_at  # stable, not re-rolled
        assert T0 + 60 <= first <= T0 + 90
        gaps.add(round(first - T0, 3))
    assert len(gaps) > 10


def test_window_allows_n_prompts_then_waits_for_the_oldest_to_leave() -> None:
    policy = PacingPolicy(max_per_window=4, window_s=1800)
    state = PacingState()
    for i in range(4):
        run_task(policy, state, T0 + i * 60, took=30)
    v = view(policy, state, T0 + 240, TZ)
    assert v.hold is Hold.WINDOW
    assert v.ready_at == T0 + 1800  # the first prompt leaves the window
    assert (v.window_used, v.window_limit) == (4, 4)
    assert "4 of 4 in 30 min" in describe(v, T0 + 240, TZ)
    assert gate(policy, state, T0 + 1800, TZ).hold is Hold.READY


def test_three_of_four_is_shown_while_ready() -> None:
    policy = PacingPolicy(max_per_window=4, window_s=1800)
    state = PacingState()
    for i in range(3):
        run_task(policy, state, T0 + i * 60, took=30)
    text = describe(view(policy, state, T0 + 200, TZ), T0 + 200, TZ)
    assert text == "3 of 4 in 30 min"


def test_daily_cap_holds_until_midnight_and_active_hours_until_the_morning() -> None:
    policy = PacingPolicy(
        daily_cap=2, active_hours=(8 * 60, 23 * 60), active_hours_text="08:00-23:00"
    )
    state = PacingState()
    run_task(policy, state, at(21), took=60)
    run_task(policy, state, at(22), took=60)
    g = gate(policy, state, at(22, 5), TZ)
    # Midnight resets the cap, but 00:00 is outside the active hours: 08:00 the next day.
    assert g.ready_at == at(8, 0, day=2)
    assert g.hold is Hold.OFF_HOURS
    v = view(policy, state, at(22, 5), TZ)
    assert describe(v, at(22, 5), TZ).startswith("paused until 08:00")
    assert v.today_used == 2


def test_daily_cap_alone_resets_at_local_midnight() -> None:
    policy = PacingPolicy(daily_cap=1)
    state = PacingState()
    run_task(policy, state, at(23), took=60)
    g = gate(policy, state, at(23, 10), TZ)
    assert (g.hold, g.ready_at) == (Hold.DAILY_CAP, at(0, 0, day=2))
    assert gate(policy, state, at(0, 1, day=2), TZ).hold is Hold.READY


def test_a_clock_stepped_back_across_midnight_does_not_hold_a_full_cap_for_two_days() -> None:
    # The PC ran 10 minutes fast: the account filled its cap "just after midnight", then NTP
    # set the clock back to 23:55. Those prompts were the day before's.
    policy = PacingPolicy(min_gap_s=120, daily_cap=2)
    state = PacingState()
    run_task(policy, state, at(0, 1, day=2), took=60)
    run_task(policy, state, at(0, 4, day=2), took=60)  # last answer at 00:05 (fast)
    now = at(23, 55)
    stale = PacingState.from_json(state.to_json())
    g = gate(policy, stale, now, TZ)
    assert (g.hold, g.ready_at) == (Hold.DAILY_CAP, at(0, 0, day=3))  # the 24 h wait, unrebased
    assert rebase(state, now, TZ) == pytest.approx(600)
    assert state.day == "2026-12-01" and state.day_count == 2
    assert state.last_end_at == pytest.approx(now)
    assert max(state.starts) == pytest.approx(at(23, 53))
    g = gate(policy, state, now, TZ)
    assert (g.hold, g.ready_at) == (Hold.DAILY_CAP, at(0, 0, day=2))  # the real midnight
    assert view(policy, state, now, TZ).today_used == 2
    assert gate(policy, state, at(0, 1, day=2), TZ).hold is Hold.READY


def test_rebase_keeps_cooldowns_and_pauses_their_length_and_leaves_a_sane_state_alone() -> None:
    policy = PacingPolicy(cooldowns={"captcha": 2700}, risk_events=2, risk_pause_s=3600)
    rng = random.Random(1)
    state = PacingState()
    record_end(policy, state, T0, success=False, error=ErrorKind.CAPTCHA, rng=rng)
    record_end(policy, state, T0 + 60, success=False, error=ErrorKind.CAPTCHA, rng=rng)
    assert state.paused_until == T0 + 60 + 3600
    assert state.cooldown_until is not None
    cooling = state.cooldown_until - T0 - 60
    untouched = state.to_json()
    assert rebase(state, T0 + 61, TZ) == 0.0 and state.to_json() == untouched
    assert rebase(state, T0 + 59.5, TZ) == 0.0  # within the tolerance: a measuring error
    assert rebase(state, T0 - 240, TZ) == pytest.approx(300)  # stepped back five minutes
    assert state.last_end_at == pytest.approx(T0 - 240)
    assert [at for at, _ in state.streak] == pytest.approx([T0 - 300, T0 - 240])
    assert state.paused_until == pytest.approx(T0 - 240 + 3600)
    assert state.cooldown_until - state.last_end_at == pytest.approx(cooling)
    assert state.day is None  # no prompt was counted: nothing to date
    assert rebase(PacingState(), T0, TZ) == 0.0


def test_active_hours_may_wrap_midnight() -> None:
    policy = resolve_policy(PacingConfig(active_hours="22:00-06:00"), None, headless=False)
    state = PacingState()
    assert gate(policy, state, at(23), TZ).hold is Hold.READY
    assert gate(policy, state, at(5, 59, day=2), TZ).hold is Hold.READY
    g = gate(policy, state, at(6, 0, day=2), TZ)
    assert (g.hold, g.ready_at) == (Hold.OFF_HOURS, at(22, 0, day=2))


def test_risk_signals_cool_down_by_kind_and_escalate_on_repeats() -> None:
    policy = PacingPolicy(
        cooldowns={"captcha": 2700, "rate_limited": 3600}, escalation=2.0, max_cooldown_s=2 * 3600
    )
    state = PacingState()
    rng = random.Random(1)
    note = record_end(policy, state, T0, success=False, error=ErrorKind.CAPTCHA, rng=rng)
    assert note is not None and note.cooldown_s == 2700 and note.repeats == 0
    v = view(policy, state, T0 + 60, TZ)
    assert v.hold is Hold.COOLDOWN
    assert describe(v, T0 + 60, TZ) == "cooling down: captcha, 44 min"
    again = record_end(policy, state, T0 + 3000, success=False, error=ErrorKind.CAPTCHA, rng=rng)
    assert again is not None and again.cooldown_s == 5400 and again.repeats == 1
    third = record_end(policy, state, T0 + 9000, success=False, error=ErrorKind.CAPTCHA, rng=rng)
    assert third is not None and third.cooldown_s == 2 * 3600  # 10800 capped
    # A success ends the streak: the next captcha starts from the base again.
    record_end(policy, state, T0 + 30000, success=True, error=None, rng=rng)
    fresh = record_end(policy, state, T0 + 31000, success=False, error=ErrorKind.CAPTCHA, rng=rng)
    assert fresh is not None and fresh.cooldown_s == 2700


def test_k_risk_events_in_a_row_pause_the_account_for_hours() -> None:
    policy = PacingPolicy(
        cooldowns={"captcha": 60, "rate_limited": 60, "busy": 60},
        risk_events=3,
        risk_window_s=86400,
        risk_pause_s=6 * 3600,
    )
    state = PacingState()
    rng = random.Random(1)
    kinds = [ErrorKind.CAPTCHA, ErrorKind.RATE_LIMITED]
    for i, kind in enumerate(kinds):
        note = record_end(policy, state, T0 + i * 100, success=False, error=kind, rng=rng)
        assert note is not None and note.paused_until is None
    # A timeout is neither a risk signal nor a success: the streak goes on.
    assert (
        record_end(policy, state, T0 + 250, success=False, error=ErrorKind.TIMEOUT, rng=rng) is None
    )
    note = record_end(policy, state, T0 + 300, success=False, error=ErrorKind.SITE_BUSY, rng=rng)
    assert note is not None and note.paused_until == T0 + 300 + 6 * 3600
    v = view(policy, state, T0 + 400, TZ)
    assert v.hold is Hold.PAUSED
    assert describe(v, T0 + 400, TZ) == (
        "paused until 16:05 (risk events in a row: captcha, rate_limited, busy)"
    )


def test_risk_events_outside_the_window_do_not_count() -> None:
    policy = PacingPolicy(risk_events=2, risk_window_s=3600, risk_pause_s=3600)
    state = PacingState()
    rng = random.Random(1)
    record_end(policy, state, T0, success=False, error=ErrorKind.CAPTCHA, rng=rng)
    note = record_end(policy, state, T0 + 7200, success=False, error=ErrorKind.CAPTCHA, rng=rng)
    assert note is not None and note.paused_until is None


def test_the_account_key_wins_over_the_adapter_key_by_key_and_zero_switches_off() -> None:
    adapter = PacingConfig(
        min_gap_s=120,
        min_gap_headless_s=300,
        max_per_window=4,
        window_s=1800,
        cooldowns=CooldownsConfig(captcha=2700, rate_limited=3600),
    )
    account = PacingConfig(max_per_window=0, daily_cap=50, cooldowns=CooldownsConfig(captcha=600))
    visible = resolve_policy(adapter, account, headless=False)
    assert visible.min_gap_s == 120
    assert visible.max_per_window == 0 and visible.daily_cap == 50
    assert visible.cooldowns == {"captcha": 600, "rate_limited": 3600}
    assert resolve_policy(adapter, account, headless=True).min_gap_s == 300
    assert not resolve_policy(None, None, headless=False).limits_anything


def test_state_round_trips_through_json_and_survives_damage() -> None:
    policy = PacingPolicy(min_gap_s=60, cooldowns={"captcha": 60}, daily_cap=5)
    state = PacingState()
    run_task(policy, state, T0, took=10)
    record_end(policy, state, T0 + 20, success=False, error=ErrorKind.CAPTCHA, rng=random.Random(1))
    assert PacingState.from_json(state.to_json()) == state
    damaged = PacingState.from_json({"starts": "x", "day_count": "3", "streak": [[1, "a", 2]]})
    assert damaged == PacingState()


@pytest.mark.parametrize("took", [30.0, 600.0])
def test_the_planner_spaces_planned_tasks_like_the_lane_would(took: float) -> None:
    policy = PacingPolicy(min_gap_s=120, max_per_window=4, window_s=1800)
    planner = PacingPlanner(policy, PacingState(), TZ)
    t, starts = T0, []
    for _ in range(6):
        start = planner.start_after(t)
        starts.append(start)
        t = start + took
        planner.commit(start, t)
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert all(g >= took + 120 for g in gaps)
    # never more than 4 starts in any 30 minutes
    for s in starts:
        assert sum(1 for x in starts if s <= x < s + 1800) <= 4
