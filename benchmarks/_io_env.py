"""The B7 child process: the real window (offscreen Qt, composed as ``media_assistant.app``
does it, the scheduler started) on a real data dir, and a 10 ms timer measuring the event
loop's lag while the window

(d) loads the history behind its first page,
(a) exports every task to XLSX (the toolbar's export job),
(b) another process submits a CSV into the same data dir (``media-assistant submit``),
(c) another process holds an exclusive lock on the database (while the window cancels a task
    and opens a task's details),
(e) another process cancels a task (``media-assistant cancel ID``): the time from that command's
    exit (its row committed) until the window's model shows the task canceled,
(f) the Metrics window is open on "Today" and computes its figures (the span's, the day's
    charts, the alarms) on a reader thread, ``--metrics-loads`` times back to back.

    python -m benchmarks._io_env --data-dir DIR --csv FILE --rows N --lock-s S --cancels K
        --metrics-loads L

Prints one JSON object on its last stdout line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MEDIA_ASSISTANT_NO_ERROR_DIALOG", "1")

from benchmarks._gui_env import LagProbe  # noqa: E402

FOREIGN_MODEL = "deepseek-chat"
LOCKER = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], timeout=60, isolation_level=None)
con.execute("BEGIN EXCLUSIVE")
print("locked", time.time(), flush=True)
time.sleep(float(sys.argv[2]))
con.execute("COMMIT")
"""


def cli(data_dir: Path, *args: str) -> None:
    """``media-assistant`` in a process of its own, as a terminal runs it."""
    subprocess.run(
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data_dir), *args],
        check=True,
        capture_output=True,
        timeout=600,
    )


async def until(predicate: Any, timeout: float, step: float = 0.005) -> float:
    """Seconds until ``predicate()`` holds, polled on the loop."""
    t0 = time.perf_counter()
    while not predicate():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError(f"not reached within {timeout} s")
        await asyncio.sleep(step)
    return time.perf_counter() - t0


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    from media_assistant.app import FIRST_PAINT_WAIT_S
    from media_assistant.core.files.paths import Paths
    from media_assistant.gui.bridge.controller import AppController
    from media_assistant.gui.window.log_panel import LogModel
    from media_assistant.gui.window.main_window import MainWindow
    from media_assistant.services import Services

    data_dir = Path(args.data_dir)
    services = Services.open(Paths.resolve(data_dir))
    services.bind_loop()
    scheduler = services.scheduler()
    controller = AppController(services, scheduler)
    window = MainWindow(controller, LogModel())
    window.resize(1366, 728)
    model = window.model
    out: dict[str, Any] = {}
    probe = LagProbe()
    try:
        # (d) history: the first page before the window shows, the rest in pages behind it.
        total = await asyncio.to_thread(services.store.count_tasks)
        cursor = await window.load()
        await controller.follower.start(cursor)
        out["first_page_rows"] = model.rowCount()
        probe.start()
        painted = window.next_paint()
        window.hold_history()  # as media_assistant.app does: history once the scheduler runs
        window.show()
        await asyncio.wait_for(painted, FIRST_PAINT_WAIT_S * 5)
        await scheduler.start()
        window.release_history()
        out["history_s"] = await until(lambda: model.rowCount() >= total, 600)
        out["lag_history"] = probe.stop()
        out["tasks"] = total

        # (a) export every task to XLSX, the way the toolbar's Export does it.
        with tempfile.TemporaryDirectory(prefix="ma-b7-") as tmp:
            target = Path(tmp) / "export.xlsx"
            probe.start()
            t0 = time.perf_counter()
            written = await window.task_actions.export_to(target, None)
            out["export_s"] = time.perf_counter() - t0
            out["lag_export"] = probe.stop()
            out["exported"] = written
            out["export_mb"] = target.stat().st_size / 2**20
        if window.task_actions.result_box is not None:
            window.task_actions.result_box.close()

        # (b) another process submits a CSV into the same data dir.
        before = model.rowCount()
        probe.start()
        t0 = time.perf_counter()
        await asyncio.to_thread(
            cli,
            data_dir,
            "submit",
            args.csv,
            "--model",
            FOREIGN_MODEL,
            "--batch-id",
            "b7-foreign",
        )
        out["submit_command_s"] = time.perf_counter() - t0
        out["submit_visible_after_exit_s"] = await until(
            lambda: model.rowCount() >= before + args.rows, 120
        )
        out["lag_submit"] = probe.stop()

        # (c) another process holds an exclusive lock; meanwhile the window cancels a task
        # (a write: it waits on the writer thread) and opens a task's details (reads).
        pending = [r.task_id for r in model.rows() if r.state == "pending"]
        target_id = pending[0]
        locker = subprocess.Popen(
            [sys.executable, "-c", LOCKER, str(services.paths.database), str(args.lock_s)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert locker.stdout is not None
        locked_at = float((await asyncio.to_thread(locker.stdout.readline)).split()[1])
        probe.start()
        t0 = time.perf_counter()
        await asyncio.sleep(0.5)
        cancel = asyncio.ensure_future(controller.cancel([target_id]))
        details = await window.show_details(pending[1])
        out["details_during_lock_s"] = time.perf_counter() - t0 - 0.5
        await asyncio.to_thread(locker.wait)
        # From the lock's own start (the locker's clock: a loaded machine may wake us late).
        out["lock_held_s"] = time.time() - locked_at
        released = time.perf_counter()
        await cancel
        out["cancel_done_after_lock_s"] = time.perf_counter() - released
        await until(lambda: model.task(target_id).state == "canceled", 30)  # type: ignore[union-attr]
        out["lag_locked"] = probe.stop()
        if details is not None:
            details.close()

        # (e) `media-assistant cancel ID` in another process → the window's model. Measured
        # from the commit (the wall-clock time in the cancel's event row) to the moment the
        # model shows it; the command's own start-up and exit are not the window's doing.
        visible: list[float] = []
        seen: dict[str, float] = {}

        def watch(task_id: str) -> bool:
            row = model.task(task_id)
            if row is not None and row.state == "canceled":
                seen.setdefault(task_id, time.time())
                return True
            return False

        for task_id in pending[2 : 2 + args.cancels]:
            watcher = asyncio.ensure_future(until(lambda t=task_id: watch(t), 60, step=0.002))
            await asyncio.to_thread(cli, data_dir, "cancel", task_id)
            await watcher
            events = await controller.store.events(task_id)
            committed = max(e.at for e in events if e.kind == "cancel")
            visible.append(seen[task_id] - committed)
        out["cross_process_visible_s"] = visible

        # (f) the Metrics window open on "Today", its figures computed again and again.
        window.open_metrics()
        metrics = window.metrics_window
        assert metrics is not None
        await until(lambda: not metrics._loading, 300)  # its first load, on show
        metrics.span.setCurrentIndex(2)  # "Today": the longest span; starts a load
        probe.start()
        t0 = time.perf_counter()
        for _ in range(args.metrics_loads - 1):
            await until(lambda: not metrics._loading, 300)
            metrics.refresh()
        await until(lambda: not metrics._loading, 300)
        out["metrics_load_s"] = (time.perf_counter() - t0) / args.metrics_loads
        out["metrics_loads"] = args.metrics_loads
        out["lag_metrics"] = probe.stop()
        metrics.close()
    finally:
        await scheduler.stop()
        await controller.close()
        window.close()
        services.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks._io_env")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--rows", type=int, required=True, help="rows in the CSV")
    parser.add_argument("--lock-s", type=float, default=10.0)
    parser.add_argument("--cancels", type=int, default=5)
    parser.add_argument("--metrics-loads", type=int, default=10)
    args = parser.parse_args(argv)

    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from media_assistant.gui.bridge.event_loop import AppEventLoop

    QCoreApplication.setOrganizationName("MediaAssistantBench")
    app = QApplication([sys.argv[0]])
    app.setQuitOnLastWindowClosed(False)
    loop = AppEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        result = loop.run_until_complete(measure(args))
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
