"""Ten-minute rollups of the answered tasks and of the attempts, kept by the database itself.

The lanes' figures (core/metrics/) want exact p50/p90/p99 of a day's 100,000 tasks within
200 ms, off the GUI thread. Reading 100,000 task rows into Python was 1 s of CPU on its own
(B12), so the numbers are kept where one read brings them all:

- ``task_slots``: per ten minutes (``floor(finished_at / 600)``), lane, model, account and
  workstation, one text of the slot's *answered* tasks, an entry ``;seq,created,started,
  finished,tokens`` each, the timestamps printed with 17 significant digits (SQLite
  ``printf('%!.17g')``, PostgreSQL ``float8::text`` under ``extra_float_digits = 3``: shortest
  round-trip) — each value reads back bit for bit, so the percentiles are exact, and a window that
  cuts through a slot is cut exactly by the entries' own ``finished``.
- ``attempt_slots``: per ten minutes, lane, account, event code and error kind, the attempts
  that started (``started`` lines) or ended other than with an answer (failures, deferrals,
  cancels, hand-backs), an entry ``;start,end`` each (a ``started`` line: its time twice).

Why exact values and not per-minute histograms or sorted arrays: exact percentiles need every
value, a histogram only its bucket; and a slot's entries need not be sorted — the reader sorts
each lane's 70,000 values once with numpy (milliseconds) and then interpolates exactly as
core/metrics/figures.py's ``percentile`` does. What the store saves is the rows: a day is
~40 groups × 144 slots, concatenated by the database into one text per group (``group_concat`` /
``string_agg``), parsed by ``numpy.fromstring``: no Python object per task. Why ten minutes and
not one: at the benchmark's rate a minute holds about one task per group, so per-minute rows
would be as many as the tasks; ten minutes keeps a day to a few thousand rows and the text an
answer is appended to to a few hundred entries.

Why triggers: every path that ends, re-opens, re-times or copies a task — an answer, a failure, a
cancel, the reaper, an operator's retry or reset, ``store copy`` — changes the ``tasks`` row,
and the trigger follows in that same transaction, on both engines, whatever code wrote it. A
success that stops being one (an operator retry resets it) has its entry taken out again by its
unique ``seq``; an entry is added only for a row that is ``success`` with a ``finished_at``.
Attempts are append-only lines, so their rollup only ever grows. Failed and canceled tasks are
not rolled up: they are the few, counted straight from ``tasks`` through a partial index.

PostgreSQL: the functions run as the caller (a workstation's role needs ``SELECT, INSERT,
UPDATE`` on both tables, README); concurrent writers of one slot queue on its row. The
triggers' code list is fixed when they are created: a new attempt-ending event code needs a
migration that calls :func:`install` again.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

SLOT_S = 600  # seconds per slot; the triggers and the reads agree on it
STARTED = "started"
SUCCESS_END = "succeeded"
FAILURE_ENDS = ("failed", "retry_scheduled", "lost", "quality_rejected")
DEFERRAL_ENDS = ("deferred",)
NEUTRAL_ENDS = (
    "canceled",
    "returned_shutdown",
    "returned_switched_off",
    "returned_stopping",
    "held_site_changed",
)
ROLLED_CODES = (STARTED, *FAILURE_ENDS, *DEFERRAL_ENDS, *NEUTRAL_ENDS)
_CODES_SQL = ", ".join(f"'{c}'" for c in ROLLED_CODES)
_TASK_COLUMNS = (
    "state, finished_at, started_at, created_at, model, model_kind, account_id, workstation, "
    "usage_json, seq"
)
_TRIGGERS = (
    "media_assistant_task_slots_insert",
    "media_assistant_task_slots_update",
    "media_assistant_task_slots_delete",
)


def install(conn: Connection) -> None:
    """(Re)create the triggers (and on PostgreSQL their functions). Idempotent."""
    if conn.dialect.name == "postgresql":
        _install_postgres(conn)
    else:
        _install_sqlite(conn)


def backfill(conn: Connection) -> None:
    """Rebuild both rollups from ``tasks`` and ``task_events`` (migration step 11)."""
    pg = conn.dialect.name == "postgresql"
    if pg:
        conn.execute(text("SET LOCAL extra_float_digits = 3"))
    conn.execute(text("DELETE FROM task_slots"))
    conn.execute(text("DELETE FROM attempt_slots"))
    key = _task_key("", pg)
    agg = "string_agg" if pg else "group_concat"
    conn.execute(
        text(
            "INSERT INTO task_slots (slot, lane, model, account_id, workstation, n, answers) "
            f"SELECT {key}, count(*), {agg}({_answer('', pg)}, '') FROM tasks "
            "WHERE state = 'success' AND finished_at IS NOT NULL "
            "GROUP BY 1, 2, 3, 4, 5"
        )
    )
    start = _start_sql("e", pg)
    kind = "media_assistant_error_kind(e.params_json)" if pg else _sqlite_kind("e.")
    slot = _slot("e.at", pg)
    conn.execute(
        text(
            "INSERT INTO attempt_slots (slot, lane, account_id, code, kind, n, spans) "
            f"SELECT {slot}, coalesce(e.lane, ''), coalesce(e.account_id, ''), e.code, {kind}, "
            f"count(*), {agg}(';' || {_num(start, pg)} || ',' || {_num('e.at', pg)}, '') "
            f"FROM task_events e WHERE e.code IN ({_CODES_SQL}) GROUP BY 1, 2, 3, 4, 5"
        )
    )


def _slot(expr: str, pg: bool) -> str:
    return f"floor({expr} / {SLOT_S})::bigint" if pg else f"CAST({expr} / {SLOT_S} AS INTEGER)"


def _num(expr: str, pg: bool) -> str:
    """A float as text that reads back bit for bit (PostgreSQL: inside a function or
    transaction with ``extra_float_digits = 3``)."""
    return f"({expr})::text" if pg else f"printf('%!.17g', {expr})"


def _task_key(p: str, pg: bool) -> str:
    return (
        f"{_slot(p + 'finished_at', pg)}, {p}model_kind, {p}model, "
        f"coalesce({p}account_id, ''), coalesce({p}workstation, '')"
    )


def _task_match(p: str, pg: bool) -> str:
    return (
        f"slot = {_slot(p + 'finished_at', pg)} AND lane = {p}model_kind AND model = {p}model "
        f"AND account_id = coalesce({p}account_id, '') "
        f"AND workstation = coalesce({p}workstation, '')"
    )


def _answer(p: str, pg: bool) -> str:
    """One answered task's entry (``p``: ``NEW.``, ``OLD.`` or '' for the row itself)."""
    if pg:
        return (
            f"media_assistant_answer({p}seq, {p}created_at, {p}started_at, {p}finished_at, "
            f"{p}usage_json)"
        )
    tokens = (
        f"CASE WHEN json_valid({p}usage_json) THEN coalesce(CAST(json_extract({p}usage_json, "
        "'$.total_tokens') AS INTEGER), 0) ELSE 0 END"
    )
    return (
        f"(';' || {p}seq || ',' || printf('%!.17g', {p}created_at) || ',' || "
        f"printf('%!.17g', coalesce({p}started_at, {p}created_at)) || ',' || "
        f"printf('%!.17g', {p}finished_at) || ',' || ({tokens}))"
    )


def _sqlite_kind(p: str) -> str:
    return (
        f"CASE WHEN json_valid({p}params_json) THEN coalesce(CAST(json_extract({p}params_json, "
        "'$.error_kind') AS TEXT), '') ELSE '' END"
    )


def _start_sql(alias: str, pg: bool) -> str:
    """When the attempt a line ends began: its task's last ``started`` line before it (the
    line's own time if none, or if it is the ``started`` line)."""
    return (
        f"CASE WHEN {alias}.code = '{STARTED}' THEN {alias}.at ELSE coalesce((SELECT max(s.at) "
        f"FROM task_events s WHERE s.task_id = {alias}.task_id AND s.id < {alias}.id "
        f"AND s.code = '{STARTED}'), {alias}.at) END"
    )


def _install_sqlite(conn: Connection) -> None:
    for name in (*_TRIGGERS, "media_assistant_attempt_slots"):
        conn.execute(text(f"DROP TRIGGER IF EXISTS {name}"))
    key, match = _task_key("NEW.", False), _task_match("NEW.", False)
    is_new = "NEW.state = 'success' AND NEW.finished_at IS NOT NULL"
    is_old = "OLD.state = 'success' AND OLD.finished_at IS NOT NULL"
    add = (
        "INSERT INTO task_slots (slot, lane, model, account_id, workstation, n, answers) "
        f"SELECT {key}, 0, '' WHERE {is_new} AND NOT EXISTS "
        f"(SELECT 1 FROM task_slots WHERE {match}); "
        f"UPDATE task_slots SET n = n + 1, answers = answers || {_answer('NEW.', False)} "
        f"WHERE {is_new} AND {match};"
    )
    remove = (
        f"UPDATE task_slots SET n = n - 1, answers = replace(answers, {_answer('OLD.', False)}, "
        f"'') WHERE {is_old} AND {_task_match('OLD.', False)};"
    )
    conn.execute(
        text(f"CREATE TRIGGER {_TRIGGERS[0]} AFTER INSERT ON tasks WHEN {is_new} BEGIN {add} END")
    )
    conn.execute(
        text(
            f"CREATE TRIGGER {_TRIGGERS[1]} AFTER UPDATE OF {_TASK_COLUMNS} ON tasks "
            f"WHEN ({is_old}) OR ({is_new}) BEGIN {remove} {add} END"
        )
    )
    conn.execute(
        text(f"CREATE TRIGGER {_TRIGGERS[2]} AFTER DELETE ON tasks WHEN {is_old} BEGIN {remove} END")
    )
    e_key = (
        f"{_slot('NEW.at', False)}, coalesce(NEW.lane, ''), coalesce(NEW.account_id, ''), "
        f"NEW.code, {_sqlite_kind('NEW.')}"
    )
    e_match = (
        f"slot = {_slot('NEW.at', False)} AND lane = coalesce(NEW.lane, '') "
        f"AND account_id = coalesce(NEW.account_id, '') AND code = NEW.code "
        f"AND kind = {_sqlite_kind('NEW.')}"
    )
    span = f"';' || printf('%!.17g', {_start_sql('NEW', False)}) || ',' || printf('%!.17g', NEW.at)"
    conn.execute(
        text(
            "CREATE TRIGGER media_assistant_attempt_slots AFTER INSERT ON task_events "
            f"WHEN NEW.code IN ({_CODES_SQL}) BEGIN "
            "INSERT INTO attempt_slots (slot, lane, account_id, code, kind, n, spans) "
            f"SELECT {e_key}, 0, '' WHERE NOT EXISTS (SELECT 1 FROM attempt_slots WHERE {e_match}); "
            f"UPDATE attempt_slots SET n = n + 1, spans = spans || {span} WHERE {e_match}; END"
        )
    )


def _install_postgres(conn: Connection) -> None:
    conn.execute(
        text(
            "CREATE OR REPLACE FUNCTION media_assistant_answer(seq bigint, created float8, "
            "started float8, finished float8, usage text) RETURNS text "
            "LANGUAGE plpgsql IMMUTABLE SET extra_float_digits = 3 AS $$ "
            "DECLARE tokens bigint := 0; BEGIN "
            "IF usage IS NOT NULL THEN BEGIN "
            "tokens := coalesce(trunc((usage::json ->> 'total_tokens')::numeric), 0); "
            "EXCEPTION WHEN others THEN tokens := 0; END; END IF; "
            "RETURN ';' || seq || ',' || created::text || ',' || "
            "coalesce(started, created)::text || ',' || finished::text || ',' || tokens; END $$"
        )
    )
    conn.execute(
        text(
            "CREATE OR REPLACE FUNCTION media_assistant_error_kind(params text) RETURNS text "
            "LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN "
            "RETURN coalesce(params::json ->> 'error_kind', ''); "
            "EXCEPTION WHEN others THEN RETURN ''; END $$"
        )
    )
    key, match = _task_key("NEW.", True), _task_match("NEW.", True)
    conn.execute(
        text(
            "CREATE OR REPLACE FUNCTION media_assistant_task_slots() RETURNS trigger "
            "LANGUAGE plpgsql AS $$ BEGIN "
            "IF TG_OP <> 'INSERT' AND OLD.state = 'success' AND OLD.finished_at IS NOT NULL THEN "
            f"UPDATE task_slots SET n = n - 1, answers = replace(answers, {_answer('OLD.', True)}, "
            f"'') WHERE {_task_match('OLD.', True)}; END IF; "
            "IF TG_OP <> 'DELETE' AND NEW.state = 'success' AND NEW.finished_at IS NOT NULL THEN "
            "INSERT INTO task_slots (slot, lane, model, account_id, workstation, n, answers) "
            f"VALUES ({key}, 0, '') ON CONFLICT DO NOTHING; "
            f"UPDATE task_slots SET n = n + 1, answers = answers || {_answer('NEW.', True)} "
            f"WHERE {match}; END IF; RETURN NULL; END $$"
        )
    )
    e_key = (
        f"{_slot('NEW.at', True)}, coalesce(NEW.lane, ''), coalesce(NEW.account_id, ''), "
        "NEW.code, k"
    )
    e_match = (
        f"slot = {_slot('NEW.at', True)} AND lane = coalesce(NEW.lane, '') "
        "AND account_id = coalesce(NEW.account_id, '') AND code = NEW.code "
        "AND attempt_slots.kind = k"
    )
    conn.execute(
        text(
            "CREATE OR REPLACE FUNCTION media_assistant_attempt_slots() RETURNS trigger "
            "LANGUAGE plpgsql SET extra_float_digits = 3 AS $$ "
            "DECLARE k text := media_assistant_error_kind(NEW.params_json); began float8; BEGIN "
            f"began := {_start_sql('NEW', True)}; "
            "INSERT INTO attempt_slots (slot, lane, account_id, code, kind, n, spans) "
            f"VALUES ({e_key}, 0, '') ON CONFLICT DO NOTHING; "
            "UPDATE attempt_slots SET n = n + 1, "
            f"spans = spans || ';' || began::text || ',' || NEW.at::text WHERE {e_match}; "
            "RETURN NULL; END $$"
        )
    )
    for name in (*_TRIGGERS, "media_assistant_attempt_slots"):
        table = "task_events" if name.endswith("attempt_slots") else "tasks"
        conn.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
    run = "FOR EACH ROW"
    conn.execute(
        text(
            f"CREATE TRIGGER {_TRIGGERS[0]} AFTER INSERT ON tasks {run} "
            "WHEN (NEW.state = 'success') EXECUTE FUNCTION media_assistant_task_slots()"
        )
    )
    conn.execute(
        text(
            f"CREATE TRIGGER {_TRIGGERS[1]} AFTER UPDATE OF {_TASK_COLUMNS} ON tasks {run} "
            "WHEN (OLD.state = 'success' OR NEW.state = 'success') "
            "EXECUTE FUNCTION media_assistant_task_slots()"
        )
    )
    conn.execute(
        text(
            f"CREATE TRIGGER {_TRIGGERS[2]} AFTER DELETE ON tasks {run} "
            "WHEN (OLD.state = 'success') EXECUTE FUNCTION media_assistant_task_slots()"
        )
    )
    conn.execute(
        text(
            "CREATE TRIGGER media_assistant_attempt_slots AFTER INSERT ON task_events "
            f"{run} WHEN (NEW.code IN ({_CODES_SQL})) "
            "EXECUTE FUNCTION media_assistant_attempt_slots()"
        )
    )
