"""B14 — what a claim costs: the store's claim-and-finish throughput now and before the fair share.

Store level, no lanes, no providers: ``threads`` workstations (each a thread with its own store
and engine, so its own connection) claim and finish ``tasks`` no-op tasks of one batch, on a real
PostgreSQL the benchmark starts itself (:mod:`benchmarks.postgres_server`) and on a SQLite file.
One batch is the fair share's worst case: every claim charges, and every finish corrects, the
same three node rows (class, tenant, batch).

The same measuring script (benchmarks/_claims_child.py, one fresh process and one fresh database
per run) runs the code of this worktree and the code of :data:`BEFORE` — the commit before the
fair share (issue 30), its ``media_assistant`` package extracted with ``git archive`` into a
temporary folder (``MA_CLAIMS_BEFORE=<commit>`` measures another one). The two alternate
(before, now, now, before, …) so that a busy minute of a shared machine falls on both; the
target compares their medians: a ratio, not a figure that moves with the machine's load.

Reported per engine and code: claims/s (tasks claimed and finished ÷ the span from the threads'
common start to the last one's end), statements per claim and per finish, transactions per task
and, on PostgreSQL, round trips per task (statements + BEGIN + COMMIT: psycopg sends each as
one), the measuring process's CPU per task.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.postgres_server import start_server
from benchmarks.report import REPO, fmt, median, not_measured, table, target, targets_table

# The last commit before the fair share (issue 30): claims in `priority desc, seq` order.
BEFORE = os.environ.get("MA_CLAIMS_BEFORE", "e3d0385")
TARGET_RATIO = 0.90  # issue 30 item 3: within 10 % of the claims/s before the fair share
CHILD = Path(__file__).with_name("_claims_child.py")
ENGINES = ("postgresql", "sqlite")
FULL = {"threads": 3, "tasks": 1500, "repeats": 3}
QUICK = {"threads": 3, "tasks": 600, "repeats": 1}
RUN_TIMEOUT_S = 600.0


def extract(commit: str, into: Path) -> Path:
    """``commit``'s ``media_assistant`` package in ``into`` (a folder for ``PYTHONPATH``)."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", commit, "media_assistant"],
        capture_output=True,
        check=True,
        timeout=120,
    ).stdout
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True, timeout=120)
    return into


def measure(code: Path, url: str, threads: int, tasks: int) -> dict[str, Any]:
    """One run of the measuring script on ``code``'s ``media_assistant``."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    args = ["--url", url, "--threads", str(threads), "--tasks", str(tasks)]
    done = subprocess.run(
        [sys.executable, str(CHILD), *args],
        check=False,
        env=env,
        cwd=str(code),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-5:]
        raise RuntimeError(f"the measuring script failed ({done.returncode}): {tail}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if Path(result["code"]) != code / "media_assistant":
        raise RuntimeError(f"the script measured {result['code']}, not {code}")
    return result


def per_task(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The medians of a code's runs on one engine, and its costs per task."""
    if not runs:
        return {}
    last = runs[-1]
    claimed = max(1, last["claimed"])
    counts = last["counts"]
    claim = counts.get("claim", {"statements": 0, "transactions": 0})
    finish = counts.get("finish", {"statements": 0, "transactions": 0})
    statements = (claim["statements"] + finish["statements"]) / claimed
    transactions = (claim["transactions"] + finish["transactions"]) / claimed
    return {
        "claims_per_s": [r["claims_per_s"] for r in runs],
        "claims_per_s_median": median(r["claims_per_s"] for r in runs),
        "statements_per_claim": claim["statements"] / claimed,
        "statements_per_finish": finish["statements"] / claimed,
        "transactions_per_task": transactions,
        "round_trips_per_task": statements + 2 * transactions,
        "cpu_ms_per_task": median(r["cpu_ms_per_task"] or 0.0 for r in runs),
        "exact": all(
            r["claimed"] == r["tasks"] == r["distinct"] and not r["failures"] for r in runs
        ),
        "failures": [f for r in runs for f in r["failures"]][:5],
    }


def ratio_target(engine: str, now: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """Claims/s now ÷ before the fair share, medians of the alternating runs: at least
    :data:`TARGET_RATIO`, and every run took every task once."""
    name = f"claims/s on {engine}, now ÷ before the fair share ({BEFORE})"
    wanted = f"≥ {TARGET_RATIO:.2f}"
    if not now or not before:
        return not_measured(name, wanted, "a side has no run (see the notes)")
    ratio = now["claims_per_s_median"] / before["claims_per_s_median"]
    exact = now["exact"] and before["exact"]
    why = (
        f"{now['claims_per_s_median']:.1f} now vs {before['claims_per_s_median']:.1f} claims/s "
        f"before; round trips per task {now['round_trips_per_task']:.1f} vs "
        f"{before['round_trips_per_task']:.1f}"
    )
    if not exact:
        why = f"a run did not take every task exactly once: {now['failures'] or before['failures']}"
    return target(name, wanted, round(ratio, 3), exact and ratio >= TARGET_RATIO, why)


def run(quick: bool) -> dict[str, Any]:
    cfg = QUICK if quick else FULL
    started = time.perf_counter()
    load_before = os.getloadavg()
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        e: {"now": [], "before": []} for e in ENGINES
    }
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ma-b13-") as tmp:
        codes: dict[str, Path] = {"now": REPO}
        try:
            codes["before"] = extract(BEFORE, Path(tmp) / "before")
        except (subprocess.SubprocessError, OSError) as exc:
            notes.append(f"the code of {BEFORE} could not be extracted: {exc}")
        server = start_server()
        if server is None:
            notes.append("PostgreSQL is not installed here: its runs were left out")
        try:
            for engine in ENGINES:
                if engine == "postgresql" and server is None:
                    continue
                for r in range(cfg["repeats"]):
                    order = ("before", "now") if r % 2 == 0 else ("now", "before")
                    for which in order:
                        if which not in codes:
                            continue
                        if engine == "postgresql":
                            assert server is not None
                            url = server.new_database("b13")
                        else:
                            url = f"sqlite:///{Path(tmp) / f'{which}-{r}.db'}"
                        runs[engine][which].append(
                            measure(codes[which], url, cfg["threads"], cfg["tasks"])
                        )
        finally:
            if server is not None:
                server.destroy()
    summary = {e: {w: per_task(rs) for w, rs in by.items()} for e, by in runs.items()}
    targets = [ratio_target(e, summary[e]["now"], summary[e]["before"]) for e in ENGINES]
    return {
        "config": cfg,
        "before": BEFORE,
        "load_before": list(load_before),
        "load_after": list(os.getloadavg()),
        "engines": summary,
        "runs": runs,
        "notes": notes,
        "targets": targets,
        "elapsed_s": time.perf_counter() - started,
    }


def markdown(result: dict[str, Any]) -> str:
    cfg = result["config"]
    rows = []
    for engine, by in result["engines"].items():
        for which in ("before", "now"):
            s = by.get(which) or {}
            if not s:
                rows.append([engine, which, "not run", "", "", "", "", "", ""])
                continue
            rows.append(
                [
                    engine,
                    result["before"] if which == "before" else "this commit",
                    " / ".join(f"{x:.1f}" for x in s["claims_per_s"]),
                    fmt(s["claims_per_s_median"]),
                    fmt(s["statements_per_claim"]),
                    fmt(s["statements_per_finish"]),
                    fmt(s["transactions_per_task"]),
                    fmt(s["round_trips_per_task"]) if engine == "postgresql" else "–",
                    fmt(s["cpu_ms_per_task"]),
                ]
            )
    load = " / ".join(f"{x:.2f}" for x in result["load_before"][:1] + result["load_after"][:1])
    parts = [
        "## B14 — what a claim costs: claims/s now and before the fair share",
        "",
        f"{cfg['threads']} workstations (threads, each its own store and connection) claim and "
        f"finish {cfg['tasks']:,} no-op tasks of one batch, on a real PostgreSQL "
        "(`benchmarks/postgres_server.py`) and on a SQLite file; one fresh process and database "
        f"per run, the code of {result['before']} (before the fair share, extracted with `git "
        "archive`) and this commit's alternating. Statements and transactions counted through "
        "SQLAlchemy's engine events; PostgreSQL's round trips = statements + BEGIN + COMMIT. "
        f"1-min load before/after {load}. Command: `python -m benchmarks claims`.",
        "",
        table(
            [
                "engine",
                "code",
                "claims/s (each run)",
                "median",
                "statements / claim",
                "statements / finish",
                "transactions / task",
                "round trips / task",
                "CPU ms / task (workstations)",
            ],
            rows,
        ),
        "",
        targets_table(result["targets"]),
    ]
    if result["notes"]:
        parts += ["", *[f"- {n}" for n in result["notes"]]]
    return "\n".join(parts) + "\n"
