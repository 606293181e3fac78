"""B12's harness, shrunk (benchmarks/bench_metrics.py): the seeded day is what the figures read
back, the measurement runs on a reader thread and the section renders."""

from __future__ import annotations

import asyncio
from pathlib import Path

from benchmarks import bench_metrics
from media_assistant.core.metrics.compute import compute_figures
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.metrics_reads import MetricsReads


def test_the_seeded_day_reads_back_and_the_section_renders(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "b10.db")
    bench_metrics.seed(url, 2_000)
    engine = open_engine(url)
    try:
        start, end = bench_metrics.START, bench_metrics.START + bench_metrics.DAY_S * 1.01
        figures = compute_figures(MetricsReads(engine), start, end)
    finally:
        engine.dispose()
    lanes = figures.lanes
    assert lanes["web"].finished + lanes["api"].finished == 2_000
    api = lanes["api"]
    assert 0.02 < api.timeout_rate < 0.08 and 0.02 < api.deferral_rate < 0.08
    assert api.run.p50 is not None and api.run.p50 < api.run.p90 < api.run.p99  # type: ignore[operator]
    measured = asyncio.run(bench_metrics._measure(url))
    assert measured["tasks"] == 2_000 and measured["cpu_ms"] > 0
    result = {
        "tasks": 2_000,
        "sqlite": measured,
        "targets": [bench_metrics.target("t", "≤ 200 ms", measured["median_ms"], True)],
    }
    assert "| sqlite | 2,000 |" in bench_metrics.markdown(result)
