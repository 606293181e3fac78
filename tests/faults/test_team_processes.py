"""Team mode across processes (issue 19 item 8): three workstations — real ``media-assistant
run`` processes, each with its own data dir, config and name — on one real PostgreSQL, a batch
submitted once, the API simulator over real HTTP (one API account shared by the team) and one
web account per workstation on the simulated site.

What is counted comes from outside the workstations: the API simulator records every request
(its prompt, when it arrived, how it ended, how many were in flight), and every workstation's
simulated site reports each generation to one ledger file (benchmarks/_team_env.py: the site
lives inside each process, a team's conflicts span several). The task rows are read with plain
SQL. Times are real seconds (the workstations run on the system clock): short generations, short
heartbeats where a workstation is killed.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest

from benchmarks._team_env import (
    API_KEY,
    API_MODEL,
    WEB_MODEL,
    ApiAccount,
    Ledger,
    Station,
    WebReport,
    api_answered,
    api_asked,
    max_in_window,
    station_config,
    task_rows,
    wait_until,
    web_report,
    web_runs,
    write_station,
)
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec
from tests.support.postgres import PostgresServer

pytestmark = pytest.mark.slow

NAMES = ("pc-1", "pc-2", "pc-3")


@dataclass
class Team:
    url: str
    root: Path
    sim: ApiSimulator
    ledger: Path
    stations: list[Station] = field(default_factory=list)

    def join(
        self,
        name: str,
        *,
        concurrency: int = 2,
        rpm: int | None = None,
        heartbeat_s: float = 1.0,
        dead_after_s: float = 4.0,
        web_latency_s: tuple[float, float] = (0.5, 1.5),
    ) -> Station:
        """A workstation with its own web account (web-<name>) and the team's API account."""
        config = station_config(
            workstation=name,
            store_url=self.url,
            web_accounts=[f"web-{name}"],
            api_accounts=[ApiAccount("api-team", self.sim.base_url, concurrency, rpm)],
            heartbeat_s=heartbeat_s,
            dead_after_s=dead_after_s,
            web_latency_s=web_latency_s,
        )
        data = write_station(self.root, name, config)
        station = Station.media_assistant(name, data, self.ledger, "run")
        self.stations.append(station)
        return station

    def submit(self, web: int, api: int) -> None:
        """One batch, submitted once, on the first workstation (``media-assistant submit``)."""
        batch = self.root / "batch.csv"
        with batch.open("w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["task_id", "prompt", "model"])
            writer.writerows([f"w{i:02d}", f"web prompt {i}", WEB_MODEL] for i in range(web))
            writer.writerows([f"a{i:02d}", f"api prompt {i}", API_MODEL] for i in range(api))
        self.command("submit", str(batch))

    def command(self, *args: str) -> str:
        """``media-assistant ARGS…`` on the first workstation, to its end; its output."""
        first = self.stations[0]
        name = f"{first.name}-{args[0]}"
        command = Station.media_assistant(name, first.data_dir, self.ledger, *args)
        command.start()
        assert command.wait(60) == 0, command.describe()
        return command.stdout()

    def start(self) -> None:
        for station in self.stations:
            station.start()

    def wait(self, timeout: float, stations: Sequence[Station] | None = None) -> list[int]:
        deadline = time.monotonic() + timeout
        codes = []
        for station in stations or self.stations:
            try:
                codes.append(station.wait(max(deadline - time.monotonic(), 1.0)))
            except Exception as exc:
                raise AssertionError(
                    f"{station.name} did not end: {exc}\n{self.outputs()}"
                ) from None
        return codes

    def outputs(self) -> str:
        return "\n".join(s.describe() for s in self.stations)

    def rows(self) -> list[dict[str, Any]]:
        return task_rows(self.url)

    def web(self, killed: dict[int, float] | None = None) -> WebReport:
        return web_report(web_runs(Ledger(self.ledger).read(), killed or {}))


@pytest.fixture
def team(pg_url: str, tmp_path: Path) -> Iterator[Callable[..., Team]]:
    made: list[Team] = []

    def make(latency_s: tuple[float, float]) -> Team:
        sim = ApiSimulator(ApiSimConfig(latency_s=latency_s, keys={API_KEY: KeySpec()}, seed=3))
        sim.start_in_thread()
        made.append(Team(pg_url, tmp_path, sim, tmp_path / "web-ledger.jsonl"))
        return made[-1]

    yield make
    for t in made:
        for station in t.stations:
            station.stop()
        t.sim.stop_in_thread()


def no_traceback(team: Team) -> None:
    for station in team.stations:
        assert "Traceback" not in station.stdout() + station.stderr(), station.describe()


def api_started(rows: list[dict[str, Any]]) -> list[float]:
    return sorted(r["started_at"] for r in rows if r["model_kind"] == "api")


def test_three_workstations_run_one_batch_once_within_the_api_account_s_limits(
    team: Callable[..., Team],
) -> None:
    """Each workstation alone would send the shared API key 2 requests at a time and 30 a
    minute; three of them together must not send more than that either (before the database
    held the limits, three PCs sent three times the key's quota and all got 429s). 32 requests
    at rpm 30 take more than a minute, so the minute's limit is really tested."""
    t = team(latency_s=(2.5, 3.5))  # longer than 60/rpm: two requests overlap, never three
    for name in NAMES:
        t.join(name, concurrency=2, rpm=30, heartbeat_s=2.0, dead_after_s=10.0)
    t.submit(web=9, api=32)
    t.start()
    codes = t.wait(110)
    no_traceback(t)
    assert set(codes) <= {0, 1}, t.outputs()  # 1: see test_run_s_summary_counts_the_team_s_work
    rows = t.rows()
    assert [r["state"] for r in rows] == ["success"] * 41, t.outputs()
    assert {r["attempt"] for r in rows} == {1}

    stats = t.sim.stats()
    prompts = {r["prompt"] for r in rows if r["model_kind"] == "api"}
    assert api_asked(stats["requests"]) == dict.fromkeys(prompts, 1)  # nothing asked twice
    assert api_answered(stats["requests"]) == dict.fromkeys(prompts, 1)
    assert stats["keys"][API_KEY]["max_concurrent"] == 2  # reached, never above
    assert stats["keys"][API_KEY]["rate_limited"] == 0
    # rpm: the claims, on the database's clock, are 60/30 = 2 s apart, so no minute holds
    # more than 30 of them ...
    starts = api_started(rows)
    assert min(b - a for a, b in zip(starts, starts[1:], strict=False)) >= 2.0 - 1e-6
    assert max_in_window(starts, 60.0) == 30
    # ... and the server, counting arrivals, sees no more than 30 in a minute either, allowing
    # each request up to 5 s between its claim and its arrival on a loaded machine (usually
    # 10-50 ms; a process's first request 0.1-0.4 s, once 1.7 s at a load average of 12). A
    # limit held per workstation instead of per team would send 3 × 30.
    arrivals = [r["at"] for r in stats["requests"]]
    assert max_in_window(arrivals, 55.0) <= 30
    assert max(arrivals) - min(arrivals) > 60.0  # the minute's limit was really reached

    web = t.web()
    assert (web.runs, web.answered) == (9, 9)
    assert (web.conflicts, web.max_per_account, web.repeated) == (0, 1, [])
    for r in rows:  # a web task runs on the workstation whose browser profile holds its account
        if r["model_kind"] == "web":
            assert r["account_id"] == f"web-{r['workstation']}"
    assert {r["workstation"] for r in rows if r["model_kind"] == "web"} == set(NAMES)
    assert len({r["workstation"] for r in rows if r["model_kind"] == "api"}) >= 2


def test_a_workstation_killed_mid_run_has_its_tasks_finished_elsewhere(
    team: Callable[..., Team],
) -> None:
    """kill -9 of a workstation while it runs a web and an API task: after the dead threshold
    (4 s here) another workstation takes both back — fenced, without using an attempt (the
    death was not the tasks') — and runs them; nothing else runs twice, nothing is lost."""
    dead_after_s, heartbeat_s = 4.0, 1.0
    t = team(latency_s=(2.0, 3.0))
    for name in NAMES:
        t.join(
            name,
            concurrency=3,
            heartbeat_s=heartbeat_s,
            dead_after_s=dead_after_s,
            web_latency_s=(2.0, 3.0),
        )
    t.submit(web=6, api=18)
    t.start()

    def busy_station() -> Station | None:
        """A workstation running a web and an API task right now."""
        kinds: dict[str, set[str]] = {}
        for r in t.rows():
            if r["state"] == "running":
                kinds.setdefault(r["workstation"], set()).add(r["model_kind"])
        return next((s for s in t.stations if kinds.get(s.name) == {"web", "api"}), None)

    victim: Station = wait_until(busy_station, 60, "a workstation running both kinds", 0.02)
    killed_at = victim.kill()
    held = {
        r["task_id"]: r
        for r in t.rows()
        if r["state"] == "running" and r["workstation"] == victim.name
    }
    assert {r["model_kind"] for r in held.values()} == {"web", "api"}
    survivors = [s for s in t.stations if s is not victim]
    codes = t.wait(90, survivors)
    no_traceback(t)
    assert set(codes) <= {0, 1}, t.outputs()  # 1: see test_run_s_summary_counts_the_team_s_work

    rows = {r["task_id"]: r for r in t.rows()}
    assert {r["state"] for r in rows.values()} == {"success"}, t.outputs()
    assert len(rows) == 24
    for task_id in held:
        r = rows[task_id]
        assert r["workstation"] != victim.name
        assert (r["attempt"], r["lost_count"]) == (1, 1)  # no attempt used up
        # taken back after the threshold, not before; and not much later
        assert dead_after_s - heartbeat_s <= r["started_at"] - killed_at <= dead_after_s + 5
    assert all(r["lost_count"] == 0 for i, r in rows.items() if i not in held)

    stats = t.sim.stats()
    prompts = {r["prompt"]: i for i, r in rows.items() if r["model_kind"] == "api"}
    assert api_answered(stats["requests"]) == dict.fromkeys(prompts, 1)
    # The killed workstation's requests that had gone out were cut (the client went away) and
    # asked again elsewhere; every other prompt was asked once.
    asked = api_asked(stats["requests"])
    assert {p: n for p, n in asked.items() if prompts[p] not in held} == {
        p: 1 for p, i in prompts.items() if i not in held
    }
    cut = [r for r in stats["requests"] if r.get("outcome") != "served"]
    assert all(r["outcome"] == "client_closed" for r in cut)
    assert len(cut) == sum(asked[p] - 1 for p, i in prompts.items() if i in held)
    assert stats["keys"][API_KEY]["max_concurrent"] <= 3

    web = t.web(killed={victim.pid: killed_at})
    assert web.answered == 6 and web.runs == 7  # one generation died with its workstation
    assert (web.conflicts, web.max_per_account, web.repeated) == (0, 1, [])
    [(task_id, row)] = [(i, r) for i, r in held.items() if r["model_kind"] == "web"]
    assert web.accounts_of[task_id] == {f"web-{victim.name}", rows[task_id]["account_id"]}


def test_the_team_database_stopped_for_20_s_mid_run_loses_nothing_and_asks_nothing_twice(
    team: Callable[..., Team], pg_server: PostgresServer
) -> None:
    """The server stops (every connection drops) while the workstations run tasks, and starts
    20 s later: no workstation ends or starts new work meanwhile, the generations under way
    finish and their answers are written when it is back; nothing is asked twice. (The dead
    threshold is longer than the outage: no workstation's rows are taken over here.)"""
    t = team(latency_s=(1.5, 2.5))
    for name in NAMES:
        t.join(name, concurrency=2, heartbeat_s=1.0, dead_after_s=60.0, web_latency_s=(2.0, 3.0))
    t.submit(web=6, api=12)
    t.start()
    # Every workstation past its start — its first progress line comes after it (a start the
    # outage cuts short is exit 8 at once: not this test's case) — and work under way.
    wait_until(lambda: all("[web]" in s.stdout() for s in t.stations), 60, "all three started")
    wait_until(lambda: sum(r["state"] == "running" for r in t.rows()) >= 4, 60, "4 tasks running")
    pg_server.stop("fast")
    try:
        # The outage lasts 20 s at least, and until every workstation has met it (said so):
        # on a loaded machine a workstation that never looked would prove nothing by running.
        back_at = time.monotonic() + 20.0
        wait_until(
            lambda: all("team database cannot be reached" in s.stderr() for s in t.stations),
            120,
            "every workstation meeting the outage",
        )
        time.sleep(max(0.0, back_at - time.monotonic()))  # the scenario's length, not a check
        assert all(s.running() for s in t.stations), t.outputs()
    finally:
        pg_server.start()
    codes = t.wait(90)
    no_traceback(t)
    assert set(codes) <= {0, 1}, t.outputs()  # 1: see test_run_s_summary_counts_the_team_s_work
    rows = t.rows()
    assert [r["state"] for r in rows] == ["success"] * 18, t.outputs()
    assert {(r["attempt"], r["lost_count"]) for r in rows} == {(1, 0)}

    stats = t.sim.stats()
    prompts = {r["prompt"] for r in rows if r["model_kind"] == "api"}
    assert api_asked(stats["requests"]) == dict.fromkeys(prompts, 1)
    assert api_answered(stats["requests"]) == dict.fromkeys(prompts, 1)
    web = t.web()
    assert (web.runs, web.answered, web.conflicts, web.repeated) == (6, 6, 0, [])
    said = "".join(s.stderr() for s in t.stations)
    assert "team database cannot be reached" in said and "answers again" in said


def online(url: str) -> set[str]:
    """Workstations whose scheduler session is open."""
    with psycopg.connect(url, connect_timeout=5) as conn:
        rows = conn.execute("SELECT workstation FROM sessions WHERE ended_at IS NULL").fetchall()
    return {r[0] for r in rows}


def test_each_run_s_summary_and_exit_code_tell_the_team_s_outcome(
    team: Callable[..., Team],
) -> None:
    """Two workstations run one batch together and both end when it is done: each one's last
    line and exit code must say what happened to the batch (4 succeeded, exit 0), not what it
    saw itself (2 succeeded, 2 "left pending", exit 1 — what they said before)."""
    t = team(latency_s=(0.5, 1.0))
    for name in NAMES[:2]:
        t.join(name, web_latency_s=(1.0, 1.5))
    t.command("pause", "--all")  # both start before anything runs: each gets some of the work
    t.submit(web=4, api=0)
    t.start()
    if not wait_until(lambda: online(t.url) == set(NAMES[:2]), 60, "both online"):
        raise RuntimeError("unreachable")
    t.command("resume", "--all")
    codes = t.wait(60)
    no_traceback(t)
    rows = t.rows()
    if {r["state"] for r in rows} != {"success"} or {r["workstation"] for r in rows} != set(
        NAMES[:2]
    ):  # not what this test is about: a plain failure, not the expected one
        raise RuntimeError(f"the batch did not run on both workstations: {rows}\n{t.outputs()}")
    for station in t.stations:
        summary = station.stdout().splitlines()[-1]
        assert "4 succeeded" in summary and "0 left pending" in summary, summary
    assert codes == [0, 0]
