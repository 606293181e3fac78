"""B10's world (:mod:`benchmarks.bench_fairness`): batches with known durations, real
``media-assistant`` processes (``submit``, ``run``, ``export``) on the simulators, and what a
black-box checker reads afterwards.

- **Batches**: each task's generation time is drawn once (seeded) in *simulated* seconds; the
  simulators serve it ``scale`` times faster (the web site through ``benchmarks._team_station
  --durations``, the API simulator through its ``latency_of`` and ``time_scale``). Two of every
  five tasks are web tasks, three API tasks: the share of each lane's slots (2 web accounts,
  1 API account at concurrency 3), so both lanes of a batch take about as long.
- **Processes**: every step is the real command line (:class:`~benchmarks._team_env.Station`);
  web generations go to the shared ledger (:class:`~benchmarks._team_env.Ledger`).
- **What is read**: the export (``export --format jsonl``: the task's batch, state and times)
  and the simulators' logs — the API simulator's requests (received, ended) and the ledger's
  generations — as a checker outside the app would. The export's times are whole seconds
  (``local_iso``), too coarse for tasks of a second on the scaled clock, so the same columns are
  also read from the task table with plain SQL (sqlite3 / psycopg, not the store under test)
  and checked against the export to the second.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

from benchmarks._team_env import (
    API_KEY,
    API_MODEL,
    KEY_ENV,
    WEB_MODEL,
    Ledger,
    Station,
    last_user_text,
    wait_until,
)
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec

DURATION_S = (5.0, 10.0)  # simulated seconds per generation, uniform
KIND_PATTERN = ("web", "api", "web", "api", "api")  # 2 of 5 tasks web: the lanes' slot ratio
EXIT_TIMEOUT_S = 900.0


# ---------------------------------------------------------------------------- batches


@dataclass(frozen=True)
class Batch:
    batch_id: str
    durations: dict[str, float]  # task id → simulated seconds, in submission order
    kinds: dict[str, str]  # task id → "web" | "api"
    priority: int = 0

    def csv(self) -> str:
        rows = ["task_id,prompt,model,priority"]
        for task_id in self.durations:
            model = WEB_MODEL if self.kinds[task_id] == "web" else API_MODEL
            rows.append(f"{task_id},{prompt_of(task_id)},{model},{self.priority}")
        return "\n".join(rows) + "\n"


def prompt_of(task_id: str) -> str:
    return f"fair {task_id}"


def make_batch(batch_id: str, n: int, seed: int, priority: int = 0) -> Batch:
    rng = random.Random(f"{seed}:{batch_id}")
    ids = [f"{batch_id.lower()}-{i:04d}" for i in range(n)]
    return Batch(
        batch_id,
        {t: round(rng.uniform(*DURATION_S), 3) for t in ids},
        {t: KIND_PATTERN[i % len(KIND_PATTERN)] for i, t in enumerate(ids)},
        priority,
    )


# ---------------------------------------------------------------------------- configs


def config_text(
    workstation: str | None,
    store_url: str | None,
    web_accounts: Sequence[str],
    api_base_url: str,
    concurrency: int,
) -> str:
    lines = []
    if store_url:
        lines += ["[store]", f"url = {json.dumps(store_url)}", ""]
    if workstation:
        lines += ["[team]", f"workstation = {json.dumps(workstation)}", ""]
    lines += ["[[models]]", f'name = "{API_MODEL}"', 'kind = "api"', ""]
    if web_accounts:
        lines += ["[[models]]", f'name = "{WEB_MODEL}"', 'kind = "web"', ""]
    for account in web_accounts:
        lines += ["[[accounts]]", f'id = "{account}"', 'kind = "web"', 'site = "fake"']
        lines += [f'models = ["{WEB_MODEL}"]', ""]
    lines += [
        "[[accounts]]",
        'id = "api-1"',
        'kind = "api"',
        f'base_url = "{api_base_url}"',
        f'api_key_env = "{KEY_ENV}"',
        f'models = ["{API_MODEL}"]',
        f"concurrency = {concurrency}",
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- one phase


@dataclass
class Task:
    """One task as the export and the task table give it (times: wall clock, epoch s)."""

    task_id: str
    batch_id: str
    kind: str
    state: str
    created_at: float
    started_at: float | None
    finished_at: float | None


@dataclass
class Observed:
    """What a phase left behind: the tasks and every generation the simulators served."""

    tasks: dict[str, Task]
    generations: list[tuple[str, float, float]]  # (task id, start, end), served to the end
    export_mismatches: list[str] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)

    def batch_of(self) -> dict[str, str]:
        return {t.task_id: t.batch_id for t in self.tasks.values()}


class Phase:
    """One run of the benchmark: its folder, the API simulator, the web ledger, the durations
    of every batch it will submit."""

    def __init__(self, root: Path, name: str, scale: float, batches: Sequence[Batch]) -> None:
        self.dir = root / name
        self.dir.mkdir(parents=True)
        self.scale = scale
        self.batches = {b.batch_id: b for b in batches}
        by_prompt = {prompt_of(t): d for b in batches for t, d in b.durations.items()}
        self.sim = ApiSimulator(
            ApiSimConfig(
                time_scale=1.0 / scale,
                keys={API_KEY: KeySpec()},
                seed=30,
                latency_of=by_prompt.get,
            )
        )
        self.ledger = self.dir / "web-ledger.jsonl"
        self.web_durations = self.dir / "web-durations.json"
        web = {t: d / scale for b in batches for t, d in b.durations.items() if b.kinds[t] == "web"}
        self.web_durations.write_text(json.dumps(web), encoding="utf-8")
        self.base_url = ""
        self.stations: list[Station] = []

    def __enter__(self) -> Phase:
        self.base_url = self.sim.start_in_thread()
        return self

    def __exit__(self, *exc: object) -> None:
        for station in self.stations:
            station.stop()
        self.sim.stop_in_thread()

    def data_dir(
        self,
        name: str,
        web_accounts: Sequence[str],
        *,
        store_url: str | None = None,
        concurrency: int = 3,
    ) -> Path:
        data = self.dir / name
        data.mkdir()
        workstation = name if store_url else None
        text = config_text(workstation, store_url, web_accounts, self.base_url, concurrency)
        (data / "config.toml").write_text(text, encoding="utf-8")
        return data

    def command(self, name: str, data: Path, *args: str, after_line: bool = False) -> Station:
        argv = [sys.executable, "-m", "benchmarks._team_station", "--ledger", str(self.ledger)]
        argv += ["--durations", str(self.web_durations)]
        argv += ["--after-line"] if after_line else []
        argv += ["--", "--data-dir", str(data), *args]
        station = Station(name, data, argv, self.dir / "out")
        self.stations.append(station)
        return station

    def submit(
        self, data: Path, batch_id: str, verb: str = "submit", *, on_line: bool = False
    ) -> Station:
        """``submit FILE --batch-id B`` (or ``run FILE …``) started; the caller waits. With
        ``on_line`` the command is loaded and waits for :meth:`go` (ready when this returns)."""
        path = self.dir / f"{batch_id}.csv"
        path.write_text(self.batches[batch_id].csv(), encoding="utf-8")
        name = f"{verb}-{batch_id}-{data.name}"
        station = self.command(
            name, data, verb, str(path), "--batch-id", batch_id, after_line=on_line
        )
        station.start(stdin=on_line)
        if on_line:

            def ready() -> bool:
                if not station.running():
                    raise RuntimeError(f"`{name}` ended before its start:\n{station.describe()}")
                return station.stdout().startswith("ready")

            wait_until(ready, 300, f"`{name}` loaded", 0.1)
        return station

    def finish(self, station: Station, timeout: float = EXIT_TIMEOUT_S) -> int:
        code = station.wait(timeout)
        if code != 0:
            raise RuntimeError(
                f"`{' '.join(station.argv[-4:])}` exit {code}:\n{station.describe()}"
            )
        return code

    def first_generation(self) -> float:
        """When the first generation of the phase started (either simulator), waited for."""

        def first() -> float | None:
            starts = [r["at"] for r in Ledger(self.ledger).read() if r["event"] == "start"]
            starts += [r["at"] for r in self.sim.stats()["requests"]]
            return min(starts) if starts else None

        return float(wait_until(first, 300, "the first generation", 0.05))

    def observe(self, data: Path, store_url: str | None = None) -> Observed:
        """The export (``export --format jsonl`` from ``data``), the task table, the logs."""
        out = self.dir / f"export-{data.name}.jsonl"
        self.finish(
            self.command(
                f"export-{data.name}", data, "export", "-o", str(out), "--format", "jsonl"
            ).start(),
            300,
        )
        exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        rows = table_rows(store_url or data / "media-assistant.db")
        tasks, mismatches = merge(exported, rows)
        return Observed(tasks, generations(self), mismatches)


def table_rows(where: str | Path) -> list[dict[str, Any]]:
    """The task table's times at full precision, read with plain SQL."""
    sql = "SELECT task_id, created_at, started_at, finished_at FROM tasks"
    if isinstance(where, Path):
        conn = sqlite3.connect(f"file:{where}?mode=ro", uri=True)
        try:
            conn.row_factory = sqlite3.Row
            return [dict(r) for r in conn.execute(sql)]
        finally:
            conn.close()
    with psycopg.connect(where, connect_timeout=5, row_factory=dict_row) as pg:
        return list(pg.execute(sql))


def _epoch(text: str | None) -> float | None:
    return dt.datetime.fromisoformat(text).timestamp() if text else None


def merge(
    exported: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Task], list[str]]:
    """The export's records with the table's precise times; where they disagree by more than
    the export's rounding (a second), a line saying so."""
    precise = {str(r["task_id"]): r for r in rows}
    tasks: dict[str, Task] = {}
    mismatches = []
    for e in exported:
        task_id = str(e["task_id"])
        row = precise.get(task_id, {})
        times = {}
        for name in ("created_at", "started_at", "finished_at"):
            shown, exact = _epoch(e.get(name)), row.get(name)
            if (shown is None) != (exact is None) or (
                shown is not None and exact is not None and abs(shown - float(exact)) > 1.0
            ):
                mismatches.append(f"{task_id} {name}: export {e.get(name)}, table {exact}")
            times[name] = float(exact) if exact is not None else shown
        tasks[task_id] = Task(
            task_id,
            str(e["batch_id"]),
            str(e["model_kind"]),
            str(e["state"]),
            times["created_at"] or 0.0,
            times["started_at"],
            times["finished_at"],
        )
    return tasks, mismatches


def generations(phase: Phase) -> list[tuple[str, float, float]]:
    """Every generation served to its end: the ledger's (web) and the API simulator's."""
    out: list[tuple[str, float, float]] = []
    starts: dict[tuple[int, int], Mapping[str, Any]] = {}
    for r in Ledger(phase.ledger).read():
        key = (int(r["pid"]), int(r["n"]))
        if r["event"] == "start":
            starts[key] = r
        elif r.get("ok") and key in starts:
            out.append((str(r["task"]), float(starts[key]["at"]), float(r["at"])))
    for req in phase.sim.stats()["requests"]:
        if req.get("outcome") == "served" and "ended_at" in req:
            task_id = last_user_text(req).removeprefix("fair ")
            out.append((task_id, float(req["at"]), float(req["ended_at"])))
    return sorted(out, key=lambda g: g[1])


def sleep_until(at: float) -> None:
    time.sleep(max(at - time.time(), 0.0))
