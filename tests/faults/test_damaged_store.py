"""Issue 9, item 4: a damaged task store — exit 5, the file named and untouched, backups that are
made every day and can be restored."""

from __future__ import annotations

import datetime as dt
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from media_assistant.core.disk.backup_files import backup_name, list_backups
from tests.faults.conftest import cli, digest, mode, no_traceback, rows, write_config, write_csv
from tests.support.local_day import clear_of_midnight

EXIT_DAMAGED, EXIT_BUSY = 5, 3


def store_with_tasks(tmp_path: Path, n: int = 6, *, lo: float = 0.1, hi: float = 0.3) -> Path:
    data = tmp_path / "data"
    write_config(data, lo=lo, hi=hi)
    batch = write_csv(
        tmp_path / "batch.csv",
        [{"task_id": f"t{i}", "prompt": f"Prompt {i}", "model": "web-model"} for i in range(n)],
    )
    result = cli(data, "submit", str(batch))
    assert result.returncode == 0, result.stderr
    return data


def truncate(db: Path) -> None:
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)


@pytest.mark.parametrize("damage", ["truncated", "not a database"])
def test_a_damaged_store_exits_5_names_the_file_and_is_never_overwritten(
    tmp_path: Path, damage: str
) -> None:
    """Before: a 112-line traceback and exit 1 ("some tasks failed"), for every command; a
    script could not tell a broken store from a failed task, and nothing said what to do."""
    data = store_with_tasks(tmp_path)
    db = data / "media-assistant.db"
    if damage == "truncated":
        truncate(db)
    else:
        db.write_bytes(b"these are not the tasks you are looking for\n" * 100)
    before = digest(db)
    batch = write_csv(tmp_path / "more.csv", [{"prompt": "x", "model": "web-model"}])
    commands = [["status", "--json"], ["submit", str(batch)], ["run", str(batch)]]
    if damage == "truncated":  # every kind of command; the other case needs fewer
        commands += [
            ["export", "-o", str(tmp_path / "out.csv")],
            ["accounts", "list"],
            ["cancel", "--batch", "b"],
            ["backup"],
        ]
    for args in commands:
        result = cli(data, *args)
        assert result.returncode == EXIT_DAMAGED, (args, result.stdout, result.stderr)
        assert no_traceback(result), args
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and str(db) in lines[0], args
        assert "There is no backup" in lines[0]
        assert digest(db) == before, args  # the damaged file is never written to
    assert not (tmp_path / "out.csv").exists()
    assert not (data / "backups").exists() or not list_backups(data / "backups")


def test_the_message_names_the_latest_backup_and_restore_brings_it_back(tmp_path: Path) -> None:
    """Before: no backups at all; a truncated store meant every task of the night lost."""
    data = store_with_tasks(tmp_path)
    db = data / "media-assistant.db"
    made = cli(data, "backup")
    assert made.returncode == 0, made.stderr
    backup = next((data / "backups").glob("media-assistant-*.db"))
    assert str(backup) in made.stdout and "6 tasks" in made.stdout
    assert mode(backup) == 0o600 and mode(data / "backups") == 0o700
    truncate(db)
    damaged = digest(db)
    status = cli(data, "status")
    assert status.returncode == EXIT_DAMAGED
    assert f"media-assistant restore {backup}" in status.stderr
    restored = cli(data, "restore", str(backup))
    assert restored.returncode == 0, restored.stderr
    assert "restored 6 tasks" in restored.stdout
    kept = [p for p in data.iterdir() if ".before-restore-" in p.name]
    assert len(kept) == 1 and digest(kept[0]) == damaged  # kept aside, not deleted
    assert mode(db) == 0o600 and mode(kept[0]) == 0o600
    assert [r["task_id"] for r in rows(db)] == [f"t{i}" for i in range(6)]
    assert cli(data, "status").returncode == 0


def test_restore_checks_the_backup_first(tmp_path: Path) -> None:
    """A broken "backup" must not replace a store that still works."""
    data = store_with_tasks(tmp_path)
    db = data / "media-assistant.db"
    before = digest(db)
    bogus = tmp_path / "bogus.db"
    bogus.write_bytes(b"not sqlite" * 1000)
    half = tmp_path / "half.db"
    half.write_bytes(db.read_bytes()[:8192])
    for candidate in (bogus, half, tmp_path / "missing.db"):
        result = cli(data, "restore", str(candidate))
        assert result.returncode == 2 and str(candidate) in result.stderr, result.stderr
        assert no_traceback(result)
    assert digest(db) == before
    assert not [p for p in data.iterdir() if ".before-restore-" in p.name]


def test_restore_is_refused_while_a_scheduler_runs(tmp_path: Path) -> None:
    """Swapping the file under a running scheduler would lose what it writes next (or corrupt
    the store): ``restore`` exits 3 like a second scheduler, and changes nothing."""
    data = store_with_tasks(tmp_path, lo=30, hi=40)
    assert cli(data, "backup").returncode == 0
    backup = next((data / "backups").glob("media-assistant-*.db"))
    runner = subprocess.Popen(
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "run"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not (data / "scheduler.owner").exists():
            assert time.monotonic() < deadline and runner.poll() is None
            time.sleep(0.05)
        before = digest(data / "media-assistant.db")
        refused = cli(data, "restore", str(backup))
        assert refused.returncode == EXIT_BUSY, refused.stdout + refused.stderr
        assert "another scheduler is running" in refused.stderr
        assert not [p for p in data.iterdir() if ".before-restore-" in p.name]
        assert (data / "media-assistant.db").exists() and before
    finally:
        runner.terminate()
        runner.wait(timeout=60)


def _seed_old_backups(data: Path, days: int) -> list[Path]:
    folder = data / "backups"
    folder.mkdir(mode=0o700, exist_ok=True)
    made = []
    for n in range(1, days + 1):
        when = dt.datetime.now() - dt.timedelta(days=n)
        path = folder / backup_name(when)
        sqlite3.connect(path).close()
        made.append(path)
    return made


def test_run_backs_up_once_a_day_and_keeps_seven(tmp_path: Path) -> None:
    """Before: no automatic backup. Now the first ``run`` of a day checks the store and copies
    it; later runs that day do not; the oldest copies beyond seven go (only ours). "That day"
    is the local day in the CLI's own processes: the test starts clear of midnight."""
    clear_of_midnight(300)
    data = store_with_tasks(tmp_path, 2)
    old = _seed_old_backups(data, 9)
    foreign = data / "backups" / "my-own-copy.db"
    foreign.write_bytes(b"operator's file")
    first = cli(data, "run")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "backing it up (once a day)" in first.stdout
    kept = list_backups(data / "backups")
    assert len(kept) == 7
    assert kept[0].made_at.date() == dt.date.today()
    assert {b.path for b in kept[1:]} == set(old[:6])  # the six most recent of the old ones
    assert foreign.exists()
    copy = rows(kept[0].path)
    assert len(copy) == 2 and mode(kept[0].path) == 0o600
    second = cli(data, "run")
    assert second.returncode == 0
    assert "backing it up" not in second.stdout
    assert len(list_backups(data / "backups")) == 7


def test_a_store_failing_its_daily_check_stops_run_before_any_import(tmp_path: Path) -> None:
    """A store whose pages are damaged inside (it opens, ``status`` works) must not get a night's
    work, and must not push a good backup out of the seven kept."""
    data = store_with_tasks(tmp_path, 3)
    db = data / "media-assistant.db"
    good = _seed_old_backups(data, 7)
    con = sqlite3.connect(db)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'ix_tasks_seq'").fetchone()
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    with db.open("r+b") as f:  # scribble over one index page: the file keeps its size
        f.seek((root[0] - 1) * page_size + 8)
        f.write(b"\xff" * 64)
    assert cli(data, "status").returncode == 0  # the cheap check at open does not see it
    batch = write_csv(tmp_path / "new.csv", [{"prompt": "new", "model": "web-model"}])
    result = cli(data, "run", str(batch))
    assert result.returncode == EXIT_DAMAGED, result.stdout + result.stderr
    assert "daily check" in result.stderr and str(db) in result.stderr
    assert no_traceback(result)
    assert {b.path for b in list_backups(data / "backups")} == set(good)
    assert [r["prompt"] for r in rows(db, "SELECT prompt FROM tasks")] == [
        "Prompt 0",
        "Prompt 1",
        "Prompt 2",
    ]
