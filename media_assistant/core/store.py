"""The task store: every state change is one transaction, fenced, logged, then published.

Writes from a running attempt carry its :class:`Claim` and change a row only while it is still
``running`` with the same ``attempt`` and ``lease``: zero rows changed means the attempt is a
zombie (reaped, canceled, or taken over) and its result is dropped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    Select,
    and_,
    bindparam,
    case,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from media_assistant.core.clock import Clock
from media_assistant.core.db import read_tx, write_tx
from media_assistant.core.errors import ErrorKind
from media_assistant.core.events import (
    EventBus,
    TaskChange,
    TaskLogged,
    TasksAdded,
    TasksChanged,
)
from media_assistant.core.records import (
    TASK_COLUMNS,
    CancelResult,
    Claim,
    NewTask,
    ReleasedTask,
    SubmitResult,
    TaskEventRecord,
    TaskRecord,
)
from media_assistant.core.schema import TaskEventRow, TaskRow
from media_assistant.core.states import ModelKind, TaskState

log = logging.getLogger(__name__)

T = TaskRow.__table__  # type: ignore[attr-defined]
E = TaskEventRow.__table__  # type: ignore[attr-defined]

RUNNING = TaskState.RUNNING.value
PENDING = TaskState.PENDING.value
_CHUNK = 500  # ids per IN (...) list, well under every backend's parameter limit


def _chunks(items: Sequence[str], size: int = _CHUNK) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _fence(claim: Claim) -> ColumnElement[bool]:
    return and_(
        T.c.task_id == claim.task_id,
        T.c.state == RUNNING,
        T.c.attempt == claim.attempt,
        T.c.lease == claim.lease,
    )


def _queue_head(stmt: Select[Any]) -> Select[Any]:
    """The claimable head of the queue for the ``models`` at time ``now`` (bind parameters):
    priority first, then submission order."""
    return (
        stmt.where(
            T.c.state == PENDING,
            T.c.model.in_(bindparam("models", expanding=True)),
            or_(T.c.not_before.is_(None), T.c.not_before <= bindparam("now")),
            or_(T.c.keep_attempt, T.c.attempt < T.c.max_attempts),
        )
        .order_by(T.c.priority.desc(), T.c.seq)
        .limit(1)
    )


# The statements every task goes through, built once with bind parameters. Building a statement
# and computing its cache key cost SQLAlchemy more than SQLite needs to run it (py-spy over 2,000
# no-op tasks: ~60 % of claim_next and _finish); a reused statement keeps its cache key.
_HEAD = _queue_head(select(T.c.task_id)).with_for_update(skip_locked=True)
_PEEK = _queue_head(select(T.c.task_id, func.length(T.c.prompt)))
_CLAIM = (
    update(T)
    .where(T.c.task_id == bindparam("candidate"), T.c.state == PENDING)
    .values(
        state=RUNNING,
        account_id=bindparam("claim_account_id"),
        owner_id=bindparam("claim_owner_id"),
        attempt=T.c.attempt + case((T.c.keep_attempt, 0), else_=1),
        keep_attempt=False,
        lease=T.c.lease + 1,
        started_at=bindparam("claim_now"),
        heartbeat_at=bindparam("claim_now"),
        progress_chars=0,
        not_before=None,
        deadline_at=func.coalesce(
            T.c.deadline_at, bindparam("claim_deadline_at", type_=T.c.deadline_at.type)
        ),
    )
    .returning(
        T.c.task_id,
        T.c.attempt,
        T.c.lease,
        T.c.max_attempts,
        T.c.model,
        T.c.prompt,
        T.c.system_prompt,
        T.c.deadline_at,
        T.c.created_at,
    )
)
# SET comes from the execute parameters (the columns being written); the fence from these.
_FENCED_UPDATE = update(T).where(
    T.c.task_id == bindparam("fence_task_id"),
    T.c.state == RUNNING,
    T.c.attempt == bindparam("fence_attempt"),
    T.c.lease == bindparam("fence_lease"),
)
_INSERT_EVENT = insert(E)
_GET = select(T).where(T.c.task_id == bindparam("task_id"))


class Store:
    def __init__(self, engine: Engine, clock: Clock, bus: EventBus | None = None) -> None:
        self.engine = engine
        self.clock = clock
        self.bus = bus or EventBus()
        # models → whether the last claim for them found a task (see claim_next).
        self._backlog: dict[tuple[str, ...], bool] = {}

    # ------------------------------------------------------------------ events / publishing

    def _event(
        self,
        conn: Connection,
        task_id: str,
        kind: str,
        message: str,
        *,
        lane: str | None = None,
        account_id: str | None = None,
        attempt: int | None = None,
        at: float | None = None,
    ) -> None:
        conn.execute(
            _INSERT_EVENT,
            {
                "task_id": task_id,
                "at": self.clock.now() if at is None else at,
                "kind": kind,
                "lane": lane,
                "account_id": account_id,
                "attempt": attempt,
                "message": message,
            },
        )

    def _publish_changes(self, changes: Iterable[TaskChange], *, heartbeat: bool = False) -> None:
        batch = tuple(changes)
        if batch:
            self.bus.publish(TasksChanged(batch, heartbeat=heartbeat))

    def log_event(
        self,
        task_id: str,
        kind: str,
        message: str,
        *,
        lane: str | None = None,
        account_id: str | None = None,
        attempt: int | None = None,
    ) -> None:
        """Append a line to a task's event log (self-check findings, provider notes...)."""
        now = self.clock.now()
        with write_tx(self.engine) as conn:
            self._event(
                conn,
                task_id,
                kind,
                message,
                lane=lane,
                account_id=account_id,
                attempt=attempt,
                at=now,
            )
        self.bus.publish(TaskLogged(task_id, kind, message, now))

    # ------------------------------------------------------------------ submit

    def submit(self, tasks: Sequence[NewTask], *, max_attempts: int = 3) -> SubmitResult:
        """Insert new tasks in one transaction; ids already present are skipped, not duplicated."""
        batch_id = tasks[0].batch_id if tasks else ""
        now = self.clock.now()
        added: list[str] = []
        skipped: list[str] = []
        with write_tx(self.engine, durable=True) as conn:
            existing: set[str] = set()
            ids = [t.task_id for t in tasks]
            for chunk in _chunks(ids):
                existing.update(
                    conn.execute(select(T.c.task_id).where(T.c.task_id.in_(chunk))).scalars()
                )
            next_seq = (conn.execute(select(func.max(T.c.seq))).scalar() or 0) + 1
            rows: list[dict[str, Any]] = []
            for t in tasks:
                if t.task_id in existing:
                    skipped.append(t.task_id)
                    continue
                rows.append(
                    {
                        "task_id": t.task_id,
                        "seq": next_seq,
                        "batch_id": t.batch_id,
                        "title": t.title,
                        "model": t.model,
                        "model_kind": t.model_kind.value,
                        "prompt": t.prompt,
                        "system_prompt": t.system_prompt,
                        "priority": t.priority,
                        "state": PENDING,
                        "attempt": 0,
                        "max_attempts": max_attempts,
                        "keep_attempt": False,
                        "lease": 0,
                        "lost_count": 0,
                        "created_at": now,
                        "cancel_requested": False,
                        "progress_chars": 0,
                    }
                )
                next_seq += 1
                added.append(t.task_id)
            if rows:
                conn.execute(insert(T), rows)
                conn.execute(
                    insert(E),
                    [
                        {
                            "task_id": r["task_id"],
                            "at": now,
                            "kind": "state",
                            "lane": r["model_kind"],
                            "message": f"submitted in batch {r['batch_id']}",
                        }
                        for r in rows
                    ],
                )
        if added:
            self.bus.publish(TasksAdded(tuple(added), batch_id or None))
        return SubmitResult(tuple(added), tuple(skipped), batch_id)

    # ------------------------------------------------------------------ claim

    def claim_next(
        self,
        *,
        kind: ModelKind,
        account_id: str,
        models: Sequence[str],
        owner_id: str,
        deadline_s: float,
    ) -> Claim | None:
        """Take the head pending task (priority, then age) for one of ``models``; None if none.

        The row moves to ``running`` in the same transaction that chose it. On PostgreSQL the
        candidate is locked with SKIP LOCKED; on SQLite the writer lock serialises claims.
        """
        if not models:
            return None
        now = self.clock.now()
        # Idle workers ask every second: look with a read (WAL readers never wait) before
        # taking the write lock another process may be holding. Not while a backlog drains
        # (the last claim found a task): there the look is a wasted read, ~20 % of the CPU of
        # a claim; the claim's own query decides either way.
        backlog = tuple(models)
        if not self._backlog.get(backlog) and self.peek_next(models) is None:
            return None
        with write_tx(self.engine) as conn:
            candidate = conn.execute(_HEAD, {"models": list(models), "now": now}).scalar()
            self._backlog[backlog] = candidate is not None
            if candidate is None:
                return None
            try:
                row = conn.execute(
                    _CLAIM,
                    {
                        "candidate": candidate,
                        "claim_account_id": account_id,
                        "claim_owner_id": owner_id,
                        "claim_now": now,
                        "claim_deadline_at": now + deadline_s,
                    },
                ).one_or_none()
            except IntegrityError:
                # The partial unique index refused a second running task on this web account.
                # The lane's lock should make this impossible; the database is the last line.
                log.error("[%s %s] database refused a second running task", kind.value, account_id)
                conn.rollback()
                return None
            if row is None:
                return None
            claim = Claim(
                task_id=row.task_id,
                attempt=row.attempt,
                lease=row.lease,
                max_attempts=row.max_attempts,
                model=row.model,
                model_kind=kind,
                account_id=account_id,
                owner_id=owner_id,
                prompt=row.prompt,
                system_prompt=row.system_prompt,
                started_at=now,
                deadline_at=row.deadline_at,
                created_at=row.created_at,
            )
            self._event(
                conn,
                claim.task_id,
                "state",
                f"attempt {claim.attempt}/{claim.max_attempts} started on {account_id}",
                lane=kind.value,
                account_id=account_id,
                attempt=claim.attempt,
                at=now,
            )
        self._publish_changes(
            [
                TaskChange(
                    claim.task_id,
                    {
                        "state": RUNNING,
                        "account_id": account_id,
                        "owner_id": owner_id,
                        "attempt": claim.attempt,
                        "lease": claim.lease,
                        "started_at": now,
                        "heartbeat_at": now,
                        "progress_chars": 0,
                        "not_before": None,
                        "deadline_at": claim.deadline_at,
                        "keep_attempt": False,
                    },
                )
            ]
        )
        return claim

    # ------------------------------------------------------------------ attempt outcomes

    def _finish(
        self,
        claim: Claim,
        values: dict[str, Any],
        message: str,
        *,
        event_kind: str = "state",
        durable: bool = True,
        fence: ColumnElement[bool] | None = None,
    ) -> bool:
        now = self.clock.now()
        with write_tx(self.engine, durable=durable) as conn:
            if fence is None:
                params = {
                    **values,
                    "fence_task_id": claim.task_id,
                    "fence_attempt": claim.attempt,
                    "fence_lease": claim.lease,
                }
                changed = conn.execute(_FENCED_UPDATE, params).rowcount
            else:
                changed = conn.execute(update(T).where(fence).values(**values)).rowcount
            if changed != 1:
                return False
            self._event(
                conn,
                claim.task_id,
                event_kind,
                message,
                lane=claim.model_kind.value,
                account_id=claim.account_id,
                attempt=claim.attempt,
                at=now,
            )
        self._publish_changes([TaskChange(claim.task_id, values)])
        return True

    def finish_success(
        self,
        claim: Claim,
        text: str,
        *,
        reasoning: str | None = None,
        usage: dict[str, int] | None = None,
        plain: str | None = None,
    ) -> bool:
        now = self.clock.now()
        values = {
            "state": TaskState.SUCCESS.value,
            "finished_at": now,
            "result_text": text,
            "result_plain": plain,
            "reasoning_text": reasoning,
            "usage_json": json.dumps(usage) if usage else None,
            "progress_chars": len(text),
            "error_kind": None,
            "error_message": None,
            "owner_id": None,
        }
        took = now - claim.started_at
        return self._finish(claim, values, f"succeeded ({len(text)} chars, {took:.1f} s)")

    def finish_failed(self, claim: Claim, kind: ErrorKind, message: str) -> bool:
        values = {
            "state": TaskState.FAILED.value,
            "finished_at": self.clock.now(),
            "error_kind": kind.value,
            "error_message": message,
            "owner_id": None,
        }
        return self._finish(claim, values, f"failed: {kind.value}: {message}")

    def finish_canceled(self, claim: Claim, message: str = "canceled by operator") -> bool:
        values = {
            "state": TaskState.CANCELED.value,
            "finished_at": self.clock.now(),
            "error_kind": ErrorKind.CANCELED.value,
            "error_message": message,
            "owner_id": None,
        }
        return self._finish(claim, values, message)

    def requeue(
        self,
        claim: Claim,
        *,
        not_before: float | None,
        keep_attempt: bool,
        kind: ErrorKind | None,
        message: str,
        event_kind: str = "retry",
    ) -> bool:
        """running → pending on the same row: a retry (new attempt) or a deferral (same one).

        If a cancel was requested meanwhile (perhaps by another process, after the attempt last
        looked), the row ends canceled instead: a cancel survives retries and shutdowns.
        """
        with read_tx(self.engine) as conn:
            flagged = conn.execute(select(T.c.cancel_requested).where(_fence(claim))).scalar()
        if flagged:
            return self.finish_canceled(claim, f"canceled by operator ({message})")
        values: dict[str, Any] = {
            "state": PENDING,
            "not_before": not_before,
            "keep_attempt": keep_attempt,
            "owner_id": None,
            "account_id": None,
            "heartbeat_at": None,
        }
        if kind is not None:
            values["error_kind"] = kind.value
            values["error_message"] = message
        fence = and_(_fence(claim), T.c.cancel_requested == False)  # noqa: E712
        changed = self._finish(
            claim, values, message, event_kind=event_kind, durable=False, fence=fence
        )
        if not changed and self._still_ours_but_flagged(claim):
            return self.finish_canceled(claim, f"canceled by operator ({message})")
        return changed

    def _still_ours_but_flagged(self, claim: Claim) -> bool:
        with read_tx(self.engine) as conn:
            return bool(conn.execute(select(T.c.cancel_requested).where(_fence(claim))).scalar())

    # ------------------------------------------------------------------ heartbeats

    def heartbeat(self, owner_id: str, beats: dict[str, tuple[int, int, int]]) -> set[str]:
        """Beat every running attempt of this process in one transaction.

        ``beats`` maps task id → (attempt, lease, progress_chars). Returns the ids whose row is
        no longer this attempt's (reaped, or finished elsewhere): their attempts are zombies.
        """
        if not beats:
            return set()
        now = self.clock.now()
        ids = list(beats)
        lost: set[str] = set()
        with write_tx(self.engine) as conn:
            for chunk in _chunks(ids):
                progress = case(
                    {tid: beats[tid][2] for tid in chunk},
                    value=T.c.task_id,
                    else_=T.c.progress_chars,
                )
                conn.execute(
                    update(T)
                    .where(T.c.owner_id == owner_id, T.c.state == RUNNING, T.c.task_id.in_(chunk))
                    .values(heartbeat_at=now, progress_chars=progress)
                )
                current = {
                    r.task_id: (r.attempt, r.lease)
                    for r in conn.execute(
                        select(T.c.task_id, T.c.attempt, T.c.lease).where(
                            T.c.owner_id == owner_id,
                            T.c.state == RUNNING,
                            T.c.task_id.in_(chunk),
                        )
                    )
                }
                for tid in chunk:
                    if current.get(tid) != beats[tid][:2]:
                        lost.add(tid)
        self._publish_changes(
            (
                TaskChange(tid, {"heartbeat_at": now, "progress_chars": beats[tid][2]})
                for tid in ids
                if tid not in lost
            ),
            heartbeat=True,
        )
        return lost

    # ------------------------------------------------------------------ reaper / orphans

    def reap_stale(
        self,
        *,
        dead_after: float,
        kind: ModelKind | None = None,
        lost_backoff: float = 0.0,
        alive: Mapping[str, tuple[int, int]] | None = None,
    ) -> list[ReleasedTask]:
        """Take back running rows whose heartbeat is older than ``dead_after`` seconds.

        ``alive`` maps task id → (attempt, lease) of attempts this process is running right
        now: they are never reaped by their own process (after a suspend every heartbeat looks
        old, ours included). Checked with a read first: no write lock when nothing is stale.
        """
        cutoff = self.clock.now() - dead_after
        where = [T.c.state == RUNNING, T.c.heartbeat_at < cutoff]
        if kind is not None:
            where.append(T.c.model_kind == kind.value)
        with read_tx(self.engine) as conn:
            stale = conn.execute(select(T.c.task_id, T.c.attempt, T.c.lease).where(*where)).all()
        alive = alive or {}
        candidates = [r.task_id for r in stale if alive.get(r.task_id) != (r.attempt, r.lease)]
        if not candidates:
            return []
        return self._release_lost(
            and_(*where, T.c.task_id.in_(candidates)),
            f"no heartbeat for {dead_after:.0f} s: declared dead",
            lost_backoff,
        )

    def recover_orphans(self, live_owner_ids: Sequence[str]) -> list[ReleasedTask]:
        """At start: running rows owned by no live scheduler are handled at once, not in 90 s."""
        where = and_(
            T.c.state == RUNNING,
            or_(T.c.owner_id.is_(None), T.c.owner_id.not_in(list(live_owner_ids))),
        )
        return self._release_lost(where, "its scheduler is gone (crash or kill): orphan", 0.0)

    def _release_lost(
        self, where: ColumnElement[bool], reason: str, lost_backoff: float
    ) -> list[ReleasedTask]:
        now = self.clock.now()
        released: list[ReleasedTask] = []
        changes: list[TaskChange] = []
        with write_tx(self.engine, durable=True) as conn:
            rows = conn.execute(
                select(
                    T.c.task_id,
                    T.c.attempt,
                    T.c.lease,
                    T.c.max_attempts,
                    T.c.owner_id,
                    T.c.cancel_requested,
                    T.c.model_kind,
                    T.c.account_id,
                    T.c.lost_count,
                ).where(where)
            ).all()
            for r in rows:
                # A lost attempt counts as an attempt: a task that crashes the app or hangs the
                # site every time must end, not loop forever.
                values: dict[str, Any] = {
                    "owner_id": None,
                    "lost_count": r.lost_count + 1,
                    "heartbeat_at": None,
                }
                if r.cancel_requested:
                    state = TaskState.CANCELED
                    values.update(
                        finished_at=now,
                        error_kind=ErrorKind.CANCELED.value,
                        error_message=f"canceled by operator ({reason})",
                    )
                elif r.attempt < r.max_attempts:
                    state = TaskState.PENDING
                    values.update(
                        not_before=now + lost_backoff,
                        account_id=None,
                        keep_attempt=False,
                        error_kind=ErrorKind.LOST.value,
                        error_message=reason,
                    )
                else:
                    state = TaskState.FAILED
                    values.update(
                        finished_at=now,
                        error_kind=ErrorKind.LOST.value,
                        error_message=f"{reason}; no attempts left",
                    )
                values["state"] = state.value
                changed = conn.execute(
                    update(T)
                    .where(
                        T.c.task_id == r.task_id,
                        T.c.state == RUNNING,
                        T.c.attempt == r.attempt,
                        T.c.lease == r.lease,
                    )
                    .values(**values)
                ).rowcount
                if changed != 1:
                    continue
                self._event(
                    conn,
                    r.task_id,
                    "state",
                    f"attempt {r.attempt} lost ({reason}) → {state.value}",
                    lane=r.model_kind,
                    account_id=r.account_id,
                    attempt=r.attempt,
                    at=now,
                )
                released.append(ReleasedTask(r.task_id, r.owner_id, r.attempt, state))
                changes.append(TaskChange(r.task_id, values))
        self._publish_changes(changes)
        return released

    # ------------------------------------------------------------------ operator actions

    def request_cancel(
        self, task_ids: Sequence[str] | None = None, *, batch_id: str | None = None
    ) -> CancelResult:
        """Pending → canceled at once; running → flagged (stops at its next checkpoint)."""
        now = self.clock.now()
        canceled: list[str] = []
        requested: list[str] = []
        targets: list[ColumnElement[bool]] = []
        if task_ids is not None:
            targets = [T.c.task_id.in_(chunk) for chunk in _chunks(list(task_ids))]
        if batch_id is not None:
            targets = [T.c.batch_id == batch_id]
        msg = "canceled by operator"
        with write_tx(self.engine, durable=True) as conn:
            for target in targets:
                canceled += (
                    conn.execute(
                        update(T)
                        .where(target, T.c.state == PENDING)
                        .values(
                            state=TaskState.CANCELED.value,
                            cancel_requested=True,
                            finished_at=now,
                            error_kind=ErrorKind.CANCELED.value,
                            error_message=msg,
                            not_before=None,
                            keep_attempt=False,
                        )
                        .returning(T.c.task_id)
                    )
                    .scalars()
                    .all()
                )
                requested += (
                    conn.execute(
                        update(T)
                        .where(target, T.c.state == RUNNING, T.c.cancel_requested == False)  # noqa: E712
                        .values(cancel_requested=True)
                        .returning(T.c.task_id)
                    )
                    .scalars()
                    .all()
                )
            for tid in canceled:
                self._event(conn, tid, "cancel", "canceled by operator while pending", at=now)
            for tid in requested:
                self._event(conn, tid, "cancel", "cancel requested while running", at=now)
        wanted = set(task_ids or [])
        unchanged = tuple(sorted(wanted - set(canceled) - set(requested)))
        self._publish_changes(
            [
                TaskChange(
                    t,
                    {
                        "state": TaskState.CANCELED.value,
                        "cancel_requested": True,
                        "finished_at": now,
                        "error_kind": ErrorKind.CANCELED.value,
                        "error_message": msg,
                        "not_before": None,
                    },
                )
                for t in canceled
            ]
            + [TaskChange(t, {"cancel_requested": True}) for t in requested]
        )
        return CancelResult(tuple(canceled), tuple(requested), unchanged)

    def retry(
        self,
        task_ids: Sequence[str] | None = None,
        *,
        all_failed: bool = False,
        extra_attempts: int = 3,
    ) -> list[str]:
        """Operator retry of failed/canceled rows: the same row goes back to pending.

        The attempt counter keeps counting (a zombie of the old attempt can never write over the
        new one) and the row gets ``extra_attempts`` more attempts.
        """
        terminal_retryable = [TaskState.FAILED.value, TaskState.CANCELED.value]
        if all_failed:
            targets = [T.c.state == TaskState.FAILED.value]
        else:
            targets = [
                and_(T.c.task_id.in_(chunk), T.c.state.in_(terminal_retryable))
                for chunk in _chunks(list(task_ids or []))
            ]
        now = self.clock.now()
        values: dict[str, Any] = {
            "state": PENDING,
            "cancel_requested": False,
            "keep_attempt": False,
            "not_before": None,
            "finished_at": None,
            "error_kind": None,
            "error_message": None,
            "result_text": None,
            "result_plain": None,
            "reasoning_text": None,
            "usage_json": None,
            "progress_chars": 0,
            "deadline_at": None,
            "owner_id": None,
            "account_id": None,
            "started_at": None,
            "heartbeat_at": None,
        }
        retried: list[str] = []
        with write_tx(self.engine, durable=True) as conn:
            for target in targets:
                retried += (
                    conn.execute(
                        update(T)
                        .where(target)
                        .values(max_attempts=T.c.attempt + extra_attempts, **values)
                        .returning(T.c.task_id)
                    )
                    .scalars()
                    .all()
                )
            for tid in retried:
                self._event(conn, tid, "retry", "retry requested by operator", at=now)
        if retried:
            rows = {r.task_id: r.max_attempts for r in self.get_many(retried)}
            self._publish_changes(
                TaskChange(t, {**values, "max_attempts": rows.get(t, extra_attempts)})
                for t in retried
            )
        return retried

    # ------------------------------------------------------------------ reads

    def get(self, task_id: str) -> TaskRecord | None:
        with read_tx(self.engine) as conn:
            row = conn.execute(_GET, {"task_id": task_id}).mappings().first()
        return TaskRecord.from_mapping(row) if row else None

    def get_many(self, task_ids: Sequence[str]) -> list[TaskRecord]:
        out: list[TaskRecord] = []
        with read_tx(self.engine) as conn:
            for chunk in _chunks(list(task_ids)):
                out += [
                    TaskRecord.from_mapping(m)
                    for m in conn.execute(select(T).where(T.c.task_id.in_(chunk))).mappings()
                ]
        return out

    def list_tasks(
        self,
        *,
        states: Sequence[TaskState] | None = None,
        batch_id: str | None = None,
        kind: ModelKind | None = None,
        columns: Sequence[str] = TASK_COLUMNS,
    ) -> list[TaskRecord]:
        stmt = select(T).order_by(T.c.seq)
        if states is not None:
            stmt = stmt.where(T.c.state.in_([s.value for s in states]))
        if batch_id is not None:
            stmt = stmt.where(T.c.batch_id == batch_id)
        if kind is not None:
            stmt = stmt.where(T.c.model_kind == kind.value)
        with read_tx(self.engine) as conn:
            return [TaskRecord.from_mapping(m) for m in conn.execute(stmt).mappings()]

    VIEW_COLUMNS = (
        "task_id",
        "seq",
        "batch_id",
        "title",
        "model",
        "model_kind",
        "account_id",
        "state",
        "attempt",
        "max_attempts",
        "started_at",
        "heartbeat_at",
        "finished_at",
        "not_before",
        "cancel_requested",
        "progress_chars",
        "error_kind",
        "error_message",
        "created_at",
        "priority",
    )

    def view_rows(
        self,
        task_ids: Sequence[str] | None = None,
        *,
        states: Sequence[TaskState] | None = None,
        before_seq: int | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[dict[str, Any]]:
        """What a task table shows, without the heavy texts (a prompt head instead of the
        prompt, no results). Pages (``before_seq``, ``limit``, ``newest_first``) let a window
        show the recent tasks at once and load years of history behind them."""
        names = [*self.VIEW_COLUMNS, "prompt_head"]
        stmt = select(
            *(T.c[name] for name in self.VIEW_COLUMNS),
            func.substr(T.c.prompt, 1, 160).label("prompt_head"),
        ).order_by(T.c.seq.desc() if newest_first else T.c.seq)
        if states is not None:
            state = T.c.state
            if limit is not None:
                # A page walks ix_tasks_seq and checks each row's state; with the state index
                # the planner would fetch and sort every row in those states first (the bulk of
                # the table, once it is mostly history). ``state || ''`` keeps it off that index.
                state = state.concat("")
            stmt = stmt.where(state.in_([s.value for s in states]))
        if before_seq is not None:
            stmt = stmt.where(T.c.seq < before_seq)
        if limit is not None:
            stmt = stmt.limit(limit)
        with read_tx(self.engine) as conn:
            if task_ids is None:
                results = [conn.execute(stmt)]
            else:
                results = [
                    conn.execute(stmt.where(T.c.task_id.in_(chunk)))
                    for chunk in _chunks(list(task_ids))
                ]
            # Plain tuples zipped into dicts: several times faster than row mappings.
            return [dict(zip(names, row, strict=True)) for result in results for row in result]

    def counts(self) -> dict[tuple[str, str], int]:
        """(model_kind, state) → number of tasks."""
        with read_tx(self.engine) as conn:
            rows = conn.execute(
                select(T.c.model_kind, T.c.state, func.count()).group_by(T.c.model_kind, T.c.state)
            ).all()
        return {(k, s): n for k, s, n in rows}

    def active_counts(self) -> dict[str, int]:
        """state → number of pending and running tasks (an index lookup, not a table scan)."""
        with read_tx(self.engine) as conn:
            rows = conn.execute(
                select(T.c.state, func.count())
                .where(T.c.state.in_([PENDING, RUNNING]))
                .group_by(T.c.state)
            ).all()
        return {state: n for state, n in rows}

    def pending_models(self) -> dict[str, int]:
        """model → number of pending tasks."""
        with read_tx(self.engine) as conn:
            rows = conn.execute(
                select(T.c.model, func.count()).where(T.c.state == PENDING).group_by(T.c.model)
            ).all()
        return {m: n for m, n in rows}

    def next_not_before(self, models: Sequence[str]) -> float | None:
        """Earliest time a delayed pending task for these models becomes claimable."""
        with read_tx(self.engine) as conn:
            return conn.execute(
                select(func.min(T.c.not_before)).where(
                    T.c.state == PENDING,
                    T.c.model.in_(list(models)),
                    T.c.not_before > self.clock.now(),
                )
            ).scalar()

    def peek_next(self, models: Sequence[str]) -> tuple[str, int] | None:
        """The task ``claim_next`` would take now, with its prompt length (for rate limits)."""
        now = self.clock.now()
        with read_tx(self.engine) as conn:
            row = conn.execute(_PEEK, {"models": list(models), "now": now}).first()
        return (row[0], int(row[1])) if row else None

    def running_ids(self, owner_id: str | None = None) -> set[str]:
        stmt = select(T.c.task_id).where(T.c.state == RUNNING)
        if owner_id is not None:
            stmt = stmt.where(T.c.owner_id == owner_id)
        with read_tx(self.engine) as conn:
            return set(conn.execute(stmt).scalars())

    def cancel_flags(self, owner_id: str) -> set[str]:
        """Running tasks of this scheduler whose cancel was requested (maybe by another process)."""
        with read_tx(self.engine) as conn:
            return set(
                conn.execute(
                    select(T.c.task_id).where(
                        T.c.owner_id == owner_id,
                        T.c.state == RUNNING,
                        T.c.cancel_requested == True,  # noqa: E712
                    )
                ).scalars()
            )

    def events(self, task_id: str) -> list[TaskEventRecord]:
        with read_tx(self.engine) as conn:
            rows = conn.execute(select(E).where(E.c.task_id == task_id).order_by(E.c.id)).all()
        return [TaskEventRecord(**r._mapping) for r in rows]

    def changes_since(self, event_id: int) -> tuple[int, set[str]]:
        """Task ids with an event after ``event_id`` (changes made by any process) + new cursor."""
        with read_tx(self.engine) as conn:
            rows = conn.execute(
                select(E.c.id, E.c.task_id).where(E.c.id > event_id).order_by(E.c.id)
            ).all()
        if not rows:
            return event_id, set()
        return rows[-1].id, {r.task_id for r in rows}

    def last_event_id(self) -> int:
        with read_tx(self.engine) as conn:
            return int(conn.execute(select(func.max(E.c.id))).scalar() or 0)
