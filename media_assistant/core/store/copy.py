"""Copying a task store into another (``media-assistant store copy --to``, and ``backup`` of a
team database): a workstation's SQLite queue into an empty team database, or a team's queue into
a SQLite file (a snapshot), or any store into any other — the same tables on both engines.

**What is copied.** Tasks, their event logs, batch rows, pauses, account rows and the pacing
state of web accounts (a daily cap must not start again because a PC moved into a team, and a
6-hour risk pause must go on). **Not copied**: ``sessions`` (the scheduler runs of the source:
no task of the copy points to one, see below, and a workstation is listed in the target once it
runs there or holds a web account there), ``api_slots`` and ``api_rates`` (runtime state of the
team-wide API gate: the target keeps its own; slot and rate rows of copied API accounts are
created), ``meta`` (the target is migrated to this app's schema first), ``counters`` (the
target numbers what it receives from its own).

**Running rows** are a moment in someone else's work: a copy cannot take over the attempt. They
arrive as the graceful shutdown leaves them: ``pending``, the attempt not used up
(``keep_attempt``), no owner, no account — or ``canceled`` when a cancel was asked for. A
deterministic transformation of the source row, so a second copy of the same moment finds them
identical. (Stop the source's scheduler before moving its queue: what it still runs would run
again in the target. The command refuses while one holds the data dir.)

**Idempotent; conflicts refused.** A task id already in the target with the same content (every
column but ``seq``, after the transformation above) is skipped, and so are its event lines that
are there already; a task id there with other content is a conflict: every one is collected,
then :class:`~media_assistant.core.model.errors.StoreCopyConflict` lists them and the whole copy
is rolled back. Batches, pauses, accounts and pacing rows already in the target are left as
the target has them (the target's word is the newer one for what it runs).

**One transaction** on the target (after a short one reserving its numbers, below), so
nothing is half-written; read from one consistent snapshot
of the source (SQLite's read transaction, PostgreSQL's REPEATABLE READ), streamed in pages of
:data:`PAGE` tasks: only the task ids (to route their events) stay in memory. Submission order
carries over: each task's ``seq`` is its source ``seq`` plus one offset, the start of a range of
the target's submission numbers reserved for the copy (core/store/task_seq.py), so copied tasks
queue after the target's own at equal priority, in their own order; an empty target keeps the
source's numbers. Event lines get the target's ids, in the source's order.

**Nobody waits for it** on a team database (issue 28 item 5): the range is reserved in a short
transaction of its own before the copy's long one, which holds no lock a submission needs —
a task id that another workstation submits meanwhile is met by ``ON CONFLICT DO NOTHING`` and
then compared like one that was there before. The rows other writers share (batches, accounts,
the fair share) come last, under the short lock every submission's end takes
(core/store/submits.py).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Boolean,
    Connection,
    Engine,
    Float,
    Integer,
    RowMapping,
    Table,
    func,
    insert,
    select,
)

from media_assistant.core.model.errors import ErrorKind, StoreCopyConflict
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.store import api_gate, fair_store, submits, task_seq
from media_assistant.core.store.base import IS_PENDING, E, T
from media_assistant.core.store.db import is_sqlite, read_tx, write_tx
from media_assistant.core.store.schema import (
    AccountPacingRow,
    AccountRow,
    BatchRow,
    QueuePauseRow,
)
from media_assistant.core.store.upsert import upsert

A = AccountRow.__table__  # type: ignore[attr-defined]
B = BatchRow.__table__  # type: ignore[attr-defined]
P = QueuePauseRow.__table__  # type: ignore[attr-defined]
PACING = AccountPacingRow.__table__  # type: ignore[attr-defined]

PAGE = 500  # tasks (and event lines) per page
CONFLICTS_LISTED = 200  # task ids named in the refusal; the count is always given
# An event line is identified by everything but its id (ids are the target's own).
EVENT_KEY = tuple(c for c in E.c if c.name != "id")
TASK_CONTENT = tuple(c for c in T.c if c.name != "seq")

Progress = Callable[[int, int], None]  # (tasks looked at, tasks in the source)


@dataclass
class CopyReport:
    """What a copy did (nothing, when a second copy found everything there)."""

    tasks_added: int = 0
    tasks_present: int = 0  # already in the target with the same content
    running_requeued: int = 0  # running in the source: pending (attempt kept) in the copy
    events_added: int = 0
    batches_added: int = 0
    pauses_added: list[tuple[str, str]] = field(default_factory=list)  # (scope, target)
    accounts_added: int = 0
    pacing_added: int = 0
    # Web accounts the target already gives to another workstation: (account, its workstation).
    accounts_elsewhere: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(
            self.tasks_added
            or self.events_added
            or self.batches_added
            or self.pauses_added
            or self.accounts_added
            or self.pacing_added
        )


def copy_store(source: Engine, target: Engine, *, progress: Progress | None = None) -> CopyReport:
    """Copy everything ``source`` holds into ``target`` (both at this app's schema version) in
    one transaction on the target; :class:`StoreCopyConflict` (nothing written) when task ids
    exist there with other content."""
    report = CopyReport()
    with _snapshot(source) as src:
        top = int(src.execute(select(func.max(T.c.seq))).scalar() or 0)
        total = int(src.execute(select(func.count()).select_from(T)).scalar() or 0)
        # The target's numbers for the copied tasks: a range of its own, reserved in a short
        # transaction first on a team database (nobody's submission waits for the copy).
        first = submits.reserve_alone(target, top) if top and not is_sqlite(target) else None
        with write_tx(target, durable=True) as dst:
            if first is None:  # SQLite: under its write lock, held already
                first = task_seq.reserve(dst, top) if top else 1
            added, conflicts = _copy_tasks(src, dst, first - 1, total, report, progress)
            if conflicts:  # leaving the block rolls the whole copy back
                raise StoreCopyConflict(conflicts[:CONFLICTS_LISTED], len(conflicts))
            _copy_events(src, dst, added, report)
            _copy_the_rest(src, dst, added, report)
    return report


def _copy_the_rest(src: Connection, dst: Connection, added: set[str], report: CopyReport) -> None:
    """Batches, pauses, accounts, pacing and the fair share: rows the rest of the team's
    submissions and claims use, so last, one such end at a time (core/store/submits.py)."""
    submits.serialize_end(dst)
    report.batches_added = _copy_rows(src, dst, B, ["batch_id"])
    report.pauses_added = _copy_pauses(src, dst)
    _copy_accounts(src, dst, report)
    report.pacing_added = _copy_rows(src, dst, PACING, ["account_id"])
    if added:  # the copied work takes its place in the fair share (level: nobody is owed)
        pending = dst.execute(select(T.c.batch_id).where(IS_PENDING).distinct()).scalars()
        fair_store.refresh(dst, list(pending), time.time())


@contextlib.contextmanager
def _snapshot(engine: Engine) -> Iterator[Connection]:
    """One consistent view of the source for the whole copy: SQLite's read transaction is one
    already; PostgreSQL's default (READ COMMITTED) sees each statement's own moment."""
    if engine.dialect.name != "postgresql":
        with read_tx(engine) as conn:
            yield conn
        return
    with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn:
        with conn.begin():
            yield conn


# ----------------------------------------------------------------------------- tasks


def as_copied(row: Mapping[str, Any] | RowMapping) -> dict[str, Any]:
    """A source task row as the copy holds it: a running attempt handed back the way a graceful
    shutdown hands it back (attempt not used up), or canceled if a cancel was asked for — with
    times taken from the row itself, so the same row always copies the same."""
    out = dict(row)
    if out["state"] != TaskState.RUNNING.value:
        return out
    out.update(owner_id=None, heartbeat_at=None, progress_chars=0)
    if out["cancel_requested"]:
        out.update(
            state=TaskState.CANCELED.value,
            finished_at=row["heartbeat_at"] or row["started_at"],
            error_kind=ErrorKind.CANCELED.value,
            error_message="canceled by operator (copied while it was running)",
        )
    else:
        out.update(
            state=TaskState.PENDING.value, not_before=None, account_id=None, keep_attempt=True
        )
    return out


def _copy_tasks(
    src: Connection,
    dst: Connection,
    offset: int,
    total: int,
    report: CopyReport,
    progress: Progress | None,
) -> tuple[set[str], list[str]]:
    """Insert the tasks the target lacks (their events come later, in the source's order);
    for tasks already there and identical, add the event lines they miss. Returns the ids
    added and the conflicting ones (once there is one, nothing more is written)."""
    added: set[str] = set()
    conflicts: list[str] = []
    seen = 0
    rows = src.execution_options(stream_results=True, max_row_buffer=PAGE).execute(
        select(T).order_by(T.c.seq, T.c.task_id)
    )
    for page in rows.mappings().partitions(PAGE):
        ids = [r["task_id"] for r in page]
        there = {
            r["task_id"]: r
            for r in dst.execute(select(T).where(T.c.task_id.in_(ids))).mappings().all()
        }
        new: list[dict[str, Any]] = []
        identical: list[str] = []
        requeued: set[str] = set()
        for row in page:
            copied = as_copied(row)
            existing = there.get(row["task_id"])
            if existing is None:
                copied["seq"] = int(row["seq"]) + offset
                new.append(copied)
                if row["state"] != copied["state"] == TaskState.PENDING.value:
                    requeued.add(row["task_id"])
            elif _same(TASK_CONTENT, copied, existing):
                identical.append(row["task_id"])
            else:
                conflicts.append(row["task_id"])
        seen += len(page)
        if not conflicts and new:
            # Submitted meanwhile by someone else (no lock keeps submissions out): compared
            # now, as if it had been there.
            went_in = submits.insert_or_skip(dst, new)
            late = {r["task_id"]: r for r in new if r["task_id"] not in went_in}
            if late:
                for r in dst.execute(select(T).where(T.c.task_id.in_(list(late)))).mappings():
                    same = _same(TASK_CONTENT, late[r["task_id"]], r)
                    (identical if same else conflicts).append(r["task_id"])
            added.update(went_in)
            report.tasks_added += len(went_in)
            report.running_requeued += len(requeued & went_in)
        report.tasks_present += len(identical)
        if not conflicts:
            if identical:
                report.events_added += _missing_events(src, dst, identical)
        if progress is not None:
            progress(seen, total)
    return added, conflicts


def _same(
    columns: Sequence[Any], a: Mapping[str, Any] | RowMapping, b: Mapping[str, Any] | RowMapping
) -> bool:
    return all(_norm(c, a[c.name]) == _norm(c, b[c.name]) for c in columns)


def _norm(column: Any, value: Any) -> Any:
    """A value as both engines mean it (SQLite returns 1.0 or 1 for a REAL, 0/1 for booleans
    read without their type)."""
    if value is None:
        return None
    if isinstance(column.type, Boolean):
        return bool(value)
    if isinstance(column.type, Float):
        return float(value)
    if isinstance(column.type, Integer):
        return int(value)
    return value


# ----------------------------------------------------------------------------- events


def _copy_events(src: Connection, dst: Connection, added: set[str], report: CopyReport) -> None:
    """Every event line of the tasks added, in the source's order (the target numbers them)."""
    if not added:
        return
    rows = src.execution_options(stream_results=True, max_row_buffer=PAGE * 4).execute(
        select(*EVENT_KEY).order_by(E.c.id)
    )
    for page in rows.mappings().partitions(PAGE * 4):
        lines = [dict(r) for r in page if r["task_id"] in added]
        if lines:
            dst.execute(insert(E), lines)
            report.events_added += len(lines)


def _missing_events(src: Connection, dst: Connection, task_ids: Sequence[str]) -> int:
    """Tasks already copied: the event lines the target lacks (a copy stopped by a conflict
    never wrote any, so this is nearly always none). Compared per task by count first."""

    def counts(conn: Connection) -> dict[str, int]:
        rows = conn.execute(
            select(E.c.task_id, func.count()).where(E.c.task_id.in_(task_ids)).group_by(E.c.task_id)
        ).all()
        return {task_id: int(n) for task_id, n in rows}

    ours, theirs = counts(src), counts(dst)
    short = [t for t, n in ours.items() if n > theirs.get(t, 0)]
    if not short:
        return 0
    have = Counter(
        tuple(_norm(c, r[c.name]) for c in EVENT_KEY)
        for r in dst.execute(select(*EVENT_KEY).where(E.c.task_id.in_(short))).mappings()
    )
    lines = []
    for r in src.execute(
        select(*EVENT_KEY).where(E.c.task_id.in_(short)).order_by(E.c.id)
    ).mappings():
        key = tuple(_norm(c, r[c.name]) for c in EVENT_KEY)
        if have[key]:
            have[key] -= 1
        else:
            lines.append(dict(r))
    if lines:
        dst.execute(insert(E), lines)
    return len(lines)


# ----------------------------------------------------------------------------- the rest


def _copy_rows(src: Connection, dst: Connection, table: Table, key: list[str]) -> int:
    """Rows the target lacks (by ``key``); the target's own are left as they are."""
    added = 0
    rows = src.execution_options(stream_results=True, max_row_buffer=PAGE).execute(select(table))
    for page in rows.mappings().partitions(PAGE):
        result = upsert(dst, table, [dict(r) for r in page], key=key, returning=[table.c[key[0]]])
        added += len(result.all())
    return added


def _copy_pauses(src: Connection, dst: Connection) -> list[tuple[str, str]]:
    rows = [dict(r) for r in src.execute(select(P)).mappings()]
    if not rows:
        return []
    made = upsert(dst, P, rows, key=["scope", "target"], returning=[P.c.scope, P.c.target])
    return sorted((str(r["scope"]), str(r["target"])) for r in made.mappings().all())


def _copy_accounts(src: Connection, dst: Connection, report: CopyReport) -> None:
    rows = [dict(r) for r in src.execute(select(A)).mappings()]
    if not rows:
        return
    there = {
        r["account_id"]: r
        for r in dst.execute(
            select(A.c.account_id, A.c.kind, A.c.workstation).where(
                A.c.account_id.in_([r["account_id"] for r in rows])
            )
        ).mappings()
    }
    for row in rows:
        other = there.get(row["account_id"])
        if (
            other is not None
            and row["kind"] == ModelKind.WEB.value
            and other["workstation"] is not None
            and other["workstation"] != row["workstation"]
        ):
            report.accounts_elsewhere.append((row["account_id"], other["workstation"]))
    made = upsert(dst, A, rows, key=["account_id"], returning=[A.c.account_id])
    report.accounts_added = len(made.all())
    # The team-wide gate needs its slot and rate rows for every API account (created once).
    api_gate.ensure_rows(
        dst,
        [r.get("key_id") or r["account_id"] for r in rows if r["kind"] == ModelKind.API.value],
    )
