"""Submission numbers (``tasks.seq``): handed out from a counter, not read as ``max(seq) + 1``.

``seq`` orders the queue at equal priority and must stay unique: the task table's and the
exports' keyset pages (``seq > after``: core/store/reads.py, exports.py) and the rollups
(core/store/rollups.py, an answer's entry is found again by its ``seq``) rely on it. Reading
``max(seq) + 1`` is right only while nobody else can submit until the reader commits: on a team
database that was one team-wide lock held for a whole submission, so a 60,000-task import made
every other workstation's import wait for it (and fail on the 10 s lock timeout).

So the next number lives in a counter, the ``counters`` row ``task_seq`` (schema version 16,
which seeds it with the highest ``seq`` there is; a build older than that would still write
``max(seq) + 1`` and refuses the newer schema). :func:`reserve` takes ``n`` numbers in one
``UPDATE … RETURNING``: on PostgreSQL in a short transaction of its own, committed before the
submission's long one (core/store/queue.py ``submit``), so the row is locked for one round
trip, never for an import. Numbers of a submission that fails later are not given back: ``seq``
may have gaps, which nothing minds; and a range reserved earlier may commit later than one
reserved after it (a small import beside a big one), which the readers above take as they take
any commit that lands between two of their pages.

Why a counter row rather than a PostgreSQL sequence: ``store copy`` needs a contiguous range
(each copied task keeps its source ``seq`` plus one offset, so copied tasks keep their order),
which ``nextval`` cannot hand out atomically; and SQLite has no sequences. The counter works the
same on both engines: on SQLite it is updated inside the submission's own transaction (its write
lock serialises every writer anyway), on PostgreSQL the update's row lock does. It is never
below the highest ``seq`` stored (``greatest(counter, max(seq))``), so a row numbered by any
other path cannot be numbered twice. A table of its own rather than a ``meta`` row: a
workstation's role (README, "What one workstation can do to the others") may update it without
being able to restamp the schema version.
"""

from __future__ import annotations

from sqlalchemy import Connection, case, func, literal, select, update

from media_assistant.core.store.schema import CounterRow, TaskRow
from media_assistant.core.store.upsert import upsert

T = TaskRow.__table__  # type: ignore[attr-defined]
C = CounterRow.__table__  # type: ignore[attr-defined]

NAME = "task_seq"


def seed(conn: Connection) -> None:
    """The counter's table and row, at the highest ``seq`` stored (a schema step; a fresh
    database: 0). An existing row is left as it is."""
    C.create(conn, checkfirst=True)
    top = int(conn.execute(select(func.coalesce(func.max(T.c.seq), 0))).scalar() or 0)
    upsert(conn, C, {"name": NAME, "value": top}, key=["name"])


def reserve(conn: Connection, n: int) -> int:
    """Take ``n`` submission numbers; the first of them (the range is ``first … first + n - 1``).
    Inside the caller's transaction: the counter's row stays locked until it ends."""
    stored = func.coalesce(select(func.max(T.c.seq)).scalar_subquery(), 0)
    top = case((C.c.value > stored, C.c.value), else_=stored) + literal(n)
    stmt = update(C).where(C.c.name == NAME).values(value=top).returning(C.c.value)
    value = conn.execute(stmt).scalar()
    if value is None:  # no counter row (a tool deleted it): made, then taken from
        seed(conn)
        value = conn.execute(stmt).scalar_one()
    return int(value) - n + 1
