"""The headless contract (DESIGN §6) through real ``media-assistant`` processes."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from media_assistant.cli import main
from tests.support.local_day import clear_of_midnight

WEB_CONFIG = """
[simulation]
web_latency_s = [{lo}, {hi}]
seed = 11

[[models]]
name = "web-model"
kind = "web"

[[accounts]]
id = "web-1"
kind = "web"
site = "fake"
models = ["web-model"]

[[accounts]]
id = "web-2"
kind = "web"
site = "fake"
models = ["web-model"]
"""


def write_config(data: Path, lo: float = 0.2, hi: float = 0.6, extra: str = "") -> Path:
    data.mkdir(parents=True, exist_ok=True)
    path = data / "config.toml"
    path.write_text(WEB_CONFIG.format(lo=lo, hi=hi) + extra, encoding="utf-8")
    return path


def write_batch(path: Path, n: int, *, model: str = "web-model", prefix: str = "t") -> Path:
    lines = ["task_id,prompt,model"] + [
        f"{prefix}{i},Write about topic {i},{model}" for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cli(
    data: Path, *args: str, timeout: float = 120, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )


def rows(data: Path) -> list[dict[str, object]]:
    con = sqlite3.connect(data / "media-assistant.db")
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("SELECT * FROM tasks ORDER BY seq")]
    finally:
        con.close()


def test_run_imports_and_finishes_a_batch(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data)
    batch = write_batch(tmp_path / "batch.csv", 6)
    result = cli(data, "run", str(batch))
    assert result.returncode == 0, result.stderr
    assert "6 tasks added" in result.stdout
    assert "[web] 6/6 done" in result.stdout
    assert {r["state"] for r in rows(data)} == {"success"}
    # Re-importing the same file adds nothing.
    again = cli(data, "submit", str(batch))
    assert again.returncode == 0 and "0 tasks added, 6 already present" in again.stdout
    assert len(rows(data)) == 6
    status = json.loads(cli(data, "status", "--json").stdout)
    assert status["lanes"]["web"]["success"] == 6
    assert {a["id"]: a["state"] for a in status["accounts"]} == {
        "web-1": "enabled",
        "web-2": "enabled",
    }


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('task_id,prompt,model\nt1,"unterminated,web-model\n', "row 2"),
        ("task_id,model\nt1,web-model\n", "prompt"),
        ("task_id,prompt,model\nt1,hello,no-such-model\n", "unknown model 'no-such-model'"),
        ("task_id,prompt,model\nt1,hello,web-model\nt2,   ,web-model\n", "row 3"),
        ("task_id,prompt,model\nt1,a,web-model\nt1,b,web-model\n", "duplicate task_id 't1'"),
    ],
)
def test_bad_batch_exits_2_naming_the_row_and_imports_nothing(
    tmp_path: Path, content: str, expected: str
) -> None:
    data = tmp_path / "data"
    write_config(data)
    batch = tmp_path / "bad.csv"
    batch.write_text(content, encoding="utf-8")
    for command in ("run", "submit"):
        result = cli(data, command, str(batch))
        assert result.returncode == 2, result.stdout + result.stderr
        assert "bad.csv" in result.stderr and expected in result.stderr
    assert not (data / "media-assistant.db").exists() or rows(data) == []


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        (
            '\n[[models]]\nname = "api-model"\nkind = "api"\n[[accounts]]\nid = "a"\nkind = "api"\n'
            'base_url = "http://127.0.0.1:9/v1"\nmodels = ["api-model"]\nconcurrency = 0\n',
            "accounts[2] (a).concurrency",
        ),
        (
            '\n[[models]]\nname = "api-model"\nkind = "api"\n[[accounts]]\nid = "a"\nkind = "api"\n'
            'base_url = "http://127.0.0.1:9/v1"\nmodels = ["api-model"]\nconcurrency = 6\n',
            "less than or equal to 5 (got 6)",
        ),
        (
            '\n[[models]]\nname = "api-model"\nkind = "api"\n[[accounts]]\nid = "a"\nkind = "api"\n'
            'base_url = "http://127.0.0.1:9/v1"\nmodels = ["api-model"]\nconcurrency = "abc"\n',
            "valid integer (got 'abc')",
        ),
        ("\n[lanes.web]\ntask_timout_s = 3\n", "lanes.web.task_timout_s: unknown key"),
    ],
)
def test_bad_config_exits_2_naming_the_key_and_imports_nothing(
    tmp_path: Path, snippet: str, expected: str
) -> None:
    data = tmp_path / "data"
    config = write_config(data, extra=snippet)
    batch = write_batch(tmp_path / "batch.csv", 2)
    result = cli(data, "run", str(batch))
    assert result.returncode == 2
    assert str(config) in result.stderr and expected in result.stderr
    assert not (data / "media-assistant.db").exists()


def test_a_second_scheduler_on_the_same_data_dir_exits_3(tmp_path: Path) -> None:
    data = tmp_path / "data"
    # Long enough that the first run is still going after two more CLI calls on a busy machine.
    write_config(data, lo=20, hi=30)
    batch = write_batch(tmp_path / "batch.csv", 4)
    first = subprocess.Popen(
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "run", str(batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (data / "scheduler.owner").exists():
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.05)
        second = cli(data, "run")
        assert second.returncode == 3
        assert "another scheduler is running" in second.stderr
        assert f"pid {first.pid}" in second.stderr
        status = json.loads(cli(data, "status", "--json").stdout)
        assert status["scheduler"]["pid"] == first.pid
        # The self-check stops browsers on our profiles: never under a running scheduler.
        check = cli(data, "selfcheck")
        assert check.returncode == 3 and "another scheduler is running" in check.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    # SIGTERM is a graceful shutdown: nothing is left running.
    assert first.returncode == 130
    assert not [r for r in rows(data) if r["state"] == "running"]


def test_kill_9_mid_batch_then_run_again_ends_every_task_exactly_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data, lo=0.5, hi=1.5)
    batch = write_batch(tmp_path / "batch.csv", 16)
    victim = subprocess.Popen(
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "run", str(batch)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline and victim.poll() is None
        try:
            states = [r["state"] for r in rows(data)]
        except sqlite3.OperationalError:  # not created yet
            states = []
        if "success" in states and states.count("running") == 2:
            break
        time.sleep(0.05)
    victim.kill()  # SIGKILL: no cleanup at all
    victim.wait(timeout=10)
    orphaned = {r["task_id"] for r in rows(data) if r["state"] == "running"}
    assert len(orphaned) == 2

    t0 = time.time()
    result = cli(data, "run")
    assert result.returncode == 0, result.stdout + result.stderr
    final = rows(data)
    assert len(final) == 16  # no duplicate row
    assert {r["state"] for r in final} == {"success"}
    con = sqlite3.connect(data / "media-assistant.db")
    try:
        succeeded = con.execute(
            "SELECT task_id, count(*) FROM task_events WHERE message LIKE 'succeeded%' "
            "GROUP BY task_id"
        ).fetchall()
        assert len(succeeded) == 16 and all(n == 1 for _, n in succeeded)
        recovered = con.execute(
            "SELECT task_id, at FROM task_events WHERE message LIKE '%orphan%'"
        ).fetchall()
        started = con.execute(
            "SELECT started_at FROM sessions ORDER BY started_at DESC LIMIT 1"
        ).fetchone()[0]
        first_start = con.execute(
            "SELECT min(at) FROM task_events WHERE at >= ? AND message LIKE 'attempt % started%'",
            (started,),
        ).fetchone()[0]
    finally:
        con.close()
    assert {t for t, _ in recovered} == orphaned
    # At start (before the second run started any task), not when their 90 s lease ran out.
    assert first_start is not None
    assert all(started <= at <= first_start for _, at in recovered)
    assert t0 <= started
    for r in final:
        if r["task_id"] in orphaned:
            assert r["lost_count"] == 1 and r["attempt"] == 2


def test_cancel_and_retry_from_the_command_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data)
    batch = write_batch(tmp_path / "batch.csv", 3)
    assert cli(data, "submit", str(batch)).returncode == 0
    cancel = cli(data, "cancel", "t0", "t1")
    assert cancel.returncode == 0 and "canceled: 2" in cancel.stdout
    unknown = cli(data, "cancel", "nope")
    assert unknown.returncode == 2 and "unknown task id(s): nope" in unknown.stderr
    # The run covers what was pending: the canceled tasks are done, not this run's failures.
    first_run = cli(data, "run")
    assert first_run.returncode == 0 and "1 tasks, 1 succeeded" in first_run.stdout
    retry = cli(data, "retry", "t0")
    assert retry.returncode == 0 and "1 tasks back to pending" in retry.stdout
    assert cli(data, "run").returncode == 0
    states = {r["task_id"]: r["state"] for r in rows(data)}
    assert states == {"t0": "success", "t1": "canceled", "t2": "success"}


def test_export_writes_every_task(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data)
    batch = write_batch(tmp_path / "batch.csv", 3)
    assert cli(data, "run", str(batch)).returncode == 0
    out = tmp_path / "out.jsonl"
    result = cli(data, "export", "-o", str(out))
    assert result.returncode == 0 and "3 tasks written" in result.stdout
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["task_id"] for r in records] == ["t0", "t1", "t2"]
    assert all(r["result_text"].startswith("Answer to: Write about topic") for r in records)
    assert set(records[0]) >= {
        "task_id",
        "batch_id",
        "model",
        "model_kind",
        "account_id",
        "state",
        "attempt",
        "created_at",
        "started_at",
        "finished_at",
        "result_text",
        "error_kind",
        "error_message",
    }


def test_export_of_a_batch_with_chinese_headers_and_a_default_name(tmp_path: Path) -> None:
    """``export --batch B --headers zh`` without ``-o``: a file named after the batch and the
    time in the current folder, the source row's extra column beside the result."""
    data = tmp_path / "data"
    write_config(data)
    batch = tmp_path / "topics.csv"
    batch.write_text("task_id,topic,model\nk1,tea,web-model\nk2,silk,web-model\n", "utf-8")
    assert (
        cli(
            data, "submit", str(batch), "--template", "Write about {topic}", "--batch-id", "b1"
        ).returncode
        == 0
    )
    write_batch(tmp_path / "other.csv", 1, prefix="o")
    assert cli(data, "submit", str(tmp_path / "other.csv"), "--batch-id", "b2").returncode == 0
    work = tmp_path / "work"
    work.mkdir()
    result = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [
            sys.executable,
            "-m",
            "media_assistant",
            "--data-dir",
            str(data),
            "export",
            "--batch",
            "b1",
            "--headers",
            "zh",
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert result.returncode == 0, result.stderr
    (written,) = work.iterdir()
    assert written.name.startswith("b1-") and written.suffix == ".csv"
    assert f"2 tasks written to {written}" in result.stdout
    with written.open(encoding="utf-8-sig", newline="") as file:
        rows = list(csv.DictReader(file))
    assert [r["任务ID"] for r in rows] == ["k1", "k2"]
    assert rows[0]["topic"] == "tea" and rows[0]["提示词"] == "Write about tea"
    # Values that are kinds are Chinese words too (issue 20): not "pending" and "web".
    assert (rows[0]["状态"], rows[0]["通道"]) == ("等待中", "网页版")
    docx = tmp_path / "b1.docx"
    assert cli(data, "export", "--batch", "b1", "-o", str(docx)).returncode == 0
    assert docx.read_bytes().startswith(b"PK")
    bad = cli(data, "export", "--headers", "fr", "-o", str(tmp_path / "x.csv"))
    assert bad.returncode == 2


def test_accounts_toggle_and_a_run_that_cannot_progress_ends(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data)
    assert cli(data, "accounts", "disable", "web-1").returncode == 0
    assert cli(data, "accounts", "disable", "web-2").returncode == 0
    listing = cli(data, "accounts", "list")
    assert "web-1" in listing.stdout and "disabled" in listing.stdout
    batch = write_batch(tmp_path / "batch.csv", 2)
    result = cli(data, "run", str(batch), timeout=30)
    assert result.returncode == 1
    assert "cannot progress: 2 pending task(s) for model web-model" in result.stdout
    assert "web-1: disabled" in result.stdout
    assert cli(data, "accounts", "enable", "web-1").returncode == 0
    assert cli(data, "run").returncode == 0


def test_main_in_process_reports_bad_input_as_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    write_config(data)
    assert main(["--data-dir", str(data), "submit", str(tmp_path / "missing.csv")]) == 2
    assert "missing.csv: no such file" in capsys.readouterr().err


def test_status_shows_each_web_accounts_pacing(tmp_path: Path) -> None:
    # "1 of 50 today" counts on the local day, and the CLI runs on the real clock: the run and
    # the status call below must not straddle midnight.
    clear_of_midnight(300)
    data = tmp_path / "data"
    config = write_config(data)
    text = config.read_text(encoding="utf-8").replace(
        'id = "web-1"\nkind = "web"\nsite = "fake"\nmodels = ["web-model"]\n',
        'id = "web-1"\nkind = "web"\nsite = "fake"\nmodels = ["web-model"]\n'
        "pacing = { min_gap_s = 3600, max_per_window = 4, window_s = 1800, daily_cap = 50 }\n",
    )
    config.write_text(text, encoding="utf-8")
    result = cli(data, "run", str(write_batch(tmp_path / "b.csv", 4)))
    assert result.returncode == 0, result.stderr
    by_account = {r["account_id"] for r in rows(data)}
    assert by_account == {"web-1", "web-2"}  # web-1 waited its hour; web-2 did the rest
    assert sum(1 for r in rows(data) if r["account_id"] == "web-1") == 1
    status = json.loads(cli(data, "status", "--json").stdout)
    accounts = {a["id"]: a for a in status["accounts"]}
    paced = accounts["web-1"]["pacing"]
    assert paced["hold"] == "gap" and 3500 < paced["wait_s"] <= 3600
    assert paced["window"] == {"used": 1, "limit": 4, "window_s": 1800.0}
    assert paced["today"] == {"used": 1, "cap": 50}
    assert paced["text"].startswith("next task in 59:") or paced["text"].startswith(
        "next task in 1:00:"
    )
    assert "1 of 4 in 30 min" in paced["text"] and "1 of 50 today" in paced["text"]
    assert accounts["web-2"]["pacing"] is None
    plain = cli(data, "status").stdout
    assert "pacing: next task in" in plain
    cleared = cli(data, "accounts", "clear-pacing", "web-1")
    assert cleared.returncode == 0 and "cleared" in cleared.stdout
    bad = cli(data, "accounts", "clear-pacing", "nobody")
    assert bad.returncode == 2 and "unknown account" in bad.stderr


def test_a_bad_pacing_key_is_a_config_error_naming_file_and_key(tmp_path: Path) -> None:
    data = tmp_path / "data"
    config = write_config(data)
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            'site = "fake"\nmodels = ["web-model"]\n',
            'site = "fake"\nmodels = ["web-model"]\npacing = { min_gap = 5 }\n',
            1,
        ),
        encoding="utf-8",
    )
    result = cli(data, "status")
    assert result.returncode == 2
    assert f"{config}: accounts[0] (web-1).pacing.min_gap: unknown key" in result.stderr
