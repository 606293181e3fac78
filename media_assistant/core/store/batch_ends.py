"""What notices need of the store (issue 12 item 5): which batches still have work, the state
counts of the batches some tasks belong to, when a batch last finished a task — and, in a team,
which workstation sends a notice to the webhooks (:meth:`BatchEndReads.claim_notice`)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select

from media_assistant.core.store.base import PENDING, RUNNING, StoreBase, T, chunks
from media_assistant.core.store.db import read_tx, write_tx
from media_assistant.core.store.schema import NoticeSentRow
from media_assistant.core.store.upsert import upsert

N = NoticeSentRow.__table__  # type: ignore[attr-defined]
NOTICES_KEPT_S = 30 * 24 * 3600


class BatchEndReads(StoreBase):
    def open_batches(self) -> set[str]:
        """Batches with a pending or running task (an index lookup on the state)."""
        with read_tx(self.engine) as conn:
            return set(
                conn.execute(
                    select(T.c.batch_id).where(T.c.state.in_([PENDING, RUNNING])).distinct()
                ).scalars()
            )

    def batches_of(self, task_ids: Sequence[str]) -> set[str]:
        """The batches these tasks belong to."""
        out: set[str] = set()
        with read_tx(self.engine) as conn:
            for chunk in chunks(list(task_ids)):
                out.update(
                    conn.execute(
                        select(T.c.batch_id).where(T.c.task_id.in_(chunk)).distinct()
                    ).scalars()
                )
        return out

    def batch_counts(self, task_ids: Sequence[str]) -> dict[str, dict[str, int]]:
        """batch id → state → number of tasks, for every batch these tasks belong to."""
        batches: set[str] = set()
        with read_tx(self.engine) as conn:
            for chunk in chunks(list(task_ids)):
                batches.update(
                    conn.execute(
                        select(T.c.batch_id).where(T.c.task_id.in_(chunk)).distinct()
                    ).scalars()
                )
            out: dict[str, dict[str, int]] = {b: {} for b in batches}
            for chunk in chunks(sorted(batches)):
                rows = conn.execute(
                    select(T.c.batch_id, T.c.state, func.count())
                    .where(T.c.batch_id.in_(chunk))
                    .group_by(T.c.batch_id, T.c.state)
                ).all()
                for batch, state, n in rows:
                    out[batch][state] = int(n)
        return out

    def batch_finished_at(self, batch_id: str) -> float | None:
        """When the batch's last task ended (the same on every workstation: a notice's key)."""
        with read_tx(self.engine) as conn:
            value = conn.execute(
                select(func.max(T.c.finished_at)).where(T.c.batch_id == batch_id)
            ).scalar()
        return float(value) if value is not None else None

    def claim_notice(self, key: str, workstation: str | None) -> bool:
        """True for the first workstation to claim ``key``: it sends the notice to the webhooks;
        every other one only shows it. Claims a month old are forgotten."""
        now = self.clock.now()
        with write_tx(self.engine) as conn:
            conn.execute(N.delete().where(N.c.sent_at < now - NOTICES_KEPT_S))
            won = upsert(
                conn,
                N,
                {"key": key, "sent_at": now, "workstation": workstation},
                key=["key"],
                returning=[N.c.key],
            ).first()
        return won is not None
