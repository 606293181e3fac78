"""What holds pending work back: pauses, batch schedules and an account's pending rebuild
request, as clauses of the claim statement.

A pause (of the queue, a lane, a batch or an account; ``queue_pauses``) and a batch's schedule
(``batches.start_at``, ``active_hours``) live in the database, so a ``media-assistant pause``
typed in another terminal reaches a running scheduler with no message passing: the very next
claim sees it. They are checked *inside* the claim statement (and the read that looks before
it), not by the lanes beforehand: a pause that commits between a look and a claim cannot let a
task slip through, and a claim that committed first simply is "the current task", which runs to
its end. Running tasks are never touched: pausing means "nothing new starts".

The statement is given ``now`` (epoch seconds), ``minute`` (minute of the local day, for
active hours, which may wrap midnight: ``22:00-06:00``), ``lane`` and ``account``. The batch
tables are small (a row per batch, a row per pause); SQLite evaluates the uncorrelated
subqueries once per statement.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Select,
    String,
    and_,
    bindparam,
    exists,
    not_,
    or_,
    select,
    union_all,
)

from media_assistant.core.store.schema import AccountRow, BatchRow, QueuePauseRow, TaskRow

T = TaskRow.__table__  # type: ignore[attr-defined]
B = BatchRow.__table__  # type: ignore[attr-defined]
P = QueuePauseRow.__table__  # type: ignore[attr-defined]
A = AccountRow.__table__  # type: ignore[attr-defined]

SCOPES = ("all", "lane", "batch", "account")


def minute_of_day(now: float) -> int:
    """The minute of the local day at ``now`` (what active hours are compared with)."""
    moment = dt.datetime.fromtimestamp(now)
    return moment.hour * 60 + moment.minute


def inside_active_hours(minute: ColumnElement[int] | int) -> ColumnElement[bool]:
    """The batch's active hours contain ``minute`` (a window may wrap midnight)."""
    start, end = B.c.active_from, B.c.active_until
    return or_(
        and_(start < end, start <= minute, end > minute),
        and_(start > end, or_(start <= minute, end > minute)),
    )


def held_batch_ids() -> Select[tuple[str]]:
    """Batches none of whose tasks may start now: paused, not yet at their start time, or
    outside their active hours."""
    minute: BindParameter[int] = bindparam("minute")
    scheduled = or_(
        B.c.start_at > bindparam("now"),
        and_(B.c.active_from.is_not(None), not_(inside_active_hours(minute))),
    )
    return union_all(
        select(B.c.batch_id).where(scheduled),
        select(P.c.target).where(P.c.scope == "batch"),
    )  # type: ignore[return-value]


def scope_paused() -> ColumnElement[bool]:
    """The whole queue, the claiming lane or the claiming account is paused."""
    return exists().where(
        or_(
            P.c.scope == "all",
            and_(P.c.scope == "lane", P.c.target == bindparam("lane")),
            and_(P.c.scope == "account", P.c.target == bindparam("account")),
        )
    )


def account_held() -> ColumnElement[bool]:
    """The claiming account is not the claiming scheduler's to use right now:

    - it has a request for a fresh provider (``accounts reset`` / ``set-key`` / ``enable``,
      perhaps from another process or workstation) newer than the provider the scheduler holds
      (bind parameter ``built``: the generation it built it at). Its provider is the old one (an
      old key, a broken adapter), so it takes nothing until it has built a fresh one (within a
      housekeeping tick); without this, a ``retry`` typed right after the reset could hand the
      first tasks to the old provider;
    - or it is a web account another workstation holds (bind parameter ``ws``: the claiming
      workstation, NULL when the caller does not say): its browser profile is there."""
    ws = bindparam("ws", type_=String)
    return exists().where(
        A.c.account_id == bindparam("account"),
        or_(
            A.c.rebuild_generation > bindparam("built"),
            and_(
                ws.is_not(None),
                A.c.kind == "web",
                A.c.workstation.is_not(None),
                A.c.workstation != ws,
            ),
        ),
    )


def claimable() -> list[ColumnElement[bool]]:
    """The clauses a pending task must pass, beyond its own ``not_before``, to be claimed."""
    return [
        not_(scope_paused()),
        not_(account_held()),
        T.c.batch_id.not_in(held_batch_ids()),
    ]
