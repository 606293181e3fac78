"""Schema versions, applied in order at every open.

A small versioned migrator rather than Alembic: the app migrates the database on the operator's
machine at start-up, inside a frozen (PyInstaller) build, with no command-line step and no
script directory to ship. The schema is a handful of tables; each step below is a plain function
of a connection, written with SQLAlchemy constructs so it runs on PostgreSQL too. A fresh
database is created at the current version in one go; an older one runs the steps after its
version. ``tests/unit/test_migrations.py`` checks that both paths give the same schema.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, Engine, inspect, select, text
from sqlmodel import SQLModel

from media_assistant.core.store import rollups, schema, task_seq
from media_assistant.core.store.backends.postgres import CHANGES_CHANNEL, advisory_xact_lock

MIGRATIONS_LOCK = "media-assistant:migrations"


def serialize_migrations(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        advisory_xact_lock(conn, MIGRATIONS_LOCK)


def _create_index(conn: Connection, name: str) -> None:
    table = schema.TaskRow.__table__  # type: ignore[attr-defined]
    index = next(i for i in table.indexes if i.name == name)
    index.create(conn, checkfirst=True)


def _v2_pending_not_before_index(conn: Connection) -> None:
    """An index for "when is the next delayed retry due?" (asked by idle workers)."""
    _create_index(conn, "ix_tasks_state_not_before")


def _v3_seq_index(conn: Connection) -> None:
    """An index on submission order, for the task table's pages of history. Also settles step
    2 for databases stamped 2 by a development build whose step 2 made a partial index
    (``ix_tasks_pending_not_before``) that SQLite's planner passed over."""
    conn.execute(text("DROP INDEX IF EXISTS ix_tasks_pending_not_before"))
    _create_index(conn, "ix_tasks_state_not_before")
    _create_index(conn, "ix_tasks_seq")


def _v4_event_origin(conn: Connection) -> None:
    """Event rows say which process wrote them, so a window following the log (``changes_since``)
    can skip the changes it already heard about in-process."""
    if "origin" not in {c["name"] for c in inspect(conn).get_columns("task_events")}:
        conn.execute(text("ALTER TABLE task_events ADD COLUMN origin VARCHAR"))


def _v5_pacing_and_plain_text(conn: Connection) -> None:
    """Web field round (issue 11): the ``account_pacing`` table (pacing state that survives a
    restart) and ``tasks.result_plain`` (a web answer's plain text beside its Markdown).
    Idempotent: each part is skipped when already there."""
    table = schema.AccountPacingRow.__table__  # type: ignore[attr-defined]
    table.create(conn, checkfirst=True)
    columns = {c["name"] for c in inspect(conn).get_columns("tasks")}
    if "result_plain" not in columns:
        conn.execute(text("ALTER TABLE tasks ADD COLUMN result_plain TEXT"))


def _v6_operator_day(conn: Connection) -> None:
    """The operator's day (issue 12): the ``batches`` and ``queue_pauses`` tables (batch
    metadata and schedules; pauses of the queue, a lane, a batch or an account), event kinds
    with parameters (``task_events.code``, ``params_json``), the round of an operator retry
    (``tasks.attempt_base``, ``operator_retries``) and an account problem's kind
    (``accounts.problem_code``). Idempotent: each part is skipped when already there; needs
    nothing from any other step."""
    schema.BatchRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    schema.QueuePauseRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    added = {
        "task_events": (("code", "VARCHAR"), ("params_json", "TEXT")),
        "tasks": (
            ("attempt_base", "INTEGER NOT NULL DEFAULT 0"),
            ("operator_retries", "INTEGER NOT NULL DEFAULT 0"),
        ),
        "accounts": (("problem_code", "VARCHAR"),),
    }
    for table, columns in added.items():
        have = {c["name"] for c in inspect(conn).get_columns(table)}
        for name, sql_type in columns:
            if name not in have:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {name} {sql_type}"))


def _v7_task_inputs(conn: Connection) -> None:
    """Issue 12 item 4: ``tasks.inputs_json``, a batch file's source row per task, so an export
    carries the inputs beside the results. Needs nothing step 6 does; idempotent."""
    if "inputs_json" not in {c["name"] for c in inspect(conn).get_columns("tasks")}:
        conn.execute(text("ALTER TABLE tasks ADD COLUMN inputs_json TEXT"))


def _v8_operator_day_again(conn: Connection) -> None:
    """Step 6 once more. For a few commits step 6 was a placeholder (the export half of issue 12
    landed before the operator's-day half), so a store migrated then stands at version 7
    without step 6's tables and columns. Step 6 skips what is there: a no-op elsewhere."""
    _v6_operator_day(conn)


def _v9_account_versions(conn: Connection) -> None:
    """``accounts.version`` (raised by every change of the row: the newest read of an account
    wins) and ``accounts.rebuild_generation`` (a request for a fresh provider, by number: it was
    the magic problem value ``rebuild``, which the first scheduler to rebuild cleared for every
    other). A pending request is carried over as generation 1. Idempotent."""
    have = {c["name"] for c in inspect(conn).get_columns("accounts")}
    for name in ("version", "rebuild_generation"):
        if name not in have:
            conn.execute(text(f"ALTER TABLE accounts ADD COLUMN {name} INTEGER NOT NULL DEFAULT 0"))
    conn.execute(
        text(
            "UPDATE accounts SET problem = '', problem_detail = NULL, "
            "rebuild_generation = rebuild_generation + 1 WHERE problem = 'rebuild'"
        )
    )


def _v10_team(conn: Connection) -> None:
    """Team mode (issue 19): where a task ran (``tasks.workstation``), which workstation a web
    account belongs to and an API account's team-wide limits (``accounts.workstation``,
    ``limit_concurrency``, ``limit_rpm``, ``limit_tpm``), which workstation ran a session and its
    version (``sessions.workstation``, ``app_version``), the API slot and rate rows, and on
    PostgreSQL the triggers that wake other workstations' windows. Idempotent."""
    added = {
        "tasks": (("workstation", "VARCHAR"),),
        "accounts": (
            ("workstation", "VARCHAR"),
            ("limit_concurrency", "INTEGER"),
            ("limit_rpm", "INTEGER"),
            ("limit_tpm", "INTEGER"),
        ),
        "sessions": (("workstation", "VARCHAR"), ("app_version", "VARCHAR")),
    }
    for table, columns in added.items():
        have = {c["name"] for c in inspect(conn).get_columns(table)}
        for name, sql_type in columns:
            if name not in have:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {name} {sql_type}"))
    schema.ApiSlotRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    schema.ApiRateRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    schema.NoticeSentRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    _postgres_extras(conn)


def _v11_key_identity(conn: Connection) -> None:
    """Issue 27 item 5: the team-wide API gate keyed by the key's identity, not the account's
    name — ``accounts.key_id`` (a keyed hash of the key and base URL) and ``api_key_limits``
    (each workstation's limits for a key). Existing slot and rate rows stay keyed by account id
    until a start finds the account's key. Idempotent."""
    have = {c["name"] for c in inspect(conn).get_columns("accounts")}
    if "key_id" not in have:
        conn.execute(text("ALTER TABLE accounts ADD COLUMN key_id VARCHAR"))
    schema.ApiKeyLimitRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]


def _v12_rollups(conn: Connection) -> None:
    """The lanes' figures (issue 31): the ``task_slots`` and ``attempt_slots`` rollups with the
    triggers that keep them (core/store/rollups.py), backfilled from every task and event line
    already there, and the ``tasks`` indexes on ``finished_at`` and ``created_at`` the figures
    read through. Self-contained and idempotent (the backfill rebuilds both rollups)."""
    schema.TaskSlotRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    schema.AttemptSlotRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    for name in ("ix_tasks_finished", "ix_tasks_unanswered_end", "ix_tasks_created"):
        _create_index(conn, name)
    rollups.install(conn)
    rollups.backfill(conn)


def _v13_fair_share(conn: Connection) -> None:
    """Fair share (issue 30): the ``fair_nodes`` table (classes, tenants and batches with their
    virtual times: core/store/fair_store.py), ``batches.tenant`` and ``batches.share``, and the
    index of a batch's pending head (``ix_tasks_pending_batch``). Batches with work when the
    store is upgraded get their nodes (every one level: nobody is owed). Idempotent; needs
    nothing from any other step."""
    schema.FairNodeRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]
    have = {c["name"] for c in inspect(conn).get_columns("batches")}
    for name, sql_type in (("tenant", "VARCHAR"), ("share", "FLOAT")):
        if name not in have:
            conn.execute(text(f"ALTER TABLE batches ADD COLUMN {name} {sql_type}"))
    _create_index(conn, "ix_tasks_pending_batch")
    from media_assistant.core.store import fair_store  # noqa: PLC0415 (the store imports this)

    fair_store.adopt_open_batches(conn)


def _v14_idle_indexes(conn: Connection) -> None:
    """Issue 28 item 3: indexes for the held batches (``batches.start_at``, ``active_from``:
    asked by every claim and the queue watch) and for a workstation's sessions. Idempotent."""
    wanted = ("ix_batches_start_at", "ix_batches_active_from", "ix_sessions_workstation")
    for row in (schema.BatchRow, schema.SessionRow):
        for index in row.__table__.indexes:  # type: ignore[union-attr]
            if index.name in wanted:
                index.create(conn, checkfirst=True)


def _v15_event_xids(conn: Connection) -> None:
    """Issue 28 item 7, PostgreSQL only: each task event records the transaction that wrote it
    (``task_events.xid``, indexed), so a window's follower reports every event committed since
    its last look's snapshot, however long its transaction ran (core/store/event_feed.py).
    Idempotent."""
    _event_xids(conn)


def _v16_task_seq(conn: Connection) -> None:
    """Issue 28 item 5: the submission-number counter (the ``counters`` table, its row
    ``task_seq`` seeded with the highest ``seq``): submissions reserve their numbers from it
    instead of reading ``max(seq) + 1`` under a team-wide lock (core/store/task_seq.py). No
    column changes and nothing a read needs (:data:`OLDEST_READABLE` stays); an older build,
    which would still write ``max(seq) + 1`` and could number a task twice beside a reserved
    range, refuses the store as newer. Idempotent."""
    task_seq.seed(conn)


def _v17_fair_charges(conn: Connection) -> None:
    """Issue 30 item 3: the ``fair_charges`` table, each workstation's part of the fair share's
    counters (core/store/fair_store.py), so that claims of different workstations never wait
    for each other on a ``fair_nodes`` row. Starts empty: the ``fair_nodes`` values are the
    totals so far. Every read of the shares sums it (``status``'s shares, the batches list), so
    :data:`OLDEST_READABLE` is 17: an older store is upgraded by the first command that opens
    it; an older build refuses the store as newer. Idempotent."""
    schema.FairChargeRow.__table__.create(conn, checkfirst=True)  # type: ignore[attr-defined]


def _event_xids(conn: Connection) -> None:
    if conn.dialect.name != "postgresql":
        return
    conn.execute(
        text(
            "ALTER TABLE task_events ADD COLUMN IF NOT EXISTS xid xid8 "
            "NOT NULL DEFAULT pg_current_xact_id()"
        )
    )
    conn.execute(text("CREATE INDEX IF NOT EXISTS ix_task_events_xid ON task_events (xid)"))


def _v18_fair_active_index(conn: Connection) -> None:
    """The fair share's active nodes indexed (``ix_fair_nodes_active``, partial: ``WHERE
    active``): a ``fair_nodes`` row stays for every batch ever run, and every claim's choice
    read them all (B14b: 0.50× the claims/s on PostgreSQL, 0.26× on SQLite with 50,000 finished
    batches' nodes; with it 0.92× and 1.03×). An index only: :data:`OLDEST_READABLE` stays.
    Idempotent."""
    for index in schema.FairNodeRow.__table__.indexes:  # type: ignore[attr-defined]
        if index.name == "ix_fair_nodes_active":
            index.create(conn, checkfirst=True)


# Tables whose changes other workstations' windows follow: a statement that changes one notifies
# the channel (delivered at commit; several in one transaction arrive as one).
_NOTIFYING = {
    "task_events": "INSERT",
    "accounts": "INSERT OR UPDATE OR DELETE",
    "queue_pauses": "INSERT OR UPDATE OR DELETE",
    "batches": "INSERT OR UPDATE OR DELETE",
}


def _postgres_extras(conn: Connection) -> None:
    """PostgreSQL only: the NOTIFY triggers (core/store/backends/postgres.py ChangeListener)."""
    if conn.dialect.name != "postgresql":
        return
    conn.execute(
        text(
            "CREATE OR REPLACE FUNCTION media_assistant_notify() RETURNS trigger AS $$ "
            f"BEGIN PERFORM pg_notify('{CHANGES_CHANNEL}', TG_TABLE_NAME); RETURN NULL; END "
            "$$ LANGUAGE plpgsql"
        )
    )
    for table, events in _NOTIFYING.items():
        name = f"media_assistant_notify_{table}"
        conn.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
        conn.execute(
            text(
                f"CREATE TRIGGER {name} AFTER {events} ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION media_assistant_notify()"
            )
        )


# version -> step that brings a database at version-1 to version. Version 1 is the first schema.
STEPS: dict[int, Callable[[Connection], None]] = {
    2: _v2_pending_not_before_index,
    3: _v3_seq_index,
    4: _v4_event_origin,
    5: _v5_pacing_and_plain_text,
    6: _v6_operator_day,
    7: _v7_task_inputs,
    8: _v8_operator_day_again,
    9: _v9_account_versions,
    10: _v10_team,
    11: _v11_key_identity,
    12: _v12_rollups,
    13: _v13_fair_share,
    14: _v14_idle_indexes,
    15: _v15_event_xids,
    16: _v16_task_seq,
    17: _v17_fair_charges,
    18: _v18_fair_active_index,
}


# The oldest schema version this code can read without migrating it: read-only commands (status,
# export, lists) do not write, so they read an older store as it is. Versions 2 and 3 only added
# indexes. A step that adds or renames a column must raise this to its own version (an older
# store is then upgraded by the first command that opens it, read-only or not).
# 4 added task_events.origin, 5 tasks.result_plain, 6 tasks.attempt_base / operator_retries and
# task_events.code / params_json, 7 tasks.inputs_json, 8 (step 6 again), 9 accounts.version and
# rebuild_generation, 10 tasks.workstation and the team columns, 11 accounts.key_id: all read
# by every query; 12 the rollups the lanes' figures (``stats``, ``metrics``) read; 13
# batches.tenant / share (read with every batch row); 17 the fair share's per-workstation
# charges (``fair_charges``: every read of the shares sums them).
OLDEST_READABLE = 17


class SchemaTooNew(RuntimeError):
    pass


class SchemaTooOld(RuntimeError):
    """A read-only command met a store older than it can read; a scheduler start upgrades it."""


def current_version(conn: Connection) -> int | None:
    if not inspect(conn).has_table("meta"):
        return None
    meta = schema.MetaRow.__table__  # type: ignore[attr-defined]
    row = conn.execute(select(meta.c.value).where(meta.c.key == "schema_version")).first()
    return int(row[0]) if row else None


def _stamp(conn: Connection, version: int) -> None:
    table = schema.MetaRow.__table__  # type: ignore[attr-defined]
    conn.execute(table.delete().where(table.c.key == "schema_version"))
    conn.execute(table.insert().values(key="schema_version", value=str(version)))


def check_readable(engine: Engine) -> int:
    """The store's version, if this code can read it as it is (nothing is written)."""
    with engine.connect() as conn, conn.begin():
        version = current_version(conn)
    if version is None:
        raise SchemaTooOld("the database has no Media Assistant tables")
    if version > schema.SCHEMA_VERSION:
        raise SchemaTooNew(
            f"the database has schema version {version}, newer than this app's "
            f"{schema.SCHEMA_VERSION}: update Media Assistant"
        )
    if version < OLDEST_READABLE:
        raise SchemaTooOld(
            f"the database has schema version {version}; 'media-assistant run' (or the app) "
            "upgrades it"
        )
    return version


def upgrade(engine: Engine) -> int:
    # Look first without the write lock: an up-to-date store (every open but the first after
    # an update) then costs no write transaction, and so never waits for another writer.
    with engine.connect() as conn, conn.begin():
        if current_version(conn) == schema.SCHEMA_VERSION:
            return schema.SCHEMA_VERSION
    with engine.connect().execution_options(write=True) as conn, conn.begin():
        # Several workstations of a team may start an updated app the same morning: one
        # migrates, the others wait here, then find the schema current. (SQLite's write lock
        # does the same for processes on one file.) PostgreSQL runs the DDL in the transaction.
        serialize_migrations(conn)
        version = current_version(conn)
        if version is None:
            SQLModel.metadata.create_all(conn)
            _postgres_extras(conn)
            rollups.install(conn)
            _event_xids(conn)
            task_seq.seed(conn)
            _stamp(conn, schema.SCHEMA_VERSION)
            return schema.SCHEMA_VERSION
        if version > schema.SCHEMA_VERSION:
            raise SchemaTooNew(
                f"the database has schema version {version}, newer than this app's "
                f"{schema.SCHEMA_VERSION}: update Media Assistant"
            )
        for step in range(version + 1, schema.SCHEMA_VERSION + 1):
            STEPS[step](conn)
            _stamp(conn, step)
        return schema.SCHEMA_VERSION
