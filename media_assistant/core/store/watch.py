"""One question for everything an idle workstation waits on (issue 28 item 3).

An idle scheduler used to ask a dozen questions a second — its accounts, its cancel flags, each
lane's next task, the next delayed retry, the reaper's stale rows, ``run``'s idle check —: 9 to
13 transactions a second per idle workstation, 500 a second for a team of forty waiting for a
batch. :func:`read_marks` asks them as one statement: marks that change whenever something an
idle workstation would act on changes (a task event, an account row, a pause, a batch), its own
tasks whose cancel was asked, when the next delayed task or scheduled batch comes due, and
whether some running row has stopped beating. The scheduler (core/lanes/queue_watch.py) asks it
once a second and only then asks the question whose mark moved.

Every mark is read from an index or a small table: ``task_events``' primary key, the accounts,
pauses and batches tables (a row each), ``ix_tasks_state_not_before``, ``ix_tasks_running``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, exists, func, select

from media_assistant.core.store.base import IS_PENDING, IS_RUNNING, E, T
from media_assistant.core.store.db import read_tx
from media_assistant.core.store.schema import AccountRow, BatchRow, QueuePauseRow

A = AccountRow.__table__  # type: ignore[attr-defined]
B = BatchRow.__table__  # type: ignore[attr-defined]
P = QueuePauseRow.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Marks:
    """What :func:`read_marks` saw. Two reads with equal marks saw no change that matters."""

    events: int  # the newest task event's id: a task was added, claimed, ended, cancelled…
    accounts: tuple[int, int]  # (rows, Σ version): every change of an account row raises one
    pauses: tuple[int, float]  # (rows, newest paused_at): a pause or a resume
    batches: tuple[int, float]  # (rows, newest updated_at): a schedule set, moved or dropped
    flagged: int  # this session's running tasks whose cancel was asked
    pending_due: float | None  # the earliest delayed pending task, after now
    batch_due: float | None  # the earliest scheduled batch start, after now
    stale: bool  # a running row has not beaten within the dead threshold
    hours: bool  # some batch has active hours (its window opens at a minute boundary)

    @property
    def next_due(self) -> float | None:
        dues = [d for d in (self.pending_due, self.batch_due) if d is not None]
        return min(dues) if dues else None

    def work_changed(self, older: Marks) -> bool:
        """A change that may give a lane something to claim (or take it away)."""
        return (self.events, self.pauses, self.batches) != (
            older.events,
            older.pauses,
            older.batches,
        )


def read_marks(engine: Engine, owner_id: str, now: float, dead_after: float) -> Marks:
    """The marks, in one statement of one read transaction."""
    stmt = select(
        select(func.max(E.c.id)).scalar_subquery(),
        select(func.count()).select_from(A).scalar_subquery(),
        select(func.sum(A.c.version)).scalar_subquery(),
        select(func.count()).select_from(P).scalar_subquery(),
        select(func.max(P.c.paused_at)).scalar_subquery(),
        select(func.count()).select_from(B).scalar_subquery(),
        select(func.max(B.c.updated_at)).scalar_subquery(),
        select(func.count())
        .where(
            T.c.owner_id == owner_id,
            IS_RUNNING,
            T.c.cancel_requested == True,  # noqa: E712
        )
        .scalar_subquery(),
        select(func.min(T.c.not_before)).where(IS_PENDING, T.c.not_before > now).scalar_subquery(),
        select(func.min(B.c.start_at)).where(B.c.start_at > now).scalar_subquery(),
        exists().where(IS_RUNNING, T.c.heartbeat_at < now - dead_after),
        exists().where(B.c.active_from.is_not(None)),
    )
    with read_tx(engine) as conn:
        row = conn.execute(stmt).one()
    return Marks(
        events=int(row[0] or 0),
        accounts=(int(row[1] or 0), int(row[2] or 0)),
        pauses=(int(row[3] or 0), float(row[4] or 0.0)),
        batches=(int(row[5] or 0), float(row[6] or 0.0)),
        flagged=int(row[7] or 0),
        pending_due=None if row[8] is None else float(row[8]),
        batch_due=None if row[9] is None else float(row[9]),
        stale=bool(row[10]),
        hours=bool(row[11]),
    )
