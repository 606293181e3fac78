"""What the window leaves to other threads does not crowd its own out (B7, issue 31): a long
queue's ETA plan runs on a worker thread, and — being Python that holds the GIL the window's
thread needs at each of its turns — the next plan rests PLAN_REST times as long as the last one
took. Time is the window's injected clock; the plan is gated, so nothing here waits on timing."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from pathlib import Path
from typing import Any

import pytest

from media_assistant.core.files.paths import Paths
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.batches import eta as batch_eta
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.window import queue_controls
from media_assistant.gui.window.log_panel import LogModel
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.services import Services
from tests.gui.test_main_window import until

CONFIG = """
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_GUI_TEST_KEY"
models = ["api-model"]
"""


async def test_a_worker_thread_plan_is_followed_by_a_rest_as_long_as_plan_rest_times_it(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MA_GUI_TEST_KEY", "sk-test")
    monkeypatch.setattr(queue_controls, "INLINE_PENDING", 0)  # any queue is "long"
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    clock = ManualClock()
    services = Services.open(Paths.resolve(data), clock=clock)
    services.store.submit(
        [NewTask(f"p{i}", "api-model", ModelKind.API, "pending", "b") for i in range(3)]
    )
    gate = threading.Event()
    plans: list[str] = []  # the thread each plan ran on

    def plan_lanes(*args: Any) -> Any:
        plans.append(threading.current_thread().name)
        assert gate.wait(20)
        return batch_eta.plan_lanes(*args)

    monkeypatch.setattr(queue_controls, "plan_lanes", plan_lanes)
    controller = AppController(services, services.scheduler())
    window = MainWindow(controller, LogModel())
    qtbot.addWidget(window)
    try:
        window.model.load(services.store.view_rows())
        started = clock.now()
        window.refresh()
        await until(lambda: len(plans) == 1)
        assert plans[0] != threading.main_thread().name
        clock.advance_sync(2.0)  # the plan takes 2 s
        gate.set()
        await until(lambda: window.queue._plans == 1)
        ended = started + 2.0
        rest = queue_controls.PLAN_REST * 2.0
        # Past ETA_EVERY_S (a plan was due by the clock before) but within the rest: none.
        assert ended - started + rest - 0.1 > queue_controls.ETA_EVERY_S
        clock.advance_sync(rest - 0.1)
        window.refresh()
        await asyncio.sleep(0.05)
        assert len(plans) == 1 and window.queue._planning is None
        clock.advance_sync(0.2)  # the rest is over
        window.refresh()
        await until(lambda: window.queue._plans == 2)
        assert len(plans) == 2
    finally:
        gate.set()
        await controller.close()
        window.close()
        services.close()


async def test_a_metrics_refresh_changes_only_the_chart_items_whose_figures_moved(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Metrics window's refresh (every 30 s) keeps its charts' items: the same figures
    again add and remove nothing; a moved count gives the line its new points, in place."""
    import dataclasses

    import pyqtgraph as pg

    from media_assistant.gui.metrics.view import MetricsWindow
    from tests.integration.test_metrics_cli import seed

    # "Today" starts at local midnight: the seed and the window's clock at today's noon (as
    # tests/gui/test_metrics_window.py), not 40 minutes before a real now that may be 00:10.
    noon = dt.datetime.now().astimezone().replace(hour=12, minute=0, second=0, microsecond=0)
    data = tmp_path / "data"
    seed(data, start=noon.timestamp() - 2400)
    (data / "config.toml").write_text(CONFIG.replace('"api-1"', '"api-1"\nrpm = 60', 1), "utf-8")
    monkeypatch.setenv("MA_GUI_TEST_KEY", "sk-test")
    clock = ManualClock(start=noon.timestamp())
    services = Services.open(Paths.resolve(data, None), read_only=True, clock=clock)
    window = MetricsWindow(services)
    qtbot.addWidget(window)
    charts = (window.finished_chart, window.p90_chart, window.busy_chart, window.quota_chart)
    changes: list[tuple[str, str]] = []
    for chart in charts:
        plot = chart.getPlotItem()
        for verb in ("addItem", "removeItem"):
            original = getattr(plot, verb)

            def counted(item: Any, *a: Any, _o: Any = original, _v: str = verb, **k: Any) -> Any:
                changes.append((_v, type(item).__name__))
                return _o(item, *a, **k)

            monkeypatch.setattr(plot, verb, counted)
    try:
        window.span.setCurrentIndex(2)  # today
        snapshot = await window.reload()
        assert changes and all(verb == "addItem" for verb, _ in changes)  # the first drawing
        lines = window.finished_chart.getPlotItem().listDataItems()
        assert len(lines) == 2  # a line per lane
        limits = [
            i for i in window.quota_chart.getPlotItem().items if isinstance(i, pg.InfiniteLine)
        ]
        assert sorted(line.value() for line in limits) == [85.0, 100.0]

        changes.clear()
        window.show_snapshot(snapshot)  # the same figures again
        assert changes == []

        series = snapshot.day.series
        assert series is not None
        moved = {lane: [c + 1 for c in counts] for lane, counts in series.finished.items()}
        day = dataclasses.replace(snapshot.day, series=dataclasses.replace(series, finished=moved))
        window.show_snapshot(dataclasses.replace(snapshot, day=day))
        assert changes == []  # the lines took their new points in place
        assert window.finished_chart.getPlotItem().listDataItems() == lines
        per_min = 600.0 / 60.0
        drawn = sorted(float(sum(line.yData)) for line in lines)
        assert drawn == pytest.approx(sorted(sum(c) / per_min for c in moved.values()))
    finally:
        window.close()
        services.close()
