"""Read models: what the window, ``status`` and ``export`` show. Reads only, never a write.

With WAL a reader never waits for a writer (another process's or ours), so these run on the
database's reader threads while the writer thread is busy.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import bindparam, func, literal, or_, select

from media_assistant.core.model.records import (
    TASK_COLUMNS,
    TaskEventRecord,
    TaskRecord,
    WorkstationInfo,
)
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.store.base import (
    IS_RUNNING,
    PENDING,
    PROMPT_HEAD_CHARS,
    RUNNING,
    VIEW_COLUMNS,
    E,
    StoreBase,
    T,
    chunks,
)
from media_assistant.core.store.db import read_tx
from media_assistant.core.store.schema import AccountRow, SessionRow

A = AccountRow.__table__  # type: ignore[attr-defined]
S = SessionRow.__table__  # type: ignore[attr-defined]

_GET = select(T).where(T.c.task_id == bindparam("task_id"))


class ReadModel(StoreBase):
    def get(self, task_id: str) -> TaskRecord | None:
        with read_tx(self.engine) as conn:
            row = conn.execute(_GET, {"task_id": task_id}).mappings().first()
        return TaskRecord.from_mapping(row) if row else None

    def get_many(self, task_ids: Sequence[str]) -> list[TaskRecord]:
        out: list[TaskRecord] = []
        with read_tx(self.engine) as conn:
            for chunk in chunks(list(task_ids)):
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

    def iter_tasks(
        self,
        *,
        states: Sequence[TaskState] | None = None,
        batch_id: str | None = None,
        page: int = 1_000,
    ) -> Iterator[TaskRecord]:
        """Every matching task in submission order, read a page at a time (each page its own
        short transaction): an export of 100,000 tasks neither holds them all in memory nor
        keeps one read open for minutes (an open reader stops SQLite's WAL checkpoints)."""
        after = -1
        while True:
            stmt = select(T).where(T.c.seq > after).order_by(T.c.seq).limit(page)
            if states is not None:
                stmt = stmt.where(T.c.state.in_([s.value for s in states]))
            if batch_id is not None:
                stmt = stmt.where(T.c.batch_id == batch_id)
            with read_tx(self.engine) as conn:
                rows = [TaskRecord.from_mapping(m) for m in conn.execute(stmt).mappings()]
            yield from rows
            if len(rows) < page:
                return
            after = rows[-1].seq

    def count_tasks(
        self, *, states: Sequence[TaskState] | None = None, batch_id: str | None = None
    ) -> int:
        stmt = select(func.count()).select_from(T)
        if states is not None:
            stmt = stmt.where(T.c.state.in_([s.value for s in states]))
        if batch_id is not None:
            stmt = stmt.where(T.c.batch_id == batch_id)
        with read_tx(self.engine) as conn:
            return int(conn.execute(stmt).scalar() or 0)

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
        names = [*VIEW_COLUMNS, "prompt_head"]
        stmt = select(
            *(T.c[name] for name in VIEW_COLUMNS),
            func.substr(T.c.prompt, 1, PROMPT_HEAD_CHARS).label("prompt_head"),
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
                    for chunk in chunks(list(task_ids))
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

    def running_ids(self, owner_id: str | None = None) -> set[str]:
        stmt = select(T.c.task_id).where(IS_RUNNING)
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
                        IS_RUNNING,
                        T.c.cancel_requested == True,  # noqa: E712
                    )
                ).scalars()
            )

    def events(self, task_id: str) -> list[TaskEventRecord]:
        with read_tx(self.engine) as conn:
            rows = conn.execute(select(E).where(E.c.task_id == task_id).order_by(E.c.id)).all()
        return [TaskEventRecord(**r._mapping) for r in rows]

    def changes_since(
        self, event_id: int, *, exclude_origin: str | None = None
    ) -> tuple[int, set[str]]:
        """Task ids with an event after ``event_id`` (changes made by any process) + new cursor.

        ``exclude_origin``: leave out the changes one Store made (a window's own process
        already published them); the cursor still moves past them. A single cursor can skip
        rows whose ids committed out of order (PostgreSQL): the follower uses
        :meth:`events_after`, which also looks at the ids it has not seen yet.
        """
        rows = self.events_after(event_id)
        if not rows:
            return event_id, set()
        return rows[-1][0], {
            task_id for _, task_id, origin in rows if origin is None or origin != exclude_origin
        }

    def events_after(
        self, event_id: int, missing: Sequence[int] = ()
    ) -> list[tuple[int, str, str | None]]:
        """(id, task id, origin) of the events after ``event_id`` and of the ``missing`` ids
        at or below it that have committed since, by id."""
        clause = E.c.id > event_id
        if missing:
            clause = or_(clause, E.c.id.in_(list(missing)))
        with read_tx(self.engine) as conn:
            rows = conn.execute(
                select(E.c.id, E.c.task_id, E.c.origin).where(clause).order_by(E.c.id)
            ).all()
        return [(r.id, r.task_id, r.origin) for r in rows]

    def ping(self) -> None:
        """One round trip to the database (the team database's link probe: core/store/link.py)."""
        with read_tx(self.engine) as conn:
            conn.execute(select(literal(1))).scalar()

    def last_event_id(self) -> int:
        with read_tx(self.engine) as conn:
            return int(conn.execute(select(func.max(E.c.id))).scalar() or 0)

    def workstations(self, dead_after: float = 90.0) -> list[WorkstationInfo]:
        """Every workstation that ran a scheduler on this store or holds a web account here,
        by name (a workstation's own SQLite file: one, itself)."""
        now = self.clock.now()
        with read_tx(self.engine) as conn:
            sessions = conn.execute(
                select(
                    S.c.session_id, S.c.workstation, S.c.heartbeat_at, S.c.ended_at, S.c.app_version
                )
            ).all()
            web = conn.execute(
                select(A.c.account_id, A.c.workstation).where(
                    A.c.kind == ModelKind.WEB.value, A.c.workstation.is_not(None)
                )
            ).all()
            running = conn.execute(
                select(T.c.owner_id, func.count()).where(IS_RUNNING).group_by(T.c.owner_id)
            ).all()
        per_owner = {owner: n for owner, n in running}
        names = {s.workstation for s in sessions if s.workstation} | {w.workstation for w in web}
        out = []
        for name in sorted(names):
            mine = [s for s in sessions if s.workstation == name]
            latest = max(mine, key=lambda s: s.heartbeat_at, default=None)
            online = any(s.ended_at is None and s.heartbeat_at >= now - dead_after for s in mine)
            out.append(
                WorkstationInfo(
                    workstation=name,
                    online=online,
                    last_seen_s=max(0.0, now - latest.heartbeat_at) if latest else None,
                    version=latest.app_version if latest else None,
                    web_accounts=tuple(sorted(w.account_id for w in web if w.workstation == name)),
                    running=sum(per_owner.get(s.session_id, 0) for s in mine),
                )
            )
        return out
