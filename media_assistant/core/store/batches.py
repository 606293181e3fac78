"""Batches and the operator's hold on the queue: batch rows and schedules, pauses, priorities.

- A batch's row (``batches``) is written by :func:`save_batch` inside the submit transaction:
  its name, source file, template, title column and schedule (``start_at``, ``active_hours``).
- Pauses (``queue_pauses``) of the queue, a lane, a batch or an account: the claim statement
  skips paused scopes (core/store/holds.py); running tasks finish.
- Priorities after submission: a number, or the top / bottom of the pending queue.

Every change is published (``BatchesChanged``, ``PausesChanged``, ``TasksChanged``); other
processes' changes reach a window through the database follower.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    and_,
    delete,
    exists,
    func,
    insert,
    not_,
    or_,
    select,
    update,
)

from media_assistant.core.model.errors import ErrorKind, InputError
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import PausesChanged, TaskChange
from media_assistant.core.model.records import BatchInfo, BatchRecord, Pause, PriorityResult
from media_assistant.core.model.states import TaskState
from media_assistant.core.rules import fair
from media_assistant.core.rules.pacing import parse_active_hours
from media_assistant.core.store import fair_store
from media_assistant.core.store.base import (
    IS_PENDING,
    IS_RUNNING,
    PENDING,
    RUNNING,
    E,
    StoreBase,
    T,
    chunks,
)
from media_assistant.core.store.db import read_tx, write_tx
from media_assistant.core.store.holds import SCOPES, B, P
from media_assistant.core.store.upsert import upsert

# Failed tasks that fail the same way when run again unchanged: "retry failed" leaves them out
# (an operator retries them by id, or with an edited prompt, when they changed something).
HOPELESS_KINDS: frozenset[str] = frozenset(
    {
        ErrorKind.CONTENT_POLICY.value,
        ErrorKind.CONTEXT_TOO_LONG.value,
        ErrorKind.BAD_INPUT.value,
    }
)
LANES = ("web", "api")


def _record(row: Any) -> BatchRecord:
    return BatchRecord(
        batch_id=row.batch_id,
        name=row.name,
        source_file=row.source_file,
        created_at=row.created_at,
        template=row.template,
        title_column=row.title_column,
        start_at=row.start_at,
        active_hours=row.active_hours,
        active_from=row.active_from,
        active_until=row.active_until,
        updated_at=row.updated_at,
        tenant=row.tenant,
        share=row.share,
    )


def active_window(active_hours: str | None) -> tuple[int | None, int | None]:
    """``"22:00-06:00"`` → minutes of the day (1320, 360); InputError names what is wrong."""
    if not active_hours:
        return None, None
    try:
        return parse_active_hours(active_hours)
    except ValueError as exc:
        raise InputError(f"{exc} (got {active_hours!r})") from None


def save_batch(conn: Connection, info: BatchInfo, now: float) -> BatchRecord | None:
    """The batch's row, made or completed (inside the caller's write transaction). Fields the
    submission leaves None keep what an earlier submission into the same batch said. Returns
    the row when it changed."""
    start, end = active_window(info.active_hours)
    given = {
        "name": info.name,
        "source_file": info.source_file,
        "template": info.template,
        "title_column": info.title_column,
        "start_at": info.start_at,
        "active_hours": info.active_hours,
        "active_from": start,
        "active_until": end,
        "tenant": info.tenant,
        "share": info.share,
    }
    row = upsert(
        conn,
        B,
        {"batch_id": info.batch_id, "created_at": now, "updated_at": now, **given},
        key=["batch_id"],
        # What this submission says wins; what it leaves None keeps the earlier word.
        update=lambda new: {
            "updated_at": new.updated_at,
            **{k: func.coalesce(new[k], B.c[k]) for k in given},
        },
        where=lambda new: or_(
            *(new[k].is_not(None) & new[k].is_distinct_from(B.c[k]) for k in given)
        ),
        returning=[B],
    ).first()
    return _record(row) if row is not None else None


class BatchRoom(StoreBase):
    # ------------------------------------------------------------------ batches

    def batches(self) -> list[BatchRecord]:
        """Every batch row, newest first."""
        with read_tx(self.engine) as conn:
            rows = conn.execute(select(B).order_by(B.c.created_at.desc())).all()
        return [_record(r) for r in rows]

    def batch(self, batch_id: str) -> BatchRecord | None:
        with read_tx(self.engine) as conn:
            row = conn.execute(select(B).where(B.c.batch_id == batch_id)).first()
        return _record(row) if row is not None else None

    def batches_since(self, updated_at: float) -> list[BatchRecord]:
        """Batch rows written at or after ``updated_at`` (a follower's cursor; it drops those
        it has seen)."""
        with read_tx(self.engine) as conn:
            rows = conn.execute(
                select(B).where(B.c.updated_at >= updated_at).order_by(B.c.updated_at)
            ).all()
        return [_record(r) for r in rows]

    def batch_exists(self, batch_id: str) -> bool:
        with read_tx(self.engine) as conn:
            found = conn.execute(
                select(T.c.task_id).where(T.c.batch_id == batch_id).limit(1)
            ).first()
            return found is not None or (
                conn.execute(select(B.c.batch_id).where(B.c.batch_id == batch_id)).first()
                is not None
            )

    def set_schedule(
        self, batch_id: str, *, start_at: float | None, active_hours: str | None
    ) -> BatchRecord:
        """A batch's schedule, replaced (None clears that part)."""
        start, end = active_window(active_hours)
        now = self.clock.now()
        values = {
            "start_at": start_at,
            "active_hours": active_hours or None,
            "active_from": start,
            "active_until": end,
            "updated_at": now,
        }
        with write_tx(self.engine, durable=True) as conn:
            if conn.execute(select(B.c.batch_id).where(B.c.batch_id == batch_id)).first():
                conn.execute(update(B).where(B.c.batch_id == batch_id).values(**values))
            else:
                conn.execute(insert(B).values(batch_id=batch_id, created_at=now, **values))
            record = _record(conn.execute(select(B).where(B.c.batch_id == batch_id)).one())
        self._publish_batches([record])
        return record

    # ------------------------------------------------------------------ pauses

    def pauses(self) -> list[Pause]:
        with read_tx(self.engine) as conn:
            rows = conn.execute(select(P).order_by(P.c.scope, P.c.target)).all()
        return [Pause(r.scope, r.target, r.paused_at) for r in rows]

    def pause(self, scope: str, target: str = "") -> bool:
        """Nothing new starts in this scope; running tasks finish. False: already paused."""
        scope, target = _checked_scope(scope, target)
        with write_tx(self.engine, durable=True) as conn:
            values = {"scope": scope, "target": target, "paused_at": self.clock.now()}
            if (
                upsert(conn, P, values, key=["scope", "target"], returning=[P.c.scope]).first()
                is None
            ):
                return False  # already paused
            current = _pauses(conn)
        self.bus.publish(PausesChanged(current))
        return True

    def resume(self, scope: str, target: str = "") -> bool:
        """Lift one pause. False: that scope was not paused."""
        scope, target = _checked_scope(scope, target)
        with write_tx(self.engine, durable=True) as conn:
            gone = conn.execute(delete(P).where(P.c.scope == scope, P.c.target == target)).rowcount
            if gone and scope == "batch":  # back from a pause: no back-pay for it
                fair_store.refresh(conn, [target], self.clock.now())
            current = _pauses(conn)
        if gone:
            self.bus.publish(PausesChanged(current))
        return bool(gone)

    def running_in(self, scope: str, target: str = "") -> int:
        """Running tasks in a scope: those a pause lets finish ("pausing after the current
        task")."""
        scope, target = _checked_scope(scope, target)
        stmt = select(func.count()).select_from(T).where(IS_RUNNING)
        if scope == "lane":
            stmt = stmt.where(T.c.model_kind == target)
        elif scope == "batch":
            stmt = stmt.where(T.c.batch_id == target)
        elif scope == "account":
            stmt = stmt.where(T.c.account_id == target)
        with read_tx(self.engine) as conn:
            return int(conn.execute(stmt).scalar() or 0)

    # ------------------------------------------------------------------ priorities

    def set_priority(
        self,
        task_ids: Sequence[str] | None = None,
        *,
        batch_id: str | None = None,
        priority: int | None = None,
        where: str | None = None,
    ) -> PriorityResult:
        """Give unfinished tasks a priority: ``priority``, or ``where`` = "top" (one above every
        other pending task) / "bottom" (one below). Finished tasks are left as they are (an
        operator retry keeps the priority they have)."""
        if (priority is None) == (where is None):
            raise ValueError("give either a priority or where='top'|'bottom'")
        if where not in (None, "top", "bottom"):
            raise ValueError(f"where must be 'top' or 'bottom', not {where!r}")
        targets: list[ColumnElement[bool]]
        if batch_id is not None:
            targets = [T.c.batch_id == batch_id]
        else:
            targets = [T.c.task_id.in_(chunk) for chunk in chunks(list(task_ids or []))]
        if not targets:
            return PriorityResult((), priority or 0, ())
        unfinished = T.c.state.in_([PENDING, RUNNING])
        now = self.clock.now()
        changed: list[str] = []
        finished: list[str] = []
        with write_tx(self.engine, durable=True) as conn:
            found: dict[str, str] = {}
            for target in targets:
                found.update(
                    (r[0], r[1]) for r in conn.execute(select(T.c.task_id, T.c.state).where(target))
                )
            finished = sorted(t for t, state in found.items() if state not in (PENDING, RUNNING))
            if priority is None:
                priority = self._edge_priority(conn, targets, top=where == "top")
            for target in targets:
                changed += (
                    conn.execute(
                        update(T)
                        .where(target, unfinished)
                        .values(priority=priority)
                        .returning(T.c.task_id)
                    )
                    .scalars()
                    .all()
                )
            for tid in changed:
                self._event(
                    conn,
                    tid,
                    "state",
                    f"priority set to {priority} by operator",
                    at=now,
                    code=EventCode.PRIORITY_SET,
                    params={"priority": priority},
                )
            # A class the batch had no work in may start now (level with its siblings), and one
            # it has no work left in gives its share back. Last, before the commit: the node
            # rows stay locked only that long, not while the events go in.
            fair_store.refresh(conn, fair_store.batches_of(conn, changed), now)
        self._publish_changes(TaskChange(t, {"priority": priority}) for t in changed)
        unknown = tuple(t for t in (task_ids or []) if t not in found)
        return PriorityResult(tuple(changed), priority, tuple(finished), unknown)

    def _edge_priority(
        self, conn: Connection, targets: Sequence[ColumnElement[bool]], *, top: bool
    ) -> int:
        """One above (below) every other pending task; where the selection already is when
        nothing else waits."""
        edge = func.max(T.c.priority) if top else func.min(T.c.priority)
        chosen = or_(*targets)
        value = conn.execute(select(edge).where(IS_PENDING, not_(chosen))).scalar()
        if value is not None:
            if top:  # moved to the top by hand: run first, past the classes' shares
                return max(int(value) + 1, fair.RUN_FIRST_PRIORITY)
            return int(value) - 1
        own = conn.execute(select(edge).where(chosen, T.c.state.in_([PENDING, RUNNING])))
        return int(own.scalar() or 0)

    # ------------------------------------------------------------------ failed tasks

    def failed_counts(
        self, batch_id: str | None = None, *, include_poison: bool = False
    ) -> tuple[int, int]:
        """(failed tasks "retry failed" would run again, failed ones it leaves out because they
        would fail the same way: content policy, prompt too long, bad input). Poison pills
        (:func:`is_poison_pill`) are in neither unless ``include_poison``: see
        :meth:`poison_pills`."""
        stmt = select(T.c.error_kind, func.count()).where(T.c.state == TaskState.FAILED.value)
        if batch_id is not None:
            stmt = stmt.where(T.c.batch_id == batch_id)
        if not include_poison:
            stmt = stmt.where(not_(is_poison_pill()))
        with read_tx(self.engine) as conn:
            rows = [(r[0], int(r[1])) for r in conn.execute(stmt.group_by(T.c.error_kind))]
        hopeless = sum(n for kind, n in rows if kind in HOPELESS_KINDS)
        return sum(n for _, n in rows) - hopeless, hopeless

    def poison_pills(self, batch_id: str | None = None) -> int:
        """Failed tasks (of one batch) that are poison pills: "retry failed" leaves them out
        unless asked to take them too."""
        stmt = select(func.count()).select_from(T).where(retry_filter(batch_id, skip_hopeless=True))
        with read_tx(self.engine) as conn:
            return int(conn.execute(stmt.where(is_poison_pill())).scalar() or 0)


def _checked_scope(scope: str, target: str) -> tuple[str, str]:
    if scope not in SCOPES:
        raise ValueError(f"unknown pause scope {scope!r} (one of {', '.join(SCOPES)})")
    if scope == "all":
        return scope, ""
    if scope == "lane" and target not in LANES:
        raise ValueError(f"a lane is 'web' or 'api', not {target!r}")
    if not target:
        raise ValueError(f"pausing a {scope} needs its id")
    return scope, target


def _pauses(conn: Connection) -> tuple[Pause, ...]:
    rows = conn.execute(select(P).order_by(P.c.scope, P.c.target)).all()
    return tuple(Pause(r.scope, r.target, r.paused_at) for r in rows)


def is_poison_pill() -> ColumnElement[bool]:
    """The task's round (since the operator's last retry, ``attempt_base``) ended as a poison
    pill: every attempt failed the same way (core/rules/excuses.py; its ``poison_pill`` event).
    Retried once more it would fail that way again: "retry failed" leaves it out."""
    clause: ColumnElement[bool] = exists().where(
        E.c.task_id == T.c.task_id,
        E.c.code == EventCode.POISON_PILL.value,
        E.c.attempt > T.c.attempt_base,
    )
    return clause


def retry_filter(
    batch_id: str | None, *, skip_hopeless: bool, skip_poison: bool = False
) -> ColumnElement[bool]:
    """Failed tasks (of one batch) that "retry failed" runs again."""
    where = [T.c.state == TaskState.FAILED.value]
    if batch_id is not None:
        where.append(T.c.batch_id == batch_id)
    if skip_hopeless:
        where.append((T.c.error_kind.is_(None)) | (T.c.error_kind.not_in(sorted(HOPELESS_KINDS))))
    if skip_poison:
        where.append(not_(is_poison_pill()))
    return and_(*where)
