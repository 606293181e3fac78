"""Operator actions: cancel and retry (from the window, the CLI, or another process)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, update

from media_assistant.core.db import write_tx
from media_assistant.core.errors import ErrorKind
from media_assistant.core.events import TaskChange
from media_assistant.core.records import CancelResult
from media_assistant.core.states import TaskState
from media_assistant.core.store.base import PENDING, RUNNING, StoreBase, T, chunks


class OperatorRoom(StoreBase):
    def request_cancel(
        self, task_ids: Sequence[str] | None = None, *, batch_id: str | None = None
    ) -> CancelResult:
        """Pending → canceled at once; running → flagged (stops at its next checkpoint)."""
        now = self.clock.now()
        canceled: list[str] = []
        requested: list[str] = []
        targets: list[ColumnElement[bool]] = []
        if task_ids is not None:
            targets = [T.c.task_id.in_(chunk) for chunk in chunks(list(task_ids))]
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
                for chunk in chunks(list(task_ids or []))
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
        retried: dict[str, int] = {}  # task id → its new max_attempts
        with write_tx(self.engine, durable=True) as conn:
            for target in targets:
                retried.update(
                    (row.task_id, row.max_attempts)
                    for row in conn.execute(
                        update(T)
                        .where(target)
                        .values(max_attempts=T.c.attempt + extra_attempts, **values)
                        .returning(T.c.task_id, T.c.max_attempts)
                    )
                )
            for tid in retried:
                self._event(conn, tid, "retry", "retry requested by operator", at=now)
        self._publish_changes(
            TaskChange(t, {**values, "max_attempts": most}) for t, most in retried.items()
        )
        return list(retried)
