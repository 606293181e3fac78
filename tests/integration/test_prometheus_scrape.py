"""Debian's real Prometheus (2.42) scrapes ``media-assistant metrics`` (issue 31 item 5): the
counts it stores are the store's, its ``histogram_quantile`` is what the buckets say, and every
query of docs/grafana-dashboard.json runs. Skipped where Prometheus is not installed
(scripts/setup.sh installs it)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_metrics_cli import _free_port, seed

PROMETHEUS = shutil.which("prometheus")
DASHBOARD = Path(__file__).parents[2] / "docs" / "grafana-dashboard.json"

pytestmark = pytest.mark.skipif(PROMETHEUS is None, reason="prometheus is not installed")


def _query(port: int, expr: str) -> list[dict[str, Any]]:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as response:
        body = json.loads(response.read())
    assert body["status"] == "success", body
    return list(body["data"]["result"])


def _until(port: int, expr: str, deadline_s: float = 90.0) -> list[dict[str, Any]]:
    """The query's result once it has one (Prometheus scrapes every second)."""
    end = time.monotonic() + deadline_s
    while True:
        try:
            result = _query(port, expr)
        except OSError:
            result = []
        if result or time.monotonic() > end:
            return result
        time.sleep(0.2)


def test_prometheus_scrapes_the_stores_histograms(tmp_path: Path) -> None:
    data = tmp_path / "data"
    runs, _totals = seed(data)
    ours, theirs = _free_port(), _free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: media-assistant\n"
        f"    static_configs:\n      - targets: ['127.0.0.1:{ours}']\n",
        encoding="utf-8",
    )
    metrics = subprocess.Popen(
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "metrics",
         "--listen", f"127.0.0.1:{ours}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )  # fmt: skip
    prometheus = subprocess.Popen(
        [str(PROMETHEUS), f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{theirs}", "--log.level=warn"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert metrics.stdout is not None and "http://" in metrics.stdout.readline()
        count = _until(theirs, "media_assistant_task_run_seconds_count")
        assert count, "Prometheus never stored a sample"
        assert [float(r["value"][1]) for r in count] == [float(len(runs))]
        assert count[0]["metric"]["lane"] == "api" and count[0]["metric"]["account"] == "api-1"
        # the median by Prometheus' own interpolation inside the bucket that holds it
        median = _query(theirs, "histogram_quantile(0.5, media_assistant_task_run_seconds_bucket)")
        value = float(median[0]["value"][1])
        assert 30.0 <= value <= 45.0  # runs 33 s and 48 s straddle the median: bucket 30-45 s
        finished = _query(theirs, 'media_assistant_tasks_finished_total{state="success"}')
        assert float(finished[0]["value"][1]) == 10
        for panel in json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]:
            for target in panel["targets"]:
                _query(theirs, target["expr"])  # each dashboard query is valid PromQL
    finally:
        for proc in (prometheus, metrics):
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=30)
    assert metrics.returncode == 0
