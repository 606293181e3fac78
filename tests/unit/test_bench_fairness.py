"""B10's measures and verdicts (benchmarks/bench_fairness.py, _fair_metrics.py, _fair_env.py)
without running the benchmark: the index, the windows and the shares are computed from made-up
generations whose answer is known, and every target is fed a failing measurement (it says
MISS) beside a passing one (it says PASS), as for every other benchmark
(tests/unit/test_benchmark_verdicts.py)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from benchmarks import _fair_metrics as fm
from benchmarks import _fair_runs, bench_fairness
from benchmarks._fair_env import make_batch, merge
from benchmarks.report import targets_table

# ---------------------------------------------------------------------------- measures


def test_jain_index_is_one_when_equal_and_one_over_n_when_one_has_everything() -> None:
    assert fm.jain([5.0, 5.0, 5.0, 5.0]) == pytest.approx(1.0)
    assert fm.jain([20.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert fm.jain([2.0, 1.0, 1.0, 1.0]) == pytest.approx(25 / 28)
    assert math.isnan(fm.jain([0.0, 0.0]))


def test_service_clips_each_generation_to_the_window() -> None:
    gens = [("a1", 0.0, 10.0), ("b1", 5.0, 15.0), ("a2", 12.0, 30.0)]
    batch_of = {"a1": "A", "a2": "A", "b1": "B"}
    assert fm.service(gens, batch_of, 0.0, 10.0) == {"A": 10.0, "B": 5.0}
    assert fm.service(gens, batch_of, 10.0, 20.0) == {"A": 8.0, "B": 5.0}
    assert fm.windows(0.0, 25.0, 10.0) == [(0.0, 10.0), (10.0, 20.0)]  # whole windows only
    assert fm.backlogged_until({"A": [0.0, 12.0], "B": [5.0]}) == 5.0


def round_robin(batches: list[str], slots: int, length: float, until: float) -> list[Any]:
    """Every slot serves the batches in turn (a fair schedule), tasks of ``length``."""
    gens, turn = [], 0
    for slot in range(slots):
        t = slot * 0.1
        while t < until:
            name = batches[turn % len(batches)]
            gens.append((f"{name}-{turn}", t, t + length))
            turn += 1
            t += length
    return gens


def test_a_fair_schedule_scores_near_one_and_fifo_a_quarter_per_minute() -> None:
    names = ["E1", "E2", "E3", "E4"]
    fair = round_robin(names, 5, 0.75, 60.0)
    batch_of = {g[0]: g[0].split("-")[0] for g in fair}
    indexes = fm.window_indexes(fair, batch_of, names, 0.0, 60.0, 6.0)
    assert len(indexes) == 10 and min(indexes) > 0.95
    fifo = [(f"E1-{i}", g[1], g[2]) for i, g in enumerate(fair)]
    fifo_of = {g[0]: "E1" for g in fifo}
    assert max(fm.window_indexes(fifo, fifo_of, names, 0.0, 60.0, 6.0)) == pytest.approx(0.25)


def test_class_shares_tell_strict_priority_from_weights() -> None:
    # Urgent alone on 5 slots for 10 s, then both for 20 s, then normal alone for 10 s.
    def schedule(urgent_slots_when_both: int) -> tuple[list[Any], dict[str, str]]:
        gens, cls = [], {}
        for slot in range(5):
            both = "u" if slot < urgent_slots_when_both else "n"
            for name, lo, hi in (("u", 0.0, 10.0), (both, 10.0, 30.0), ("n", 30.0, 40.0)):
                task = f"{name}{slot}-{lo}"
                gens.append((task, lo, hi))
                cls[task] = "urgent" if name == "u" else "normal"
        return gens, cls

    alone = {"urgent": (0.0, 10.0), "normal": (30.0, 40.0)}
    strict, cls = schedule(5)
    shares = fm.class_shares(strict, cls, (10.0, 30.0), alone)
    assert shares["urgent"] == 1.0 and shares["normal"] == 0.0
    assert shares["urgent_alone"] == pytest.approx(1.0)
    weighted, cls = schedule(3)  # 3 of 5 slots: 60 %
    shares = fm.class_shares(weighted, cls, (10.0, 30.0), alone)
    assert shares["urgent"] == pytest.approx(0.6) and shares["normal"] == pytest.approx(0.4)
    # A class held to its weight when alone: 3 of 5 slots busy.
    capped = [g for g in weighted if not (g[1] == 30.0 and g[0][1] in "34")]
    assert fm.class_shares(capped, cls, (10.0, 30.0), alone)["normal_alone"] == pytest.approx(0.6)


def test_batches_and_the_export_check() -> None:
    batch = make_batch("A", 10, 30)
    assert make_batch("A", 10, 30) == batch  # seeded
    assert list(batch.kinds.values()).count("web") == 4  # 2 of every 5
    assert all(5.0 <= d <= 10.0 for d in batch.durations.values())
    assert batch.csv().splitlines()[1] == "a-0000,fair a-0000,web-model,0"
    exported = [
        {
            "task_id": "a-0000",
            "batch_id": "A",
            "model_kind": "web",
            "state": "success",
            "created_at": "2026-12-06T10:00:00+00:00",
            "started_at": "2026-12-06T10:00:01+00:00",
            "finished_at": "2026-12-06T10:00:05+00:00",
        }
    ]
    base = 1796551200.0  # 2026-12-06T10:00:00Z
    rows = [
        {
            "task_id": "a-0000",
            "created_at": base + 0.3,
            "started_at": base + 1.4,
            "finished_at": base + 9.0,
        }
    ]
    tasks, mismatches = merge(exported, rows)
    assert tasks["a-0000"].started_at == base + 1.4  # the table's exact value
    assert mismatches == [
        "a-0000 finished_at: export 2026-12-06T10:00:05+00:00, table 1796551209.0"
    ]


# ---------------------------------------------------------------------------- verdicts


def measurement(*, ok: bool = True, fair: bool = True) -> dict[str, Any]:
    runs = {"tasks": 100, "succeeded": 100 if ok else 99, "export_mismatches": 0}

    def jain(low: float) -> dict[str, Any]:
        return {**runs, "windows": 8, "min": low, "mean": low + 0.01, "service_s": {"W1": 1.0}}

    return {
        "big_and_small": {
            "runs": {"A alone": runs, "B alone": runs, "A then B": runs},
            "small_batch_slowdown": 1.2 if fair else 9.5,
            "small_batch_limit": 1.8,
            "big_batch_overhead": 1.01 if fair else 1.2,
            "a_alone_s": 600.0,
            "b_alone_s": 30.0,
            "b_mix_s": 40.0,
            "b_wait_s": 5.0,
            "a_mix_s": 610.0,
            "b_work_s": 30.0,
        },
        "equal": jain(0.97 if fair else 0.25),
        "urgent_normal": {
            **runs,
            "shares": {
                "urgent": 0.72 if fair else 1.0,
                "normal": 0.28 if fair else 0.0,
                "urgent_alone": 0.99 if fair else 1.0,
                "normal_alone": 0.98 if fair else 0.7,
            },
        },
        "workstations": jain(0.96 if fair else 0.5),
    }


def verdicts(r: dict[str, Any]) -> dict[str, bool]:
    return {t["name"]: bool(t["passed"]) for t in bench_fairness.fairness_targets(r)}


def test_b10_every_target_misses_on_an_unfair_measurement() -> None:
    good = verdicts(measurement())
    assert len(good) == 7 and all(good.values())
    bad = verdicts(measurement(fair=False))
    # Strict priority leaves urgent its 100 % when alone: that one target still passes.
    assert [name for name, ok in bad.items() if ok] == [
        "(c) urgent left alone: its rate ÷ both classes' rate"
    ]
    # More slots in use alone than while both waited is a quieter machine, not a fault.
    busier = measurement()
    busier["urgent_normal"]["shares"]["normal_alone"] = 1.2
    assert all(verdicts(busier).values())
    unfair = measurement(fair=False)
    unfair["urgent_normal"]["shares"]["urgent_alone"] = 0.7
    assert not any(verdicts(unfair).values())
    table = targets_table(bench_fairness.fairness_targets(unfair))
    assert table.count("**MISS**") == 7
    assert "lowest of 8 minutes 0.250" in table


def test_b10_no_figure_counts_when_a_task_did_not_succeed() -> None:
    void = bench_fairness.fairness_targets(measurement(ok=False))
    assert not any(t["passed"] for t in void)
    assert all("not every task succeeded" in t["explanation"] for t in void)


def test_b10_a_scenario_that_did_not_run_is_a_miss() -> None:
    r = measurement()
    del r["workstations"]
    [goal] = [t for t in bench_fairness.fairness_targets(r) if t["name"].startswith("(d)")]
    assert not goal["passed"] and goal["value"] == "not measured"


# ---------------------------------------------------------------------------- the real pipeline


def test_one_workstation_run_is_read_back_from_the_export_and_the_logs(tmp_path: Any) -> None:
    """`run FILE` and `export` as processes on the simulators: every task's generation is in the
    logs under its id, as long as its drawn duration (÷ the scale), and the export agrees with
    the task table to its second."""
    batch = make_batch("S", 5, 1)
    observed = _fair_runs._one_pc(tmp_path, "smoke", 10.0, [batch])
    assert {t.state for t in observed.tasks.values()} == {"success"}
    assert sorted(observed.tasks) == sorted(batch.durations)
    assert observed.export_mismatches == []
    served = {task: end - start for task, start, end in observed.generations}
    assert sorted(served) == sorted(batch.durations)
    for task, seconds in served.items():
        assert seconds >= batch.durations[task] / 10.0 - 0.01, task
    assert {t.kind for t in observed.tasks.values()} == {"web", "api"}
