"""Ten-minute rollups of the answered tasks and of the attempts, kept by the database itself.

The lanes' figures (core/metrics/) want exact p50/p90/p99 of a day's 100,000 tasks within
200 ms, off the GUI thread. Reading 100,000 task rows into Python was 1 s of CPU on its own
(B12), so the numbers are kept where one read brings them all, as binary the reader maps
without parsing (``numpy.frombuffer``):

- ``task_slots``: per ten minutes (``floor(finished_at / 600)``), lane, model, account and
  workstation, the slot's *answered* tasks, 40 bytes each — ``seq, created_at, started_at (or
  created_at), finished_at, tokens`` as big-endian IEEE doubles (PostgreSQL's ``float8send``,
  Python's ``struct``): every value reads back bit for bit, so the percentiles are exact, and a
  window that cuts through a slot is cut exactly by each entry's own ``finished_at``.
- ``attempt_slots``: per ten minutes, lane, account, event code and error kind, the attempts
  that started (``started`` lines) or ended other than with an answer (failures, deferrals,
  cancels, hand-backs): ``start, end`` (16 bytes; a ``started`` line: its time twice).

Why exact values rather than per-minute histograms or pre-sorted arrays: exact percentiles need
every value (a histogram keeps only its bucket), and entries need not be kept sorted — the reader
sorts each lane's values once with numpy (milliseconds for 70,000) and interpolates exactly as
core/metrics/figures.py's ``percentile`` does. Text (``printf('%!.17g')``) was tried first:
parsing 500,000 numbers took 180 ms of CPU, binary takes none. What the store saves is rows and
Python objects: a day is ~40 groups × 144 slots, concatenated by the database into one value per
group (``group_concat`` / ``string_agg``). Why ten minutes and not one: at the benchmark's rate a
minute holds about one task per group, so per-minute rows would be as many as the tasks; ten
minutes keeps a day to a few thousand rows and each slot's value to a few hundred entries.

Why triggers: every path that ends, re-opens, re-times or copies a task — an answer, a failure, a
cancel, the reaper, an operator's retry or reset, ``store copy`` — changes the ``tasks`` row,
and the trigger follows in that same transaction, on both engines, whatever code wrote it. A
success that stops being one (an operator retry resets it) has its entry taken out again by its
unique ``seq``; an entry is added only for a row that is ``success`` with a ``finished_at``.
Attempts are append-only lines, so their rollup only ever grows. Failed and canceled tasks are
not rolled up: they are the few, counted straight from ``tasks`` through a partial index.

SQLite has no way to write a double's bytes in SQL, so the app registers three small functions
on every SQLite connection it opens (:func:`register_sqlite_functions`, called by
backends/sqlite.py); a tool that changes ``tasks`` on a connection without them fails rather
than leave the rollup behind. On PostgreSQL the functions are PL/pgSQL, run as the caller (a
workstation's role needs ``SELECT, INSERT, UPDATE`` on both tables, README), and concurrent
writers of one slot queue on its row. The triggers' code list is fixed when they are created: a
new attempt-ending event code needs a migration that calls :func:`install` again.
"""

from __future__ import annotations

import json
import struct
from typing import Any

from sqlalchemy import Connection, text

SLOT_S = 600  # seconds per slot; the triggers and the reads agree on it
ANSWER = struct.Struct(">5d")  # seq, created, started, finished, tokens
SPAN = struct.Struct(">2d")  # start, end
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


def tokens_of(usage: str | None) -> int:
    """The tokens an answer's usage JSON says it took (0 when it says nothing readable)."""
    if not usage:
        return 0
    try:
        return int(json.loads(usage).get("total_tokens") or 0)
    except (ValueError, AttributeError, TypeError):
        return 0


def _answer_bytes(
    seq: int, created: float, started: float | None, finished: float, usage: str | None
) -> bytes:
    began = created if started is None else started
    return ANSWER.pack(seq, created, began, finished, tokens_of(usage))


def _drop_answer(answers: bytes, seq: float) -> bytes:
    """``answers`` without the entries of task ``seq``."""
    size = ANSWER.size
    return b"".join(
        answers[i : i + size]
        for i in range(0, len(answers), size)
        if ANSWER.unpack_from(answers, i)[0] != seq
    )


def _span_bytes(start: float, end: float) -> bytes:
    return SPAN.pack(start, end)


def register_sqlite_functions(dbapi_conn: Any) -> None:
    """The packing functions the SQLite triggers call (every connection the app opens)."""
    dbapi_conn.create_function("media_assistant_answer", 5, _answer_bytes, deterministic=True)
    dbapi_conn.create_function("media_assistant_drop", 2, _drop_answer, deterministic=True)
    dbapi_conn.create_function("media_assistant_span", 2, _span_bytes, deterministic=True)


def install(conn: Connection) -> None:
    """(Re)create the triggers (and on PostgreSQL their functions). Idempotent."""
    if conn.dialect.name == "postgresql":
        _install_postgres(conn)
    else:
        _install_sqlite(conn)


def backfill(conn: Connection) -> None:
    """Rebuild both rollups from ``tasks`` and ``task_events`` (migration step 12)."""
    pg = conn.dialect.name == "postgresql"
    conn.execute(text("DELETE FROM task_slots"))
    conn.execute(text("DELETE FROM attempt_slots"))

    def cat(values: str) -> str:
        """A group's values end to end (SQLite's ``group_concat`` returns text: cast back)."""
        return (
            f"string_agg({values}, ''::bytea)"
            if pg
            else f"CAST(group_concat({values}, '') AS BLOB)"
        )

    conn.execute(
        text(
            "INSERT INTO task_slots (slot, lane, model, account_id, workstation, n, answers) "
            f"SELECT {_task_key('', pg)}, count(*), {cat(_answer('', pg))} FROM tasks "
            "WHERE state = 'success' AND finished_at IS NOT NULL "
            "GROUP BY 1, 2, 3, 4, 5"
        )
    )
    kind = "media_assistant_error_kind(e.params_json)" if pg else _sqlite_kind("e.")
    conn.execute(
        text(
            "INSERT INTO attempt_slots (slot, lane, account_id, code, kind, n, spans) "
            f"SELECT {_slot('e.at', pg)}, coalesce(e.lane, ''), coalesce(e.account_id, ''), "
            f"e.code, {kind}, count(*), {cat(_span(_start_sql('e'), 'e.at', pg))} "
            f"FROM task_events e WHERE e.code IN ({_CODES_SQL}) GROUP BY 1, 2, 3, 4, 5"
        )
    )


def _slot(expr: str, pg: bool) -> str:
    return f"floor({expr} / {SLOT_S})::bigint" if pg else f"CAST({expr} / {SLOT_S} AS INTEGER)"


def _span(start: str, end: str, pg: bool) -> str:
    if pg:
        return f"(float8send({start}) || float8send({end}))"
    return f"media_assistant_span({start}, {end})"


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
    return (
        f"media_assistant_answer({p}seq, {p}created_at, {p}started_at, {p}finished_at, "
        f"{p}usage_json)"
    )


def _sqlite_kind(p: str) -> str:
    return (
        f"CASE WHEN json_valid({p}params_json) THEN coalesce(CAST(json_extract({p}params_json, "
        "'$.error_kind') AS TEXT), '') ELSE '' END"
    )


def _start_sql(alias: str) -> str:
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
        f"SELECT {key}, 0, X'' WHERE {is_new} AND NOT EXISTS "
        f"(SELECT 1 FROM task_slots WHERE {match}); "
        "UPDATE task_slots SET n = n + 1, "
        f"answers = CAST(answers || {_answer('NEW.', False)} AS BLOB) WHERE {is_new} AND {match};"
    )
    remove = (
        "UPDATE task_slots SET n = n - 1, answers = media_assistant_drop(answers, OLD.seq) "
        f"WHERE {is_old} AND {_task_match('OLD.', False)};"
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
        text(
            f"CREATE TRIGGER {_TRIGGERS[2]} AFTER DELETE ON tasks WHEN {is_old} BEGIN {remove} END"
        )
    )
    kind = _sqlite_kind("NEW.")
    e_key = (
        f"{_slot('NEW.at', False)}, coalesce(NEW.lane, ''), coalesce(NEW.account_id, ''), "
        f"NEW.code, {kind}"
    )
    e_match = (
        f"slot = {_slot('NEW.at', False)} AND lane = coalesce(NEW.lane, '') "
        f"AND account_id = coalesce(NEW.account_id, '') AND code = NEW.code AND kind = {kind}"
    )
    span = _span(_start_sql("NEW"), "NEW.at", False)
    conn.execute(
        text(
            "CREATE TRIGGER media_assistant_attempt_slots AFTER INSERT ON task_events "
            f"WHEN NEW.code IN ({_CODES_SQL}) BEGIN "
            "INSERT INTO attempt_slots (slot, lane, account_id, code, kind, n, spans) "
            f"SELECT {e_key}, 0, X'' WHERE NOT EXISTS "
            f"(SELECT 1 FROM attempt_slots WHERE {e_match}); "
            f"UPDATE attempt_slots SET n = n + 1, spans = CAST(spans || {span} AS BLOB) "
            f"WHERE {e_match}; END"
        )
    )


def _install_postgres(conn: Connection) -> None:
    conn.execute(
        text(
            "CREATE OR REPLACE FUNCTION media_assistant_answer(seq bigint, created float8, "
            "started float8, finished float8, usage text) RETURNS bytea "
            "LANGUAGE plpgsql IMMUTABLE AS $$ "
            "DECLARE tokens float8 := 0; BEGIN "
            "IF usage IS NOT NULL THEN BEGIN "
            "tokens := coalesce(trunc((usage::json ->> 'total_tokens')::numeric), 0); "
            "EXCEPTION WHEN others THEN tokens := 0; END; END IF; "
            "RETURN float8send(seq::float8) || float8send(created) || "
            "float8send(coalesce(started, created)) || float8send(finished) || "
            "float8send(tokens); END $$"
        )
    )
    conn.execute(
        text(
            "CREATE OR REPLACE FUNCTION media_assistant_drop(answers bytea, seq bigint) "
            "RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$ "
            f"DECLARE key bytea := float8send(seq::float8); kept bytea := ''::bytea; "
            "i integer := 0; BEGIN "
            f"WHILE i < length(answers) LOOP "
            f"IF substring(answers FROM i + 1 FOR 8) <> key THEN "
            f"kept := kept || substring(answers FROM i + 1 FOR {ANSWER.size}); END IF; "
            f"i := i + {ANSWER.size}; END LOOP; RETURN kept; END $$"
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
            "UPDATE task_slots SET n = n - 1, answers = media_assistant_drop(answers, OLD.seq) "
            f"WHERE {_task_match('OLD.', True)}; END IF; "
            "IF TG_OP <> 'DELETE' AND NEW.state = 'success' AND NEW.finished_at IS NOT NULL THEN "
            "INSERT INTO task_slots (slot, lane, model, account_id, workstation, n, answers) "
            f"VALUES ({key}, 0, ''::bytea) ON CONFLICT DO NOTHING; "
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
            "LANGUAGE plpgsql AS $$ "
            "DECLARE k text := media_assistant_error_kind(NEW.params_json); began float8; BEGIN "
            f"began := {_start_sql('NEW')}; "
            "INSERT INTO attempt_slots (slot, lane, account_id, code, kind, n, spans) "
            f"VALUES ({e_key}, 0, ''::bytea) ON CONFLICT DO NOTHING; "
            "UPDATE attempt_slots SET n = n + 1, "
            f"spans = spans || {_span('began', 'NEW.at', True)} WHERE {e_match}; "
            "RETURN NULL; END $$"
        )
    )
    for name in (*_TRIGGERS, "media_assistant_attempt_slots"):
        table = "task_events" if name.endswith("attempt_slots") else "tasks"
        conn.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
    function = "EXECUTE FUNCTION media_assistant_task_slots()"
    conn.execute(
        text(
            f"CREATE TRIGGER {_TRIGGERS[0]} AFTER INSERT ON tasks FOR EACH ROW "
            f"WHEN (NEW.state = 'success') {function}"
        )
    )
    conn.execute(
        text(
            f"CREATE TRIGGER {_TRIGGERS[1]} AFTER UPDATE OF {_TASK_COLUMNS} ON tasks FOR EACH ROW "
            f"WHEN (OLD.state = 'success' OR NEW.state = 'success') {function}"
        )
    )
    conn.execute(
        text(
            f"CREATE TRIGGER {_TRIGGERS[2]} AFTER DELETE ON tasks FOR EACH ROW "
            f"WHEN (OLD.state = 'success') {function}"
        )
    )
    conn.execute(
        text(
            "CREATE TRIGGER media_assistant_attempt_slots AFTER INSERT ON task_events "
            f"FOR EACH ROW WHEN (NEW.code IN ({_CODES_SQL})) "
            "EXECUTE FUNCTION media_assistant_attempt_slots()"
        )
    )
