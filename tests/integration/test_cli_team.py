"""Team mode's headless commands through real ``media-assistant`` processes on a real
PostgreSQL (tests/support/postgres.py): a workstation's queue moved into a team database and a
snapshot taken back out (``store copy``), ``store info``, ``status``, exports, ``backup`` and
``restore`` there, and web accounts handed from one workstation to another
(``accounts release``). The password and the keyring: tests/integration/test_cli_team_login.py."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from media_assistant import __version__
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store, rollups
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.schema import SCHEMA_VERSION
from tests.conftest import make_tasks
from tests.integration.test_cli import write_batch
from tests.support.postgres import PostgresServer, free_port

# Every test here starts several real processes one after another (2-7 s each on a loaded
# machine): more than the suite's default 120 s per test.
pytestmark = pytest.mark.timeout(300)

STORE_URL_ENV = "MEDIA_ASSISTANT_STORE_URL"
INFO_KEYS = {
    "backend",
    "url",
    "server_version",
    "schema_version",
    "workstations",
    "connections",
    "api_key_disagreements",
}
WORKSTATION_KEYS = {"workstation", "online", "last_seen_s", "version", "web_accounts", "running"}


def workstation(
    data: Path, name: str, web: tuple[str, ...], *, latency: float = 0.2, extra: str = ""
) -> Path:
    """A data dir whose config names the workstation, its web accounts (simulated chat) and a
    switched-off API account."""
    data.mkdir(parents=True, exist_ok=True)
    accounts = "".join(
        f'\n[[accounts]]\nid = "{a}"\nkind = "web"\nsite = "fake"\nmodels = ["web-model"]\n'
        for a in web
    )
    (data / "config.toml").write_text(
        f"[simulation]\nweb_latency_s = [{latency}, {latency * 1.5}]\nseed = 5\n\n"
        f'[team]\nworkstation = "{name}"\n{extra}\n'
        '[[models]]\nname = "web-model"\nkind = "web"\n\n'
        '[[models]]\nname = "api-model"\nkind = "api"\n'
        f"{accounts}\n"
        '[[accounts]]\nid = "api-1"\nkind = "api"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'models = ["api-model"]\napi_key_env = "MA_TEST_KEY"\nenabled = false\n',
        encoding="utf-8",
    )
    return data


def ma(
    data: Path, *args: str, team: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``media-assistant --data-dir DATA ARGS``; ``team``: the team database, given the way a
    workstation's environment gives it ($MEDIA_ASSISTANT_STORE_URL)."""
    env = {k: v for k, v in os.environ.items() if k != STORE_URL_ENV}
    if team is not None:
        env[STORE_URL_ENV] = team
    return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def sqlite_tasks(path: Path) -> dict[str, dict[str, object]]:
    con = sqlite3.connect(path)
    con.row_factory = sqlite3.Row
    try:
        return {r["task_id"]: dict(r) for r in con.execute("SELECT * FROM tasks ORDER BY seq")}
    finally:
        con.close()


def test_a_queue_moves_into_the_team_database_and_another_workstation_runs_it(
    tmp_path: Path, pg_url: str
) -> None:
    pc_a = workstation(tmp_path / "pc-a", "pc-a", ("web-1", "web-2"))
    ok(ma(pc_a, "run", str(write_batch(tmp_path / "done.csv", 4, prefix="d"))))
    ok(ma(pc_a, "submit", str(write_batch(tmp_path / "left.csv", 3, prefix="p"))))
    local = ma(pc_a, "store", "info", "--json")
    info = json.loads(ok(local))
    assert set(info) == INFO_KEYS
    assert info["backend"] == "sqlite" and info["url"] == str(pc_a / "media-assistant.db")
    assert info["server_version"] == sqlite3.sqlite_version
    assert info["schema_version"] == SCHEMA_VERSION

    # Into the team database; a second copy adds nothing.
    out = ok(ma(pc_a, "store", "copy", "--to", pg_url))
    assert f"copied into {pg_url}: 7 tasks" in out
    assert "nothing to copy: the 7 tasks" in ok(ma(pc_a, "store", "copy", "--to", pg_url))

    # Another workstation on the team database runs what was left, on its own web account.
    pc_b = workstation(tmp_path / "pc-b", "pc-b", ("web-3",))
    ok(ma(pc_b, "run", team=pg_url))
    status = json.loads(ok(ma(pc_b, "status", "--json", team=pg_url)))
    assert status["lanes"]["web"]["success"] == 7
    assert status["team_database"] == pg_url
    team = {w["workstation"]: w for w in status["workstations"]}
    assert set(team) == {"pc-a", "pc-b"}
    assert all(set(w) == WORKSTATION_KEYS for w in team.values())
    assert team["pc-a"]["web_accounts"] == ["web-1", "web-2"]
    assert team["pc-a"]["last_seen_s"] is None  # its sessions stayed on its own file
    assert team["pc-b"]["web_accounts"] == ["web-3"] and team["pc-b"]["version"] == __version__
    assert not team["pc-b"]["online"] and team["pc-b"]["last_seen_s"] is not None
    assert "Team: 0 workstations online" in ok(ma(pc_b, "status", team=pg_url))
    info = json.loads(ok(ma(pc_b, "store", "info", "--json", team=pg_url)))
    assert set(info) == INFO_KEYS and info["backend"] == "postgresql" and info["url"] == pg_url
    assert re.match(r"\d+(\.\d+)? ", info["server_version"] + " ")
    assert info["schema_version"] == SCHEMA_VERSION
    assert [w["workstation"] for w in info["workstations"]] == ["pc-a", "pc-b"]
    text = ok(ma(pc_b, "store", "info", team=pg_url))
    assert "store: PostgreSQL" in text and "this workstation: pc-b" in text

    # Exports say where each task ran.
    export = tmp_path / "out.csv"
    ok(ma(pc_b, "export", "-o", str(export), team=pg_url))
    rows = list(csv.DictReader(export.read_text("utf-8-sig").splitlines()))
    assert {r["task_id"]: r["workstation"] for r in rows} == {
        **{f"d{i}": "pc-a" for i in range(4)},
        **{f"p{i}": "pc-b" for i in range(3)},
    }


def team_queue(tmp_path: Path, pg_url: str) -> Path:
    """A team database holding 7 finished tasks of pc-a and pc-b (made in this process: the
    way in through the command line is the test above) and pc-b's data dir."""
    clock = SystemClock()
    engine = open_engine(pg_url)
    try:
        store = Store(engine, clock)
        for ws, prefix, n in (("pc-a", "d", 4), ("pc-b", "p", 3)):
            store.submit(make_tasks(n, kind=ModelKind.WEB, model="web-model", prefix=prefix))
            while claim := store.claim_next(
                kind=ModelKind.WEB,
                account_id=f"web-{ws}",
                models=("web-model",),
                owner_id=ws,
                deadline_s=60,
                workstation=ws,
            ):
                store.finish_success(claim, f"answer to {claim.task_id}")
    finally:
        engine.dispose()
    return workstation(tmp_path / "pc-b", "pc-b", ("web-3",))


def test_a_snapshot_of_the_team_queue_comes_back_out(
    tmp_path: Path, pg_server: PostgresServer, pg_url: str
) -> None:
    pc_b = team_queue(tmp_path, pg_url)
    # Out: a snapshot of the team's queue in a SQLite file, idempotently.
    snap = tmp_path / "snap.db"
    assert "7 tasks" in ok(ma(pc_b, "store", "copy", "--to", str(snap), team=pg_url))
    tasks = sqlite_tasks(snap)
    assert len(tasks) == 7 and {t["state"] for t in tasks.values()} == {"success"}
    assert "nothing to copy" in ok(
        ma(pc_b, "store", "copy", "--to", f"sqlite:///{snap}", team=pg_url)
    )
    # A task changed there since: refused, every such id named, nothing written.
    con = sqlite3.connect(snap)
    rollups.register_sqlite_functions(con)  # the rollups' triggers pack with them
    con.execute("UPDATE tasks SET result_text = 'edited' WHERE task_id IN ('p-001', 'd-002')")
    con.execute("DELETE FROM tasks WHERE task_id = 'd-000'")
    con.commit()
    con.close()
    refused = ma(pc_b, "store", "copy", "--to", str(snap), team=pg_url)
    assert refused.returncode == 9, refused.stderr
    assert "2 task id(s) already exist" in refused.stderr and "d-002, p-001" in refused.stderr
    assert "nothing was copied" in refused.stderr and refused.stderr.count("\n") == 1
    assert "d-000" not in sqlite_tasks(snap)

    # backup of a team database: a checked SQLite snapshot; restore is refused there.
    out = ok(ma(pc_b, "backup", team=pg_url))
    made = Path(out.split(" written: ", 1)[1].split(" (", 1)[0])
    assert made.parent == pc_b / "backups" and len(sqlite_tasks(made)) == 7
    assert made.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in made.parent.iterdir()) == [made.name]  # no -wal, no temp
    refused = ma(pc_b, "restore", str(made), team=pg_url)
    assert refused.returncode == 2 and "store copy --from" in refused.stderr

    # A snapshot goes into another team database with --from.
    other = pg_server.new_database()
    assert "7 tasks" in ok(ma(pc_b, "store", "copy", "--from", str(made), "--to", other))


def test_copying_out_of_a_workstation_whose_scheduler_runs(tmp_path: Path, pg_url: str) -> None:
    """Into a team database it is refused (what it runs would run twice); a snapshot file is
    allowed, its running rows handed back with their attempt kept."""
    pc_a = workstation(tmp_path / "pc-a", "pc-a", ("web-1",), latency=60.0)
    batch = write_batch(tmp_path / "slow.csv", 2, prefix="s")
    run = subprocess.Popen(  # noqa: S603 - our own command
        [sys.executable, "-m", "media_assistant", "--data-dir", str(pc_a), "run", str(batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if k != STORE_URL_ENV},
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            status = json.loads(ok(ma(pc_a, "status", "--json")))
            if status["lanes"]["web"]["running"] == 1 and status["scheduler"]:
                break
            assert time.monotonic() < deadline, "the run never started a task"
            time.sleep(0.3)
        refused = ma(pc_a, "store", "copy", "--to", pg_url)
        assert refused.returncode == 3, refused.stderr
        assert "run again in the team database" in refused.stderr
        out = ok(ma(pc_a, "store", "copy", "--to", str(tmp_path / "snap.db")))
        assert "2 tasks (1 that were running went in as pending" in out
        copied = sqlite_tasks(tmp_path / "snap.db")
        assert [t["state"] for t in copied.values()] == ["pending", "pending"]
        assert copied["s0"]["attempt"] == 1 and copied["s0"]["keep_attempt"] == 1
    finally:
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)


def test_a_web_account_moves_to_another_workstation(tmp_path: Path, pg_url: str) -> None:
    pc_a = workstation(tmp_path / "pc-a", "pc-a", ("web-1",))
    pc_b = workstation(tmp_path / "pc-b", "pc-b", ("web-1",))
    ok(ma(pc_a, "accounts", "enable", "web-1", team=pg_url))  # pc-a declares it first
    ok(ma(pc_b, "accounts", "enable", "web-1", team=pg_url))  # pc-b: it stays pc-a's

    def holders() -> dict[str, list[str]]:
        info = json.loads(ok(ma(pc_b, "store", "info", "--json", team=pg_url)))
        return {w["workstation"]: w["web_accounts"] for w in info["workstations"]}

    assert holders() == {"pc-a": ["web-1"]}
    out = ok(ma(pc_b, "accounts", "release", "web-1", team=pg_url))
    assert "web-1: released (it belonged to pc-a)" in out
    assert "still in this workstation's config (pc-b)" in out
    assert holders() == {}
    ok(ma(pc_b, "accounts", "enable", "web-1", team=pg_url))  # its next start takes it
    assert holders() == {"pc-b": ["web-1"]}

    api = ma(pc_b, "accounts", "release", "api-1", team=pg_url)
    assert api.returncode == 2 and "API account" in api.stderr
    unknown = ma(pc_b, "accounts", "release", "web-9", team=pg_url)
    assert unknown.returncode == 2
    assert "unknown web account 'web-9' (known: web-1)" in unknown.stderr


def test_targets_that_cannot_be_used_are_named_in_one_line(tmp_path: Path) -> None:
    pc_a = workstation(tmp_path / "pc-a", "pc-a", ("web-1",))
    cases = {
        "postgresql://ma:hunter2-secret@db.local/media": (2, "holds a password"),
        # libpq reads a password from the query too (issue 27 item 9): refused the same way
        "postgresql://ma@db.local/media?password=hunter2-secret": (2, "holds a password"),
        "postgresql://ma@db.local/media?sslmode=require&PassWord=hunter2-secret": (
            2,
            "holds a password",
        ),
        "mysql://ma:hunter2-secret@db.local/media": (2, "got mysql://…"),
        str(tmp_path / "no-such-folder" / "x.db"): (2, "does not exist"),
        str(pc_a / "media-assistant.db"): (2, "that is the store being copied"),
        str(tmp_path): (2, "is a folder"),
    }
    for target, (code, words) in cases.items():
        result = ma(pc_a, "store", "copy", "--to", target)
        assert result.returncode == code, (target, result.stderr)
        assert words in result.stderr and "hunter2" not in result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    started = time.monotonic()
    away = f"postgresql://ma@127.0.0.1:{free_port()}/media"
    result = ma(pc_a, "--db-wait", "1", "store", "copy", "--to", away)
    assert result.returncode == 8 and "could not be reached" in result.stderr
    assert time.monotonic() - started < 30


def test_a_lock_held_too_long_by_another_workstation_is_exit_7(tmp_path: Path, pg_url: str) -> None:
    """A submit waits for the short lock every submission's end takes (held here as a stuck
    end would hold it: core/store/submits.py); past the server's lock_timeout it is refused in
    one line, nothing written — it was an internal error (exit 4)."""
    import psycopg

    from media_assistant.core.store.submits import END_LOCK

    pc_a = workstation(tmp_path / "pc-a", "pc-a", ("web-1",))
    ok(ma(pc_a, "status", team=pg_url))  # the schema is made
    with psycopg.connect(pg_url) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (END_LOCK,))
        result = ma(pc_a, "submit", str(write_batch(tmp_path / "b.csv", 2)), team=pg_url)
        holder.rollback()
    assert result.returncode == 7, result.stderr
    assert "held a lock on the team database" in result.stderr
    assert result.stderr.count("\n") == 1 and "nothing was changed" in result.stderr
    status = json.loads(ok(ma(pc_a, "status", "--json", team=pg_url)))
    assert status["lanes"]["web"]["total"] == 0
