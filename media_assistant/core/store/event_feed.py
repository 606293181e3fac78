"""The team database's change feed by transaction snapshot (issue 28 item 7): every task event
committed since the last look, however long the transaction that wrote it ran.

Event ids come from a sequence and commit out of order: a ``store copy`` or a 60,000-task import
holds ids for a minute while other workstations commit higher ones. A cursor on ids had to
remember the ids it skipped and give up on them at some point (30 s, 10,000 ids), and could not
know about ids below its start that were still uncommitted: such changes never reached a window.

On PostgreSQL each event row records the transaction that wrote it (``task_events.xid``,
schema 12: core/store/migrations.py, ``pg_current_xact_id()`` by default), and a look is one
statement that returns the events *not visible in the previous look's snapshot* together with
its own snapshot (``pg_current_snapshot()``, the statement's). An event is reported exactly
once: when its transaction has committed and the previous snapshot did not see it — whatever
its id, however long its transaction. ``ix_task_events_xid`` serves the range from the
previous snapshot's ``xmin`` (the oldest transaction then in progress). SQLite commits in id
order: the follower keeps its id cursor there (core/store/follower.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, text

from media_assistant.core.store.db import read_tx


@dataclass(frozen=True, slots=True)
class FeedMark:
    """Where a reader of the feed stands: the newest event id it saw (what a window's rows
    reflect) and, on PostgreSQL, the snapshot its last look was taken in."""

    event_id: int
    snapshot: str | None = None


def feed_mark(engine: Engine) -> FeedMark:
    """The newest event id and (PostgreSQL) the snapshot, from one statement: an event not
    visible in it is reported by the first :func:`committed_since`."""
    with read_tx(engine) as conn:
        if conn.dialect.name != "postgresql":
            top = conn.execute(text("SELECT max(id) FROM task_events")).scalar()
            return FeedMark(int(top or 0))
        row = conn.execute(
            text("SELECT (SELECT max(id) FROM task_events), pg_current_snapshot()::text")
        ).one()
    return FeedMark(int(row[0] or 0), str(row[1]))


_SINCE = text(
    "SELECT s.snap::text, e.id, e.task_id, e.origin "
    "FROM (SELECT pg_current_snapshot() AS snap) AS s "
    "LEFT JOIN task_events AS e "
    "ON e.xid >= pg_snapshot_xmin(CAST(:prev AS pg_snapshot)) "
    "AND NOT pg_visible_in_snapshot(e.xid, CAST(:prev AS pg_snapshot)) "
    "ORDER BY e.id"
)


def committed_since(
    engine: Engine, mark: FeedMark
) -> tuple[list[tuple[int, str, str | None]], FeedMark]:
    """(id, task id, origin) of the events committed since ``mark``'s snapshot was taken, by
    id, and the mark to ask from next time (PostgreSQL; ``mark.snapshot`` is required)."""
    assert mark.snapshot is not None, "a feed mark of PostgreSQL's"
    with read_tx(engine) as conn:
        rows = conn.execute(_SINCE, {"prev": mark.snapshot}).all()
    events = [(int(r[1]), str(r[2]), r[3]) for r in rows if r[1] is not None]
    top = max([mark.event_id] + [e[0] for e in events])
    return events, FeedMark(top, str(rows[0][0]))
