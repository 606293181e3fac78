"""The desktop app as a real process (offscreen): SIGTERM and SIGHUP shut it down exactly as
closing its window does, and a second demo on the same folder is refused before it touches the
first one's files."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
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


# ------------------------------------------------------------------------------ closing mid-work

CLOSE_BOUND_S = 10.0  # the window closed: no process of ours left after this (issue 17)


def start_driver(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """The app with one operator action once its window is up (tests/support/app_driver.py)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.app_driver", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**app_env(tmp_path), **env},
        cwd=Path(__file__).resolve().parents[2],
    )


def family(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def close_and_count_leftovers(proc: subprocess.Popen[str], ours: list[psutil.Process]) -> float:
    """SIGTERM (what closing the window does); returns how long until the app and every process
    it had started were gone — failing if that is more than CLOSE_BOUND_S."""
    began = time.monotonic()
    os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(CLOSE_BOUND_S)
    except subprocess.TimeoutExpired:
        for p in [*ours, psutil.Process(proc.pid)]:
            with contextlib.suppress(psutil.Error):
                p.kill()
        proc.communicate()
        pytest.fail(f"the app was still running {CLOSE_BOUND_S:.0f} s after its window closed")
    _, alive = psutil.wait_procs(ours, timeout=max(0.0, CLOSE_BOUND_S - (time.monotonic() - began)))
    took = time.monotonic() - began
    for p in alive:
        with contextlib.suppress(psutil.Error):
            p.kill()
    _, err = proc.communicate()
    assert not alive, [(p.pid, p.name()) for p in alive]
    assert proc.returncode == 0, err
    return took


def wait_for(predicate: Any, timeout: float, proc: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the app exited before {what} ({proc.returncode}):\n{out}\n{err}")
        if time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"no {what} within {timeout:.0f} s:\n{out}\n{err}")
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_closing_the_window_during_a_100000_task_export_leaves_no_process(tmp_path: Path) -> None:
    """Before: closing the window did not stop the export: its process was only terminated by
    Python's exit (multiprocessing ends daemon children last), mid-write, and left its
    half-written temporary file behind."""
    from benchmarks._gui_data import build_database

    data = tmp_path / "data"
    build_database(data, 100_000)
    target = tmp_path / "every-task.xlsx"
    proc = start_driver(tmp_path, {}, "export", str(target), "--data-dir", str(data))

    def writing() -> bool:  # the export process has begun its file (a temporary one)
        return any(p.name.startswith(f".{target.name}.") for p in tmp_path.iterdir())

    wait_for(writing, 120, proc, "export file being written")
    ours = family(proc.pid)
    assert any("multiprocessing" in " ".join(cmdline(p)) for p in ours)
    took = close_and_count_leftovers(proc, ours)
    assert not target.exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    print(f"closed in {took:.1f} s")


@pytest.mark.slow
@pytest.mark.chromium
@pytest.mark.timeout(300)
def test_closing_the_window_during_a_sign_in_leaves_no_process(tmp_path: Path) -> None:
    """Before: the sign-in window's browser ran on an executor thread for up to 15 minutes;
    closing the main window did not end it, and the process stayed until the operator closed
    the browser too."""
    from tests.gui.test_sign_in import write_config as write_sign_in_config
    from tests.support.xvfb import virtual_display

    data = tmp_path / "data"
    chat = ChatSiteSimulator(ChatSiteConfig(latency_s=(31, 60), time_scale=0.1))
    chat.start_in_thread()
    try:
        write_sign_in_config(data, chat.base_url)
        profile = str((data / "profiles" / "web-1").resolve())
        with virtual_display() as display:
            proc = start_driver(
                tmp_path, {"DISPLAY": display}, "login", "web-1", "--data-dir", str(data)
            )

            def browser_up() -> bool:
                return any(profile in " ".join(cmdline(p)) for p in family(proc.pid))

            wait_for(browser_up, 120, proc, "sign-in browser")
            ours = family(proc.pid)
            took = close_and_count_leftovers(proc, ours)
    finally:
        chat.stop_in_thread()
    print(f"closed in {took:.1f} s")


def cmdline(proc: psutil.Process) -> list[str]:
    try:
        return proc.cmdline()
    except psutil.Error:
        return []
