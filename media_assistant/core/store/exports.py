"""Reads for exports (issue 12): tasks by id in a given order, and the input columns of a
scope. Reads only; each page its own short transaction (an open reader stops SQLite's WAL
checkpoints), so an export of 100,000 tasks neither holds them in memory nor blocks writers."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from sqlalchemy import select

from media_assistant.core.model.records import TaskRecord
from media_assistant.core.model.states import TaskState
from media_assistant.core.store.base import StoreBase, T, chunks
from media_assistant.core.store.db import read_tx


class ExportReads(StoreBase):
    def iter_records(self, task_ids: Sequence[str]) -> Iterator[TaskRecord]:
        """The tasks named, in the order given (a selection, a window's sorted rows), a chunk
        at a time; unknown ids are skipped."""
        for chunk in chunks(list(task_ids)):
            with read_tx(self.engine) as conn:
                rows = conn.execute(select(T).where(T.c.task_id.in_(chunk))).mappings().all()
            by_id = {row["task_id"]: TaskRecord.from_mapping(row) for row in rows}
            yield from (by_id[i] for i in chunk if i in by_id)

    def input_columns(
        self,
        *,
        task_ids: Sequence[str] | None = None,
        states: Sequence[TaskState] | None = None,
        batch_id: str | None = None,
        page: int = 2_000,
    ) -> list[str]:
        """Every source-file column of the scope's tasks, in order of first appearance (a
        tabular export's header). Only the small ``inputs_json`` column is read."""
        seen: dict[str, None] = {}

        def take(values: Sequence[str | None]) -> None:
            for raw in values:
                if not raw:
                    continue
                try:
                    data = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(data, dict):
                    for key in data:
                        seen.setdefault(str(key))

        if task_ids is not None:
            for chunk in chunks(list(task_ids)):
                with read_tx(self.engine) as conn:
                    found: dict[str, str | None] = dict(
                        conn.execute(
                            select(T.c.task_id, T.c.inputs_json).where(T.c.task_id.in_(chunk))
                        ).all()
                    )
                take([found.get(i) for i in chunk])
            return list(seen)
        after = -1
        while True:
            stmt = (
                select(T.c.seq, T.c.inputs_json)
                .where(T.c.seq > after)
                .order_by(T.c.seq)
                .limit(page)
            )
            if states is not None:
                stmt = stmt.where(T.c.state.in_([s.value for s in states]))
            if batch_id is not None:
                stmt = stmt.where(T.c.batch_id == batch_id)
            with read_tx(self.engine) as conn:
                rows = conn.execute(stmt).all()
            take([r.inputs_json for r in rows])
            if len(rows) < page:
                return list(seen)
            after = rows[-1].seq
