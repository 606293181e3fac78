"""B7 — the window never waits: event-loop lag while the window does database and file work, and
how soon another process's change shows in it (offscreen Qt, real files, real processes).

A data dir as a long-used install has it (benchmarks/_gui_data.py: 100,000 tasks, quick 20,000;
accounts switched off so nothing runs), then one child process (benchmarks/_io_env.py) composes
the app as ``media_assistant.app`` does — window, database follower, scheduler started — and a
10 ms timer measures the loop's lag while the window (d) loads the history behind its first
page, (a) exports every task to XLSX, (b) another process submits a 10,000-row CSV (quick 2,000)
into the same data dir, (c) another process holds ``BEGIN EXCLUSIVE`` on the database for 10 s
(quick 5 s) while the window cancels a task and opens a task's details, and (e) how long after
``media-assistant cancel ID`` in another process has committed the window's model shows the task
canceled, and (f) the Metrics window open on "Today" while it computes its figures 10 times
back to back (quick 5; issue 31: the lanes' figures must not move the loop's lag).

    python -m benchmarks io [--quick] [--json]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._gui_data import build_database
from benchmarks.report import median, table, target, targets_table

ROOT = Path(__file__).resolve().parent.parent
TARGET_P99_MS = 50.0
TARGET_MAX_MS = 200.0
TARGET_VISIBLE_S = 1.0
SIZES: dict[bool, dict[str, Any]] = {
    False: {"tasks": 100_000, "csv_rows": 10_000, "lock_s": 10.0, "cancels": 5, "metrics": 10},
    True: {"tasks": 20_000, "csv_rows": 2_000, "lock_s": 5.0, "cancels": 3, "metrics": 5},
}


def _write_csv(path: Path, rows: int) -> None:
    lines = ["prompt,title"] + [
        f"为第 {i} 款保温杯写一段 150 字的电商卖点文案，突出保温时长和便携,保温杯 {i}"
        for i in range(rows)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _child(data_dir: Path, csv: Path, sizes: dict[str, Any]) -> dict[str, Any]:
    args = [
        sys.executable,
        "-m",
        "benchmarks._io_env",
        "--data-dir",
        str(data_dir),
        "--csv",
        str(csv),
        "--rows",
        str(sizes["csv_rows"]),
        "--lock-s",
        str(sizes["lock_s"]),
        "--cancels",
        str(sizes["cancels"]),
        "--metrics-loads",
        str(sizes["metrics"]),
    ]
    proc = subprocess.run(  # noqa: PLW1510 - checked below, with the child's stderr
        args,
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "MA_BENCH_KEY": "sk-bench"},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"io benchmark child failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def run(quick: bool) -> dict[str, Any]:
    return measure(SIZES[quick], quick=quick)


def measure(sizes: dict[str, Any], *, quick: bool) -> dict[str, Any]:
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ma-bench-io-") as tmp:
        data_dir = Path(tmp) / "data"
        db = build_database(data_dir, sizes["tasks"])
        csv = Path(tmp) / "foreign.csv"
        _write_csv(csv, sizes["csv_rows"])
        m = _child(data_dir, csv, sizes)
    visible = m["cross_process_visible_s"]
    summary = {
        "lag_p99_ms_export": m["lag_export"]["p99"],
        "lag_max_ms_export": m["lag_export"]["max"],
        "lag_p99_ms_submit": m["lag_submit"]["p99"],
        "lag_max_ms_submit": m["lag_submit"]["max"],
        "lag_p99_ms_locked": m["lag_locked"]["p99"],
        "lag_max_ms_locked": m["lag_locked"]["max"],
        "lag_p99_ms_history": m["lag_history"]["p99"],
        "lag_max_ms_history": m["lag_history"]["max"],
        "lag_p99_ms_metrics": m["lag_metrics"]["p99"],
        "lag_max_ms_metrics": m["lag_metrics"]["max"],
        "cross_process_visible_s": max(visible),
        "cross_process_visible_median_s": median(visible),
    }
    result: dict[str, Any] = {
        "benchmark": "B7 io",
        "quick": quick,
        **summary,
        "setup": {
            "cpus": os.cpu_count(),
            "qpa": "offscreen",
            "sizes": sizes,
            "load_avg_1min": [load_before, os.getloadavg()[0]],
        },
        "database": db,
        "measured": m,
    }
    result["targets"] = _targets(result)
    result["elapsed_s"] = time.perf_counter() - started
    return result


def _targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    m = r["measured"]
    out = []
    for phase, label in (
        ("export", f"exporting {m['exported']:,} tasks to XLSX ({m['export_s']:.0f} s)"),
        ("submit", f"another process submitting {r['setup']['sizes']['csv_rows']:,} rows"),
        ("history", f"loading {m['tasks']:,} tasks of history ({m['history_s']:.1f} s)"),
        ("metrics", "the Metrics window computes today's figures"),
    ):
        p99 = r[f"lag_p99_ms_{phase}"]
        out.append(
            target(
                f"lag p99 while {label}",
                f"≤ {TARGET_P99_MS:.0f} ms",
                p99,
                p99 <= TARGET_P99_MS,
            )
        )
    for phase, label in (
        ("export", "exporting"),
        ("submit", "another process submits"),
        ("locked", f"another process holds the database ({m['lock_held_s']:.0f} s)"),
        ("history", "loading history"),
        ("metrics", "the Metrics window computes"),
    ):
        worst = r[f"lag_max_ms_{phase}"]
        out.append(
            target(
                f"lag max while {label}",
                f"≤ {TARGET_MAX_MS:.0f} ms",
                worst,
                worst <= TARGET_MAX_MS,
            )
        )
    visible = r["cross_process_visible_s"]
    out.append(
        target(
            "`media-assistant cancel ID` in another process → canceled in the window's model "
            f"(worst of {len(m['cross_process_visible_s'])})",
            f"≤ {TARGET_VISIBLE_S:.1f} s",
            visible,
            visible <= TARGET_VISIBLE_S,
            "from the command's exit (its row committed) to the model: the database follower "
            "looks every 250 ms, the bridge flushes within 100 ms",
        )
    )
    return out


# What was found and changed to meet the targets (stop 15), kept when the file is regenerated.
NOTES = """### History (not this run's figures): what keeps the window free

Found with these phases while building B7 (commits 043e83a to 66fb42e, 2026-12-01/02, on this
2-core machine); the figures below are from those runs.

- **Exports run in a child process** (`core/exports/child.py`). On a worker thread they shared
  the GIL with the window: lxml closing a 100,000-row sheet held it 150-300 ms (export max
  166-325 ms). In a process of its own: p99 ~3-7 ms, max 10-57 ms.
- **One ETA plan, on a worker thread for long queues** (`gui/batch_eta.plan_lanes`,
  `gui/window/queue_controls.py`). With ~22,000 pending tasks the lane panels and the batches list
  each sorted and replayed the queue on the loop, 25-100 ms per plan; a lane's version also
  moved with every history page, so history loading replanned every second.
- **History after the scheduler's start** (`MainWindow.hold_history`). A `faulthandler`
  watchdog that dumped every thread when the loop missed a 45 ms deadline showed provider
  imports on a worker thread (PySide6's import hook reads each module's source) and history
  pages on the loop slowing each other: one after the other, neither waits long.
- **A backlog from another process goes in 200-row slices 20 ms apart**, the timeline repaints
  only when a bar changed (pending tasks have none), and the batches list follows counts at
  most once a second: the submit phase's p99 went from 75-97 ms to 33-49 ms (full runs) and
  its time in stalls over 50 ms from 26 % to 3 %.
- **The fair share's ETA replay, paced; the Metrics charts kept** (6 Dec, 183fd3d → branch
  i31-b7lag). `py-spy record --gil` over the submit phase: the ETA plan's worker thread held
  the GIL ~65 % of the time — plans of 12,000-22,000 pending tasks took 0.35-0.9 s each, back to
  back, `fair_order` asking `pick()` over every waiting batch for each task — and the window's
  thread, waiting for the GIL at each of its turns, stalled 100-370 ms at a time (its own
  samples sat in Qt's `exec`, no Python frame: waiting, not working). A heap per level (class,
  tenant, batch), the shares per (class, batch) not per task, and a rest of 3× a plan's time
  after it: plans 70-260 ms, at most a quarter of the time; submit p99 20-40 ms, in the table
  1.2-1.9 s after the command exits (was 3.8-6.1 s). The Metrics window removed and re-added
  every chart item on each refresh (legend re-layout, autorange, axes repaint: 80-180 ms of
  the loop per refresh); its items now stay and take new values only where they moved
  (~10 ms): phase (f) p99 68-102 → 3-18 ms."""


def markdown(r: dict[str, Any]) -> str:
    m, sizes, db = r["measured"], r["setup"]["sizes"], r["database"]
    loads = " / ".join(f"{x:.1f}" for x in r["setup"]["load_avg_1min"])

    def lag_row(label: str, key: str) -> list[Any]:
        lag = m[f"lag_{key}"]
        return [
            label,
            f"{lag['p50']:.1f} ms",
            f"{lag['p99']:.1f} ms",
            f"{lag['max']:.0f} ms",
            f"{lag['stalled_share'] * 100:.1f} %",
        ]

    lines = [
        "## B7 — the window never waits (database and file work off the loop)",
        "",
        f"{'Quick' if r['quick'] else 'Full'} run, {r['setup']['cpus']} CPUs (1-min load average "
        f"before/after {loads}), QT_QPA_PLATFORM=offscreen. A data dir with {db['tasks']:,} tasks "
        f"({db['db_mb']:.0f} MB); the real window composed as `app._amain` does (database "
        "follower, scheduler started, accounts switched off); a 10 ms timer's lateness per tick "
        "while each phase runs. Command: `python -m benchmarks io"
        f"{' --quick' if r['quick'] else ''}`.",
        "",
        table(
            ["while the window…", "lag p50", "lag p99", "lag max", "time in >50 ms stalls"],
            [
                lag_row(
                    f"(d) loads {m['tasks']:,} tasks of history "
                    f"({m['first_page_rows']:,} before it shows, the rest in "
                    f"{m['history_s']:.1f} s)",
                    "history",
                ),
                lag_row(
                    f"(a) exports {m['exported']:,} tasks to XLSX ({m['export_s']:.0f} s, "
                    f"{m['export_mb']:.0f} MB)",
                    "export",
                ),
                lag_row(
                    f"(b) another process submits a {sizes['csv_rows']:,}-row CSV (command "
                    f"{m['submit_command_s']:.1f} s; in the table "
                    f"{m['submit_visible_after_exit_s']:.2f} s after it exits)",
                    "submit",
                ),
                lag_row(
                    f"(c) another process holds `BEGIN EXCLUSIVE` for {m['lock_held_s']:.0f} s "
                    f"(details opened in {m['details_during_lock_s']:.2f} s meanwhile; the "
                    f"window's cancel committed {m['cancel_done_after_lock_s']:.2f} s after "
                    "the lock ended)",
                    "locked",
                ),
                lag_row(
                    f'(f) has the Metrics window open on "Today" while it computes its '
                    f"figures {m['metrics_loads']} times ({m['metrics_load_s']:.2f} s each)",
                    "metrics",
                ),
            ],
        ),
        "",
        "(e) `media-assistant cancel ID` in another process, from the command's exit (its row "
        "committed) to the task shown canceled in the window's model: "
        + ", ".join(f"{v:.2f} s" for v in m["cross_process_visible_s"])
        + ".",
        "",
        targets_table(r["targets"]),
        "",
        NOTES,
        "",
        "JSON (`--json`): `lag_p99_ms_export`, `lag_max_ms_export`, `lag_p99_ms_submit`, "
        "`lag_max_ms_submit`, `lag_p99_ms_locked`, `lag_max_ms_locked`, `lag_p99_ms_history`, "
        "`lag_max_ms_history`, `lag_p99_ms_metrics`, `lag_max_ms_metrics`, "
        "`cross_process_visible_s` (the worst), "
        "`cross_process_visible_median_s`; the raw measurements under `measured`.",
    ]
    return "\n".join(lines) + "\n"
