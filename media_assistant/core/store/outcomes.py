"""Outcomes of attempts: success, failure, cancel, back to the queue, heartbeats, log lines.

Every write here is fenced by the attempt's :class:`Claim` (task, attempt, lease).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, case, select, tuple_, update

from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import TaskChange, TaskLogged
from media_assistant.core.model.records import Claim
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.rules import fair
from media_assistant.core.store import api_gate, fair_store
from media_assistant.core.store.base import (
    INSERT_EVENT,
    IS_RUNNING,
    PENDING,
    StoreBase,
    T,
    chunks,
    claim_fence,
)
from media_assistant.core.store.db import read_tx, write_tx

# SET comes from the execute parameters (the columns being written); the fence from these.
# The finished row's priority and batch: its class now, which may not be its claim's (a
# priority changed while it ran).
_FINISHED = (T.c.priority, T.c.batch_id)
_FENCED_UPDATE = (
    update(T)
    .where(
        T.c.task_id == bindparam("fence_task_id"),
        IS_RUNNING,
        T.c.attempt == bindparam("fence_attempt"),
        T.c.lease == bindparam("fence_lease"),
    )
    .returning(*_FINISHED)
)


class OutcomeRoom(StoreBase):
    def log_event(
        self,
        task_id: str,
        kind: str,
        message: str,
        *,
        lane: str | None = None,
        account_id: str | None = None,
        attempt: int | None = None,
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
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
                code=code,
                params=params,
            )
        self.bus.publish(TaskLogged(task_id, kind, message, now))

    def _finish(
        self,
        claim: Claim,
        values: dict[str, Any],
        message: str,
        *,
        event_kind: str = "state",
        durable: bool = True,
        fence: ColumnElement[bool] | None = None,
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
        tokens_used: int | None = None,
    ) -> bool:
        now = self.clock.now()
        with write_tx(self.engine, durable=durable) as conn:
            if fence is None:
                fenced = {
                    **values,
                    "fence_task_id": claim.task_id,
                    "fence_attempt": claim.attempt,
                    "fence_lease": claim.lease,
                }
                row = conn.execute(_FENCED_UPDATE, fenced).first()
            else:
                stmt = update(T).where(fence).values(**values).returning(*_FINISHED)
                row = conn.execute(stmt).first()
            if row is None:
                return False
            if tokens_used is not None and claim.model_kind is ModelKind.API:
                # The tokens per minute were spent on an estimate at the claim: now the real count.
                estimated = api_gate.estimate_tokens(len(claim.prompt))
                api_gate.correct_tokens(conn, claim.account_id, estimated, tokens_used)
            event = self._event_row(
                claim.task_id,
                event_kind,
                message,
                claim.model_kind.value,
                claim.account_id,
                claim.attempt,
                now,
                code,
                params,
            )
            # Its class now, against the one its claim charged (run-first: none).
            moved = fair.class_key(fair.class_of(row.priority)) != (
                claim.fair_keys[0] if claim.fair_keys else fair.class_key(fair.FIRST)
            )
            active = True  # its batch node, as the settle saw it
            if not claim.fair_keys:
                conn.execute(INSERT_EVENT, event)
            else:
                # The fair share charged an estimate at the claim: now the real seconds. Last,
                # with the event row (one statement on PostgreSQL), so the charge rows stay
                # locked only until the commit that follows.
                took = max(0.0, float(values.get("finished_at") or now) - claim.started_at)
                active = fair_store.settle(
                    conn,
                    claim.fair_keys,
                    took,
                    claim.fair_charge,
                    now,
                    event=event,
                    shard=claim.fair_shard,
                    idle=not moved,
                )
                if values.get("state") == TaskState.SUCCESS.value:
                    known = self._durations.get(claim.model, took)
                    self._durations[claim.model] = 0.7 * known + 0.3 * took
            if moved or (values.get("state") == TaskState.PENDING.value and not active):
                # Its priority changed while it ran: the class it left may have nothing open
                # now, the one it joined (back in the queue) may not be active yet. Or back in
                # the queue under a node made inactive meanwhile (a priority moved there and
                # back while it ran): the fair share's choice would never pick it.
                fair_store.refresh(conn, [row.batch_id], now)
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
        finished_at: float | None = None,
    ) -> bool:
        """``finished_at``: when the answer arrived, if it was held (an outage) before this
        write; its duration and the lane's ETA count the generation, not the wait."""
        now = self.clock.now() if finished_at is None else min(finished_at, self.clock.now())
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
        return self._finish(
            claim,
            values,
            f"succeeded ({len(text)} chars, {took:.1f} s)",
            code=EventCode.SUCCEEDED,
            params={"chars": len(text), "seconds": round(took, 1)},
            tokens_used=(usage or {}).get("total_tokens"),
        )

    def finish_failed(
        self,
        claim: Claim,
        kind: ErrorKind,
        message: str,
        *,
        code: EventCode = EventCode.FAILED,
        params: Mapping[str, Any] | None = None,
    ) -> bool:
        values = {
            "state": TaskState.FAILED.value,
            "finished_at": self.clock.now(),
            "error_kind": kind.value,
            "error_message": message,
            "owner_id": None,
        }
        return self._finish(
            claim,
            values,
            f"failed: {kind.value}: {message}",
            code=code,
            params=params or {"error_kind": kind.value, "detail": message},
        )

    def finish_canceled(self, claim: Claim, message: str = "canceled by operator") -> bool:
        values = {
            "state": TaskState.CANCELED.value,
            "finished_at": self.clock.now(),
            "error_kind": ErrorKind.CANCELED.value,
            "error_message": message,
            "owner_id": None,
        }
        return self._finish(
            claim, values, message, code=EventCode.CANCELED, params={"detail": message}
        )

    def requeue(
        self,
        claim: Claim,
        *,
        not_before: float | None,
        keep_attempt: bool,
        kind: ErrorKind | None,
        message: str,
        event_kind: str = "retry",
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
        model: tuple[str, str] | None = None,
        max_attempts: int | None = None,
    ) -> bool:
        """running → pending on the same row: a retry (new attempt) or a deferral (same one).

        ``model``: (model, model_kind) the row moves to (a quality gate's fallback model);
        ``max_attempts``: its new attempt budget, if it changes.

        If a cancel was requested meanwhile (perhaps by another process, after the attempt last
        looked), the row ends canceled instead: a cancel survives retries and shutdowns.
        """
        with read_tx(self.engine) as conn:
            flagged = conn.execute(select(T.c.cancel_requested).where(claim_fence(claim))).scalar()
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
        if model is not None:
            values["model"], values["model_kind"] = model
        if max_attempts is not None:
            values["max_attempts"] = max_attempts
        fence = and_(claim_fence(claim), T.c.cancel_requested == False)  # noqa: E712
        changed = self._finish(
            claim,
            values,
            message,
            event_kind=event_kind,
            durable=False,
            fence=fence,
            code=code,
            params=params,
        )
        if not changed and self._still_ours_but_flagged(claim):
            return self.finish_canceled(claim, f"canceled by operator ({message})")
        return changed

    def _still_ours_but_flagged(self, claim: Claim) -> bool:
        with read_tx(self.engine) as conn:
            return bool(
                conn.execute(select(T.c.cancel_requested).where(claim_fence(claim))).scalar()
            )

    def heartbeat(
        self, owner_id: str, beats: dict[str, tuple[int, int, int]]
    ) -> set[tuple[str, int, int]]:
        """Beat every running attempt of this process in one transaction.

        ``beats`` maps task id → (attempt, lease, progress_chars), as the attempts were when
        the beat was asked for. Each row is beaten only while it is still that attempt's
        (fenced by attempt and lease, like every write of an attempt): between the snapshot and
        this transaction a deferral may have handed the row back and another account claimed it
        (lease + 1), and that newer attempt is not this beat's to touch. Returns the
        (task id, attempt, lease) of the attempts whose row is no longer theirs (reaped,
        finished or taken over elsewhere): zombies, to be interrupted — only those attempts,
        never a newer one of the same task.
        """
        if not beats:
            return set()
        now = self.clock.now()
        ids = list(beats)
        lost: set[tuple[str, int, int]] = set()
        with write_tx(self.engine) as conn:
            for chunk in chunks(ids):
                fence = tuple_(T.c.task_id, T.c.attempt, T.c.lease).in_(
                    [(tid, beats[tid][0], beats[tid][1]) for tid in chunk]
                )
                progress = case(
                    {tid: beats[tid][2] for tid in chunk},
                    value=T.c.task_id,
                    else_=T.c.progress_chars,
                )
                beaten = {
                    r.task_id
                    for r in conn.execute(
                        update(T)
                        .where(T.c.owner_id == owner_id, IS_RUNNING, fence)
                        .values(heartbeat_at=now, progress_chars=progress)
                        .returning(T.c.task_id)
                    )
                }
                lost.update((tid, *beats[tid][:2]) for tid in chunk if tid not in beaten)
        lost_ids = {tid for tid, _, _ in lost}
        self._publish_changes(
            (
                TaskChange(tid, {"heartbeat_at": now, "progress_chars": beats[tid][2]})
                for tid in ids
                if tid not in lost_ids
            ),
            heartbeat=True,
        )
        return lost
