"""The reaper: running rows whose attempt is gone (no heartbeat for 90 s, or an orphan of a
crashed scheduler) go back to the queue or fail when they have no attempts left."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, select, update

from media_assistant.core.db import read_tx, write_tx
from media_assistant.core.errors import ErrorKind
from media_assistant.core.event_codes import EventCode
from media_assistant.core.events import TaskChange
from media_assistant.core.records import ReleasedTask
from media_assistant.core.states import ModelKind, TaskState
from media_assistant.core.store.base import RUNNING, StoreBase, T


class ReaperRoom(StoreBase):
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
            cause=("heartbeat", dead_after),
        )

    def recover_orphans(self, live_owner_ids: Sequence[str]) -> list[ReleasedTask]:
        """At start: running rows owned by no live scheduler are handled at once, not in 90 s."""
        where = and_(
            T.c.state == RUNNING,
            or_(T.c.owner_id.is_(None), T.c.owner_id.not_in(list(live_owner_ids))),
        )
        return self._release_lost(
            where, "its scheduler is gone (crash or kill): orphan", 0.0, cause=("orphan", 0.0)
        )

    def _release_lost(
        self,
        where: ColumnElement[bool],
        reason: str,
        lost_backoff: float,
        *,
        cause: tuple[str, float],
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
                    code=EventCode.LOST,
                    params={
                        "attempt": r.attempt,
                        "cause": cause[0],
                        "seconds": cause[1],
                        "state": state.value,
                    },
                )
                released.append(ReleasedTask(r.task_id, r.owner_id, r.attempt, state))
                changes.append(TaskChange(r.task_id, values))
        self._publish_changes(changes)
        return released
