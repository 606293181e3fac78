"""What the team tests and B8 count with (benchmarks/_team_env.py), on made-up records: a count
that cannot see a conflict or a repeat would let tests/faults/test_team_processes.py pass on a
broken team."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest

from benchmarks import bench_team
from benchmarks._team_env import (
    ApiAccount,
    Ledger,
    WebRun,
    api_answered,
    api_asked,
    max_in_window,
    station_config,
    web_report,
    web_runs,
)
from media_assistant.core.config.schema import parse_config


def run(task: str, account: str, start: float, end: float, ok: bool = True) -> WebRun:
    return WebRun(task, account, 1, start, end, ok)


def test_max_in_window_counts_a_half_open_window() -> None:
    assert max_in_window([], 60) == 0
    assert max_in_window([0, 2, 4, 6], 6) == 3  # [0, 6) holds 0, 2, 4; 6 is the next window's
    assert max_in_window([0, 2, 4, 6], 6.01) == 4
    assert max_in_window([5, 0, 1, 3], 2) == 2


def test_the_ledger_is_shared_by_processes_and_a_killed_one_s_generations_end_at_the_kill(
    tmp_path: Path,
) -> None:
    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.write(event="start", at=1.0, task="a", account="w1", pid=10, n=0)
    ledger.write(event="end", at=2.0, ok=True, task="a", account="w1", pid=10, n=0)
    other = Ledger(tmp_path / "ledger.jsonl")  # another process appends to the same file
    other.write(event="start", at=1.5, task="b", account="w2", pid=11, n=0)
    runs = web_runs(ledger.read(), killed={11: 3.0})
    assert sorted(runs, key=lambda r: r.task) == [
        WebRun("a", "w1", 10, 1.0, 2.0, True),
        WebRun("b", "w2", 11, 1.5, 3.0, False, killed=True),
    ]
    with pytest.raises(AssertionError, match="never ended"):
        web_runs(ledger.read(), killed={})


def test_web_report_sees_conflicts_and_repeats() -> None:
    clean = web_report(
        [run("a", "w1", 0, 1), run("b", "w1", 1, 2), run("c", "w2", 0.5, 3), run("d", "w2", 3, 4)]
    )
    assert (clean.conflicts, clean.max_per_account, clean.repeated) == (0, 1, [])
    # Two generations at once on one account: both are broken (the sites' rule).
    shared = web_report([run("a", "w1", 0, 2), run("b", "w1", 1, 3), run("c", "w1", 3, 4)])
    assert (shared.conflicts, shared.max_per_account) == (2, 2)
    # A task answered twice, or running on two accounts at once, ran twice.
    twice = web_report([run("a", "w1", 0, 1), run("a", "w2", 5, 6)])
    at_once = web_report([run("a", "w1", 0, 2, ok=False), run("a", "w2", 1, 3)])
    again = web_report([run("a", "w1", 0, 1, ok=False), run("a", "w2", 5, 6)])  # after a kill
    assert (twice.repeated, at_once.repeated, again.repeated) == (["a"], ["a"], [])
    assert again.accounts_of == {"a": {"w1", "w2"}}


def test_api_counts_by_prompt_and_outcome() -> None:
    def request(prompt: str, outcome: str | None) -> dict[str, object]:
        record: dict[str, object] = {"messages": [{"role": "user", "content": prompt}]}
        if outcome is not None:
            record["outcome"] = outcome
        return record

    requests = [request("p1", "served"), request("p2", "client_closed"), request("p2", "served")]
    requests.append(request("p3", None))  # still in flight
    assert api_asked(requests) == {"p1": 1, "p2": 2, "p3": 1}
    assert api_answered(requests) == {"p1": 1, "p2": 1}


def test_a_station_config_is_a_valid_team_config() -> None:
    text = station_config(
        workstation="pc-7",
        store_url="postgresql://ma@127.0.0.1:5432/team",
        web_accounts=["web-pc-7"],
        api_accounts=[ApiAccount("api-team", "http://127.0.0.1:8001/v1", 2, rpm=30)],
        heartbeat_s=1.0,
        dead_after_s=4.0,
    )
    config = parse_config(tomllib.loads(text), "pc-7.toml")
    assert config.team.workstation == "pc-7"
    assert config.store.url == "postgresql://ma@127.0.0.1:5432/team"
    api = config.account("api-team")
    assert api is not None and (api.concurrency, api.rpm) == (2, 30)
    assert config.scheduler.dead_after_s == 4.0


def test_b8_renders_its_result_and_judges_its_targets() -> None:
    result = {
        "workstations": 3,
        "heartbeat_s": 2.0,
        "dead_after_s": 8.0,
        "api_concurrency": 3,
        "duplicate_runs": 0,
        "web_conflicts": 0,
        "api_max_in_flight": 3,
        "visible_p95_s": 0.3,
        "makespan_ratio": 1.25,
        "reclaim_s": 7.7,
        "claims_per_s": 45.0,
        "seed": {
            "speed": 50.0,
            "tasks": 40,
            "succeeded": 40,
            "by_workstation": {"pc-1": 20, "pc-2": 10, "pc-3": 10},
            "duplicate_runs": 0,
            "web_conflicts": 0,
            "api_max_in_flight": 3,
            "makespan_s": 1003.0,
            "lower_bound_s": 802.0,
            "ideal_fifo_s": 992.0,
            "makespan_ratio": 1.25,
            "visible_samples": 0,
            "visible_p50_s": math.nan,
            "visible_p95_s": 0.3,
            "visible_max_s": math.nan,
        },
        "reclaim": [
            {
                "reclaim_s": 7.7,
                "killed": "pc-2",
                "taken_by": "pc-1",
                "state": "success",
                "attempt": 1,
                "lost_count": 1,
            }
        ],
        "claims": {
            "tasks": 1500,
            "succeeded": 1500,
            "by_workstation": {"pc-1": 500, "pc-2": 500, "pc-3": 500},
            "claims_per_s": 45.0,
            "span_s": 33.0,
            "cpu_ms_per_task": 7.0,
            "server_cpu_ms_per_task": 1.0,
            "cpu_s": [3.5, 3.5, 3.5],
        },
        "load_avg_1min": [12.0, 14.0],
    }
    result["targets"] = bench_team.team_targets(result)
    verdicts = {t["name"]: t["passed"] for t in result["targets"]}
    # 45 claims/s misses; the rest pass (every phase's tasks succeeded).
    assert [n for n, ok in verdicts.items() if not ok] == [
        "no-op tasks through PostgreSQL, three workstations (succeeded ones)"
    ]
    text = bench_team.markdown(result)
    assert text.startswith("## B8")
    assert "| 1.250 |" in text and "7.700" in text and "**MISS**" in text


def test_b8_measures_a_follower_s_sighting_from_the_commit_of_the_change_it_shows() -> None:
    commits = [
        ("a", "submitted", 0.0),
        ("a", "started", 10.0),
        ("b", "started", 10.5),
        ("a", "succeeded", 12.0),
    ]
    seen = [
        ("a", "running", 10.2),  # the claim, 0.2 s after it committed
        ("a", "success", 12.9),  # the answer's write, not the claim
        ("b", "running", 10.49),  # a clock 10 ms behind the server's: the same commit
        ("c", "running", 5.0),  # nothing committed for it (another database): not counted
    ]
    lags = bench_team.lags_after_commits(commits, seen)
    assert [round(x, 3) for x in lags] == [0.2, 0.9, 0.0]
