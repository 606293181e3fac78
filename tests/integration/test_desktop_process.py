"""The desktop app as a real process (offscreen): SIGTERM and SIGHUP shut it down exactly as
closing its window does, and a second demo on the same folder is refused before it touches the
first one's files."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.test_cli import cli, write_batch, write_config


def app_env(tmp_path: Path) -> dict[str, str]:
    """Offscreen, and settings/logs in the test's own folders, not the user's."""
    return {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "MEDIA_ASSISTANT_NO_ERROR_DIALOG": "1",
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
    }


def start_app(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "media_assistant", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=app_env(tmp_path),
    )


def task_rows(data: Path) -> list[tuple[str, str, int, int]]:
    if not (data / "media-assistant.db").exists():
        return []
    con = sqlite3.connect(data / "media-assistant.db", timeout=10)
    try:
        return con.execute(
            "SELECT task_id, state, attempt, keep_attempt FROM tasks ORDER BY seq"
        ).fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        con.close()


def wait_until(predicate: object, timeout: float, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the app exited early ({proc.returncode}):\n{out}\n{err}")
        if time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"timed out:\n{out}\n{err}")
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_shuts_the_app_down_like_closing_the_window(
    tmp_path: Path, sig: signal.Signals
) -> None:
    data = tmp_path / "data"
    write_config(data, lo=60, hi=60)  # web tasks that are still running when the signal comes
    assert cli(data, "submit", str(write_batch(tmp_path / "b.csv", 3))).returncode == 0
    proc = start_app(tmp_path, "--data-dir", str(data))
    running = lambda: sum(1 for r in task_rows(data) if r[1] == "running") == 2  # noqa: E731
    wait_until(running, 60, proc)

    os.kill(proc.pid, sig)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"{sig.name} did not stop the app:\n{out}\n{err}")

    assert proc.returncode == 0, err
    rows = task_rows(data)
    assert [r[1] for r in rows] == ["pending"] * 3, rows  # back to the queue
    # ... without using up an attempt: the two that ran are marked to keep theirs.
    assert sorted(keep for _, _, _, keep in rows) == [0, 1, 1], rows
    # The window closed as the operator closes it: its geometry was saved.
    assert list((tmp_path / "xdg-config").rglob("*.conf")), "window geometry not saved"
    assert not (data / "scheduler.owner").exists()  # the data dir's lock was released


@pytest.mark.slow
def test_a_second_demo_on_the_same_folder_exits_3_without_touching_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = start_app(tmp_path, "--data-dir", str(home), "demo", "--no-browser")
    config = home / "demo" / "config.toml"
    wait_until(lambda: task_rows(home / "demo"), 60, first)
    before = (config.read_bytes(), config.stat().st_mtime_ns)
    try:
        for second in (
            ["--data-dir", str(home), "demo", "--no-browser"],  # in the terminal
            ["--data-dir", str(home), "--demo"],  # the windowed demo
        ):
            result = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
                [sys.executable, "-m", "media_assistant", *second],
                capture_output=True,
                text=True,
                timeout=60,
                env=app_env(tmp_path),
            )
            assert result.returncode == 3, result.stderr
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and str(home / "demo") in lines[0], result.stderr
            assert (config.read_bytes(), config.stat().st_mtime_ns) == before
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    # MEDIA_ASSISTANT_HOME works as --data-dir does.
    env_home = tmp_path / "env-home"
    result = subprocess.run(  # noqa: PLW1510
        [sys.executable, "-m", "media_assistant", "demo", "--no-browser"],
        capture_output=True,
        text=True,
        timeout=180,
        env={**app_env(tmp_path), "MEDIA_ASSISTANT_HOME": str(env_home)},
    )
    assert result.returncode == 0, result.stderr
    assert f"demo data: {(env_home / 'demo').resolve()}" in result.stdout
