"""The team database's password through real ``media-assistant`` processes: a role that must
give it (``ma_pw``, scram-sha-256 on the test server), the OS keyring (a file backend here,
tests/support/file_keyring.py), ``store set-password``, libpq's PGPASSWORD — and the password
in no output and no support bundle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import psycopg
import pytest

from tests.integration.test_cli_team import STORE_URL_ENV, workstation
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, PostgresServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pw_url(pg_server: PostgresServer) -> str:
    """A fresh database owned by the role that must give its password."""
    pg_server.ensure_password_role()
    name = f"pw_{os.urandom(6).hex()}"
    with psycopg.connect(pg_server.admin_url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" OWNER {PASSWORD_ROLE}')
    return f"postgresql://{PASSWORD_ROLE}@127.0.0.1:{pg_server.port}/{name}"


def ma(
    data: Path,
    keyring: Path,
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    base = {
        k: v for k, v in os.environ.items() if k not in (STORE_URL_ENV, "PGPASSWORD", "PGPASSFILE")
    }
    base.update(
        PYTHONPATH=str(ROOT),
        PYTHON_KEYRING_BACKEND="tests.support.file_keyring.FileKeyring",
        MA_TEST_KEYRING_FILE=str(keyring),
        PGPASSFILE=str(keyring.parent / "no-pgpass"),  # never the real ~/.pgpass
        **(env or {}),
    )
    return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        timeout=120,
        input=stdin,
        env=base,
    )


def test_set_password_keeps_it_in_the_keyring_and_the_role_logs_in_with_it(
    tmp_path: Path, pw_url: str
) -> None:
    keyring = tmp_path / "keyring.json"
    data = workstation(
        tmp_path / "pc-a", "pc-a", ("web-1",), extra=f'\n[store]\nurl = "{pw_url}"\n'
    )
    started = time.monotonic()
    missing = ma(data, keyring, "store", "info")
    assert missing.returncode == 2, missing.stderr  # refused at once, not waited out
    assert time.monotonic() - started < 25  # --db-wait is 30 s
    assert "no password supplied" in missing.stderr and "store set-password" in missing.stderr

    wrong = ma(data, keyring, "store", "set-password", stdin="not-the-password\n")
    assert wrong.returncode == 2, wrong.stderr
    assert "refused that password" in wrong.stderr and "nothing stored" in wrong.stderr
    assert "not-the-password" not in wrong.stdout + wrong.stderr
    assert not keyring.exists()

    stored = ma(data, keyring, "store", "set-password", stdin=PASSWORD + "\n")
    assert stored.returncode == 0, stored.stderr
    assert "the server accepted it (PostgreSQL" in stored.stdout
    entry = f"store:{PASSWORD_ROLE}@127.0.0.1:{pw_url.rsplit(':', 1)[1]}"
    assert json.loads(keyring.read_text()) == {f"media-assistant/{entry}": PASSWORD}
    assert PASSWORD not in stored.stdout + stored.stderr

    info = ma(data, keyring, "store", "info", "--json")
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout)["url"] == pw_url and json.loads(info.stdout)["backend"]
    ok = ma(data, keyring, "submit", str(_batch(tmp_path)))
    assert ok.returncode == 0 and "2 tasks added" in ok.stdout, ok.stderr

    bundle = tmp_path / "bundle.zip"
    made = ma(data, keyring, "support-bundle", "-o", str(bundle))
    assert made.returncode == 0, made.stderr
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        texts = {n: archive.read(n).decode("utf-8", "replace") for n in names}
    assert "store.json" in names
    store = json.loads(texts["store.json"])
    assert store["url"] == pw_url and store["workstations"][0]["workstation"] == "pc-a"
    assert "workstations" in json.loads(texts["status.json"])
    assert not [n for n, t in texts.items() if PASSWORD in t]


def test_libpqs_own_password_ways_work_too(tmp_path: Path, pw_url: str) -> None:
    """PGPASSWORD (as ~/.pgpass and service files would): no keyring entry needed; a wrong one is
    a refusal named at once."""
    keyring = tmp_path / "keyring.json"
    data = workstation(tmp_path / "pc-a", "pc-a", ("web-1",))
    flag = ("--store-url", pw_url)
    good = ma(data, keyring, *flag, "store", "info", "--json", env={"PGPASSWORD": PASSWORD})
    assert good.returncode == 0, good.stderr
    bad = ma(data, keyring, *flag, "status", env={"PGPASSWORD": "nope-not-it"})
    assert bad.returncode == 2 and "password authentication failed" in bad.stderr
    assert "nope-not-it" not in bad.stderr
    nothing = ma(data, keyring, "store", "set-password", stdin="x\n")
    assert nothing.returncode == 2 and "no team database is configured" in nothing.stderr


def _batch(tmp_path: Path) -> Path:
    path = tmp_path / "b.csv"
    path.write_text("task_id,prompt,model\nk1,one,web-model\nk2,two,web-model\n", "utf-8")
    return path
