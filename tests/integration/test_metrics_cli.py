"""``stats`` and ``metrics`` through real ``media-assistant`` processes (issue 31 items 4, 5): a
store with a batch of known generation times and an injected timeout, read back as JSON and
scraped over real HTTP with the Prometheus client's own parser."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from media_assistant.core.metrics.figures import percentile
from media_assistant.core.metrics.prometheus import BUCKETS
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from tests.conftest import make_tasks
from tests.integration.test_cli import cli

RUNS = [3.0, 7.0, 12.0, 20.0, 33.0, 48.0, 75.0, 110.0, 200.0, 420.0]
STATS_KEYS = {"since", "until", "lanes", "accounts", "alarms"}
LANE_KEYS = {
    "finished",
    "per_minute",
    "wait_s",
    "run_s",
    "total_s",
    "timeout_rate",
    "failure_rate",
    "deferral_rate",
    "backlog",
}


def seed(data: Path, start: float | None = None) -> tuple[list[float], list[float]]:
    """Ten API answers of known generation times (the fourth after a timeout), submitted at
    ``start`` (default: ~40 minutes ago); two tasks still waiting. Returns (runs, totals)."""
    data.mkdir(parents=True, exist_ok=True)
    clock = ManualClock(start=time.time() - 2400 if start is None else start)
    engine = open_engine(sqlite_url(data / "media-assistant.db"))
    store = Store(engine, clock, EventBus())
    store.submit(make_tasks(12))
    t0 = clock.now()
    totals: list[float] = []
    for i, run in enumerate(RUNS):
        clock.advance_sync(1.0)
        c = store.claim_next(
            kind=ModelKind.API, account_id="api-1", models=("api-model",), owner_id="o",
            deadline_s=1800,
        )  # fmt: skip
        assert c is not None
        if i == 3:
            clock.advance_sync(30.0)
            assert store.requeue(
                c, not_before=None, keep_attempt=False, kind=ErrorKind.TIMEOUT,
                message="timed out", code=EventCode.RETRY_SCHEDULED,
                params={"error_kind": "timeout"},
            )  # fmt: skip
            c = store.claim_next(
                kind=ModelKind.API, account_id="api-1", models=("api-model",), owner_id="o",
                deadline_s=1800,
            )  # fmt: skip
            assert c is not None
        clock.advance_sync(run)
        assert store.finish_success(c, "ANSWER-TEXT-31", usage={"total_tokens": 50})
        totals.append(clock.now() - t0)
    engine.dispose()
    return RUNS, totals


def test_stats_json_has_the_documented_keys_and_exact_percentiles(tmp_path: Path) -> None:
    data = tmp_path / "data"
    runs, totals = seed(data)
    result = cli(data, "stats", "--since", "1h", "--json")
    assert result.returncode == 0, result.stderr
    import json

    got = json.loads(result.stdout)
    assert set(got) == STATS_KEYS
    assert set(got["lanes"]) == {"web", "api"}
    api = got["lanes"]["api"]
    assert set(api) == LANE_KEYS
    assert set(api["run_s"]) == {"p50", "p90", "p99"}
    assert api["finished"] == 10 and api["backlog"] == 2
    for q, key in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
        assert api["run_s"][key] == pytest.approx(percentile(sorted(runs), q), abs=1e-3)
        assert api["total_s"][key] == pytest.approx(percentile(sorted(totals), q), abs=1e-3)
    assert api["timeout_rate"] == pytest.approx(1 / 11, abs=1e-4)
    assert api["failure_rate"] == pytest.approx(1 / 11, abs=1e-4)
    assert api["deferral_rate"] == 0
    account = next(a for a in got["accounts"] if a["account"] == "api-1")
    assert set(account) == {"account", "lane", "busy_share", "quota"}
    assert account["lane"] == "api"
    assert got["alarms"] == []  # 11 attempts, 1 timeout: 9 % but a quarter-hour old

    only_web = json.loads(cli(data, "stats", "--lane", "web", "--json").stdout)
    assert set(only_web["lanes"]) == {"web"} and only_web["accounts"] == []
    text = cli(data, "stats", "--since", "today")
    assert text.returncode == 0 and "api" in text.stdout and "alarms: none" in text.stdout
    bad = cli(data, "stats", "--since", "yesterday-ish")
    assert bad.returncode == 2 and "--since yesterday-ish" in bad.stderr
    assert "Traceback" not in bad.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_metrics_serves_histograms_that_match_the_store(tmp_path: Path) -> None:
    data = tmp_path / "data"
    runs, totals = seed(data)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "metrics",
         "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # printed once the server listens
        assert f"http://127.0.0.1:{port}/metrics" in line, proc.stderr.read() if proc.stderr else ""
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/metrics",
            headers={"Accept": "application/openmetrics-text; version=1.0.0"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert "openmetrics" in response.headers["Content-Type"]
            body = response.read().decode()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
        code = proc.returncode
    assert code == 0
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(body)
        for s in family.samples
    }
    labels = (("account", "api-1"), ("lane", "api"), ("model", "api-model"))
    run_count = samples[("media_assistant_task_run_seconds_count", labels)]
    assert run_count == len(runs)
    for bound in BUCKETS:
        le = (("le", f"{float(bound)}"),)
        key = ("media_assistant_task_run_seconds_bucket", tuple(sorted(labels + le)))
        assert samples[key] == sum(1 for r in runs if r <= bound), bound
        key = ("media_assistant_task_total_seconds_bucket", tuple(sorted(labels + le)))
        assert samples[key] == sum(1 for t in totals if t <= bound + 1e-6), bound
    assert samples[("media_assistant_task_run_seconds_sum", labels)] == pytest.approx(sum(runs))
    finished = (("kind", ""), ("lane", "api"), ("state", "success"))
    assert samples[("media_assistant_tasks_finished_total", finished)] == 10
    assert samples[("media_assistant_backlog", (("lane", "api"),))] == 2
    for secret in ("prompt api-", "ANSWER-TEXT-31"):
        assert secret not in body


def test_metrics_listen_serves_while_the_app_runs_and_stops_with_it(tmp_path: Path) -> None:
    from media_assistant.core.files.paths import Paths
    from media_assistant.services import Services

    data = tmp_path / "data"
    runs, _ = seed(data)
    port = _free_port()
    (data / "config.toml").write_text(f'[metrics]\nlisten = "127.0.0.1:{port}"\n', "utf-8")
    services = Services.open(Paths.resolve(data, None), require_config=True, read_only=True)
    try:
        services.serve_metrics()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
            body = response.read().decode()
    finally:
        services.close()
    labels = '{account="api-1",lane="api",model="api-model"}'
    assert f"media_assistant_task_run_seconds_count{labels} {len(runs)}.0" in body
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # closed with the app


def test_metrics_on_an_address_in_use_is_exit_2_without_a_traceback(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli(tmp_path / "data", "metrics", "--listen", f"127.0.0.1:{port}")
    assert result.returncode == 2
    assert f"cannot serve the metrics at 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr
