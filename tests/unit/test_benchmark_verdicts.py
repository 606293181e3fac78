"""Every benchmark's pass rule can say MISS: each is fed a failing measurement (and, beside it, a
passing one, so the rule is seen to decide) without running the benchmark."""

from __future__ import annotations

import math
from typing import Any

from benchmarks import (
    bench_breakage,
    bench_cancel,
    bench_gui,
    bench_io,
    bench_isolation,
    bench_metrics,
    bench_overhead,
    bench_seed,
    bench_team,
    bench_web,
)
from benchmarks.report import targets_table


def verdicts(targets: list[dict[str, Any]]) -> dict[str, bool]:
    return {t["name"]: bool(t["passed"]) for t in targets}


# ---------------------------------------------------------------------------- B1


def seed_row(ours_all: float | None, pool_all: float | None) -> dict[str, Any]:
    ours = {
        "makespan_s": 1000.0,
        "all_results_s": ours_all,
        "web_gap_mean_real_ms": 8.0,
        "web_overrun_mean_real_ms": 7.0,
        "web_failures": 0 if ours_all is not None else 2,
        "web_conflicts_max": 0,
    }
    pool = {
        "makespan_s": 400.0,
        "all_results_s": pool_all,
        "operator_reruns": 10,
        "web_failures": 11,
        "web_conflicts": 26,
    }
    return {
        "strategies": {"ours": ours, "shared_pool": pool},
        "lower_bound_s": 990.0,
        "ideal_fifo_s": 990.0,
        "optimum_s": 990.0,
    }


def test_b1_time_to_every_result_counts_never_on_both_sides() -> None:
    def rule(ours: float | None, pool: float | None) -> dict[str, Any]:
        return bench_seed.all_results_target(1, ours, pool, 10)

    assert rule(1000.0, None)["passed"]  # the pool never got there, ours did
    assert rule(1000.0, 2500.0)["passed"]
    assert not rule(1000.0, 1500.0)["passed"]  # 1.5×
    ours_never = rule(None, None)
    assert not ours_never["passed"] and "never" in ours_never["value"]
    assert "ours never" in ours_never["explanation"]
    assert not rule(None, 2500.0)["passed"]
    # The whole table renders a MISS for our side never finishing (it used to crash).
    targets = bench_seed._targets({"1": seed_row(None, None)}, 12, 10, 200.0)
    names = verdicts(targets)
    assert names["(a) vs (b), time until every task has a result, 1 web"] is False
    # A makespan that gave up on tasks is no makespan: its ratio alone (1.01) does not pass.
    assert names["(a) makespan / bound, 1 web"] is False
    assert "**MISS**" in targets_table(targets)
    passing = verdicts(bench_seed._targets({"1": seed_row(1000.0, None)}, 12, 10, 200.0))
    assert passing["(a) makespan / bound, 1 web"] is True


# ---------------------------------------------------------------------------- B2, B3


def test_b2_isolation_misses_above_the_ratio_or_without_a_figure() -> None:
    assert bench_isolation.isolation_target(1.02)["passed"]
    assert not bench_isolation.isolation_target(1.4)["passed"]
    assert not bench_isolation.isolation_target(math.nan)["passed"]


def overhead_scenario(rate: float, p95: float) -> dict[str, Any]:
    return {"tasks_per_s": rate, "dispatch_p95_ms": p95, "cpu_ms_per_task": 2.5}


def test_b3_overhead_misses_on_rate_dispatch_or_a_failed_task() -> None:
    fast = [overhead_scenario(1200.0, 5.0)]
    slow = [overhead_scenario(120.0, 60.0)]
    assert all(verdicts(bench_overhead.overhead_targets(fast, True, {})).values())
    assert not any(verdicts(bench_overhead.overhead_targets(slow, True, {})).values())
    lost = bench_overhead.overhead_targets(fast, False, {})
    assert not any(verdicts(lost).values())
    assert "not every task succeeded" in lost[0]["explanation"]


# ---------------------------------------------------------------------------- B4, B5, B7


def test_b4_web_overhead_misses_when_slow_or_when_a_task_failed() -> None:
    good = [{"state": "success", "own_answer": True}] * 3
    assert bench_web.overhead_verdict(good, 0.6) == (True, True)
    assert bench_web.overhead_verdict(good, 1.4) == (True, False)
    wrong = [*good[:2], {"state": "success", "own_answer": False}]
    assert bench_web.overhead_verdict(wrong, 0.6) == (False, False)
    assert bench_web.overhead_verdict([], math.nan) == (False, False)


def gui_result(p99: float, window_s: float, rss: float) -> dict[str, Any]:
    lag = {
        "rows": 100_000,
        "lag_ms": {"p99": p99},
        "settle_ms": {"p50": 10.0},
        "paint_ms": {"max": 20.0},
    }
    return {
        "database": {"tasks": 100_000},
        "lag": {name: lag for name in bench_gui.SCENARIOS},
        "startup": {
            "window_painted_s": window_s,
            "rss_mb_at_paint": rss,
            "import_s": 1.0,
            "load_median_ms": {"tasks": 500.0},
            "marks_median_s": {
                "loaded": 2.0,
                "window_built": 1.5,
                "painted": 2.2,
                "show_called": 2.1,
            },
        },
    }


def test_b5_gui_misses_each_figure_over_its_limit() -> None:
    assert all(verdicts(bench_gui._targets(gui_result(20.0, 2.0, 300.0))).values())
    slow = bench_gui._targets(gui_result(80.0, 4.0, 500.0))
    assert not any(verdicts(slow).values())


def io_result(p99: float, worst: float, visible: float) -> dict[str, Any]:
    phases = ("export", "submit", "locked", "history", "metrics")
    return {
        "measured": {
            "exported": 100_000,
            "export_s": 30.0,
            "tasks": 100_000,
            "history_s": 5.0,
            "lock_held_s": 10.0,
            "cross_process_visible_s": [visible],
        },
        "setup": {"sizes": {"csv_rows": 20_000}},
        "cross_process_visible_s": visible,
        **{f"lag_p99_ms_{p}": p99 for p in phases},
        **{f"lag_max_ms_{p}": worst for p in phases},
    }


def test_b7_window_lag_and_visibility_miss_over_their_limits() -> None:
    assert all(verdicts(bench_io._targets(io_result(5.0, 30.0, 0.4))).values())
    assert not any(verdicts(bench_io._targets(io_result(90.0, 900.0, 5.0))).values())


# ---------------------------------------------------------------------------- B6


def test_b6_a_skipped_or_slow_scenario_is_a_miss_with_its_reason() -> None:
    data: dict[str, dict[str, Any]] = {
        "pending": {"latency_s": [0.01, 0.02], "all_canceled": True},
        "running_api": {"latency_s": [0.05, 9.0], "all_canceled": True},
        "running_web_fake": {"latency_s": [0.1], "all_canceled": False},
        "running_web_chromium": {"skipped": "/usr/lib/chromium/chromium not installed"},
    }
    targets = bench_cancel.cancel_targets(data)
    assert [t["passed"] for t in targets] == [True, False, False, False]
    assert targets[3]["value"] == "not measured"
    assert "chromium not installed" in targets[3]["explanation"]
    assert "did not end canceled" in targets[2]["explanation"]


# ---------------------------------------------------------------------------- B8


def team_result(*, seed_ok: int = 40, claims_ok: int = 1500, reclaim_end: str = "success") -> Any:
    return {
        "dead_after_s": 8.0,
        "api_concurrency": 3,
        "duplicate_runs": 0,
        "web_conflicts": 0,
        "api_max_in_flight": 3,
        "visible_p95_s": 0.3,
        "makespan_ratio": 1.25,
        "reclaim_s": 7.7,
        "claims_per_s": 900.0,
        "seed": {
            "tasks": 40,
            "succeeded": seed_ok,
            "makespan_s": 1003.0,
            "lower_bound_s": 802.0,
            "ideal_fifo_s": 992.0,
        },
        "reclaim": [{"state": reclaim_end}],
        "claims": {
            "tasks": 1500,
            "succeeded": claims_ok,
            "cpu_ms_per_task": 1.5,
            "server_cpu_ms_per_task": 0.6,
        },
    }


def test_b8_no_phase_passes_with_a_task_that_did_not_succeed() -> None:
    assert all(verdicts(bench_team.team_targets(team_result())).values())
    failed = verdicts(bench_team.team_targets(team_result(seed_ok=39, claims_ok=1400)))
    assert failed["seed workload: every task succeeded"] is False
    assert failed["claims: every task succeeded"] is False
    assert failed["seed workload makespan ÷ ideal FIFO, 3 workstations × 1 web account"] is False
    assert failed["no-op tasks through PostgreSQL, three workstations (succeeded ones)"] is False
    lost = verdicts(bench_team.team_targets(team_result(reclaim_end="failed")))
    assert lost["kill -9 → the task running on another workstation (worst)"] is False


def test_b8_makespan_is_judged_against_the_ideal_fifo_schedule() -> None:
    slow = team_result()
    slow["seed"]["makespan_s"] = 1100.0  # 1.37 × bound, 1.109 × ideal FIFO
    [goal] = [t for t in bench_team.team_targets(slow) if "makespan" in t["name"]]
    assert not goal["passed"] and goal["value"] == 1100.0 / 992.0
    assert "B1" in goal["explanation"]


# ---------------------------------------------------------------------------- B9


def breakage_case(kind: str, **changes: Any) -> dict[str, Any]:
    step = bench_breakage.STEP_OF[kind]
    case = {
        "breakage": kind,
        "noticed": True,
        "noticed_after_s": 30.0,
        "problem_code": "site_changed",
        "problem_detail": f"the site's page changed: {step.words} (x)",
        "tasks_failed": 0,
    }
    return case | changes


def test_b9_checks_the_verdict_kind_and_the_step_per_site_update() -> None:
    cases = {k: breakage_case(k) for k in bench_breakage.BREAKAGES}
    assert all(verdicts(bench_breakage.breakage_targets(cases)).values())
    wrong_kind = breakage_case("send_moved", problem_code="bad_config")
    wrong_step = breakage_case(
        "answer_renamed", problem_detail="the site's page changed: composer found (x)"
    )
    never = breakage_case("done_missing", noticed=False, noticed_after_s=None)
    failed = breakage_case("login_wall", tasks_failed=1)
    slow = breakage_case("composer_renamed", noticed_after_s=200.0)
    for case in (wrong_kind, wrong_step, never, failed, slow):
        goal = bench_breakage.case_target(case["breakage"], case)
        assert not goal["passed"], case
    assert (
        "not 'site_changed'" in bench_breakage.case_target("send_moved", wrong_kind)["explanation"]
    )


def test_b9_quick_mode_says_it_ran_two_of_five() -> None:
    cases = {k: breakage_case(k) for k in bench_breakage.QUICK_KINDS}
    targets = bench_breakage.breakage_targets(cases)
    assert len(targets) == len(bench_breakage.BREAKAGES)
    left_out = [t for t in targets if t["value"] == "not measured"]
    assert len(left_out) == 3 and not any(t["passed"] for t in left_out)
    assert "runs 2 of 5" in left_out[0]["explanation"]
    full = {k: {**breakage_case(k), "attempts_used_up": 1} for k in cases}
    text = bench_breakage.markdown({"quick": True, "cases": full, "targets": targets})
    assert "This run: 2 of 5 site updates (quick mode)." in text
    assert "**MISS**" in text and "d6406ef" in text


# ---------------------------------------------------------------------------- B12


def test_b12_the_figures_miss_over_200_ms_of_wall_or_cpu_time() -> None:
    def result(wall: float, cpu: float) -> dict[str, Any]:
        engine = {"median_ms": wall, "cpu_ms": cpu}
        return {"tasks": 100_000, "sqlite": engine, "postgresql": engine, "load_avg_1min": [1, 2]}

    assert all(verdicts(bench_metrics.targets_of(result(150.0, 60.0))).values())
    slow = verdicts(bench_metrics.targets_of(result(900.0, 60.0)))
    assert [name for name, ok in slow.items() if not ok] == [
        "figures of 100,000 tasks (sqlite), wall",
        "figures of 100,000 tasks (postgresql), wall",
    ]
    assert not any(verdicts(bench_metrics.targets_of(result(900.0, 300.0))).values())


def test_b12_a_wall_miss_says_where_the_time_went() -> None:
    pg = {"median_ms": 228.0, "cpu_ms": 52.0, "server_cpu_ms": 120.0, "cpu_wait_ms": 6.0,
          "round_trips": 11}  # fmt: skip
    result = {"tasks": 100_000, "postgresql": pg, "load_avg_1min": [0.3, 0.5]}
    (wall, _cpu) = bench_metrics.targets_of(result)
    assert not wall["passed"]
    assert wall["explanation"] == (
        "the reader thread's own CPU time was 52 ms, the PostgreSQL server's 120 ms; 6 ms they "
        "waited for a CPU while other processes ran (1-min load average 0.3 / 0.5 before / "
        "after the run); the other 50 ms neither ran nor waited for a CPU: the 11 round trips "
        "between them and the server's reads"
    )


def test_b8_fleet_says_pass_or_miss_for_each_of_issue_28s_targets() -> None:
    from benchmarks import bench_fleet

    good: dict[str, Any] = {
        "stations": 50,
        "via_pgbouncer": False,
        "tasks": 200,
        "succeeded": 200,
        "exit_codes": {0: 50},
        "joined_before_start": 50,
        "peak_connections_per_ws": 2,
        "idle_connections_per_ws": 1.0,
        "idle_xact_per_s_per_ws": 1.4,
        "busy_xact_per_s_per_ws": 6.0,
        "idle_s": 60.0,
        "busy_s": 40.0,
        "claims_per_s": 5.0,
        "api_max_in_flight": 5,
        "api_concurrency": 5,
        "asked_twice": 0,
        "makespan_s": 110.0,
        "bound_s": 100.0,
        "makespan_ratio": 1.1,
        "load_avg_1min": [3.0, 5.0],
    }
    assert all(t["passed"] for t in bench_fleet.targets(good))
    bad = good | {
        "exit_codes": {0: 48, 4: 2},
        "peak_connections_per_ws": 3,
        "idle_xact_per_s_per_ws": 12.7,
        "makespan_ratio": 1.45,
    }
    missed = {t["name"] for t in bench_fleet.targets(bad) if not t["passed"]}
    assert missed == {
        "every `run` ended 0",
        "peak connections of one workstation",
        "transactions/s per idle workstation",
        "makespan ÷ bound",
    }
    text = bench_fleet.markdown(bad)
    assert "| transactions/s per idle workstation | ≤ 2 | 12.70 | **MISS** |" in text
    assert "Paper estimate" not in text  # only behind PgBouncer


def test_b8_fleet_behind_pgbouncer_estimates_200_and_500_from_its_own_figures() -> None:
    from benchmarks import bench_fleet

    run: dict[str, Any] = {
        "stations": 50,
        "via_pgbouncer": True,
        "pool_size": 20,
        "peak_connections_per_ws": 2,
        "idle_connections_per_ws": 1.0,
        "idle_xact_per_s_per_ws": 1.25,
        "busy_xact_per_s_per_ws": 2.5,
        "pgbouncer_cpu_s": 3.0,
        "transactions": 30_000,  # 100 µs each
    }
    e500 = bench_fleet.estimate(run, 500)
    assert e500["client_connections_peak"] == 1000
    assert e500["server_connections"] == 20
    assert e500["idle_xact_per_s"] == 625.0
    assert e500["busy_xact_per_s"] == 1250.0
    assert abs(e500["pgbouncer_core_share_busy"] - 0.125) < 1e-9  # 1,250/s × 100 µs
    lines = "\n".join(bench_fleet._estimate_lines(run))
    assert "| 200 | 400 / 200 | 20 | 250 | 500 | 5.0 % |" in lines
    assert "| 500 | 1,000 / 500 | 20 | 625 | 1,250 | 12.5 % |" in lines
