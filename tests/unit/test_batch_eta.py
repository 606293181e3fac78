"""One plan for the lane panels and the batches list (gui/batches/eta.py ``plan_lanes``): the queue
in its real order (priority first), paused batches left out, scheduled ones planned from their
start, each batch ending with its last task. A pure function: the window runs it on a worker
thread for a long queue."""

from __future__ import annotations

from typing import Any

import pytest

from media_assistant.core.rules.eta import Slot
from media_assistant.gui.batches.eta import LaneInputs, plan_lanes
from media_assistant.gui.tasks.rows import LaneIndex, make_row

NOW = 1_000_000.0


def row(task_id: str, batch: str, state: str = "pending", **values: Any) -> Any:
    return make_row(
        {
            "task_id": task_id,
            "seq": int(task_id[1:]),
            "batch_id": batch,
            "model": "m",
            "model_kind": "api",
            "state": state,
            "attempt": 0,
            "max_attempts": 3,
            "created_at": NOW - 100,
            **values,
        }
    )


def lane(*rows: Any) -> LaneIndex:
    return LaneIndex.build(
        [  # one ended task: the lane's observed duration is 10 s
            row("t0", "old", "success", started_at=NOW - 20, finished_at=NOW - 10),
            *rows,
        ]
    )


ONE_SLOT = [Slot("api-1", frozenset({"m"}), 1, True)]


def test_a_prioritized_batch_goes_first_and_each_batch_ends_with_its_last_task() -> None:
    index = lane(row("t1", "A"), row("t2", "A"), row("t3", "B", priority=5))
    plan = plan_lanes({"api": LaneInputs.of(index, ONE_SLOT)}, NOW)
    assert plan.finishes["api"] == {"B": pytest.approx(NOW + 10), "A": pytest.approx(NOW + 30)}
    estimate = plan.estimates["api"]
    assert estimate.basis == "observed" and estimate.eta_s == pytest.approx(30)


def test_a_paused_batch_is_left_out_of_the_plan() -> None:
    index = lane(row("t1", "A"), row("t2", "A"), row("t3", "B"))
    plan = plan_lanes({"api": LaneInputs.of(index, ONE_SLOT)}, NOW, {("A", "api"): None})
    assert plan.finishes["api"] == {"B": pytest.approx(NOW + 10)}
    assert plan.estimates["api"].eta_s == pytest.approx(10)
    assert plan.estimates["api"].starts_at is None


def test_a_scheduled_batch_starts_at_its_time_after_the_work_that_may_start_now() -> None:
    """The 16:09 case of issue 20: three tasks wait for a schedule, one of another batch may
    start now; the scheduled ones are planned from their start, queue order notwithstanding."""
    at = NOW + 600
    index = lane(row("t1", "S", priority=9), row("t2", "S"), row("t3", "S"), row("t4", "B"))
    plan = plan_lanes({"api": LaneInputs.of(index, ONE_SLOT)}, NOW, {("S", "api"): at})
    assert plan.finishes["api"] == {"B": pytest.approx(NOW + 10), "S": pytest.approx(at + 30)}
    assert plan.starts["api"] == {"B": pytest.approx(NOW), "S": pytest.approx(at)}
    assert plan.estimates["api"].starts_at is None  # B may start now


def test_a_lane_whose_every_task_waits_for_a_schedule_says_when_it_begins() -> None:
    at = NOW + 600
    index = lane(row("t1", "S"), row("t2", "S"), row("t3", "S"))
    estimate = plan_lanes({"api": LaneInputs.of(index, ONE_SLOT)}, NOW, {("S", "api"): at})
    assert estimate.estimates["api"].starts_at == pytest.approx(at)
    assert estimate.estimates["api"].finish_at == pytest.approx(at + 30)  # not "ETA 0 s"
    fresh = LaneIndex.build([row("t1", "S")])  # no duration known yet: the start at least
    first = plan_lanes({"api": LaneInputs.of(fresh, ONE_SLOT)}, NOW, {("S", "api"): at})
    assert first.estimates["api"].starts_at == pytest.approx(at)
    assert first.starts["api"] == {"S": pytest.approx(at)}


def test_the_inputs_are_copies_the_window_may_change_meanwhile() -> None:
    index = lane(row("t1", "A"))
    inputs = LaneInputs.of(index, ONE_SLOT)
    index.add(row("t2", "A"))  # the model goes on while a worker plans
    assert [r.task_id for r in inputs.pending] == ["t1"]
    assert plan_lanes({"api": inputs}, NOW).finishes["api"] == {"A": pytest.approx(NOW + 10)}


def test_a_lane_without_an_ended_task_has_an_estimate_but_no_batch_ends() -> None:
    index = LaneIndex.build([row("t1", "A")])
    plan = plan_lanes({"api": LaneInputs.of(index, ONE_SLOT)}, NOW)
    assert plan.estimates["api"].basis == "no_samples" and plan.finishes == {}


def test_batches_share_the_lane_so_a_small_one_behind_a_big_one_ends_first() -> None:
    """Issue 30: the plan orders the queue as the fair share's claims take it — A's ten tasks
    submitted before B's two do not hold B back — and gives each batch its share."""
    index = lane(*(row(f"t{i}", "A") for i in range(1, 11)), row("t11", "B"), row("t12", "B"))
    plan = plan_lanes(
        {"api": LaneInputs.of(index, ONE_SLOT)}, NOW, groups={"A": ("li", 1.0), "B": ("li", 1.0)}
    )
    assert plan.finishes["api"]["B"] == pytest.approx(NOW + 40)  # A, B, A, B: not after A's ten
    assert plan.finishes["api"]["A"] == pytest.approx(NOW + 120)
    assert plan.shares == {"A": pytest.approx(0.5), "B": pytest.approx(0.5)}
    heavy = plan_lanes(
        {"api": LaneInputs.of(index, ONE_SLOT)}, NOW, groups={"A": ("li", 1.0), "B": ("wang", 1.0)}
    )
    assert heavy.shares == {"A": pytest.approx(0.5), "B": pytest.approx(0.5)}
