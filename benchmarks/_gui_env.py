"""The B5 child processes (offscreen Qt), one measurement per process so heaps and caches do not
carry over; each prints one JSON object on its last stdout line.

    python -m benchmarks._gui_env lag --rows 10000 --seconds 3 --scenario sorted_filtered
    python -m benchmarks._gui_env startup --data-dir DIR --t0 <epoch s> --idle-seconds 2

``lag``: the real task table widget (TaskTableModel → QTableView; the model filters and sorts,
with its 500 ms settle timer and 1 s repaint tick) in a shown 1400×900 window; 200 row changes
every 100 ms through ``apply_changes`` + ``rows_changed`` (what MainWindow does with a bridge
flush) and heartbeats through ``apply_heartbeats``; a 10 ms timer measures the event loop's lag.

``startup``: composes the app as ``media_assistant.app._amain`` does (self-check, services,
scheduler, controller, MainWindow, load, show, ``scheduler.start()``) on the app's qasync loop,
and reports milestones from the parent's pre-spawn timestamp to the first paint of the table.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

T_INTERPRETER = time.time()  # before any heavy import: this module imports only the stdlib

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MEDIA_ASSISTANT_NO_ERROR_DIALOG", "1")

LAG_TICK_MS = 10


def _dist_ms(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0, "n": 0}
    ordered = sorted(samples)

    def q(p: float) -> float:
        pos = (len(ordered) - 1) * p
        lo = int(pos)
        hi = min(lo + 1, len(ordered) - 1)
        return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)

    return {"p50": q(0.5), "p99": q(0.99), "max": ordered[-1], "n": len(ordered)}


class LagProbe:
    """A 10 ms precise timer; lag = actual interval − 10 ms, per tick, in ms. A stalled loop
    yields one late tick, not many: ``stalled_share`` adds how much of the wall time went to
    ticks later than 50 ms, which the per-tick percentiles underweight."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.samples: list[float] = []
        self._last: float | None = None
        self._started = time.perf_counter()
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(LAG_TICK_MS)
        self.timer.timeout.connect(self._on_tick)

    def _on_tick(self) -> None:
        now = time.perf_counter()
        if self._last is not None:
            self.samples.append(max(0.0, (now - self._last) * 1000 - LAG_TICK_MS))
        self._last = now

    def start(self) -> None:
        self._last = None
        self.samples.clear()
        self._started = time.perf_counter()
        self.timer.start()

    def stop(self) -> dict[str, float]:
        self.timer.stop()
        wall_ms = (time.perf_counter() - self._started) * 1000
        stalled = sum(lag + LAG_TICK_MS for lag in self.samples if lag > 50)
        return {**_dist_ms(self.samples), "stalled_share": stalled / wall_ms}


class PaintCounter:
    """Counts the paint events of an item view's viewport and times them (proof that the view
    really paints offscreen, and what a paint costs). The filter runs first and delivers the
    event to ``view.viewportEvent`` itself (what the scroll area's own viewport filter does), so
    the time measured is the paint's alone."""

    def __init__(self, view: Any, on_first: Callable[[], None] | None = None) -> None:
        from PySide6.QtCore import QEvent, QObject

        counter = self

        class _Filter(QObject):
            def eventFilter(self, _obj: QObject, event: QEvent) -> bool:  # noqa: N802
                if event.type() != QEvent.Type.Paint:
                    return False
                t0 = time.perf_counter()
                view.viewportEvent(event)
                counter.durations_ms.append((time.perf_counter() - t0) * 1000)
                counter.paints += 1
                if counter.paints == 1 and on_first is not None:
                    on_first()
                return True

        self.paints = 0
        self.durations_ms: list[float] = []
        self._filter = _Filter()
        view.viewport().installEventFilter(self._filter)

    def reset(self) -> None:
        self.paints = 0
        self.durations_ms.clear()


def _timed(record: list[float], fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            record.append((time.perf_counter() - t0) * 1000)

    return wrapper


# ------------------------------------------------------------------------------------------------
# lag


def lag_main(rows_n: int, seconds: float, scenario: str, seed: int) -> dict[str, Any]:
    from PySide6.QtCore import QEventLoop, Qt, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    from benchmarks._gui_data import UPDATE_MS, change_batches, table_rows
    from media_assistant.gui.tasks.model import TaskTableModel
    from media_assistant.gui.tasks.rows import COL_STATE
    from media_assistant.gui.tasks.view import TaskTable

    app = QApplication.instance() or QApplication([sys.argv[0]])
    rng = random.Random(seed)
    now = time.time()
    rows = table_rows(rows_n, rng, now)
    ticks = int(seconds * 1000 / UPDATE_MS)
    batches = change_batches(rows, ticks + 5, rng, now)
    # The precomputed changes are the harness's, not the app's: keep them out of the GC's scans
    # (the table's own rows, built below, stay in the normal generations).
    gc.freeze()

    window = QMainWindow()
    model = TaskTableModel()
    table = TaskTable(model, window)
    window.setCentralWidget(table)
    window.resize(1400, 900)
    model.load(rows)
    t0 = time.perf_counter()
    if scenario in ("sorted", "sorted_filtered"):
        table.view.sortByColumn(COL_STATE, Qt.SortOrder.AscendingOrder)
    if scenario == "sorted_filtered":
        table.state_filter.setCurrentIndex(table.state_filter.findData("pending,running"))
    setup_ms = (time.perf_counter() - t0) * 1000
    paints = PaintCounter(table.view)
    window.show()
    loop = QEventLoop()
    QTimer.singleShot(500, loop.quit)  # first paints, layout, warm caches
    loop.exec()
    visible_before = table.model.rowCount()

    apply_ms: list[float] = []
    settle_ms: list[float] = []
    table.model.apply_changes = _timed(apply_ms, table.model.apply_changes)  # type: ignore[method-assign]
    table._on_settle_timeout = _timed(settle_ms, table._on_settle_timeout)  # type: ignore[method-assign]
    # The window's single-shot settle timer is connected to the bound method: reconnect it.
    table._settle.timeout.disconnect()
    table._settle.timeout.connect(table._on_settle_timeout)

    position = 0

    def on_update() -> None:
        nonlocal position
        changes, beats = batches[position]
        position += 1
        model.apply_changes(changes)  # MainWindow._on_bridge_tasks_changed
        table.rows_changed()
        model.apply_heartbeats(beats)  # bridge.heartbeats → model.apply_heartbeats

    updates = QTimer()
    updates.setInterval(UPDATE_MS)
    updates.timeout.connect(on_update)
    probe = LagProbe()
    paints.reset()
    cpu0 = time.process_time()
    probe.start()
    updates.start()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    updates.stop()
    lag = probe.stop()
    cpu = time.process_time() - cpu0
    result = {
        "scenario": scenario,
        "rows": rows_n,
        "seconds": seconds,
        "updates": position,
        "lag_ms": lag,
        "paints": paints.paints,
        "paint_ms": _dist_ms(paints.durations_ms),
        "cpu_share": cpu / seconds,
        "apply_changes_ms": _dist_ms(apply_ms),
        "settle_ms": _dist_ms(settle_ms),
        "settle_calls": len(settle_ms),
        "setup_ms": setup_ms,
        "visible_rows": [visible_before, table.model.rowCount()],
    }
    window.close()
    del app
    return result


# ------------------------------------------------------------------------------------------------
# startup


def startup_main(data_dir: str, t0: float, idle_seconds: float) -> dict[str, Any]:
    marks: dict[str, float] = {"interpreter": T_INTERPRETER}
    import asyncio
    import contextlib

    import psutil
    from PySide6.QtCore import QCoreApplication, QTimer
    from PySide6.QtWidgets import QApplication

    from media_assistant.app import FIRST_PAINT_WAIT_S
    from media_assistant.core.files.paths import Paths
    from media_assistant.gui.bridge.controller import AppController
    from media_assistant.gui.bridge.event_loop import AppEventLoop
    from media_assistant.gui.common.i18n import install_translators
    from media_assistant.gui.window.log_panel import LogModel
    from media_assistant.gui.window.main_window import MainWindow
    from media_assistant.services import Services

    marks["imports"] = time.time()
    QCoreApplication.setOrganizationName("MediaAssistantBench")
    QCoreApplication.setApplicationName("Media Assistant")
    app = QApplication([sys.argv[0]])
    app.setQuitOnLastWindowClosed(False)
    marks["qapplication"] = time.time()
    services = Services.open(Paths.resolve(__import__("pathlib").Path(data_dir)))
    install_translators(app, services.config.ui.language)
    marks["services"] = time.time()
    loop = AppEventLoop(app)
    asyncio.set_event_loop(loop)
    out: dict[str, Any] = {}
    refresh_ms: list[float] = []
    load_ms: dict[str, list[float]] = {}

    async def amain() -> None:
        # As media_assistant.app._amain, up to the first paint.
        services.bind_loop()
        findings: list[str] = []
        if any(a.kind.value == "web" for a in services.config.accounts):
            from media_assistant.providers.web.checkup import run_checkup

            checkup = await asyncio.to_thread(
                run_checkup, services.config, services.paths, services.accounts
            )
            findings = checkup.problems()
        marks["checkup"] = time.time()
        scheduler = services.scheduler()
        controller = AppController(services, scheduler)
        window = MainWindow(controller, LogModel())
        marks["window_built"] = time.time()
        # What MainWindow.load() spends its time on (instance attributes shadow the methods
        # for the call, and are deleted afterwards). The store's reads run on a database
        # thread (the window awaits them): their time is the thread's, not the loop's.
        timed: list[tuple[object, str]] = [
            (services.store, "view_rows"),
            (window.model, "load"),
            (window.table, "add_batch"),
            (window.timeline, "upsert"),
            (window, "_bars"),
            (window, "refresh"),
        ]
        for owner, attr in timed:
            record = load_ms.setdefault(f"{type(owner).__name__}.{attr}", [])
            setattr(owner, attr, _timed(record, getattr(owner, attr)))
        cursor = await window.load()
        await controller.follower.start(cursor)
        for owner, attr in timed:
            delattr(owner, attr)
        out["load_ms"] = {k: {"total": sum(v), "calls": len(v)} for k, v in load_ms.items()}
        window.show_startup_findings(findings)
        marks["loaded"] = time.time()
        painted: asyncio.Future[float] = loop.create_future()

        def painted_now() -> None:
            if not painted.done():
                painted.set_result(time.time())

        def first_paint() -> None:
            # The zero-delay timer fires after the paint event was handled: the table is drawn.
            QTimer.singleShot(0, painted_now)

        counter = PaintCounter(window.table.view, first_paint)
        drawn = window.next_paint()
        window.hold_history()  # as media_assistant.app does: history once the scheduler runs
        window.show()
        marks["show_called"] = time.time()
        with contextlib.suppress(TimeoutError):  # as the app does: start once it is drawn
            await asyncio.wait_for(drawn, FIRST_PAINT_WAIT_S)
        marks["painted"] = await asyncio.wait_for(painted, 60)  # stamped by the paint itself
        await scheduler.start()
        window.release_history()
        marks["scheduler_started"] = time.time()
        proc = psutil.Process()
        out["rss_mb_at_paint"] = proc.memory_info().rss / 2**20
        out["rows_in_model"] = window.model.rowCount()
        out["window_size"] = [window.width(), window.height()]
        # Afterwards: the window while older history loads behind it, and its 1 s refresh.
        window.refresh = _timed(refresh_ms, window.refresh)  # type: ignore[method-assign]
        window._tick.timeout.disconnect()
        window._tick.timeout.connect(window.refresh)
        probe = LagProbe()
        probe.start()
        await asyncio.sleep(idle_seconds)
        out["idle_lag_ms"] = probe.stop()
        out["rows_after_idle"] = window.model.rowCount()
        out["idle_refresh_ms"] = _dist_ms(refresh_ms)
        out["rss_mb_after_idle"] = proc.memory_info().rss / 2**20
        out["paints"] = counter.paints
        await scheduler.stop()
        await controller.close()
        window.hide()

    with loop:
        loop.run_until_complete(amain())
    services.close()
    out["marks_s"] = {k: v - t0 for k, v in marks.items()}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks._gui_env")
    sub = parser.add_subparsers(dest="command", required=True)
    lag = sub.add_parser("lag")
    lag.add_argument("--rows", type=int, default=10_000)
    lag.add_argument("--seconds", type=float, default=3.0)
    lag.add_argument("--scenario", choices=("plain", "sorted", "sorted_filtered"), default="plain")
    lag.add_argument("--seed", type=int, default=7)
    start = sub.add_parser("startup")
    start.add_argument("--data-dir", required=True)
    start.add_argument("--t0", type=float, required=True)
    start.add_argument("--idle-seconds", type=float, default=2.0)
    args = parser.parse_args(argv)
    if args.command == "lag":
        result = lag_main(args.rows, args.seconds, args.scenario, args.seed)
    else:
        result = startup_main(args.data_dir, args.t0, args.idle_seconds)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
