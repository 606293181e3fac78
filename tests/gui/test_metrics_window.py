"""The Metrics window (issue 31 item 2), offscreen, on a real store: its tables say the store's
figures and its charts draw the day's series, read on a database reader thread."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pyqtgraph as pg

from media_assistant.core.files.paths import Paths
from media_assistant.core.metrics.figures import percentile
from media_assistant.core.model.clock import ManualClock
from media_assistant.gui.metrics.view import MetricsWindow
from media_assistant.services import Services
from tests.integration.test_metrics_cli import seed


async def test_the_metrics_window_shows_the_stores_figures(tmp_path: Path, qtbot: Any) -> None:
    # "Today" and the day's charts start at local midnight: work seeded 40 minutes before the
    # real now was yesterday's from 00:00 to 00:40 (failed so at 00:14). The window's clock and
    # the seed are pinned to today's noon instead.
    noon = dt.datetime.now().astimezone().replace(hour=12, minute=0, second=0, microsecond=0)
    data = tmp_path / "data"
    runs, totals = seed(data, start=noon.timestamp() - 2400)
    (data / "config.toml").write_text(
        '[[models]]\nname = "api-model"\nkind = "api"\n[[accounts]]\nid = "api-1"\nkind = "api"\n'
        'models = ["api-model"]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "NO_KEY"\n'
        "rpm = 60\n",
        "utf-8",
    )
    clock = ManualClock(start=noon.timestamp())
    services = Services.open(Paths.resolve(data, None), read_only=True, clock=clock)
    window = MetricsWindow(services)
    qtbot.addWidget(window)
    try:
        window.span.setCurrentIndex(2)  # today
        snapshot = await window.reload()
        lanes = {window.lanes.item(r, 0).text(): r for r in range(window.lanes.rowCount())}
        api = lanes["API"]
        assert window.lanes.item(api, 1).text() == "10"
        p = [percentile(sorted(runs), q) for q in (0.5, 0.9, 0.99)]
        assert window.lanes.item(api, 4).text() == " / ".join(f"{v:.0f}" for v in p)
        assert window.lanes.item(api, 6).text() == "9%"  # 1 timeout of 11 attempts
        accounts = [window.accounts.item(r, 0).text() for r in range(window.accounts.rowCount())]
        assert "api-1" in accounts
        assert window.alarms.text() == "No alarm"
        series = snapshot.day.series
        assert series is not None and sum(series.finished["api"]) == 10
        drawn = [i for i in window.finished_chart.getPlotItem().listDataItems()]
        assert len(drawn) == 2  # a line per lane
        limits = [
            i for i in window.quota_chart.getPlotItem().items if isinstance(i, pg.InfiniteLine)
        ]
        assert sorted(line.value() for line in limits) == [85.0, 100.0]
        assert totals
    finally:
        services.close()
