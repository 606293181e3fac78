"""Per-lane ETA from the lane's own durations, throughput and heartbeat health (pure, no clock)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from media_assistant.core.rules.eta import (
    OVERRUN_FRACTION,
    DurationModel,
    FinishedTask,
    LaneEstimate,
    LaneSnapshot,
    Slot,
    estimate_lane,
)
from media_assistant.core.rules.pacing import PacingPlanner, PacingPolicy, PacingState

NOW = 1_700_000_000.0
WEB = "deepseek-r1-web"
API = "deepseek-chat"


def done(
    model: str, account: str, duration: float, *, ago: float = 60.0, state: str = "success"
) -> FinishedTask:
    """A task that ended ``ago`` seconds before NOW after running ``duration`` seconds."""
    return (model, account, NOW - ago - duration, NOW - ago, state)


def history(model: str, account: str, durations: Sequence[float]) -> list[FinishedTask]:
    """Oldest first, one ended per minute, the last one a minute ago."""
    n = len(durations)
    return [done(model, account, d, ago=60.0 * (n - k)) for k, d in enumerate(durations)]


def web(account: str, *models: str, available: bool = True) -> Slot:
    return Slot(account, frozenset(models or (WEB,)), 1, available)


def api(account: str, concurrency: int, *models: str) -> Slot:
    return Slot(account, frozenset(models or (API,)), concurrency, True)


def estimate(
    *,
    pending: Sequence[str] = (),
    running: Sequence[tuple[str, str, float]] = (),
    finished: Sequence[FinishedTask] = (),
    servers: Sequence[Slot] = (),
    heartbeat_ages: Sequence[float] = (),
    window_s: float = 600.0,
) -> LaneEstimate:
    snapshot = LaneSnapshot(NOW, pending, running, finished, servers, heartbeat_ages)
    return estimate_lane(snapshot, window_s=window_s)


# --- web lane: one task at a time per account ---------------------------------------------------


def test_one_web_account_runs_the_queue_back_to_back() -> None:
    result = estimate(
        pending=[WEB] * 3, finished=history(WEB, "w1", [60, 60, 60]), servers=[web("w1")]
    )
    assert result.basis == "observed"
    assert result.eta_s == pytest.approx(180.0)
    assert result.finish_at == pytest.approx(NOW + 180.0)
    assert result.unserved_models == ()


def test_running_remainder_is_added_before_the_queue() -> None:
    result = estimate(
        pending=[WEB] * 3,
        running=[(WEB, "w1", NOW - 20.0)],  # 40 s still to go
        finished=history(WEB, "w1", [60, 60, 60]),
        servers=[web("w1")],
    )
    assert result.eta_s == pytest.approx(40.0 + 180.0)


def test_two_web_accounts_share_the_queue() -> None:
    finished = history(WEB, "w1", [60, 60, 60])  # w2 has no samples: the model's median (60)
    servers = [web("w1"), web("w2")]
    # Whole tasks: 4 tasks on 2 accounts end at 120 (half of the single-account 240) ...
    assert estimate(pending=[WEB] * 4, finished=finished, servers=servers).eta_s == 120.0
    # ... and 3 tasks too: one account must run two of them (a fluid 90 s would be optimistic).
    assert estimate(pending=[WEB] * 3, finished=finished, servers=servers).eta_s == 120.0
    assert estimate(pending=[WEB] * 3, finished=finished, servers=servers[:1]).eta_s == 180.0


def test_fast_account_takes_more_tasks_than_slow_one() -> None:
    finished = history(WEB, "fast", [30] * 5) + history(WEB, "slow", [120] * 5)
    servers = [web("fast"), web("slow")]
    # fast ends tasks at 30, 60, 90, 120, 150; slow takes one (ends at 120): last one at 150.
    # A global mean (75 s) split over two accounts would say 225; equal shares would say 360.
    result = estimate(pending=[WEB] * 6, finished=finished, servers=servers)
    assert result.eta_s == pytest.approx(150.0)
    # The slow account alone: its own 120 s per task, not the lane's median.
    alone = estimate(pending=[WEB] * 2, finished=finished, servers=[web("slow")])
    assert alone.eta_s == pytest.approx(240.0)


def test_each_model_goes_only_to_accounts_that_serve_it() -> None:
    finished = history("kimi-web", "k1", [100] * 3) + history(WEB, "d1", [50] * 3)
    servers = [web("k1", "kimi-web"), web("d1", WEB)]
    result = estimate(
        pending=["kimi-web", WEB, "kimi-web", WEB], finished=finished, servers=servers
    )
    assert result.eta_s == pytest.approx(200.0)  # kimi: 2 × 100 on k1; deepseek: 2 × 50 on d1


# --- API lane: `concurrency` tasks at once per account ------------------------------------------


def test_api_account_runs_concurrency_tasks_at_once() -> None:
    result = estimate(
        pending=[API] * 9, finished=history(API, "a1", [10] * 5), servers=[api("a1", 3)]
    )
    assert result.eta_s == pytest.approx(30.0)


def test_api_running_tasks_hold_their_slots() -> None:
    result = estimate(
        pending=[API] * 3,
        running=[(API, "a1", NOW - 4.0), (API, "a1", NOW - 8.0)],  # free at +6 and +2
        finished=history(API, "a1", [10] * 5),
        servers=[api("a1", 3)],
    )
    # Slots free at 0, 2, 6 → the 3 pending tasks end at 10, 12, 16.
    assert result.eta_s == pytest.approx(16.0)


def test_more_running_than_slots_frees_slots_only_as_the_excess_ends() -> None:
    # Concurrency lowered from 3 to 1 while 3 tasks run: new work starts only once all have ended.
    result = estimate(
        pending=[API],
        running=[(API, "a1", NOW - 8.0), (API, "a1", NOW - 5.0), (API, "a1", NOW - 1.0)],
        finished=history(API, "a1", [10] * 5),
        servers=[api("a1", 1)],
    )
    assert result.eta_s == pytest.approx(9.0 + 10.0)


# --- running tasks and the overrun rule ----------------------------------------------------------


def test_overrun_task_is_assumed_to_need_a_quarter_of_its_duration_more() -> None:
    durations = DurationModel(history(WEB, "w1", [60, 60, 60]))
    assert durations.remaining(WEB, "w1", elapsed=20.0) == pytest.approx(40.0)
    assert durations.remaining(WEB, "w1", elapsed=300.0) == pytest.approx(OVERRUN_FRACTION * 60)
    # Continuous: the floor takes over at 75 % of the expected time, no jump at 100 %.
    assert durations.remaining(WEB, "w1", elapsed=50.0) == pytest.approx(15.0)
    assert durations.remaining(WEB, "w1", elapsed=-5.0) == pytest.approx(60.0)  # clock skew

    result = estimate(
        pending=[WEB],
        running=[(WEB, "w1", NOW - 300.0)],
        finished=history(WEB, "w1", [60, 60, 60]),
        servers=[web("w1")],
    )
    assert result.eta_s == pytest.approx(15.0 + 60.0)  # never "now", never negative


def test_running_task_on_an_unavailable_account_still_counts() -> None:
    # Login lost mid-task: the task goes on (or fails) but no new work goes to that account.
    result = estimate(
        running=[(WEB, "gone", NOW - 10.0)],
        finished=history(WEB, "w1", [100] * 3),
        servers=[web("w1"), web("gone", available=False)],
    )
    assert result.basis == "observed"
    assert result.eta_s == pytest.approx(90.0)


def test_only_running_work_left() -> None:
    result = estimate(
        running=[(API, "a1", NOW - 2.0), (API, "a1", NOW - 7.0)],
        finished=history(API, "a1", [10] * 3),
        servers=[api("a1", 3)],
    )
    assert result.eta_s == pytest.approx(8.0)


# --- no samples, no capacity, idle --------------------------------------------------------------


def test_no_finished_task_yet_means_no_eta() -> None:
    result = estimate(pending=[WEB] * 5, servers=[web("w1")])
    assert (result.eta_s, result.finish_at, result.basis) == (None, None, "no_samples")
    # Canceled tasks tell nothing about durations.
    canceled = [done(WEB, "w1", 60.0, state="canceled")]
    assert estimate(pending=[WEB], finished=canceled, servers=[web("w1")]).basis == "no_samples"


def test_model_nobody_serves_is_listed_and_blocks_the_eta() -> None:
    finished = history(WEB, "w1", [60] * 3)
    servers = [web("w1"), web("k1", "kimi-web", available=False)]
    result = estimate(pending=["kimi-web", "kimi-web"], finished=finished, servers=servers)
    assert (result.eta_s, result.finish_at, result.basis) == (None, None, "no_capacity")
    assert result.unserved_models == ("kimi-web",)


def test_partly_servable_queue_estimates_the_servable_part() -> None:
    finished = history(WEB, "w1", [60] * 3)
    result = estimate(
        pending=["qwen-web", WEB, "kimi-web", WEB, "qwen-web"],
        finished=finished,
        servers=[web("w1")],
    )
    assert result.basis == "observed"
    assert result.eta_s == pytest.approx(120.0)
    assert result.unserved_models == ("qwen-web", "kimi-web")  # queue order, once each


def test_no_capacity_wins_over_no_samples() -> None:
    result = estimate(pending=[WEB], servers=[web("w1", available=False)])
    assert result.basis == "no_capacity"
    assert estimate(pending=[API], servers=[Slot("a1", frozenset({API}), 0, True)]).basis == (
        "no_capacity"
    )


def test_idle_lane() -> None:
    result = estimate(finished=history(WEB, "w1", [60]), servers=[web("w1")])
    assert (result.eta_s, result.finish_at, result.basis) == (0.0, NOW, "idle")


# --- duration statistics --------------------------------------------------------------------------


def test_one_outlier_does_not_swing_the_estimate() -> None:
    samples = [60.0] * 10 + [360.0] + [60.0] * 9
    durations = DurationModel(history(WEB, "w1", samples))
    assert durations.expected(WEB, "w1") == pytest.approx(60.0)
    result = estimate(
        pending=[WEB] * 100, finished=history(WEB, "w1", samples), servers=[web("w1")]
    )
    assert result.eta_s == pytest.approx(6000.0)  # a mean (75 s) would say 7500


def test_only_recent_samples_count() -> None:
    # The site got faster: 25 old 300 s samples, then 20 recent 60 s ones.
    durations = DurationModel(history(WEB, "w1", [300.0] * 25 + [60.0] * 20))
    assert durations.expected(WEB, "w1") == pytest.approx(60.0)
    # Recency is by finish time, not by the order the rows came in.
    shuffled = history(WEB, "w1", [300.0] * 25 + [60.0] * 20)
    random.Random(7).shuffle(shuffled)
    assert DurationModel(shuffled).expected(WEB, "w1") == pytest.approx(60.0)


def test_expected_falls_back_from_account_to_model_to_lane() -> None:
    finished = (
        history(WEB, "w1", [40, 40, 40])
        + history(WEB, "w2", [100, 100])
        + [done("kimi-web", "k1", 200.0, ago=1.0)]
    )
    durations = DurationModel(finished)
    assert durations.expected(WEB, "w1") == pytest.approx(40.0)
    assert durations.expected(WEB, "w2") == pytest.approx(100.0)
    assert durations.expected(WEB, "w3") == pytest.approx(40.0)  # median of the model's 5
    assert durations.expected("qwen-web", "w1") == pytest.approx(70.0)  # lane: 40,40,40,100,100,200
    assert DurationModel([]).expected(WEB, "w1") is None
    assert DurationModel([]).remaining(WEB, "w1", 10.0) is None


def test_failed_attempts_count_and_bad_samples_do_not() -> None:
    finished = [
        done(WEB, "w1", 90.0, state="failed"),
        done(WEB, "w1", 10.0, state="canceled"),
        (WEB, "w1", NOW, NOW - 50.0, "success"),  # ends before it starts: clock trouble
        (WEB, "w1", float("nan"), NOW, "success"),
    ]
    assert DurationModel(finished).expected(WEB, "w1") == pytest.approx(90.0)


# --- throughput ----------------------------------------------------------------------------------


def test_throughput_over_the_window() -> None:
    # A lane busy for an hour, one 20 s task after another: 30 ended in the last 10 minutes.
    finished = [done(API, "a1", 20.0, ago=20.0 * k + 1.0) for k in range(180)]
    result = estimate(finished=finished, servers=[api("a1", 3)])
    assert result.throughput_per_min == pytest.approx(30 / 10)
    shorter = estimate(finished=finished, servers=[api("a1", 3)], window_s=300.0)
    assert shorter.throughput_per_min == pytest.approx(15 / 5)


def test_throughput_of_a_young_lane_is_not_diluted_over_the_whole_window() -> None:
    # Started 2 minutes ago, 8 ended since: 4 per minute, not 0.8.
    finished = [(API, "a1", NOW - 120.0, NOW - 120.0 + 15.0 * (k + 1), "success") for k in range(8)]
    assert estimate(finished=finished).throughput_per_min == pytest.approx(4.0)


def test_throughput_needs_two_ended_tasks_and_ignores_cancels() -> None:
    one = [done(API, "a1", 10.0, ago=5.0)]
    assert estimate(finished=one).throughput_per_min is None
    cancels = one + [done(API, "a1", 1.0, ago=k, state="canceled") for k in range(1, 400)]
    assert estimate(finished=cancels).throughput_per_min is None
    old = one + [done(API, "a1", 10.0, ago=601.0)]
    assert estimate(finished=old).throughput_per_min is None


# --- heartbeats ----------------------------------------------------------------------------------


def test_stale_and_dead_heartbeats_are_disjoint_bands() -> None:
    result = estimate(heartbeat_ages=[0.0, 14.0, 30.0, 31.0, 60.0, 90.0, 90.5, 400.0])
    assert (result.stale_running, result.dead_running) == (3, 2)  # 31, 60, 90 | 90.5, 400
    assert (estimate().stale_running, estimate().dead_running) == (0, 0)


def test_heartbeat_thresholds_follow_the_reaper_setting() -> None:
    snapshot = LaneSnapshot(NOW, (), (), (), (), [40.0, 70.0, 130.0])
    result = estimate_lane(snapshot, stale_after_s=45.0, dead_after_s=120.0)
    assert (result.stale_running, result.dead_running) == (1, 1)


# --- the simulation against a plain reference ---------------------------------------------------


def reference_latest_end(snapshot: LaneSnapshot) -> float:
    """List scheduling the obvious way: scan every slot of every serving account per task."""
    durations = DurationModel(snapshot.finished)
    servers = [s for s in snapshot.servers if s.available and s.slots >= 1]
    latest = snapshot.now
    ends: dict[str, list[float]] = {s.account_id: [] for s in servers}
    for model, account, started in snapshot.running:
        remaining = durations.remaining(model, account, snapshot.now - started)
        assert remaining is not None
        latest = max(latest, snapshot.now + remaining)
        if account in ends:
            ends[account].append(snapshot.now + remaining)
    slots = [sorted(ends[s.account_id] + [snapshot.now] * s.slots)[-s.slots :] for s in servers]
    for model in snapshot.pending_models:
        best: tuple[float, int, int] | None = None
        for i, server in enumerate(servers):
            if model not in server.models:
                continue
            expected = durations.expected(model, server.account_id)
            assert expected is not None
            j = min(range(len(slots[i])), key=slots[i].__getitem__)
            candidate = (slots[i][j] + expected, i, j)
            if best is None or candidate[:2] < best[:2]:
                best = candidate
        if best is not None:
            finish, i, j = best
            slots[i][j] = finish
            latest = max(latest, finish)
    return latest


@pytest.mark.parametrize("many_accounts", [False, True], ids=["scan", "heap"])
@pytest.mark.parametrize("seed", range(30))
def test_schedule_matches_the_plain_reference(seed: int, many_accounts: bool) -> None:
    # Few accounts per model take the scan path, more than a dozen the lazy-heap path.
    rng = random.Random(seed)
    models = ["m1", "m2", "m3"]
    count = rng.randint(14, 24) if many_accounts else rng.randint(1, 6)
    servers = [
        Slot(
            f"acc{k}",
            frozenset(models if many_accounts and k % 2 else rng.sample(models, rng.randint(1, 3))),
            rng.randint(1, 5),
            rng.random() > 0.1,
        )
        for k in range(count)
    ]
    finished = [
        done(
            rng.choice(models),
            f"acc{rng.randrange(count + 1)}",
            rng.uniform(5, 360),
            ago=rng.uniform(0, 3000),
        )
        for _ in range(rng.randint(1, 60))
    ]
    running = [
        (rng.choice(models), f"acc{rng.randrange(count + 1)}", NOW - rng.uniform(0, 400))
        for _ in range(rng.randint(0, 8))
    ]
    pending = [rng.choice(models) for _ in range(rng.randint(1, 120))]
    snapshot = LaneSnapshot(NOW, pending, running, finished, servers, [])
    result = estimate_lane(snapshot)
    if result.basis == "no_capacity":
        assert not set(pending) & set().union(*(s.models for s in servers if s.available))
        return
    assert result.basis == "observed"
    assert result.eta_s == pytest.approx(reference_latest_end(snapshot) - NOW)


# --- speed ---------------------------------------------------------------------------------------


def test_ten_thousand_pending_over_ten_accounts_gets_an_observed_estimate() -> None:
    """At the size of a long night's queue. What it costs is not judged here: the plan runs on
    a worker thread for long queues, and the window's lag while it does is B7's figure."""
    rng = random.Random(1)
    models = [f"model-{k}" for k in range(4)]
    servers = [api(f"acc{k}", 1 + k % 5, *rng.sample(models, 2)) for k in range(10)]
    finished = [
        done(
            rng.choice(models),
            f"acc{rng.randrange(10)}",
            rng.uniform(8, 20),
            ago=rng.uniform(0, 900),
        )
        for _ in range(2000)
    ]
    running = [(min(s.models), s.account_id, NOW - 3.0) for s in servers]
    pending = [rng.choice(models) for _ in range(10_000)]
    snapshot = LaneSnapshot(NOW, pending, running, finished, servers, [1.0] * len(running))
    result = estimate_lane(snapshot)
    assert result.basis == "observed" and result.eta_s is not None and result.eta_s > 0


# --- pacing: the ETA waits where the lane will wait ----------------------------------------------


def paced(account: str, policy: PacingPolicy, state: PacingState | None = None) -> Slot:
    return Slot(account, frozenset((WEB,)), 1, True, PacingPlanner(policy, state or PacingState()))


def test_pacing_gaps_and_window_are_in_the_eta() -> None:
    policy = PacingPolicy(min_gap_s=120, max_per_window=4, window_s=1800)
    result = estimate(
        pending=[WEB] * 8,
        finished=history(WEB, "w1", [60, 60, 60]),
        servers=[paced("w1", policy)],
    )
    # Starts 0, 180, 360, 540; the fifth waits for the first to leave the window (1800),
    # then 1980, 2160, 2340; the last ends at 2400.
    assert result.eta_s == pytest.approx(2400.0)


def test_a_running_task_on_a_paced_account_is_followed_by_its_gap() -> None:
    policy = PacingPolicy(min_gap_s=100)
    result = estimate(
        pending=[WEB],
        running=[(WEB, "w1", NOW - 20.0)],  # 40 s to go
        finished=history(WEB, "w1", [60, 60, 60]),
        servers=[paced("w1", policy)],
    )
    assert result.eta_s == pytest.approx(40.0 + 100.0 + 60.0)


def test_a_cooling_paced_account_leaves_the_work_to_the_other() -> None:
    policy = PacingPolicy(cooldowns={"captcha": 2700})
    state = PacingState(cooldown_kind="captcha", cooldown_until=NOW + 2700)
    result = estimate(
        pending=[WEB] * 4,
        finished=history(WEB, "w1", [60, 60]) + history(WEB, "w2", [60, 60]),
        servers=[paced("w1", policy, state), web("w2")],
    )
    assert result.eta_s == pytest.approx(240.0)  # w2 alone, back to back


def test_paced_slots_compare_by_their_pacing_so_the_panel_re_estimates() -> None:
    policy = PacingPolicy(min_gap_s=60)
    assert paced("w1", policy) == paced("w1", policy)
    assert paced("w1", policy) != paced("w1", policy, PacingState(last_end_at=NOW))
