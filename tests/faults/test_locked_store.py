"""Issue 9, item 5: a database held by another process — read-only commands never write, a busy
store is waited for with a message, bounded, then exit 7."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from media_assistant.core.disk.store_file import check_store
from media_assistant.core.model.errors import StoreLocked
from tests.faults.conftest import (
    Holder,
    cli,
    cli_args,
    no_traceback,
    rows,
    write_config,
    write_csv,
)

EXIT_LOCKED = 7
BUSY = "database busy (held by another process); waiting up to"

SECOND_ACCOUNT = """
[[accounts]]
id = "web-2"
kind = "web"
site = "fake"
models = ["web-model"]
"""


def store_with_tasks(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_config(data)
    batch = write_csv(
        tmp_path / "b.csv",
        [{"task_id": f"t{i}", "prompt": f"Prompt {i}", "model": "web-model"} for i in range(4)],
    )
    assert cli(data, "submit", str(batch)).returncode == 0
    return data


def test_read_only_commands_work_while_another_process_writes(
    tmp_path: Path, hold: list[Holder]
) -> None:
    """Before: ``status`` wrote the account list on every open, so while another process held
    the write lock it waited 10 s and died with a traceback; so did ``export``."""
    data = store_with_tasks(tmp_path)
    db = data / "media-assistant.db"
    holder = Holder(db, 3600)  # held until the fixture ends it: through every command below
    hold.append(holder)
    for args in (
        ["status"],
        ["status", "--json"],
        ["export", "-o", str(tmp_path / "out.jsonl")],
        ["accounts", "list"],
        ["sites", "list"],
    ):
        result = cli(data, "--db-wait", "20", *args)
        # A write would have waited for the lock (the 'database busy' notice, then exit 7 after
        # --db-wait, or SQLite's busy timeout): succeeding without the notice while the lock
        # is held is proof enough, whatever the machine's speed.
        assert result.returncode == 0, (args, result.stdout, result.stderr)
        assert BUSY not in result.stderr and no_traceback(result), args
    assert holder.proc.poll() is None  # still holding: every command ran under the lock
    assert len((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()) == 4


def test_read_only_commands_write_nothing(tmp_path: Path) -> None:
    """``status`` used to insert every configured account into the store (and migrations could
    write): a read is now only a read, even for an account the store has not seen."""
    data = store_with_tasks(tmp_path)
    db = data / "media-assistant.db"
    (data / "config.toml").write_text(
        (data / "config.toml").read_text(encoding="utf-8") + SECOND_ACCOUNT, encoding="utf-8"
    )
    before = rows(db, "SELECT account_id FROM accounts")
    export = ["export", "-o", str(tmp_path / "x.csv")]
    for args in (["status", "--json"], ["accounts", "list", "--json"], export):
        result = cli(data, *args)
        assert result.returncode == 0, result.stderr
    assert rows(db, "SELECT account_id FROM accounts") == before == [{"account_id": "web-1"}]
    listed = json.loads(cli(data, "accounts", "list", "--json").stdout)
    assert {a["id"]: a["state"] for a in listed} == {"web-1": "enabled", "web-2": "enabled"}
    # A command that writes does register it.
    assert cli(data, "accounts", "disable", "web-2").returncode == 0
    assert len(rows(db, "SELECT account_id FROM accounts")) == 2


def test_a_write_waits_with_a_message_then_exits_7_and_changes_nothing(
    tmp_path: Path, hold: list[Holder]
) -> None:
    """Before: ``submit`` sat silent for SQLite's 10 s busy timeout, then printed a traceback
    and exit 1 ("some tasks failed") — or a night's ``run`` died the same way. The lock is
    held until the test ends it (a 30 s hold ran out under load before the third command's
    turn: its exit 0 was the lock's end, not the command's failure)."""
    data = store_with_tasks(tmp_path)
    db = data / "media-assistant.db"
    hold.append(Holder(db, None))
    batch = write_csv(tmp_path / "new.csv", [{"prompt": "new one", "model": "web-model"}])
    for args in (["submit", str(batch)], ["run", str(batch)], ["cancel", "t0"]):
        started = time.monotonic()
        result = cli(data, "--db-wait", "3", *args)
        took = time.monotonic() - started
        assert result.returncode == EXIT_LOCKED, (args, result.stdout, result.stderr)
        assert f"{BUSY} 3 s" in result.stderr and str(db) in result.stderr
        assert "stayed locked" in result.stderr.strip().splitlines()[-1]
        assert no_traceback(result)
        assert took >= 3, took  # it waited its 3 s; that it then gave up is the exit 7 above
    hold[0].stop()
    assert [r["prompt"] for r in rows(db)] == [f"Prompt {i}" for i in range(4)]
    assert {r["state"] for r in rows(db)} == {"pending"}


def test_readers_wait_for_an_exclusive_lock_and_go_on_when_it_ends(
    tmp_path: Path, hold: list[Holder]
) -> None:
    """A process holding the store in exclusive locking mode shuts readers out too: ``status``
    says it waits, and answers as soon as the lock ends (the test ends it once ``status`` has
    said so)."""
    data = store_with_tasks(tmp_path)
    holder = Holder(data / "media-assistant.db", None, exclusive_mode=True)
    hold.append(holder)
    status = subprocess.Popen(
        cli_args(data, "--db-wait", "60", "status", "--json"),
        env={**os.environ, "PYTHONWARNINGS": "default"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert status.stderr is not None
    said = status.stderr.readline()  # blocks until status says it waits (or ends)
    assert f"{BUSY} 60 s" in said, said
    holder.release()
    out, err = status.communicate(timeout=60)
    assert status.returncode == 0, said + err
    assert json.loads(out)["lanes"]["web"]["pending"] == 4


def test_readers_give_up_after_the_bound_with_exit_7(tmp_path: Path, hold: list[Holder]) -> None:
    """An exclusive lock held until the test ends it: ``status`` and ``export`` stop after
    ``--db-wait`` with one clear line and exit 7, not a traceback after an unknown time (an
    exit while the lock is still held is the giving up)."""
    data = store_with_tasks(tmp_path)
    hold.append(Holder(data / "media-assistant.db", None, exclusive_mode=True))
    for args in (["status"], ["export", "-o", str(tmp_path / "o.csv")]):
        result = cli(data, "--db-wait", "2", *args)
        assert result.returncode == EXIT_LOCKED, (args, result.stdout, result.stderr)
        assert no_traceback(result)
        lines = result.stderr.strip().splitlines()
        assert lines[0].startswith(BUSY) and "stayed locked" in lines[-1], lines
    assert not (tmp_path / "o.csv").exists()


def test_a_zero_wait_gives_up_at_once(tmp_path: Path, hold: list[Holder]) -> None:
    """``--db-wait 0``: one look, then exit 7 (it must not spin)."""
    data = store_with_tasks(tmp_path)
    db = data / "media-assistant.db"
    hold.append(Holder(db, None, exclusive_mode=True))
    heard: list[str] = []
    with pytest.raises(StoreLocked, match="stayed locked"):
        check_store(db, wait_s=0, notify=heard.append)
    # One look: a second one comes only after saying it waits (and a sleep), never said here.
    assert heard == []


def _stamp(db: Path, version: int) -> None:
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    con.commit()
    con.close()


def _version(db: Path) -> int:
    return int(rows(db, "SELECT value FROM meta WHERE key = 'schema_version'")[0]["value"])


def test_a_read_only_open_migrates_only_what_it_could_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Migrations wrote on every open of an older store, ``status`` included. Now a read-only
    open leaves a store it can read as it is; only one older than ``OLDEST_READABLE`` (a step
    that changed the tables) is upgraded, once, by whichever command comes first."""
    from media_assistant.core.disk.store_file import open_store
    from media_assistant.core.store import migrations, schema

    db = tmp_path / "media-assistant.db"
    open_store(db).dispose()
    _stamp(db, schema.SCHEMA_VERSION - 1)
    # As if the newest step had only added an index: the older store is still readable.
    monkeypatch.setattr(migrations, "OLDEST_READABLE", schema.SCHEMA_VERSION - 1)
    open_store(db, read_only=True).dispose()
    assert _version(db) == schema.SCHEMA_VERSION - 1
    monkeypatch.setattr(migrations, "OLDEST_READABLE", schema.SCHEMA_VERSION)
    open_store(db, read_only=True, wait_s=5).dispose()
    assert _version(db) == schema.SCHEMA_VERSION
