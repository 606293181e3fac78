"""Schema versioning: a fresh database is stamped; a newer one is refused, not damaged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from media_assistant.core.store import migrations, schema
from media_assistant.core.store.db import open_engine, sqlite_url


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


def test_a_version_1_database_is_migrated_to_the_current_schema(tmp_path: Path) -> None:
    """Build the current schema, take it back to what version 1 had, migrate, compare."""
    fresh = tmp_path / "fresh.db"
    open_engine(sqlite_url(fresh)).dispose()
    old = tmp_path / "old.db"
    open_engine(sqlite_url(old)).dispose()
    con = sqlite3.connect(old)
    con.execute("DROP INDEX ix_tasks_state_not_before")  # added by version 2
    con.execute("DROP INDEX ix_tasks_seq")  # added by version 3
    con.execute("ALTER TABLE task_events DROP COLUMN origin")  # added by version 4
    con.execute("DROP TABLE account_pacing")  # added by version 5
    con.execute("ALTER TABLE tasks DROP COLUMN result_plain")  # added by version 5
    undo_step_6(con)
    con.execute("ALTER TABLE tasks DROP COLUMN inputs_json")  # added by version 7
    undo_steps_9_and_10(con)
    undo_step_11(con)
    con.execute("DROP TABLE counters")  # added by version 16
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.execute(
        "INSERT INTO tasks (task_id, seq, batch_id, model, model_kind, prompt, priority, "
        "state, attempt, max_attempts, keep_attempt, lease, lost_count, created_at, "
        "cancel_requested, progress_chars) VALUES ('kept', 1, 'b', 'm', 'api', 'p', 0, "
        "'pending', 0, 3, 0, 0, 0, 1.0, 0, 0)"
    )
    con.commit()
    con.close()
    engine = open_engine(sqlite_url(old))
    engine.dispose()

    assert schema_of(old) == schema_of(fresh)
    c = sqlite3.connect(old)
    assert c.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (
        str(schema.SCHEMA_VERSION),
    )
    assert c.execute("SELECT task_id FROM tasks").fetchall() == [("kept",)]  # data kept
    c.close()


def undo_step_12(con: sqlite3.Connection) -> None:
    """What version 12 added: the rollups, their triggers, three indexes (the triggers name
    columns of earlier steps: they go first)."""
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        con.execute(f"DROP TRIGGER {name}")
    con.execute("DROP TABLE IF EXISTS task_slots")
    con.execute("DROP TABLE IF EXISTS attempt_slots")
    for index in ("ix_tasks_finished", "ix_tasks_unanswered_end", "ix_tasks_created"):
        con.execute(f"DROP INDEX IF EXISTS {index}")


def undo_step_6(con: sqlite3.Connection) -> None:
    """What version 6 added: two tables, five columns."""
    undo_step_12(con)
    con.execute("DROP TABLE batches")
    con.execute("DROP TABLE queue_pauses")
    for table, column in (
        ("task_events", "code"),
        ("task_events", "params_json"),
        ("tasks", "attempt_base"),
        ("tasks", "operator_retries"),
        ("accounts", "problem_code"),
    ):
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")


def undo_steps_9_and_10(con: sqlite3.Connection) -> None:
    """What versions 9 (account versions) and 10 (team mode) added (and 14's indexes, on
    columns 10 added)."""
    undo_step_12(con)
    for index in ("ix_sessions_workstation", "ix_batches_start_at", "ix_batches_active_from"):
        con.execute(f"DROP INDEX IF EXISTS {index}")  # added by version 14
    con.execute("DROP TABLE api_slots")
    con.execute("DROP TABLE api_rates")
    for table, column in (
        ("accounts", "version"),
        ("accounts", "rebuild_generation"),
        ("accounts", "workstation"),
        ("accounts", "limit_concurrency"),
        ("accounts", "limit_rpm"),
        ("accounts", "limit_tpm"),
        ("tasks", "workstation"),
        ("sessions", "workstation"),
        ("sessions", "app_version"),
    ):
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")


def test_a_pending_rebuild_request_is_carried_over_as_a_generation(tmp_path: Path) -> None:
    """Before version 9 a rebuild request was the problem value 'rebuild'."""
    path = tmp_path / "v8.db"
    open_engine(sqlite_url(path)).dispose()
    con = sqlite3.connect(path)
    undo_steps_9_and_10(con)
    con.execute(
        "INSERT INTO accounts (account_id, kind, enabled, problem, updated_at) VALUES "
        "('api-1', 'api', 1, 'rebuild', 0), ('api-2', 'api', 1, 'needs_attention', 0)"
    )
    con.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    open_engine(sqlite_url(path)).dispose()
    c = sqlite3.connect(path)
    rows = dict(
        (r[0], r[1:])
        for r in c.execute("SELECT account_id, problem, rebuild_generation, version FROM accounts")
    )
    c.close()
    assert rows == {"api-1": ("", 1, 0), "api-2": ("needs_attention", 0, 0)}


def schema_of(path: Path) -> set[tuple[str, str]]:
    """Indexes and triggers by their SQL; tables by their columns (an added column sits at the
    end of a migrated table and of its CREATE text, so the texts differ where the columns do
    not)."""
    c = sqlite3.connect(path)
    try:
        out = set(
            c.execute(
                "SELECT name, sql FROM sqlite_master "
                "WHERE type IN ('index', 'trigger') AND sql IS NOT NULL"
            )
        )
        for (table,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            columns = sorted(
                tuple(map(str, r[1:])) for r in c.execute(f"PRAGMA table_info({table})")
            )
            out.add((table, repr(columns)))
        return out
    finally:
        c.close()


def test_a_version_4_database_gets_the_pacing_table_and_plain_text_column(tmp_path: Path) -> None:
    """Step 5 alone, on a database at version 4: it needs nothing step 4 does."""
    fresh = tmp_path / "fresh.db"
    open_engine(sqlite_url(fresh)).dispose()
    old = tmp_path / "v4.db"
    open_engine(sqlite_url(old)).dispose()
    con = sqlite3.connect(old)
    con.execute("DROP TABLE account_pacing")
    con.execute("ALTER TABLE tasks DROP COLUMN result_plain")
    undo_step_6(con)
    con.execute("ALTER TABLE tasks DROP COLUMN inputs_json")  # version 7
    undo_steps_9_and_10(con)
    con.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    open_engine(sqlite_url(old)).dispose()
    assert schema_of(old) == schema_of(fresh)
    # Run twice over (a crash between the two parts): nothing is added twice.
    engine = open_engine(sqlite_url(old))
    with engine.begin() as conn:
        migrations.STEPS[5](conn)
    engine.dispose()
    assert schema_of(old) == schema_of(fresh)


def test_a_development_version_2_database_gets_the_final_step_2_index(tmp_path: Path) -> None:
    """A build stamped 2 with a partial index under another name; step 3 puts it right."""
    path = tmp_path / "dev.db"
    open_engine(sqlite_url(path)).dispose()
    con = sqlite3.connect(path)
    con.execute("DROP INDEX ix_tasks_state_not_before")
    con.execute("DROP INDEX ix_tasks_seq")
    con.execute("ALTER TABLE task_events DROP COLUMN origin")  # version 4
    con.execute("ALTER TABLE tasks DROP COLUMN inputs_json")  # version 7
    con.execute(
        "CREATE INDEX ix_tasks_pending_not_before ON tasks (not_before) WHERE state = 'pending'"
    )
    con.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    open_engine(sqlite_url(path)).dispose()
    con = sqlite3.connect(path)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    con.close()
    assert "ix_tasks_pending_not_before" not in names
    assert {"ix_tasks_state_not_before", "ix_tasks_seq"} <= names


def test_a_version_5_database_gets_the_operator_day_and_the_task_inputs(tmp_path: Path) -> None:
    """Steps 6 and 7, on a version-5 database with a task and an event in it; run twice over
    (a crash between their parts) they add nothing twice."""
    fresh = tmp_path / "fresh.db"
    open_engine(sqlite_url(fresh)).dispose()
    old = tmp_path / "v5.db"
    open_engine(sqlite_url(old)).dispose()
    con = sqlite3.connect(old)
    undo_step_6(con)
    con.execute("ALTER TABLE tasks DROP COLUMN inputs_json")
    con.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    con.execute(
        "INSERT INTO tasks (task_id, seq, batch_id, model, model_kind, prompt, priority, "
        "state, attempt, max_attempts, keep_attempt, lease, lost_count, created_at, "
        "cancel_requested, progress_chars) VALUES ('kept', 1, 'b', 'm', 'api', 'p', 0, "
        "'failed', 2, 3, 0, 0, 0, 1.0, 0, 0)"
    )
    con.execute(
        "INSERT INTO task_events (task_id, at, kind, message) VALUES ('kept', 1.0, 'state', 'x')"
    )
    con.commit()
    con.close()
    with pytest.raises(migrations.SchemaTooOld):  # a read-only command cannot read it as it is
        open_engine(sqlite_url(old), read_only=True)
    open_engine(sqlite_url(old)).dispose()
    assert schema_of(old) == schema_of(fresh)
    engine = open_engine(sqlite_url(old))
    with engine.begin() as conn:
        migrations.STEPS[6](conn)
        migrations.STEPS[7](conn)
        migrations.STEPS[8](conn)
    engine.dispose()
    assert schema_of(old) == schema_of(fresh)
    c = sqlite3.connect(old)
    assert c.execute("SELECT attempt_base, operator_retries FROM tasks").fetchall() == [(0, 0)]
    assert c.execute("SELECT code, params_json FROM task_events").fetchall() == [(None, None)]
    c.close()


def test_a_version_7_store_made_while_step_6_was_a_placeholder_is_repaired(tmp_path: Path) -> None:
    """For a few commits step 6 was a placeholder (the export columns landed first): a store
    migrated then is at version 7 without step 6's tables and columns. Step 8 adds them."""
    fresh = tmp_path / "fresh.db"
    open_engine(sqlite_url(fresh)).dispose()
    old = tmp_path / "v7.db"
    open_engine(sqlite_url(old)).dispose()
    con = sqlite3.connect(old)
    undo_step_6(con)
    con.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    open_engine(sqlite_url(old)).dispose()
    assert schema_of(old) == schema_of(fresh)


def undo_step_11(con: sqlite3.Connection) -> None:
    """What version 11 added: the API gate keyed by the key's identity (issue 27 item 5)."""
    con.execute("DROP TABLE api_key_limits")
    con.execute("ALTER TABLE accounts DROP COLUMN key_id")


def test_a_version_10_database_gets_the_key_identity(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.db"
    open_engine(sqlite_url(fresh)).dispose()
    old = tmp_path / "old.db"
    open_engine(sqlite_url(old)).dispose()
    con = sqlite3.connect(old)
    undo_step_12(con)
    undo_step_11(con)
    con.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")
    con.execute(
        "INSERT INTO accounts (account_id, kind, enabled, problem, updated_at) "
        "VALUES ('a', 'api', 1, '', 1.0)"
    )
    con.commit()
    con.close()
    open_engine(sqlite_url(old)).dispose()
    assert schema_of(old) == schema_of(fresh)
    c = sqlite3.connect(old)
    assert c.execute("SELECT account_id, key_id FROM accounts").fetchall() == [("a", None)]
    c.close()


def test_a_version_17_store_gets_the_active_nodes_index_and_a_claim_uses_it(
    tmp_path: Path,
) -> None:
    """Step 18: the fair share's active nodes indexed (partial, ``active = 1``), and SQLite's
    planner takes it for the terms the claim's choice of batch has (B14b measures the claim)."""
    fresh = tmp_path / "fresh.db"
    open_engine(sqlite_url(fresh)).dispose()
    old = tmp_path / "v17.db"
    open_engine(sqlite_url(old)).dispose()
    con = sqlite3.connect(old)
    con.execute("DROP INDEX ix_fair_nodes_active")
    con.execute("UPDATE meta SET value = '17' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    engine = open_engine(sqlite_url(old), read_only=True)  # readable as it is: an index only
    engine.dispose()
    open_engine(sqlite_url(old)).dispose()
    assert schema_of(old) == schema_of(fresh)
    con = sqlite3.connect(old)  # the active nodes as the claim's choice asks for them
    plan = con.execute(
        "EXPLAIN QUERY PLAN SELECT node FROM fair_nodes "
        "WHERE fair_nodes.level = 2 AND fair_nodes.active = 1"
    ).fetchall()
    con.close()
    assert any("ix_fair_nodes_active" in str(step) for step in plan), plan
