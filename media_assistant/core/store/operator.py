"""Operator actions: cancel and retry (from the window, the CLI, or another process)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, update

from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import TaskChange
from media_assistant.core.model.records import CancelResult
from media_assistant.core.model.states import TaskState
from media_assistant.core.store import fair_store
from media_assistant.core.store.base import (
    IS_PENDING,
    IS_RUNNING,
    PENDING,
    PROMPT_HEAD_CHARS,
    StoreBase,
    T,
    chunks,
)
from media_assistant.core.store.batches import retry_filter
from media_assistant.core.store.db import write_tx


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
                        .where(target, IS_PENDING)
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
                        .where(target, IS_RUNNING, T.c.cancel_requested == False)  # noqa: E712
                        .values(cancel_requested=True)
                        .returning(T.c.task_id)
                    )
                    .scalars()
                    .all()
                )
            for tid in canceled:
                self._event(
                    conn,
                    tid,
                    "cancel",
                    "canceled by operator while pending",
                    at=now,
                    code=EventCode.CANCELED_PENDING,
                )
            for tid in requested:
                self._event(
                    conn,
                    tid,
                    "cancel",
                    "cancel requested while running",
                    at=now,
                    code=EventCode.CANCEL_REQUESTED,
                )
            if canceled:  # a class of a batch with nothing left open gives its share back
                # Last, before the commit: the node rows stay locked only that long (a finish
                # of the batch's last tasks waits for them), not while the events go in.
                fair_store.refresh(conn, fair_store.batches_of(conn, canceled), now)
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
        include_poison: bool = False,
        extra_attempts: int = 3,
        batch_id: str | None = None,
        prompt: str | None = None,
    ) -> list[str]:
        """Operator retry of failed/canceled rows: the same row goes back to pending.

        ``all_failed``: every failed task (of ``batch_id``, if given) except those that would
        fail the same way again unchanged (content policy, prompt too long, bad input: see
        ``HOPELESS_KINDS``; retry them by id), and except poison pills — tasks whose every
        attempt failed the same way (``batches.is_poison_pill``) — unless ``include_poison``.
        ``prompt``: run it with this prompt instead
        (one task: "retry with an edited prompt").

        The attempt counter keeps counting (a zombie of the old attempt can never write over the
        new one) and the row gets ``extra_attempts`` more attempts; ``attempt_base`` remembers
        where this round began, so the window says "attempt 1 of 3 (retry 1)".
        """
        terminal_retryable = [TaskState.FAILED.value, TaskState.CANCELED.value]
        if all_failed:
            targets = [retry_filter(batch_id, skip_hopeless=True, skip_poison=not include_poison)]
        else:
            targets = [
                and_(T.c.task_id.in_(chunk), T.c.state.in_(terminal_retryable))
                for chunk in chunks(list(task_ids or []))
            ]
        if prompt is not None and (all_failed or len(task_ids or []) != 1 or not prompt.strip()):
            raise ValueError("an edited prompt is for one task, and cannot be empty")
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
        if prompt is not None:
            values["prompt"] = prompt
        # task id → (its new max_attempts, attempt_base, operator_retries)
        retried: dict[str, tuple[int, int, int]] = {}
        with write_tx(self.engine, durable=True) as conn:
            for target in targets:
                retried.update(
                    (row.task_id, (row.max_attempts, row.attempt_base, row.operator_retries))
                    for row in conn.execute(
                        update(T)
                        .where(target)
                        .values(
                            max_attempts=T.c.attempt + extra_attempts,
                            attempt_base=T.c.attempt,
                            operator_retries=T.c.operator_retries + 1,
                            **values,
                        )
                        .returning(
                            T.c.task_id, T.c.max_attempts, T.c.attempt_base, T.c.operator_retries
                        )
                    )
                )
            for tid, (_, _, rounds) in retried.items():
                self._event(
                    conn,
                    tid,
                    "retry",
                    "retry requested by operator"
                    + (" with an edited prompt" if prompt is not None else ""),
                    at=now,
                    code=EventCode.RETRY_REQUESTED,
                    params={"round": rounds, "edited": prompt is not None},
                )
            # Back in the queue: level with the active batches, no back-pay (fair share). Last,
            # before the commit: the node rows stay locked only that long.
            fair_store.refresh(conn, fair_store.batches_of(conn, list(retried)), now)
        values.pop("prompt", None)  # views carry a prompt head, not the prompt
        if prompt is not None:
            values["prompt_head"] = prompt[:PROMPT_HEAD_CHARS]
        self._publish_changes(
            TaskChange(
                t,
                {**values, "max_attempts": most, "attempt_base": base, "operator_retries": rounds},
            )
            for t, (most, base, rounds) in retried.items()
        )
        return list(retried)
