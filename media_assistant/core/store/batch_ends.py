"""Reads behind "a batch has ended" notices (issue 12 item 5): which batches still have work,
and the state counts of the batches some tasks belong to. Reads only."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select

from media_assistant.core.store.base import PENDING, RUNNING, StoreBase, T, chunks
from media_assistant.core.store.db import read_tx


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
