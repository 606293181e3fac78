"""The same migrations on PostgreSQL: a fresh team database is created at the current version
with its NOTIFY triggers; several workstations starting at once migrate it once (an advisory
lock); a database from a newer app is refused with both versions named."""

from __future__ import annotations

import threading

import psycopg
import pytest
from sqlalchemy import text

from media_assistant.core.store import migrations, schema
from media_assistant.core.store.db import open_engine


def test_a_fresh_team_database_is_created_with_its_triggers(pg_url: str) -> None:
    engine = open_engine(pg_url)
    with engine.connect() as conn:
        assert migrations.current_version(conn) == schema.SCHEMA_VERSION
        triggers = set(
            conn.execute(
                text("SELECT tgname FROM pg_trigger WHERE tgname LIKE 'media_assistant_notify_%'")
            ).scalars()
        )
        indexes = set(conn.execute(text("SELECT indexname FROM pg_indexes")).scalars())
    assert triggers == {f"media_assistant_notify_{t}" for t in migrations._NOTIFYING}
    assert "ux_tasks_web_account_running" in indexes
    assert migrations.upgrade(engine) == schema.SCHEMA_VERSION  # again: a no-op
    engine.dispose()


def test_workstations_starting_together_migrate_once(pg_url: str) -> None:
    """Eight processes' worth of engines open one empty database at the same instant."""
    start = threading.Barrier(8)
    errors: list[BaseException] = []
    versions: list[int] = []

    def open_one() -> None:
        try:
            start.wait()
            engine = open_engine(pg_url)
            with engine.connect() as conn:
                versions.append(migrations.current_version(conn) or 0)
            engine.dispose()
        except BaseException as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert versions == [schema.SCHEMA_VERSION] * 8
    with psycopg.connect(pg_url) as conn:
        stamps = conn.execute("SELECT count(*) FROM meta WHERE key = 'schema_version'").fetchone()
    assert stamps == (1,)


def test_a_team_database_from_a_newer_app_is_refused(pg_url: str) -> None:
    open_engine(pg_url).dispose()
    with psycopg.connect(pg_url) as conn:
        conn.execute(
            "UPDATE meta SET value = %s WHERE key = 'schema_version'",
            (str(schema.SCHEMA_VERSION + 1),),
        )
    with pytest.raises(migrations.SchemaTooNew) as refused:
        open_engine(pg_url)
    assert str(schema.SCHEMA_VERSION + 1) in str(refused.value)
    assert str(schema.SCHEMA_VERSION) in str(refused.value)
