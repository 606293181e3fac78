"""B5 — the desktop GUI under load (offscreen Qt; every measurement in a child process).

1. Event-loop lag with 10k rows in TaskTableModel → QTableView (the real
   TaskTable widget in a shown 1400×900 window), 200 row changes every 100 ms plus heartbeats,
   measured by a 10 ms timer: unsorted/unfiltered, sorted on State, and sorted on State with a
   state filter ("Not finished") — the table re-filters and re-sorts at most every 500 ms.
2. Time from process start to the main window painted with 100k tasks in a real SQLite file
   (quick: 20k), composed as ``media_assistant.app._amain`` does: load, show, and
   ``scheduler.start()`` once the window is drawn (accounts disabled, so nothing runs
   meanwhile); import time reported apart, and the lag while older history loads after it.
3. RSS of that process once the window is painted.

    python -c "import json, benchmarks.bench_gui as b; print(json.dumps(b.run(quick=True)))"
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._gui_data import build_database
from benchmarks.report import target

TARGET_LAG_P99_MS = 50.0
TARGET_WINDOW_S = 3.0
TARGET_RSS_MB = 400.0
LAG_ROWS = 10_000
SCENARIOS = {
    "plain": "no sort, no filter",
    "sorted": "sorted on State",
    "sorted_filtered": "sorted on State + state filter “Not finished”",
}
STARTUP_REPEATS = 3
ROOT = Path(__file__).resolve().parent.parent


def _child(args: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> Any:
    proc = subprocess.run(  # noqa: PLW1510 - checked below, with the child's stderr
        [sys.executable, "-m", "benchmarks._gui_env", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env or {})},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"gui benchmark child {args[0]} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _startup(data_dir: Path, config_home: Path, idle_s: float) -> dict[str, Any]:
    # QSettings under a fresh XDG dir: no saved geometry read, none of the user's touched.
    env = {"XDG_CONFIG_HOME": str(config_home), "MA_BENCH_KEY": "sk-bench"}
    t0 = time.time()
    args = ["startup", "--data-dir", str(data_dir), "--t0", repr(t0), "--idle-seconds"]
    return _child([*args, str(idle_s)], env)  # type: ignore[no-any-return]


def run(quick: bool) -> dict[str, Any]:
    if quick:
        return measure(quick=True, lag_seconds=2.0, db_tasks=20_000, idle_s=1.0, startup_repeats=2)
    return measure(quick=False, lag_seconds=10.0, db_tasks=100_000, idle_s=5.0)


def measure(
    *,
    quick: bool,
    lag_seconds: float,
    db_tasks: int,
    idle_s: float,
    lag_rows: int = LAG_ROWS,
    startup_repeats: int = STARTUP_REPEATS,
) -> dict[str, Any]:
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    lag = {
        name: _child(
            ["lag", "--rows", str(lag_rows), "--seconds", str(lag_seconds), "--scenario", name]
        )
        for name in SCENARIOS
    }
    with tempfile.TemporaryDirectory(prefix="ma-bench-gui-") as tmp:
        data_dir = Path(tmp) / "data"
        db = build_database(data_dir, db_tasks)
        runs = [_startup(data_dir, Path(tmp) / "config", idle_s) for _ in range(startup_repeats)]
    marks = {k: statistics.median(r["marks_s"][k] for r in runs) for k in runs[0]["marks_s"]}
    load_ms = {
        k: statistics.median(r["load_ms"][k]["total"] for r in runs) for k in runs[0]["load_ms"]
    }
    window_s = marks["painted"]
    rss = statistics.median(r["rss_mb_at_paint"] for r in runs)
    result: dict[str, Any] = {
        "benchmark": "B5 GUI",
        "quick": quick,
        "setup": {
            "cpus": os.cpu_count(),
            "qpa": "offscreen",
            "lag_rows": lag_rows,
            # Other work on the machine shows here: the numbers are only as quiet as the box.
            "load_avg_1min": [load_before, os.getloadavg()[0]],
        },
        "lag": lag,
        "database": db,
        "startup": {
            "repeats": startup_repeats,
            "scheduler_started": True,
            "marks_median_s": marks,
            "load_median_ms": load_ms,
            "window_painted_s": window_s,
            "import_s": marks["imports"],
            "rss_mb_at_paint": rss,
            "rss_mb_after_idle": statistics.median(r["rss_mb_after_idle"] for r in runs),
            "idle_seconds": idle_s,
            "idle_lag_ms": runs[-1]["idle_lag_ms"],
            "rows_after_idle": runs[-1]["rows_after_idle"],
            "idle_refresh_ms": runs[-1]["idle_refresh_ms"],
            "rows_in_model": runs[-1]["rows_in_model"],
            "runs": runs,
        },
    }
    result["targets"] = _targets(result)
    result["elapsed_s"] = time.perf_counter() - started
    return result


# ------------------------------------------------------------------------------------------------


def _loads(result: dict[str, Any]) -> str:
    return " / ".join(f"{x:.1f}" for x in result["setup"]["load_avg_1min"])


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def _goal(result: dict[str, Any], goal_id: str) -> dict[str, Any]:
    return next(t for t in result["targets"] if t["id"] == goal_id)


def markdown(result: dict[str, Any]) -> str:
    st, db = result["startup"], result["database"]
    quick, plain = result["quick"], result["lag"]["plain"]
    lines = [
        "## B5 — GUI: event-loop lag, time to window, memory (offscreen Qt)",
        "",
        f"{'Quick' if quick else 'Full'} run, {result['setup']['cpus']} CPUs (1-min load "
        f"average before/after {_loads(result)}), "
        f"QT_QPA_PLATFORM=offscreen (raster painting into a backing store, as on a desktop). "
        f"Lag: {plain['rows']:,} rows in the real TaskTable in a shown 1400×900 window, 200 row "
        f"changes every 100 ms through `apply_changes` + heartbeats, for {plain['seconds']:.0f} s; "
        "lag = a 10 ms timer's lateness per tick. Startup: a real SQLite file with "
        f"{db['tasks']:,} tasks{' (quick mode; the target is for 100k)' if quick else ''} in "
        f"{db['batches']} batches ({db['db_mb']:.0f} MB), composed as `app._amain` does: load, "
        "show, then `scheduler.start()` once the window is drawn (accounts disabled: nothing "
        f"runs meanwhile; the first run also recovers {db['states'].get('running', 0)} "
        f"orphaned running rows); median of {st['repeats']} runs, warm page cache.",
        "",
        "| measurement | p50 / median | p99 | max | target | result |",
        "|---|---|---|---|---|---|",
    ]
    for name, label in SCENARIOS.items():
        lag, goal = result["lag"][name]["lag_ms"], _goal(result, f"lag_{name}")
        lines.append(
            f"| lag, {label} | {lag['p50']:.1f} ms | {lag['p99']:.1f} ms | {lag['max']:.0f} ms "
            f"| p99 {goal['target']} | {_verdict(goal['passed'])} |"
        )
    idle = st["idle_lag_ms"]
    lines += [
        f"| window shown + painted, {db['tasks']:,} tasks | {st['window_painted_s']:.2f} s | | "
        f"| {_goal(result, 'window')['target']} | {_verdict(_goal(result, 'window')['passed'])} |",
        f"| ↳ imports (process start → app modules imported) | {st['import_s']:.2f} s | | | | "
        "info |",
        f"| RSS at first paint | {st['rss_mb_at_paint']:.0f} MB | | | "
        f"{_goal(result, 'rss')['target']} | {_verdict(_goal(result, 'rss')['passed'])} |",
        f"| RSS after {st['idle_seconds']:g} s idle | {st['rss_mb_after_idle']:.0f} MB | | | | "
        "info |",
        f"| lag in the {st['idle_seconds']:g} s after the first paint (history loading: "
        f"{st['rows_in_model']:,} → {st['rows_after_idle']:,} rows) | {idle['p50']:.1f} ms "
        f"| {idle['p99']:.1f} ms | {idle['max']:.0f} ms | | info |",
        "",
        "| lag scenario | time in >50 ms stalls | apply_changes p50 | re-filter + re-sort (p50, "
        "every 500 ms) | paint p50 | paint max | paints | CPU |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, label in SCENARIOS.items():
        r = result["lag"][name]
        lines.append(
            f"| {label} | {r['lag_ms']['stalled_share'] * 100:.0f} % | "
            f"{r['apply_changes_ms']['p50']:.1f} ms | {r['settle_ms']['p50']:.1f} ms "
            f"| {r['paint_ms']['p50']:.0f} ms | {r['paint_ms']['max']:.0f} ms | {r['paints']} "
            f"| {r['cpu_share'] * 100:.0f} % |"
        )
    m, load = st["marks_median_s"], st["load_median_ms"]
    steps = list(m.items())
    lines += [
        "",
        "Startup, step by step (median s since the parent spawned the process; Δ = the step): "
        + ", ".join(
            f"{k} {v:.2f} (Δ {v - (steps[i - 1][1] if i else 0):.2f})"
            for i, (k, v) in enumerate(steps)
        )
        + ". Inside `MainWindow.load()`: "
        + ", ".join(f"`{k}` {v / 1000:.2f} s" for k, v in load.items())
        + f"; `MainWindow.refresh()`, the 1 s tick, then takes "
        f"{st['idle_refresh_ms']['p50']:.0f} ms (p50).",
    ]
    lines.append("")
    for goal in result["targets"]:
        head = goal["name"] if goal["passed"] else f"Miss — {goal['name']}"
        lines.append(f"- **{head}:** {goal['explanation']}")
    return "\n".join(lines) + "\n"


def _targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    st, db = result["startup"], result["database"]
    out = []
    for name, label in SCENARIOS.items():
        r = result["lag"][name]
        p99 = r["lag_ms"]["p99"]
        goal = target(
            f"event-loop lag p99, {r['rows']:,} rows, {label}",
            f"≤ {TARGET_LAG_P99_MS:.0f} ms",
            p99,
            p99 <= TARGET_LAG_P99_MS,
            _lag_explanation(r),
        )
        out.append({**goal, "id": f"lag_{name}"})
    window_s = st["window_painted_s"]
    wanted = f"≤ {TARGET_WINDOW_S:.0f} s" + (" (for 100k)" if db["tasks"] < 100_000 else "")
    goal = target(
        f"process start → main window painted, {db['tasks']:,} tasks",
        wanted,
        window_s,
        window_s <= TARGET_WINDOW_S,
        _window_explanation(st),
    )
    out.append({**goal, "id": "window"})
    rss = st["rss_mb_at_paint"]
    goal = target(
        f"RSS once the window is painted, {db['tasks']:,} tasks",
        f"≤ {TARGET_RSS_MB:.0f} MB",
        rss,
        rss <= TARGET_RSS_MB,
        f"{rss:.0f} MB: Qt + Python + the app's modules, plus one Python Row per task in the "
        "model and a bar per started task in the timeline; grows with the task count.",
    )
    out.append({**goal, "id": "rss"})
    return out


def _lag_explanation(r: dict[str, Any]) -> str:
    settle, paint = r["settle_ms"]["p50"], r["paint_ms"]["max"]
    why = []
    if settle > TARGET_LAG_P99_MS / 2:
        why.append(
            f"every 500 ms, `model.settle()` blocks the loop for {settle:.0f} ms (p50): a "
            f"Python filter + sort over all {r['rows']:,} rows, then the view's relayout"
        )
    if paint > TARGET_LAG_P99_MS:
        why.append(
            f"a full repaint of the visible rows takes up to {paint:.0f} ms (the 1 s tick "
            "repaints the two ticking columns, a re-sort the whole viewport): each cell asks the "
            "model for ~10 roles, each a C++→Python `data()` call"
        )
    return "; ".join(why) + "." if why else "no stall worth naming."


def _window_explanation(st: dict[str, Any]) -> str:
    load = sorted(st["load_median_ms"].items(), key=lambda kv: -kv[1])
    m = st["marks_median_s"]
    return (
        f"imports {st['import_s']:.1f} s (SQLAlchemy/SQLModel/pydantic ≈ half); "
        f"`MainWindow.load()` {m['loaded'] - m['window_built']:.1f} s for every unfinished task "
        "and the newest finished page: "
        + ", ".join(f"`{k}` {v / 1000:.2f} s" for k, v in load)
        + f"; `show()` → first paint {m['painted'] - m['show_called']:.2f} s. The scheduler "
        "starts after the first paint and older history loads after it, so neither is in this "
        "figure."
    )
