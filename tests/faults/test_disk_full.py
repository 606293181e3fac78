"""Issue 9, item 3: a full disk, on a real small file system (a tmpfs, mounted for each test:
root only, as in CI; skipped with the reason otherwise), with real ``media-assistant``
processes and the loopback OpenAI-compatible server, whose request log shows whether an answer
was asked for twice."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from media_assistant.core.disk.full import DiskGuard, is_disk_full
from media_assistant.core.disk.reserve import DiskReserve, Spill
from media_assistant.core.model.events import DiskSpaceChanged, EventBus
from media_assistant.core.model.provider import GenerationResult
from media_assistant.core.model.records import Claim
from media_assistant.core.model.states import ModelKind
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator
from tests.faults.conftest import no_traceback

EXIT_DISK_FULL = 6


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MB tmpfs of our own."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs the suite as root)")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


class Filler:
    """Fills the disk and keeps it full: space that comes free (a log truncated, a file
    deleted) is taken again at once, as a runaway log or a download would (``hold``). With
    ``hold=False`` it fills once and stops, as ``dd`` would."""

    def __init__(self, folder: Path, *, hold: bool = True) -> None:
        self.path = folder / "filler"
        self.hold = hold
        self.full = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._fill, daemon=True)
        self._thread.start()
        assert self.full.wait(30)

    def _fill(self) -> None:
        with open(self.path, "wb", buffering=0) as file:
            while not self._stop.is_set():
                try:
                    file.write(b"\0" * 4096)
                except OSError:
                    self.full.set()
                    if not self.hold:
                        return
                    time.sleep(0.02)

    def free(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.path.unlink(missing_ok=True)


@pytest.fixture
def api() -> Iterator[ApiSimulator]:
    sim = ApiSimulator(
        ApiSimConfig(latency_s=(8, 20), time_scale=0.1, seed=3, answer_chars=(3000, 6000))
    )
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


def setup(folder: Path, api: ApiSimulator, tasks: int) -> tuple[Path, Path]:
    data = folder / "data"
    data.mkdir()
    (data / "config.toml").write_text(
        f"""
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "{api.base_url}"
api_key_env = "SIM_KEY"
models = ["api-model"]
concurrency = 3
""",
        encoding="utf-8",
    )
    batch = folder.parent / "batch.csv"
    batch.write_text(
        "task_id,prompt,model\n"
        + "".join(f"d{i},Question {i} [task:d{i}],api-model\n" for i in range(tasks)),
        encoding="utf-8",
    )
    return data, batch


def media_assistant(data: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args]


ENV = {**os.environ, "SIM_KEY": "sim-key"}


def db_rows(data: Path) -> list[dict[str, object]]:
    con = sqlite3.connect(data / "media-assistant.db")
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("SELECT * FROM tasks")]
    finally:
        con.close()


def wait_for_successes(data: Path, n: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline and proc.poll() is None
        try:
            if sum(r["state"] == "success" for r in db_rows(data)) >= n:
                return
        except sqlite3.Error:
            pass
        time.sleep(0.1)


class Said:
    """What a process writes, read as it comes (its pipes never fill): stderr line by line,
    for a test to wait on; stdout kept for the end."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self.out: list[str] = []
        self._proc = proc
        assert proc.stdout is not None and proc.stderr is not None
        self._threads = [
            threading.Thread(target=self._read, args=(proc.stderr, self.lines), daemon=True),
            threading.Thread(target=self._read, args=(proc.stdout, self.out), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line)

    def wait_for(self, text: str, proc: subprocess.Popen[str], timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(self.lines)
            time.sleep(0.05)

    def end(self, timeout: float) -> tuple[str, str]:
        """Wait for the process; (stdout, stderr)."""
        self._proc.wait(timeout)
        for thread in self._threads:
            thread.join(10)
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()
        return "".join(self.out), "".join(self.lines)


def asked_twice(api: ApiSimulator) -> list[str]:
    markers = Counter(r.get("task_marker") for r in api.stats()["requests"])
    return [m or "?" for m, count in markers.items() if count > 1]


def left_behind(data: Path) -> list[str]:
    """Files a run must not leave: the reserve, the scheduler's lock and owner, empty files."""
    return sorted(
        p.name
        for p in data.iterdir()
        if p.is_file()
        and (
            p.name in ("disk-reserve", "scheduler.lock", "scheduler.owner")
            or (p.stat().st_size == 0 and not p.name.endswith(("-wal", "-shm")))
        )
    )


def test_a_disk_that_fills_mid_run_loses_nothing_and_asks_nothing_twice(
    small_disk: Path, api: ApiSimulator
) -> None:
    """Before: ``run`` spun (116 worker restarts and 6,628 log lines in 4 minutes), the answers
    already received were dropped and asked for again, and nothing said why. Now the lanes stop
    claiming and say so once, the answers received are kept in memory and written when space
    returns, and the run finishes: every task succeeded, each answer asked for exactly once."""
    data, batch = setup(small_disk, api, 24)
    run = subprocess.Popen(
        media_assistant(data, "run", str(batch)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    said = Said(run)
    try:
        wait_for_successes(data, 3, run)
        filler = Filler(small_disk)  # the disk fills up while three answers are on their way
        started = {str(r["task_id"]) for r in db_rows(data) if r["state"] != "pending"}
        said.wait_for("disk full:", run)  # the run noticed, and said so
        while api.stats()["total"]["in_flight"]:  # the answers on their way have arrived
            assert run.poll() is None  # waiting, not failing
            time.sleep(0.05)
        # No task started since the disk filled: every request the API saw is of a task that
        # had started before, and no row has left "pending" since.
        asked = {str(r.get("task_marker")) for r in api.stats()["requests"]}
        assert asked <= started, asked - started
        assert {str(r["task_id"]) for r in db_rows(data) if r["state"] != "pending"} == started
        assert run.poll() is None
        filler.free()
        out, err = said.end(timeout=180)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 0, out + err
    assert "Traceback" not in out + err
    assert "disk full:" in err and f"free on {data}" in err
    assert "disk space is back" in err
    assert len((out + err).splitlines()) < 80  # said once, not once per second
    rows = db_rows(data)
    assert {r["state"] for r in rows} == {"success"} and len(rows) == 24
    assert all(r["attempt"] == 1 and r["lost_count"] == 0 for r in rows)
    assert api.stats()["total"]["served"] == 24
    assert asked_twice(api) == []
    assert left_behind(data) == []


def test_a_disk_that_stays_full_ends_the_run_with_exit_6_and_loses_nothing(
    small_disk: Path, api: ApiSimulator
) -> None:
    """Before: the run never ended, and Ctrl-C left the rows ``running`` (each cost an attempt
    at the next start). Now, after ``--disk-wait`` seconds, it writes what it received, puts
    the rest back in the queue (no attempt used up), says why in one line and exits 6; once
    there is space, the next run finishes the batch without asking for any answer twice."""
    data, batch = setup(small_disk, api, 24)
    run = subprocess.Popen(
        media_assistant(data, "run", str(batch), "--disk-wait", "6"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        wait_for_successes(data, 3, run)
        filler = Filler(small_disk, hold=False)  # as `dd` would: full, and left so
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == EXIT_DISK_FULL, out + err
    assert "Traceback" not in out + err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: disk full: ") and f"free on {data}" in last
    assert "waited 6 s for space" in last
    rows = db_rows(data)
    assert "running" not in {r["state"] for r in rows}
    assert all(r["lost_count"] == 0 for r in rows)
    assert all(r["attempt"] <= 1 for r in rows)  # nothing used up an attempt
    assert left_behind(data) == []
    served = api.stats()["total"]["served"]
    succeeded = sum(r["state"] == "success" for r in rows)
    assert served == succeeded  # every answer received was written

    filler.free()
    again = subprocess.run(
        media_assistant(data, "run"),
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
        timeout=180,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert {r["state"] for r in db_rows(data)} == {"success"}
    assert asked_twice(api) == []
    assert left_behind(data) == []


def test_answers_held_when_another_process_takes_every_freed_byte_survive_the_exit(
    small_disk: Path, api: ApiSimulator
) -> None:
    """The worst case: the disk stays full and whatever is freed is taken again at once (a
    runaway log), so even the room of the reserve goes to the other process. Before, the
    answers received meanwhile were lost and the rows left ``running`` cost an attempt each.
    Now they are written *into* the reserve, in place, before it is given up; the run exits 6
    saying so, and the next run (with space) writes them: none is asked for twice."""
    data, batch = setup(small_disk, api, 12)
    run = subprocess.Popen(
        media_assistant(data, "run", str(batch), "--disk-wait", "6"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        wait_for_successes(data, 2, run)
        filler = Filler(small_disk)  # and it keeps the disk full
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == EXIT_DISK_FULL, out + err
    assert "Traceback" not in out + err
    assert err.strip().splitlines()[-1].startswith("error: disk full: ")
    served_before = api.stats()["total"]["served"]
    filler.free()
    again = subprocess.run(
        media_assistant(data, "run"), capture_output=True, text=True, env=ENV, check=False
    )
    assert again.returncode == 0, again.stdout + again.stderr
    rows = db_rows(data)
    assert {r["state"] for r in rows} == {"success"} and len(rows) == 12
    assert all(r["lost_count"] == 0 and r["attempt"] == 1 for r in rows)
    assert asked_twice(api) == []
    assert api.stats()["total"]["served"] == 12
    assert served_before >= 2
    assert left_behind(data) == []


def test_submit_export_and_run_on_a_full_disk_print_one_line(
    small_disk: Path, api: ApiSimulator, tmp_path: Path
) -> None:
    """Before: a traceback (``sqlite3.OperationalError: database or disk is full``) and exit
    4, and a 0-byte ``scheduler.owner`` left in the data dir. Now one line naming the folder
    and its free space, exit 6, nothing half-written and nothing left behind."""
    data, batch = setup(small_disk, api, 40)
    first = subprocess.run(
        media_assistant(data, "submit", str(batch)),
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    assert first.returncode == 0, first.stderr
    filler = Filler(small_disk, hold=False)
    other = tmp_path / "more.csv"
    other.write_text(
        "prompt,model\n" + "".join(f"More {i} {'x' * 2000},api-model\n" for i in range(200)),
        encoding="utf-8",
    )
    for args in (
        ["submit", str(other)],
        ["export", "-o", str(small_disk / "out.csv")],
        ["run", str(other)],
    ):
        result = subprocess.run(
            media_assistant(data, *args),
            capture_output=True,
            text=True,
            env=ENV,
            check=False,
            timeout=120,
        )
        assert result.returncode == EXIT_DISK_FULL, (args, result.stdout, result.stderr)
        assert no_traceback(result), args
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and "disk full:" in errors[0], (args, result.stderr)
        assert left_behind(data) == [], args
    assert not list(small_disk.glob("*out.csv*"))  # no half-written export
    filler.free()  # (SQLite cannot even open the store to be looked at without some room)
    assert len(db_rows(data)) == 40  # nothing imported


def test_the_window_shows_a_banner_while_the_disk_is_full(tmp_path: Path, qtbot: Any) -> None:
    """The window says it too (before: nothing in the window; the log filled with errors):
    a banner follows the scheduler's disk guard — the free space and the folder while the
    disk is full, the answers kept — and goes when space returns."""
    from media_assistant.gui.window.disk_banner import DiskFullBanner

    bus = EventBus()
    seen: list[DiskSpaceChanged] = []
    bus.subscribe(lambda e: seen.append(e) if isinstance(e, DiskSpaceChanged) else None)
    banner = DiskFullBanner(bus)
    qtbot.addWidget(banner)
    assert banner.isHidden()
    guard = DiskGuard(tmp_path, bus=bus)
    full = sqlite3.OperationalError("database or disk is full")
    assert guard.absorb(full) and guard.full
    assert not guard.absorb(sqlite3.OperationalError("no such table: x"))
    assert not banner.isHidden()
    assert "Disk full" in banner.text.text() and str(tmp_path) in banner.text.text()
    guard.hold()
    assert "1 answer" in banner.text.text()
    assert guard.absorb(full)  # noted, but said once
    assert [e.full for e in seen] == [True, True] and [e.held for e in seen] == [0, 1]
    guard.full = False  # what the guard's watcher does once space is back (tested below)
    guard.unhold(written=True)
    assert banner.isHidden()


async def test_the_guard_sees_space_return_and_lays_its_reserve_again(tmp_path: Path) -> None:
    """Full, then space (here: a disk with room): the watcher finds it within a poll, writes
    the reserve the last writes of a shutdown would use, and everybody waiting goes on."""
    reserve = DiskReserve(tmp_path)
    guard = DiskGuard(tmp_path, reserve=reserve, poll_s=0.05)
    assert is_disk_full(OSError(28, "No space left on device"))
    guard.note_full()
    assert guard.full and not reserve.present
    assert await guard.wait_for_space(timeout=5)
    assert not guard.full and reserve.present
    assert reserve.path.stat().st_size == reserve.size
    guard.close()
    assert not reserve.path.exists()


def test_a_spill_is_written_in_place_and_read_back(tmp_path: Path) -> None:
    """The reserve holds what a shutdown on a full disk could not write, in the bytes it
    already owns (no free space needed), and gives up the rest; what does not fit is left out
    (asked for again) rather than failing the whole spill."""
    reserve = DiskReserve(tmp_path, size=8192)
    assert reserve.ensure() and reserve.present
    inode = reserve.path.stat().st_ino
    claim = Claim(
        "s1", 1, 4, 3, "api-model", ModelKind.API, "api-1", "owner-x", "", None, 1.0, 9.0, 0.5
    )
    small = GenerationResult("答案 " * 50, reasoning="r", usage={"total_tokens": 9})
    big = GenerationResult("x" * 9000)
    kept = reserve.spill(Spill("owner-x", [(claim, small), (claim, big)]))
    assert kept == 1
    assert reserve.path.stat().st_ino == inode  # the same file, written in place
    assert reserve.path.stat().st_size < 8192 and not reserve.present  # the rest given up
    spill = reserve.read_spill()
    assert spill is not None and spill.owner_id == "owner-x"
    assert spill.answers == [(claim, small)]
    assert reserve.ensure() and reserve.read_spill() is None  # laid down anew: spill gone
