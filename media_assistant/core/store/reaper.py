"""The reaper: running rows whose attempt is gone (no heartbeat for 90 s, or an orphan of a
crashed scheduler) go back to the queue or fail when they have no attempts left.

A row left running by a shutdown of ours is not a lost attempt: a scheduler that stops writes
back every row it still owns (:meth:`ReaperRoom.release_owned`), and one whose process died in
the middle of stopping (a second Ctrl-C, a service manager's kill after its timeout) has marked
its session ended when the stop began, so the next start returns those rows without using up
an attempt (:meth:`ReaperRoom.recover_orphans`).

Team mode: any workstation reaps any stale row, fenced as always. When the row's scheduler is
itself gone — its session stopped beating (a kill -9, a power cut, the network) on *another*
workstation — the death was not the task's: the row goes back without using an attempt (its
``lost_count`` still counts, and a task lost ``max_attempts`` times fails, so one that brings
every workstation down still ends). A restarting workstation recovers only its own sessions'
rows at once; another live workstation's rows are never touched there."""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, select, update

from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import TaskChange
from media_assistant.core.model.records import ReleasedTask
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.store import fair_store
from media_assistant.core.store.base import IS_RUNNING, StoreBase, T
from media_assistant.core.store.db import read_tx, write_tx
from media_assistant.core.store.schema import SessionRow

S = SessionRow.__table__  # type: ignore[attr-defined]


class ReaperRoom(StoreBase):
    def reap_stale(
        self,
        *,
        dead_after: float,
        kind: ModelKind | None = None,
        lost_backoff: float = 0.0,
        alive: Mapping[str, tuple[int, int]] | None = None,
        workstation: str | None = None,
    ) -> list[ReleasedTask]:
        """Take back running rows whose heartbeat is older than ``dead_after`` seconds.

        ``alive`` maps task id → (attempt, lease) of attempts this process is running right
        now: they are never reaped by their own process (after a suspend every heartbeat looks
        old, ours included). Checked with a read first: no write lock when nothing is stale.
        ``workstation``: the reaping one; a row whose scheduler on another workstation is gone
        returns without using an attempt (the module docstring says why).
        """
        cutoff = self.clock.now() - dead_after
        where = [IS_RUNNING, T.c.heartbeat_at < cutoff]
        if kind is not None:
            where.append(T.c.model_kind == kind.value)
        with read_tx(self.engine) as conn:
            stale = conn.execute(select(T.c.task_id, T.c.attempt, T.c.lease).where(*where)).all()
        alive = alive or {}
        candidates = [r.task_id for r in stale if alive.get(r.task_id) != (r.attempt, r.lease)]
        if not candidates:
            return []
        released: list[ReleasedTask] = []
        if workstation is not None:
            # Sessions gone on another workstation: stopped beating, or ended.
            gone = select(S.c.session_id).where(
                S.c.workstation.is_not(None),
                S.c.workstation != workstation,
                or_(S.c.heartbeat_at < cutoff, S.c.ended_at.is_not(None)),
            )
            released = self._release_lost(
                and_(*where, T.c.task_id.in_(candidates), T.c.owner_id.in_(gone)),
                f"its workstation stopped answering for {dead_after:.0f} s",
                0.0,
                cause=("workstation", dead_after),
                blameless=True,
                stale_before=cutoff,
            )
        return released + self._release_lost(
            and_(*where, T.c.task_id.in_(candidates)),
            f"no heartbeat for {dead_after:.0f} s: declared dead",
            lost_backoff,
            cause=("heartbeat", dead_after),
            stale_before=cutoff,
        )

    def recover_orphans(
        self,
        live_owner_ids: Sequence[str],
        workstation: str | None = None,
        *,
        dead_after: float | None = None,
    ) -> list[ReleasedTask]:
        """At start: running rows owned by no live scheduler are handled at once, not in 90 s.

        A row whose session had begun a shutdown of its own (``sessions.ended_at`` set) goes
        back to the queue without using up an attempt; any other is a lost attempt (a crash or
        a kill), which counts, so a task that crashes the app every time still ends.

        ``workstation`` (team mode): only this workstation's own sessions' rows (and rows of
        sessions that name none: older ones, a copied store); another workstation's rows are
        its own, or the reaper's once their heartbeat stops.

        ``dead_after`` (team mode): of this workstation's own sessions, only those that ended, or
        stopped beating that long ago, or ran on this very host (its data dir's lock, held by
        the caller, proves none of them runs) — never a live one elsewhere that shares the name
        (a start refuses that case: core/store/sessions.py; this holds should one slip by)."""
        not_live = and_(
            IS_RUNNING,
            or_(T.c.owner_id.is_(None), T.c.owner_id.not_in(list(live_owner_ids))),
        )
        if workstation is not None:
            others = select(S.c.session_id).where(
                S.c.workstation.is_not(None), S.c.workstation != workstation
            )
            not_live = and_(not_live, or_(T.c.owner_id.is_(None), T.c.owner_id.not_in(others)))
            if dead_after is not None:
                alive_elsewhere = select(S.c.session_id).where(
                    S.c.workstation == workstation,
                    S.c.host != socket.gethostname(),
                    S.c.ended_at.is_(None),
                    S.c.heartbeat_at >= self.clock.now() - dead_after,
                )
                not_live = and_(
                    not_live,
                    or_(T.c.owner_id.is_(None), T.c.owner_id.not_in(alive_elsewhere)),
                )
        stopped = select(S.c.session_id).where(S.c.ended_at.is_not(None))
        released = self._release_lost(
            and_(not_live, T.c.owner_id.in_(stopped)),
            "its scheduler was shutting down and ended before writing it back",
            0.0,
            cause=("shutdown", 0.0),
            interrupted=True,
        )
        return released + self._release_lost(
            not_live, "its scheduler is gone (crash or kill): orphan", 0.0, cause=("orphan", 0.0)
        )

    def release_owned(self, owner_id: str, reason: str) -> list[ReleasedTask]:
        """At shutdown, after the lanes stopped: every row this session still holds goes back
        to the queue, its attempt not used up (canceled if a cancel was asked for). Attempts
        that outlasted the shutdown's wait are abandoned; their late writes are fenced out."""
        return self._release_lost(
            and_(IS_RUNNING, T.c.owner_id == owner_id),
            reason,
            0.0,
            cause=("shutdown", 0.0),
            interrupted=True,
        )

    def _release_lost(
        self,
        where: ColumnElement[bool],
        reason: str,
        lost_backoff: float,
        *,
        cause: tuple[str, float],
        interrupted: bool = False,
        blameless: bool = False,
        stale_before: float | None = None,
    ) -> list[ReleasedTask]:
        """``interrupted``: the attempt was stopped by its own scheduler, not lost: back to the
        queue with the attempt not used up (``keep_attempt``) and ``lost_count`` unchanged.
        ``blameless``: lost with its workstation: back with the attempt not used up, counted in
        ``lost_count`` (failed once that reaches ``max_attempts``).
        ``stale_before``: the reaper's cutoff, tested again by each row's UPDATE (issue 27 item 6):
        a heartbeat that commits between the look and the write wins — on PostgreSQL the UPDATE
        waits for the beat's row lock, then re-reads the row it changes."""
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
                    T.c.batch_id,
                ).where(where)
            ).all()
            batches: set[str] = set()  # of the rows released here
            for r in rows:
                values: dict[str, Any] = {"owner_id": None, "heartbeat_at": None}
                if r.cancel_requested:
                    state = TaskState.CANCELED
                    values.update(
                        finished_at=now,
                        error_kind=ErrorKind.CANCELED.value,
                        error_message=f"canceled by operator ({reason})",
                    )
                elif interrupted or (blameless and r.lost_count + 1 < r.max_attempts):
                    state = TaskState.PENDING
                    values.update(not_before=None, account_id=None, keep_attempt=True)
                    if blameless:
                        values.update(error_kind=ErrorKind.LOST.value, error_message=reason)
                elif blameless:
                    state = TaskState.FAILED
                    values.update(
                        finished_at=now,
                        error_kind=ErrorKind.LOST.value,
                        error_message=f"{reason}; lost {r.lost_count + 1} times",
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
                if not interrupted:
                    # A lost attempt counts as an attempt: a task that crashes the app or hangs
                    # the site every time must end, not loop forever.
                    values["lost_count"] = r.lost_count + 1
                values["state"] = state.value
                fence = [T.c.task_id == r.task_id, IS_RUNNING, T.c.attempt == r.attempt]
                fence.append(T.c.lease == r.lease)
                if stale_before is not None:
                    fence.append(T.c.heartbeat_at < stale_before)
                changed = conn.execute(update(T).where(*fence).values(**values)).rowcount
                if changed != 1:
                    continue
                what = (
                    f"attempt {r.attempt} interrupted ({reason}) → {state.value}"
                    + (" (attempt not used up)" if state is TaskState.PENDING else "")
                    if interrupted
                    else f"attempt {r.attempt} lost ({reason}) → {state.value}"
                    + (" (attempt not used up)" if blameless and state is TaskState.PENDING else "")
                )
                code, params = (
                    (EventCode.RETURNED_SHUTDOWN, None)
                    if interrupted and state is TaskState.PENDING
                    else (EventCode.CANCELED, None)
                    if interrupted
                    else (
                        EventCode.LOST,
                        {
                            "attempt": r.attempt,
                            "cause": cause[0],
                            "seconds": cause[1],
                            "state": state.value,
                        },
                    )
                )
                self._event(
                    conn,
                    r.task_id,
                    "state",
                    what,
                    lane=r.model_kind,
                    account_id=r.account_id,
                    attempt=r.attempt,
                    at=now,
                    code=code,
                    params=params,
                )
                released.append(ReleasedTask(r.task_id, r.owner_id, r.attempt, state, r.lease))
                changes.append(TaskChange(r.task_id, values))
                batches.add(r.batch_id)
            # No finish settles these attempts: their estimates leave the fair share's seconds
            # in flight here, a class of a batch with nothing left open gives its share back,
            # and a task back in the queue in a class its priority moved it to while it ran
            # finds that class active (core/store/fair_store.py ``uncharge``, ``refresh``).
            charged = fair_store.claim_charges(conn, [r.task_id for r in released])
            fair_store.uncharge(conn, charged.values(), now)
            fair_store.refresh(conn, sorted(batches), now)
        self._publish_changes(changes)
        return released
