"""An export from the window in team mode, the database's password in the OS keyring (issue 27
item 7): the export's child process connects with it — it got the URL alone and failed. A role
that must give its password (scram-sha-256), not trust authentication; the keyring is the tests'
double; nothing of the password reaches the child's command line or environment."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import psycopg
import pytest

from media_assistant.core.files.paths import Paths
from media_assistant.core.model.jobs import JobControl
from media_assistant.gui.bridge.controller import AppController
from media_assistant.providers.secrets import STORE_PASSWORD, store_password_key
from media_assistant.services import Services
from tests.conftest import make_tasks
from tests.gui.team_env import team_config
from tests.support.keyrings import MemoryKeyring, use_keyring
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, PostgresServer


@pytest.fixture
def pw_url(pg_server: PostgresServer) -> str:
    pg_server.ensure_password_role()
    name = f"pw_{os.urandom(6).hex()}"
    with psycopg.connect(pg_server.admin_url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" OWNER {PASSWORD_ROLE}')
    return f"postgresql://{PASSWORD_ROLE}@127.0.0.1:{pg_server.port}/{name}"


async def test_an_export_from_the_window_uses_the_keyring_s_password(
    tmp_path: Path, pw_url: str, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))  # libpq finds nothing itself
    data = team_config(tmp_path / "pc-1", pw_url, "pc-1", ["web-1"])
    keyring = MemoryKeyring()
    keyring.set_password(STORE_PASSWORD.service, store_password_key(pw_url), PASSWORD)
    with use_keyring(keyring):
        services = Services.open(Paths.resolve(data))
    try:
        services.store.submit(make_tasks(3))
        services.bind_loop()
        controller = AppController(services, services.scheduler())
        target = tmp_path / "out.csv"
        count = controller.export_work(target, "csv")(JobControl(lambda done, total: None))
        assert count == 3
        with target.open(encoding="utf-8-sig") as f:
            assert len(list(csv.DictReader(f))) == 3
        await controller.close()
    finally:
        services.close()
