"""B8's fleet: many workstations' real ``media-assistant run`` processes on one PostgreSQL at its
default ``max_connections`` (100), directly or through PgBouncer in transaction mode (issue 28).

    python -m benchmarks team --stations 50 [--via-pgbouncer]

Every workstation has the same shared API account (the API simulator over real HTTP, one key,
``concurrency`` for the whole team); one batch of ``4 × stations`` tasks is submitted scheduled
for the next minute boundary at least ``startup`` seconds ahead, then every workstation's ``run``
starts and waits for it — the idle phase — and then works it off — the busy phase — and ends.
Measured, from outside the processes:

- **connections per workstation**: each process's TCP connections to the server (or to
  PgBouncer), sampled every 0.5 s (psutil): the peak of any one workstation, and their mean
  while idle;
- **transactions per workstation and second**, idle and busy: the database's ``xact_commit +
  xact_rollback`` (pg_stat_database) over each phase, ÷ workstations ÷ seconds;
- **claims/s** (tasks ÷ the span of their starts), **max in flight** on the shared key (the
  simulator's count), **asked twice** (the simulator's requests per prompt), every ``run``'s exit
  code, and **makespan ÷ bound**: from the batch's start to the last answer, against the sum of
  the tasks' generation times ÷ the key's concurrency (the simulator's latencies are known).

Not measured here: how soon a change shows in a window (``run`` has no window; B8's seed phase
times the follower).
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import psycopg

from benchmarks._team_env import (
    API_KEY,
    ApiAccount,
    Station,
    api_asked,
    station_config,
    task_rows,
    wait_until,
    write_station,
)
from benchmarks.postgres_server import PgBouncer, start_server
from benchmarks.report import fmt, target, targets_table
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec

TASKS_PER_STATION = 4
CONCURRENCY = 5  # the most an API account allows
LATENCY_S = (2.0, 4.0)
# Issue 28's targets per workstation (the README's sizing rule: 1 connection idle, 2 at peak).
PEAK_CONNECTIONS = 2
IDLE_CONNECTIONS = 1.0
IDLE_XACT_PER_S = 2.0
MAKESPAN_RATIO = 1.3


class Sampler:
    """Every 0.5 s: each station's TCP connections to ``port``, and the database's transactions."""

    def __init__(self, admin_url: str, database: str, port: int, pids: dict[str, int]) -> None:
        self.admin_url, self.database, self.port, self.pids = admin_url, database, port, pids
        self.samples: list[tuple[float, dict[str, int], int]] = []  # (time, per station, xacts)
        # The server's own view: its backends on the fleet's database (through PgBouncer, the
        # pool's server connections; directly, the workstations' connections).
        self.server_connections: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fleet-sampler", daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def xacts(self, conn: psycopg.Connection[Any]) -> int:
        row = conn.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s",
            (self.database,),
        ).fetchone()
        return int(row[0]) if row else 0

    def _run(self) -> None:
        by_pid = {pid: name for name, pid in self.pids.items()}
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            while not self._stop.is_set():
                held: Counter[str] = Counter()
                for c in psutil.net_connections(kind="tcp"):
                    if c.pid in by_pid and c.raddr and c.raddr.port == self.port:
                        held[by_pid[c.pid]] += 1
                conn.execute("SELECT pg_stat_clear_snapshot()")
                self.samples.append((time.time(), dict(held), self.xacts(conn)))
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (self.database,)
                ).fetchone()
                self.server_connections.append(int(row[0]) if row else 0)
                self._stop.wait(0.5)

    def between(self, start: float, end: float) -> list[tuple[float, dict[str, int], int]]:
        return [s for s in self.samples if start <= s[0] <= end]


def _tree_cpu_s(pid: int | None) -> float:
    """CPU seconds used so far by ``pid`` and its children (PgBouncer runs under ``runuser``)."""
    if pid is None:
        return 0.0
    try:
        root = psutil.Process(pid)
        total = 0.0
        for p in [root, *root.children(recursive=True)]:
            t = p.cpu_times()
            total += t.user + t.system
        return total
    except psutil.Error:
        return float("nan")


def _rate(samples: list[tuple[float, dict[str, int], int]], stations: int) -> float:
    if len(samples) < 2:
        return float("nan")
    (t0, _, x0), (t1, _, x1) = samples[0], samples[-1]
    return (x1 - x0) / (t1 - t0) / stations


def measure(
    stations: int,
    *,
    via_pgbouncer: bool = False,
    startup_s: float | None = None,
    progress: Callable[[str], None] = lambda _m: None,
) -> dict[str, Any]:
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    server = start_server({"max_connections": "100"})  # PostgreSQL's default
    if server is None:
        raise RuntimeError("PostgreSQL is not installed (scripts/setup.sh installs it)")
    bouncer: PgBouncer | None = None
    sim = ApiSimulator(ApiSimConfig(latency_s=LATENCY_S, keys={API_KEY: KeySpec()}, seed=28))
    base_url = sim.start_in_thread()
    fleet: list[Station] = []
    root = Path(tempfile.mkdtemp(prefix="ma-b8-fleet-"))
    try:
        direct = server.new_database("fleet")
        database = direct.rsplit("/", 1)[1]
        url, port = direct, server.port
        if via_pgbouncer:
            bouncer = PgBouncer(server, pool_size=20)
            bouncer.start()
            url, port = bouncer.route(direct), bouncer.port
        names = [f"ws-{i:03d}" for i in range(stations)]
        api = ApiAccount("api-team", base_url, CONCURRENCY)
        dirs = {
            n: write_station(
                root, n, station_config(workstation=n, store_url=url, api_accounts=[api])
            )
            for n in names
        }
        n_tasks = TASKS_PER_STATION * stations
        batch = root / "batch.csv"
        batch.write_text(
            "task_id,prompt,model\n"
            + "".join(f"f{i:05d},fleet prompt {i},api-model\n" for i in range(n_tasks)),
            encoding="utf-8",
        )
        ahead = startup_s if startup_s is not None else 60.0 + 8.0 * stations
        earliest = dt.datetime.now() + dt.timedelta(seconds=ahead)  # the next minute after
        start_at = earliest.replace(second=0, microsecond=0) + dt.timedelta(minutes=1)
        progress(f"{n_tasks} tasks scheduled for {start_at:%H:%M}; starting {stations} runs")
        submit = Station(
            "submit",
            dirs[names[0]],
            [
                sys.executable,
                "-m",
                "media_assistant",
                "--data-dir",
                str(dirs[names[0]]),
                "submit",
                "--start-at",
                start_at.strftime("%Y-%m-%dT%H:%M"),
                str(batch),
            ],
        ).start()
        if submit.wait(300) != 0:
            raise RuntimeError(submit.describe())
        for n in names:
            argv = [sys.executable, "-m", "media_assistant", "--data-dir", str(dirs[n]), "run"]
            fleet.append(Station(n, dirs[n], argv).start())
        pids = {st.name: st.pid for st in fleet}
        bouncer_pid = bouncer.process.pid if bouncer is not None and bouncer.process else None
        bouncer_cpu_from = _tree_cpu_s(bouncer_pid)
        with Sampler(server.admin_url(), database, port, pids) as sampler:
            # Every workstation connected before the start (a loaded machine starts fifty
            # Python processes slowly: those still starting are counted, not waited for).
            deadline = start_at.timestamp() - 10
            while time.time() < deadline and not (
                sampler.samples and len(sampler.samples[-1][1]) == stations
            ):
                time.sleep(0.5)
            joined = len(sampler.samples[-1][1]) if sampler.samples else 0
            idle_from = time.time()
            progress(f"{joined} of {stations} joined; idle until {start_at:%H:%M}")
            wait_until(lambda: time.time() >= start_at.timestamp() - 2, 600, "the start", 0.5)
            idle_to = time.time()
            progress("working")
            codes = [st.wait(1800) for st in fleet]
            busy_to = time.time()
        bouncer_cpu_s = _tree_cpu_s(bouncer_pid) - bouncer_cpu_from
        rows = task_rows(direct)
        stats = sim.stats()
        asked = api_asked(stats["requests"])
    finally:
        for st in fleet:
            st.stop()
        sim.stop_in_thread()
        if bouncer is not None:
            bouncer.destroy()
        server.destroy()
        shutil.rmtree(root, ignore_errors=True)
    idle = sampler.between(idle_from, idle_to)
    busy = sampler.between(start_at.timestamp(), busy_to)
    peak = max((max(s[1].values(), default=0) for s in sampler.samples), default=0)
    idle_mean = (
        sum(sum(s[1].values()) for s in idle) / len(idle) / max(joined, 1) if idle else float("nan")
    )
    done = [r for r in rows if r["finished_at"] is not None]
    starts = sorted(r["started_at"] for r in rows if r["started_at"] is not None)
    generation = sum(r["finished_at"] - r["started_at"] for r in done)
    bound = max(
        generation / CONCURRENCY, max((r["finished_at"] - r["started_at"] for r in done), default=0)
    )
    makespan = max((r["finished_at"] for r in done), default=float("nan")) - start_at.timestamp()
    return {
        "stations": stations,
        "via_pgbouncer": via_pgbouncer,
        "tasks": len(rows),
        "succeeded": sum(r["state"] == "success" for r in rows),
        "exit_codes": dict(Counter(codes)),
        "joined_before_start": joined,
        "peak_connections_per_ws": peak,
        "server_connections_peak": max(sampler.server_connections, default=0),
        "pool_size": bouncer.pool_size if bouncer is not None else None,
        # PgBouncer's CPU over the whole run ÷ the database's transactions meanwhile.
        "pgbouncer_cpu_s": bouncer_cpu_s if bouncer is not None else None,
        "transactions": sampler.samples[-1][2] - sampler.samples[0][2] if sampler.samples else 0,
        "idle_connections_per_ws": idle_mean,
        "idle_xact_per_s_per_ws": _rate(idle, max(joined, 1)),
        "busy_xact_per_s_per_ws": _rate(busy, stations),
        "idle_s": idle_to - idle_from,
        "busy_s": busy_to - start_at.timestamp(),
        "claims_per_s": len(starts) / (starts[-1] - starts[0]) if len(starts) > 1 else float("nan"),
        # The simulator's own count: the rows' claim-to-write spans overlap by the moments a
        # workstation takes to write an answer after the request ended.
        "api_max_in_flight": stats["keys"].get(API_KEY, {}).get("max_concurrent", 0),
        "api_concurrency": CONCURRENCY,
        "asked_twice": sum(1 for n in asked.values() if n > 1),
        "makespan_s": makespan,
        "bound_s": bound,
        "makespan_ratio": makespan / bound if bound else float("nan"),
        "load_avg_1min": [load_before, os.getloadavg()[0]],
        "elapsed_s": time.perf_counter() - started,
    }


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 28's pass/fail targets for one fleet run (pure: from the measurement alone)."""
    n = r["stations"]
    exits = r["exit_codes"]
    joined = r["joined_before_start"]
    return [
        target("every `run` ended 0", f"{n} × exit 0", str(exits), exits == {0: n}),
        target(
            "tasks succeeded",
            f"{r['tasks']} of {r['tasks']}",
            f"{r['succeeded']} of {r['tasks']}",
            r["succeeded"] == r["tasks"],
        ),
        target("asked twice", "0", r["asked_twice"], r["asked_twice"] == 0),
        target(
            "max in flight on the shared key",
            f"≤ {r['api_concurrency']}",
            r["api_max_in_flight"],
            r["api_max_in_flight"] <= r["api_concurrency"],
        ),
        target(
            "peak connections of one workstation",
            f"≤ {PEAK_CONNECTIONS}",
            r["peak_connections_per_ws"],
            r["peak_connections_per_ws"] <= PEAK_CONNECTIONS,
        ),
        target(
            "connections per workstation while idle (mean)",
            f"≤ {IDLE_CONNECTIONS:g}",
            r["idle_connections_per_ws"],
            r["idle_connections_per_ws"] <= IDLE_CONNECTIONS + 0.05,
        ),
        target(
            "transactions/s per idle workstation",
            f"≤ {IDLE_XACT_PER_S:g}",
            r["idle_xact_per_s_per_ws"],
            r["idle_xact_per_s_per_ws"] <= IDLE_XACT_PER_S,
            f"the database's transactions over {fmt(r['idle_s'])} s of waiting ÷ the {joined} "
            f"workstation(s) connected (of {n})",
        ),
        target(
            "makespan ÷ bound",
            f"≤ {MAKESPAN_RATIO:g}",
            r["makespan_ratio"],
            r["makespan_ratio"] <= MAKESPAN_RATIO,
        ),
        target("workstations connected before the start", f"{n} of {n}", joined, joined == n),
    ]


ESTIMATE_STATIONS = (200, 500)


def estimate(r: dict[str, Any], stations: int) -> dict[str, Any]:
    """A paper estimate for ``stations`` workstations behind PgBouncer from one run's measured
    per-workstation figures: connections and idle transactions scale with the workstations;
    busy transactions are scaled the same way, an upper bound (the work is bound by the keys'
    concurrency, not by how many workstations wait for it); PgBouncer's CPU from its measured
    CPU per transaction."""
    busy = stations * r["busy_xact_per_s_per_ws"]
    per_xact = (
        r["pgbouncer_cpu_s"] / r["transactions"]
        if r.get("pgbouncer_cpu_s") is not None and r.get("transactions")
        else float("nan")
    )
    return {
        "stations": stations,
        "client_connections_peak": stations * r["peak_connections_per_ws"],
        "client_connections_idle": stations * r["idle_connections_per_ws"],
        "server_connections": r.get("pool_size"),
        "idle_xact_per_s": stations * r["idle_xact_per_s_per_ws"],
        "busy_xact_per_s": busy,
        "pgbouncer_core_share_busy": busy * per_xact,
    }


def _estimate_lines(r: dict[str, Any]) -> list[str]:
    per_xact = (
        r["pgbouncer_cpu_s"] / r["transactions"] * 1e6
        if r.get("pgbouncer_cpu_s") is not None and r.get("transactions")
        else float("nan")
    )
    rows = [estimate(r, n) for n in ESTIMATE_STATIONS]
    return [
        "",
        f"Paper estimate behind PgBouncer (transaction mode, `default_pool_size = "
        f"{r.get('pool_size')}`), from this run's per-workstation figures — computed, not run: "
        "connections and idle transactions scale with the workstations; busy transactions are "
        "scaled the same way, an upper bound (the work is bound by the keys' concurrency, not by "
        f"the number of workstations waiting for it); PgBouncer used {fmt(per_xact)} µs of CPU "
        f"per transaction in this run ({fmt(r.get('pgbouncer_cpu_s'))} s for "
        f"{r.get('transactions') or 0:,} transactions).",
        "",
        "| workstations | client connections to PgBouncer, peak / idle | server connections | "
        "transactions/s idle | transactions/s busy (upper) | PgBouncer's core, busy |",
        "|---|---|---|---|---|---|",
        *(
            f"| {e['stations']} | {e['client_connections_peak']:,} / "
            f"{e['client_connections_idle']:,.0f} | {e['server_connections']} | "
            f"{e['idle_xact_per_s']:,.0f} | {e['busy_xact_per_s']:,.0f} | "
            f"{100 * e['pgbouncer_core_share_busy']:.1f} % |"
            for e in rows
        ),
        "",
        "So `max_client_conn` must be at least twice the workstations (the README's sizing rule); "
        "the server sees only the pool, whatever the team's size.",
    ]


def markdown(r: dict[str, Any]) -> str:
    via = "through PgBouncer (transaction mode, pool 20)" if r["via_pgbouncer"] else "directly"
    load = r["load_avg_1min"]
    lines = [
        f"### B8 fleet — {r['stations']} workstations' `run` {via}",
        "",
        f"PostgreSQL with `max_connections = 100`; {r['tasks']} API tasks on one shared key "
        f"(concurrency {r['api_concurrency']}), scheduled a minute or more ahead. 1-min load "
        f"average before/after {fmt(load[0])} / {fmt(load[1])}. Command: `python -m benchmarks "
        f"team --stations {r['stations']}{' --via-pgbouncer' if r['via_pgbouncer'] else ''}`.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| `run` exit codes | {r['exit_codes']} |",
        f"| connected before the start | {r['joined_before_start']} of {r['stations']} |",
        f"| succeeded | {r['succeeded']} of {r['tasks']} |",
        f"| asked twice | {r['asked_twice']} |",
        f"| max in flight on the key | {r['api_max_in_flight']} (limit {r['api_concurrency']}) |",
        f"| peak connections of one workstation | {r['peak_connections_per_ws']} |",
        f"| peak connections the server saw (the fleet's database) | "
        f"{r.get('server_connections_peak', '–')} |",
        f"| connections per workstation while idle (mean) | {fmt(r['idle_connections_per_ws'])} |",
        f"| transactions/s per workstation, idle ({fmt(r['idle_s'])} s) | "
        f"{fmt(r['idle_xact_per_s_per_ws'])} |",
        f"| transactions/s per workstation, busy ({fmt(r['busy_s'])} s) | "
        f"{fmt(r['busy_xact_per_s_per_ws'])} |",
        f"| claims/s | {fmt(r['claims_per_s'])} |",
        f"| makespan ÷ bound | {fmt(r['makespan_ratio'])} ({fmt(r['makespan_s'])} s ÷ "
        f"{fmt(r['bound_s'])} s) |",
        "",
        targets_table(targets(r)),
    ]
    if r["via_pgbouncer"]:
        lines += _estimate_lines(r)
    return "\n".join(lines)


def run(stations: int, via_pgbouncer: bool) -> dict[str, Any]:
    def progress(message: str) -> None:
        print(f"[benchmarks] team fleet: {message}", file=sys.stderr, flush=True)

    result = measure(stations, via_pgbouncer=via_pgbouncer, progress=progress)
    result["targets"] = targets(result)
    return result
