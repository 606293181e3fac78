"""Schema versioning: a fresh database is stamped; a newer one is refused, not damaged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from media_assistant.core import migrations, schema
from media_assistant.core.db import open_engine, sqlite_url


def test_fresh_database_is_created_at_the_current_version(tmp_path: Path) -> None:
    engine = open_engine(sqlite_url(tmp_path / "a.db"))
    with engine.connect() as conn:
        assert migrations.current_version(conn) == schema.SCHEMA_VERSION
    # Opening again is a no-op.
    assert migrations.upgrade(engine) == schema.SCHEMA_VERSION
    engine.dispose()
    con = sqlite3.connect(tmp_path / "a.db")
    assert con.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "ux_tasks_web_account_running" in indexes


def test_a_database_from_a_newer_app_is_refused(tmp_path: Path) -> None:
    engine = open_engine(sqlite_url(tmp_path / "b.db"))
    engine.dispose()
    con = sqlite3.connect(tmp_path / "b.db")
    con.execute(
        "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(schema.SCHEMA_VERSION + 1),)
    )
    con.commit()
    con.close()
    with pytest.raises(migrations.SchemaTooNew, match="update Media Assistant"):
        open_engine(sqlite_url(tmp_path / "b.db"))


def test_every_version_after_the_first_has_a_step() -> None:
    assert sorted(migrations.STEPS) == list(range(2, schema.SCHEMA_VERSION + 1))
