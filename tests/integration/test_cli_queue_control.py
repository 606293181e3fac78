"""``pause``/``resume``, ``prioritize``, ``submit --start-at`` / ``--active-hours`` /
``--title-column``, ``retry --failed --batch`` and what ``status`` says about them, through real
``media-assistant`` processes — including a pause typed while ``run`` works in another one."""

from __future__ import annotations

import datetime as dt
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from media_assistant.core.model.clock import SystemClock
from media_assistant.core.store import Store, rollups
from media_assistant.core.store.db import open_engine, sqlite_url
from tests.integration.test_cli import cli, rows, write_batch, write_config


def events(data: Path, task_id: str) -> list[tuple[str, str]]:
    con = sqlite3.connect(data / "media-assistant.db")
    try:
        return [
            (code or "", params or "")
            for code, params in con.execute(
                "SELECT code, params_json FROM task_events WHERE task_id = ? ORDER BY id",
                (task_id,),
            )
        ]
    finally:
        con.close()


def test_pause_while_run_works_finishes_the_current_tasks_and_starts_nothing_new(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    # Tasks long enough that the pause (a process of its own, slow to start on a busy machine)
    # lands while the first ones run, not after all eight.
    write_config(data, lo=3.0, hi=3.5)
    batch = write_batch(tmp_path / "batch.csv", 8)
    runner = subprocess.Popen(
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "run", str(batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline and runner.poll() is None
            try:
                if any(r["state"] == "running" for r in rows(data)):
                    break
            except sqlite3.OperationalError:
                pass
            time.sleep(0.05)
        paused = cli(data, "pause")
        assert paused.returncode == 0, paused.stderr
        assert "pausing the whole queue after the current task" in paused.stdout
        status = json.loads(cli(data, "status", "--json").stdout)
        assert [(p["scope"], p["target"]) for p in status["pauses"]] == [("all", "")]
        text = cli(data, "status").stdout
        assert "paused: the whole queue" in text
        # The running tasks end; nothing else starts while the queue is paused.
        deadline = time.monotonic() + 30
        while any(r["state"] == "running" for r in rows(data)):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        ended = sum(r["state"] == "success" for r in rows(data))
        assert ended < 8
        # Nothing can start: the claim statement every lane runs finds no task for any account
        # while the pause holds (the pause is a clause of that statement, core/store/holds.py).
        engine = open_engine(sqlite_url(data / "media-assistant.db"), read_only=True)
        store = Store(engine, SystemClock())
        try:
            for account in ("web-1", "web-2"):
                assert store.peek_next(["web-model"], lane="web", account_id=account) is None
        finally:
            store.engine.dispose()
        assert not any(r["state"] == "running" for r in rows(data))
        assert sum(r["state"] == "success" for r in rows(data)) == ended
        resumed = cli(data, "resume", "--all")
        assert resumed.returncode == 0 and "resumed the whole queue" in resumed.stdout
        out, err = runner.communicate(timeout=90)
    finally:
        if runner.poll() is None:
            runner.send_signal(signal.SIGTERM)
        runner.communicate(timeout=60)  # its pipes are closed whatever happened
    assert runner.returncode == 0, out + err
    assert {r["state"] for r in rows(data)} == {"success"}
    # The run said why it waited, and when it went on.
    assert "paused: the whole queue" in out and "resumed: nothing is paused" in out


def test_pause_a_lane_batch_or_account_and_the_status_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data)
    assert (
        cli(data, "submit", str(write_batch(tmp_path / "b.csv", 2)), "--batch-id", "b1").returncode
        == 0
    )
    for args, said in (
        (("--lane", "web"), "paused the web lane"),
        (("--batch", "b1"), "paused batch b1"),
        (("--account", "web-2"), "paused account web-2"),
    ):
        result = cli(data, "pause", *args)
        assert result.returncode == 0 and said in result.stdout, result.stdout + result.stderr
    again = cli(data, "pause", "--batch", "b1")
    assert again.returncode == 0 and "was already paused" in again.stdout
    unknown = cli(data, "pause", "--batch", "nope")
    assert unknown.returncode == 2 and "unknown batch 'nope'" in unknown.stderr
    bad = cli(data, "pause", "--account", "ghost")
    assert bad.returncode == 2 and "unknown account 'ghost'" in bad.stderr
    status = json.loads(cli(data, "status", "--json").stdout)
    assert sorted((p["scope"], p["target"]) for p in status["pauses"]) == [
        ("account", "web-2"),
        ("batch", "b1"),
        ("lane", "web"),
    ]
    resumed = cli(data, "resume", "--lane", "web")
    assert "resumed the web lane" in resumed.stdout
    assert "still paused: account web-2" in resumed.stdout


def test_prioritize_by_id_or_batch_with_a_number_top_or_bottom(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data)
    assert (
        cli(
            data, "submit", str(write_batch(tmp_path / "a.csv", 3, prefix="a")), "--batch-id", "A"
        ).returncode
        == 0
    )
    assert (
        cli(
            data, "submit", str(write_batch(tmp_path / "b.csv", 2, prefix="b")), "--batch-id", "B"
        ).returncode
        == 0
    )
    one = cli(data, "prioritize", "a2", "--priority", "7")
    assert one.returncode == 0 and "1 task(s) now at priority 7" in one.stdout
    top = cli(data, "prioritize", "--batch", "B", "--top")
    # Moved to the top by hand: run first, past the fair share (at least 1000).
    assert top.returncode == 0 and "2 task(s) now at priority 1000" in top.stdout
    bottom = cli(data, "prioritize", "a2", "--bottom")
    assert "now at priority 7" not in bottom.stdout and bottom.returncode == 0
    priorities = {r["task_id"]: r["priority"] for r in rows(data)}
    assert priorities == {"a0": 0, "a1": 0, "a2": -1, "b0": 1000, "b1": 1000}
    wrong = cli(data, "prioritize", "a0", "zz", "--priority", "3")
    assert wrong.returncode == 2 and "unknown task id(s): zz" in wrong.stderr
    assert {r["task_id"]: r["priority"] for r in rows(data)}["a0"] == 0  # nothing half-written
    both = cli(data, "prioritize", "a0", "--top", "--bottom")
    assert both.returncode == 2
    # The run takes the queue in that order.
    assert cli(data, "run").returncode == 0
    started = sorted(rows(data), key=lambda r: r["started_at"])
    assert [r["task_id"] for r in started][:2] in (["b0", "b1"], ["b1", "b0"])
    # a2, low (-1), is not starved behind normal work: it gets its class's share (fair share).
    assert [r["task_id"] for r in started].index("a2") >= 2


def test_submit_with_a_start_time_holds_the_batch_and_status_shows_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data)
    start = (dt.datetime.now() + dt.timedelta(days=1)).replace(second=0, microsecond=0)
    batch = tmp_path / "topics.csv"
    batch.write_text("序号,主题\n1,秋季新品\n2,冬季清仓\n", encoding="utf-8")
    result = cli(
        data,
        "submit",
        str(batch),
        "--model",
        "web-model",
        "--template",
        "写一篇关于{主题}的文案",
        "--batch-id",
        "night",
        "--name",
        "夜间批次",
        "--start-at",
        start.strftime("%Y-%m-%dT%H:%M"),
    )
    assert result.returncode == 0, result.stderr
    assert f"batch night: scheduled {start:%m-%d %H:%M}; nothing of it starts earlier" in (
        result.stdout
    )
    assert {r["title"] for r in rows(data)} == {"秋季新品", "冬季清仓"}  # the first text column
    status = json.loads(cli(data, "status", "--json").stdout)
    [scheduled] = status["schedules"]
    assert scheduled["batch"] == "night" and scheduled["held_until"] == start.timestamp()
    con = sqlite3.connect(data / "media-assistant.db")
    try:
        name, source, title_column = con.execute(
            "SELECT name, source_file, title_column FROM batches WHERE batch_id = 'night'"
        ).fetchone()
    finally:
        con.close()
    assert (name, Path(source).name, title_column) == ("夜间批次", "topics.csv", "主题")
    bad = cli(data, "submit", str(batch), "--model", "web-model", "--start-at", "tomorrow")
    assert bad.returncode == 2 and "--start-at 'tomorrow': not a time" in bad.stderr
    hours = cli(data, "submit", str(batch), "--model", "web-model", "--active-hours", "25:00-06:00")
    assert hours.returncode == 2 and "--active-hours" in hours.stderr
    assert len(rows(data)) == 2  # nothing of the refused files


def test_run_with_a_start_time_a_few_seconds_ahead_starts_nothing_earlier(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    write_config(data)
    start = dt.datetime.now().replace(microsecond=0) + dt.timedelta(seconds=4)
    batch = write_batch(tmp_path / "batch.csv", 3)
    result = cli(data, "run", str(batch), "--start-at", start.isoformat(timespec="seconds"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert all(r["started_at"] >= start.timestamp() for r in rows(data))


def test_retry_failed_of_one_batch_leaves_the_others_and_says_what_it_left_out(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    write_config(data)
    for name in ("A", "B"):
        path = write_batch(tmp_path / f"{name}.csv", 2, prefix=name)
        assert cli(data, "submit", str(path), "--batch-id", name).returncode == 0
    con = sqlite3.connect(data / "media-assistant.db")
    rollups.register_sqlite_functions(con)  # the rollups' triggers pack with them
    with con:
        con.execute(
            "UPDATE tasks SET state = 'failed', attempt = 1, error_kind = 'server_error' "
            "WHERE task_id IN ('A0', 'B0')"
        )
        con.execute(
            "UPDATE tasks SET state = 'failed', attempt = 1, error_kind = 'content_policy' "
            "WHERE task_id = 'A1'"
        )
    con.close()
    result = cli(data, "retry", "--failed", "--batch", "A")
    assert result.returncode == 0, result.stderr
    assert "1 tasks back to pending" in result.stdout
    assert "1 left out (content policy, prompt too long or bad input" in result.stdout
    states = {r["task_id"]: r["state"] for r in rows(data)}
    assert states == {"A0": "pending", "A1": "failed", "B0": "failed", "B1": "pending"}
    retried = [c for c, _ in events(data, "A0")]
    assert retried[-1] == "retry_requested"
    lone = cli(data, "retry", "--batch", "A")
    assert lone.returncode == 2 and "--batch goes with --failed" in lone.stderr


def test_retry_failed_leaves_poison_pills_out_and_says_so(tmp_path: Path) -> None:
    """Issue 25: ``retry --failed`` sent a poison pill (every attempt failed the same way) again
    with the rest; now it leaves it out, says how many and how to take them along."""
    data = tmp_path / "data"
    write_config(data)
    path = write_batch(tmp_path / "P.csv", 2, prefix="P")
    assert cli(data, "submit", str(path), "--batch-id", "P").returncode == 0
    con = sqlite3.connect(data / "media-assistant.db")
    rollups.register_sqlite_functions(con)  # the rollups' triggers pack with them
    with con:
        con.execute(
            "UPDATE tasks SET state = 'failed', attempt = 2, error_kind = 'server_error' "
            "WHERE task_id IN ('P0', 'P1')"
        )
        con.execute(  # what the attempt runner writes when P0's round ran out the same way
            "INSERT INTO task_events (task_id, at, kind, attempt, message, code) "
            "VALUES ('P0', 1.0, 'state', 2, 'failed: server_error: …', 'poison_pill')"
        )
    con.close()
    result = cli(data, "retry", "--failed")
    assert result.returncode == 0, result.stderr
    assert "1 tasks back to pending" in result.stdout
    assert "1 poison pills left out (every attempt failed the same way" in result.stdout
    assert "--include-poison" in result.stdout
    assert {r["task_id"]: r["state"] for r in rows(data)} == {"P0": "failed", "P1": "pending"}
    lone = cli(data, "retry", "P0", "--include-poison")
    assert lone.returncode == 2 and "--include-poison goes with --failed" in lone.stderr
    taken = cli(data, "retry", "--failed", "--include-poison")
    assert taken.returncode == 0, taken.stderr
    assert "1 tasks back to pending" in taken.stdout and "poison" not in taken.stdout
    assert {r["task_id"]: r["state"] for r in rows(data)} == {"P0": "pending", "P1": "pending"}
