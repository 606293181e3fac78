"""B14 (benchmarks/bench_claims.py): its pass rule says MISS for a failing measurement, and its
measuring script, run for real on a small SQLite file, counts what it says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks import bench_claims
from benchmarks.report import REPO, targets_table


def side(rates: list[float], *, exact: bool = True, trips: float = 10.0) -> dict[str, Any]:
    return {
        "claims_per_s": rates,
        "claims_per_s_median": sorted(rates)[len(rates) // 2],
        "statements_per_claim": 4.0,
        "statements_per_finish": 3.0,
        "transactions_per_task": 2.0,
        "round_trips_per_task": trips,
        "cpu_ms_per_task": 2.0,
        "exact": exact,
        "failures": [] if exact else ["t-00001: the finish changed nothing"],
    }


def test_b13_misses_below_nine_tenths_of_before_and_passes_above() -> None:
    before = side([180.0, 190.0, 200.0])
    slow = bench_claims.ratio_target("postgresql", side([110.0, 118.0, 124.0]), before)
    assert not slow["passed"] and slow["value"] == round(118.0 / 190.0, 3)
    assert bench_claims.PRE_FAIR in slow["name"]
    start = bench_claims.ratio_target("postgresql", side([118.0]), before, "start")
    assert not start["passed"] and bench_claims.START in start["name"]
    assert "**MISS**" in targets_table([slow])
    fast = bench_claims.ratio_target("postgresql", side([175.0, 180.0, 185.0]), before)
    assert fast["passed"] and fast["value"] == round(180.0 / 190.0, 3)


def test_b13_a_task_taken_twice_or_lost_is_a_miss_whatever_the_rate() -> None:
    before = side([180.0])
    wrong = bench_claims.ratio_target("sqlite", side([400.0], exact=False), before)
    assert not wrong["passed"] and "exactly once" in wrong["explanation"]


def test_b13_a_side_without_runs_is_a_miss_that_says_so() -> None:
    missing = bench_claims.ratio_target("postgresql", side([180.0]), {})
    assert not missing["passed"] and missing["value"] == "not measured"


def test_b13_measuring_script_claims_every_task_once_and_counts_statements(
    tmp_path: Path,
) -> None:
    """The real script on this worktree's code: two threads, thirty tasks, a SQLite file."""
    url = f"sqlite:///{tmp_path / 'b13.db'}"
    run = bench_claims.measure(REPO, url, threads=2, tasks=30)
    assert run["claimed"] == run["distinct"] == 30 and not run["failures"]
    assert sum(run["per_thread"]) == 30
    assert Path(run["code"]) == REPO / "media_assistant"
    summary = bench_claims.per_task([run])
    assert summary["exact"]
    # Each task is a claim and a finish: two transactions, each of a few statements.
    assert 2.0 <= summary["transactions_per_task"] < 2.5
    assert summary["statements_per_claim"] >= 3 and summary["statements_per_finish"] >= 3
    engines = {"sqlite": {"now": summary, "start": summary, "pre_fair": summary}}
    aged_run = bench_claims.measure(REPO, f"sqlite:///{tmp_path / 'b14b.db'}", 1, 30, 500)
    assert aged_run["old_batches"] == 500 and aged_run["claimed"] == aged_run["distinct"] == 30
    aged = bench_claims.per_task([aged_run])
    text = bench_claims.markdown(
        {
            "config": {
                "threads": bench_claims.THREADS,
                "tasks": 30,
                "repeats": 1,
                "old_batches": 500,
            },
            "baselines": {"start": bench_claims.START, "pre_fair": bench_claims.PRE_FAIR},
            "pre_index": bench_claims.PRE_INDEX,
            "aged": {"sqlite": {"now@0": summary, "now@500": aged}},
            "load_before": [1.0, 1.0, 1.0],
            "load_after": [1.0, 1.0, 1.0],
            "engines": engines,
            "ratios": {"sqlite": bench_claims.ratios(engines["sqlite"])},
            "notes": [],
            "targets": [bench_claims.ratio_target("sqlite", summary, summary, "start")],
        }
    )
    assert "B14" in text and "**PASS**" in text
    assert f"{bench_claims.PRE_FAIR} (just before the fair share)" in text
    assert "| 1.000 / 1.000 |" in text  # now ÷ each baseline
    assert "B14b — with 500 finished batches' nodes" in text
    assert f"{bench_claims.PRE_INDEX} (before the index) | 500 | not run" in text


def test_b14b_misses_when_old_batches_slow_the_claims_and_passes_when_they_do_not() -> None:
    fresh = side([300.0, 310.0, 320.0])
    slow = bench_claims.aged_target("postgresql", side([60.0, 62.0, 64.0]), fresh, 50_000)
    assert not slow["passed"] and slow["value"] == round(62.0 / 310.0, 3)
    assert "50,000 finished batches" in slow["name"] and "**MISS**" in targets_table([slow])
    fine = bench_claims.aged_target("sqlite", side([290.0, 300.0, 305.0]), fresh, 50_000)
    assert fine["passed"]
    lost = bench_claims.aged_target("sqlite", side([300.0], exact=False), fresh, 50_000)
    assert not lost["passed"] and "exactly once" in lost["explanation"]
    missing = bench_claims.aged_target("sqlite", {}, fresh, 50_000)
    assert not missing["passed"] and missing["value"] == "not measured"
