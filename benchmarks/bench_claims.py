"""B14 — what a claim costs: the store's claim-and-finish throughput now and before the fair share.

Store level, no lanes, no providers. On a real PostgreSQL the benchmark starts itself
(:mod:`benchmarks.postgres_server`), three workstations (each a thread with its own store and
engine, so its own connection) claim and finish ``tasks`` no-op tasks of one batch — a team's
database, as in B8. On a SQLite file one thread does it: a PC's store has one writer thread
(core/store/db.py), so several writers there would measure SQLite's busy-wait sleeps, which the
app never meets. One batch is the fair share's worst case: every claim charges, and every finish
corrects, the same three nodes (class, tenant, batch).

The same measuring script (benchmarks/_claims_child.py, one fresh process and one fresh database
per run) runs the code of this worktree and of two earlier commits, each ``media_assistant``
package extracted with ``git archive`` into a temporary folder:

- :data:`START` (``e3d0385``; ``MA_CLAIMS_BEFORE=<commit>`` for another) — this round's start,
  the code issue 30 was filed against: claims in ``priority desc, seq`` order, and none of the
  round's other work either (the metrics' rollup triggers of issue 31 write at every claim and
  finish since);
- :data:`PRE_FAIR` (``11092e3``; ``MA_CLAIMS_PRE_FAIR=<commit>``) — main just before the fair
  share merged (the first parent of 55d4ed2): the fair share's own cost.

The codes alternate (a different order at each repeat) so that a busy minute of a shared machine
falls on all of them; the target compares medians: a ratio, not a figure that moves with the
machine's load. The target is the fair share's own cost on PostgreSQL (issue 30 item 3: "B8's
claims/s stays within 10 % of today's" — B8 is a team's database): now ÷ :data:`PRE_FAIR` ≥
0.90. Now ÷ :data:`START` and SQLite's ratios are reported beside it, not targets: between the
two baselines the metrics' rollup triggers (issue 31) came, which write a rollup row at every
finish and attempt's end; what they cost is theirs, not the fair share's.

**B14b — with the nodes of finished batches.** A ``fair_nodes`` row stays for every batch a
team ever ran (62,000 a year for 50 operators at five batches a day each). The same runs on a
store that first got :data:`OLD_BATCHES` finished batches' (inactive) nodes, against the same
with none — this commit and :data:`PRE_INDEX` (``10c63f3``, ``MA_CLAIMS_PRE_INDEX``), the last
commit before schema 18's partial index on the active nodes. Target: this commit's claims/s
with them ÷ without ≥ :data:`TARGET_RATIO` on each engine (before the index every claim's
choice read every node: 0.50× on PostgreSQL and 0.26× on SQLite at 50,000, the first run of
this, at 3902302).

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

# The round's start (the code issue 30 was filed against) and main just before the fair share.
START = os.environ.get("MA_CLAIMS_BEFORE", "e3d0385")
PRE_FAIR = os.environ.get("MA_CLAIMS_PRE_FAIR", "11092e3")
BASELINES = {
    "start": (START, "this round's start"),
    "pre_fair": (PRE_FAIR, "just before the fair share"),
}
CODES = ("start", "pre_fair", "now")
TARGET_RATIO = 0.90  # issue 30 item 3: within 10 % of the claims/s before the fair share
TARGET_ENGINE = "postgresql"  # B8's claims are a team's, on PostgreSQL
# B14b: the last commit before the active nodes' index, and how many finished batches' nodes.
PRE_INDEX = os.environ.get("MA_CLAIMS_PRE_INDEX", "10c63f3")
AGED_CODES = ("now", "pre_index")
CHILD = Path(__file__).with_name("_claims_child.py")
ENGINES = ("postgresql", "sqlite")
# Threads per engine: three workstations on a team's database, a PC's one writer on SQLite.
THREADS = {"postgresql": 3, "sqlite": 1}
FULL = {"tasks": 1500, "repeats": 3, "old_batches": 50_000}
QUICK = {"tasks": 600, "repeats": 1, "old_batches": 20_000}
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


def measure(code: Path, url: str, threads: int, tasks: int, old_batches: int = 0) -> dict[str, Any]:
    """One run of the measuring script on ``code``'s ``media_assistant``."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    args = ["--url", url, "--threads", str(threads), "--tasks", str(tasks)]
    args += ["--old-batches", str(old_batches)]
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


def _ratio(name: str, top: dict[str, Any], bottom: dict[str, Any], why: str) -> dict[str, Any]:
    """Claims/s ``top`` ÷ ``bottom`` (medians of the alternating runs): at least
    :data:`TARGET_RATIO`, and every run of both took every task once."""
    wanted = f"≥ {TARGET_RATIO:.2f}"
    if not top or not bottom:
        return not_measured(name, wanted, "a side has no run (see the notes)")
    ratio = top["claims_per_s_median"] / bottom["claims_per_s_median"]
    exact = top["exact"] and bottom["exact"]
    if not exact:
        why = f"a run did not take every task exactly once: {top['failures'] or bottom['failures']}"
    return target(name, wanted, round(ratio, 3), exact and ratio >= TARGET_RATIO, why)


def ratio_target(
    engine: str, now: dict[str, Any], base: dict[str, Any], baseline: str = "pre_fair"
) -> dict[str, Any]:
    """Claims/s now ÷ a baseline's (:data:`BASELINES`)."""
    commit, what = BASELINES[baseline]
    why = (
        f"{now['claims_per_s_median']:.1f} now vs {base['claims_per_s_median']:.1f} claims/s "
        f"at {commit}; round trips per task {now['round_trips_per_task']:.1f} vs "
        f"{base['round_trips_per_task']:.1f}"
        if now and base
        else ""
    )
    return _ratio(f"claims/s on {engine}, now ÷ {what} ({commit})", now, base, why)


def aged_target(engine: str, aged: dict[str, Any], fresh: dict[str, Any], n: int) -> dict[str, Any]:
    """B14b: this commit's claims/s with ``n`` finished batches' nodes ÷ with none."""
    name = f"claims/s on {engine} with {n:,} finished batches' nodes ÷ with none, this commit"
    why = (
        f"{aged['claims_per_s_median']:.1f} vs {fresh['claims_per_s_median']:.1f} claims/s"
        if aged and fresh
        else ""
    )
    return _ratio(name, aged, fresh, why)


def ratios(summary: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """Claims/s now ÷ each baseline's, for the report (None: a side has no run)."""
    now = summary.get("now") or {}
    out: dict[str, float | None] = {}
    for baseline in BASELINES:
        base = summary.get(baseline) or {}
        out[baseline] = (
            round(now["claims_per_s_median"] / base["claims_per_s_median"], 3)
            if now and base
            else None
        )
    return out


# Earlier runs of this benchmark, cited with their commits (issue 34 item 2: not results).
HISTORY = """\
Three threads on both engines, against e3d0385 only, runs alternating. 9092f91 (14:08 UTC, load
1.9): PostgreSQL 107 claims/s against 202 (0.53), SQLite 336 against 636 (0.53). Found since:
every claim and finish of a batch charged the same three `fair_nodes` rows and held them until
its commit, so the team's claims took turns (1 thread: now ≈ e3d0385; 3 threads: e3d0385 scaled
to ~2×, the fair share stayed flat); the fair share's choice took longer to plan (1.8 ms) than
to run (1.1 ms) without prepared statements; psycopg converted the claim's 5,800-character
statement again at every execution (its cache stops at 4,096); SQLAlchemy rendered the expanding
`IN` of the node keys again at every charge. 934df71 (each workstation its own charge rows) and
8fba4f0 (prepared statements when straight to the server, the long statement cached, the keys
one array), 16:36 UTC, load 3.6 → 2.1: PostgreSQL 307 against 329 for e3d0385 (0.935) and 298
for 11092e3 (1.03), SQLite one thread 452 against 764 and 543 (0.59, 0.83); the same at a2ba875
a minute later, load 1.2: 0.83 and 1.04 on PostgreSQL. SQLite's three writers in one process
measured its busy-wait sleeps, which a PC's one writer thread never meets: one thread since.\
"""


def run(quick: bool) -> dict[str, Any]:
    cfg = QUICK if quick else FULL
    started = time.perf_counter()
    load_before = os.getloadavg()
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {e: {c: [] for c in CODES} for e in ENGINES}
    old = cfg["old_batches"]
    aged_keys = [f"{c}@{n}" for c in AGED_CODES for n in (0, old)]
    aged: dict[str, dict[str, list[dict[str, Any]]]] = {
        e: {k: [] for k in aged_keys} for e in ENGINES
    }
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ma-b14-") as tmp:
        codes: dict[str, Path] = {"now": REPO}
        for baseline, (commit, _) in BASELINES.items():
            try:
                codes[baseline] = extract(commit, Path(tmp) / baseline)
            except (subprocess.SubprocessError, OSError) as exc:
                notes.append(f"the code of {commit} could not be extracted: {exc}")
        aged_codes: dict[str, Path] = {"now": REPO}
        try:
            aged_codes["pre_index"] = extract(PRE_INDEX, Path(tmp) / "pre_index")
        except (subprocess.SubprocessError, OSError) as exc:
            notes.append(f"the code of {PRE_INDEX} could not be extracted: {exc}")
        server = start_server()
        if server is None:
            notes.append("PostgreSQL is not installed here: its runs were left out")
        try:
            for engine in ENGINES:
                if engine == "postgresql" and server is None:
                    continue
                for r in range(cfg["repeats"]):
                    order = CODES[r % len(CODES) :] + CODES[: r % len(CODES)]
                    for which in order:
                        if which not in codes:
                            continue
                        if engine == "postgresql":
                            assert server is not None
                            url = server.new_database("b14")
                        else:
                            url = f"sqlite:///{Path(tmp) / f'{which}-{r}.db'}"
                        runs[engine][which].append(
                            measure(codes[which], url, THREADS[engine], cfg["tasks"])
                        )
                for r in range(cfg["repeats"]):  # B14b, the four alternating as above
                    order = aged_keys[r % 4 :] + aged_keys[: r % 4]
                    for key in order:
                        which, n = key.split("@")
                        if which not in aged_codes:
                            continue
                        if engine == "postgresql":
                            assert server is not None
                            url = server.new_database("b14b")
                        else:
                            url = f"sqlite:///{Path(tmp) / f'aged-{which}-{n}-{r}.db'}"
                        aged[engine][key].append(
                            measure(aged_codes[which], url, THREADS[engine], cfg["tasks"], int(n))
                        )
        finally:
            if server is not None:
                server.destroy()
    summary = {e: {w: per_task(rs) for w, rs in by.items()} for e, by in runs.items()}
    by = summary[TARGET_ENGINE]
    targets = [ratio_target(TARGET_ENGINE, by["now"], by["pre_fair"], "pre_fair")]
    aged_summary = {e: {k: per_task(rs) for k, rs in by_key.items()} for e, by_key in aged.items()}
    for engine in ENGINES:
        s = aged_summary[engine]
        targets.append(aged_target(engine, s[f"now@{old}"], s["now@0"], old))
    return {
        "config": {**cfg, "threads": THREADS},
        "baselines": {b: commit for b, (commit, _) in BASELINES.items()},
        "pre_index": PRE_INDEX,
        "aged": aged_summary,
        "load_before": list(load_before),
        "load_after": list(os.getloadavg()),
        "engines": summary,
        "ratios": {e: ratios(summary[e]) for e in ENGINES},
        "runs": runs,
        "aged_runs": aged,
        "notes": notes,
        "targets": targets,
        "elapsed_s": time.perf_counter() - started,
    }


def markdown(result: dict[str, Any]) -> str:
    cfg = result["config"]
    baselines = result["baselines"]
    rows = []
    for engine, by in result["engines"].items():
        for which in CODES:
            s = by.get(which) or {}
            label = f"{baselines[which]} ({BASELINES[which][1]})" if which in baselines else "now"
            if not s:
                rows.append([engine, label, "not run", "", "", "", "", "", "", ""])
                continue
            ratio = result["ratios"].get(engine, {})
            rows.append(
                [
                    engine,
                    label if which != "now" else "this commit",
                    " / ".join(f"{x:.1f}" for x in s["claims_per_s"]),
                    fmt(s["claims_per_s_median"]),
                    (
                        " / ".join(f"{fmt(ratio.get(b))}" for b in BASELINES)
                        if which == "now"
                        else ""
                    ),
                    fmt(s["statements_per_claim"]),
                    fmt(s["statements_per_finish"]),
                    fmt(s["transactions_per_task"]),
                    fmt(s["round_trips_per_task"]) if engine == "postgresql" else "–",
                    fmt(s["cpu_ms_per_task"]),
                ]
            )
    load = " / ".join(f"{x:.2f}" for x in result["load_before"][:1] + result["load_after"][:1])
    threads = cfg["threads"]
    parts = [
        "## B14 — what a claim costs: claims/s now and before the fair share",
        "",
        f"On a real PostgreSQL (`benchmarks/postgres_server.py`) {threads['postgresql']} "
        "workstations (threads, each its own store and connection), on a SQLite file "
        f"{threads['sqlite']} (a PC's one writer thread), claim and finish {cfg['tasks']:,} no-op "
        "tasks of one batch; one fresh process and database per run, the codes alternating: "
        f"{baselines['start']} (this round's start, the code issue 30 was filed against), "
        f"{baselines['pre_fair']} (main just before the fair share merged) and this commit, "
        "the older two extracted with `git archive`. Statements and transactions counted "
        "through SQLAlchemy's engine events; PostgreSQL's round trips = statements + BEGIN + "
        f"COMMIT. 1-min load before/after {load}. Command: `python -m benchmarks claims`. "
        "The target is the fair share's own cost on PostgreSQL (B8's claims are a team's): now "
        f"÷ {baselines['pre_fair']}; now ÷ {baselines['start']} and SQLite's ratios are shown "
        "beside it (between the two baselines came the metrics' rollup triggers, issue 31, "
        "which write a rollup row at every finish).",
        "",
        table(
            [
                "engine",
                "code",
                "claims/s (each run)",
                "median",
                "now ÷ start / ÷ pre-fair",
                "statements / claim",
                "statements / finish",
                "transactions / task",
                "round trips / task",
                "CPU ms / task (workstations)",
            ],
            rows,
        ),
        "",
        *aged_markdown(result),
        "",
        targets_table(result["targets"]),
    ]
    if result["notes"]:
        parts += ["", *[f"- {n}" for n in result["notes"]]]
    parts += ["", "### History (not this run's figures)", "", HISTORY]
    return "\n".join(parts) + "\n"


def aged_markdown(result: dict[str, Any]) -> list[str]:
    """B14b's part of the section: claims/s with and without the finished batches' nodes."""
    old = result["config"]["old_batches"]
    rows = []
    for engine, by_key in result["aged"].items():
        for which in AGED_CODES:
            fresh, aged = by_key.get(f"{which}@0") or {}, by_key.get(f"{which}@{old}") or {}
            label = "this commit" if which == "now" else f"{result['pre_index']} (before the index)"
            for n, s in ((0, fresh), (old, aged)):
                if not s:
                    rows.append([engine, label, f"{n:,}", "not run", "", ""])
                    continue
                share = (
                    fmt(round(s["claims_per_s_median"] / fresh["claims_per_s_median"], 3))
                    if fresh and n
                    else ""
                )
                rows.append(
                    [
                        engine,
                        label,
                        f"{n:,}",
                        " / ".join(f"{x:.1f}" for x in s["claims_per_s"]),
                        fmt(s["claims_per_s_median"]),
                        share,
                    ]
                )
    return [
        f"### B14b — with {old:,} finished batches' nodes in the store",
        "",
        "The same runs on a store that first got that many finished batches' (inactive) "
        "`fair_nodes` rows, as a team's store keeps one for every batch it ran; this commit "
        f"and {result['pre_index']}, the last commit before schema 18's partial index on the "
        "active nodes (`ix_fair_nodes_active`).",
        "",
        table(
            [
                "engine",
                "code",
                "finished batches' nodes",
                "claims/s (each run)",
                "median",
                "÷ none",
            ],
            rows,
        ),
    ]
