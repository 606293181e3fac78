"""What the lanes' figures are computed from (core/metrics/): reads only, never a write.

Every read returns plain tuples, column by column as the statement names them: the figures of
100,000 tasks are made from ~100,000 rows, and a tuple costs a tenth of a record object. The
same statements run on SQLite and PostgreSQL (a team's figures are the team database's), on a
database reader thread (``core/metrics/reader.py`` hops there), each its own short transaction.

Attempts come from the event log (``task_events``): a ``started`` line opens one, the next line
of the same task that says how it ended (succeeded, failed, retry, deferred, lost, returned…)
closes it. The log has no index on its time: its id grows with it (one writer per database
appends in order; a team's workstations within their clocks' skew), so the first id of a window
is found by bisecting the ids — twenty primary-key look-ups — and the window read as an id range.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, and_, func, or_, select

from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.store.db import read_tx
from media_assistant.core.store.schema import AccountRow, SessionRow, TaskEventRow, TaskRow

T = TaskRow.__table__  # type: ignore[attr-defined]
E = TaskEventRow.__table__  # type: ignore[attr-defined]
A = AccountRow.__table__  # type: ignore[attr-defined]
S = SessionRow.__table__  # type: ignore[attr-defined]

# Lines that end an attempt (the scheduler writes exactly one of them per started attempt).
ATTEMPT_ENDS: frozenset[str] = frozenset(
    code.value
    for code in (
        EventCode.SUCCEEDED,
        EventCode.FAILED,
        EventCode.RETRY_SCHEDULED,
        EventCode.DEFERRED,
        EventCode.LOST,
        EventCode.CANCELED,
        EventCode.RETURNED_SHUTDOWN,
        EventCode.RETURNED_SWITCHED_OFF,
        EventCode.RETURNED_STOPPING,
        EventCode.HELD_SITE_CHANGED,
        EventCode.QUALITY_REJECTED,
    )
)
ATTEMPT_CODES: tuple[str, ...] = (EventCode.STARTED.value, *sorted(ATTEMPT_ENDS))
# The clock skew between a team's workstations an id bisection tolerates.
SKEW_S = 120.0

FinishedRow = tuple[str, str, str | None, str | None, str, str | None, float, float | None, float]
"""lane, model, account, workstation, state, error kind, created, started, finished"""
EventRow = tuple[float, str, str | None, str | None, str, str | None]
"""at, code, lane, account, task id, params (JSON; only on lines that end an attempt)"""


class MetricsReads:
    """The reads behind the lanes' figures (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def finished_tasks(self, since: float, until: float) -> list[FinishedRow]:
        """Tasks that ended (succeeded, failed, canceled) in [since, until)."""
        stmt = select(
            T.c.model_kind,
            T.c.model,
            T.c.account_id,
            T.c.workstation,
            T.c.state,
            T.c.error_kind,
            T.c.created_at,
            T.c.started_at,
            T.c.finished_at,
        ).where(T.c.finished_at >= since, T.c.finished_at < until)
        with read_tx(self.engine) as conn:
            return [tuple(r) for r in conn.execute(stmt)]

    def api_tokens(self, since: float, until: float) -> list[tuple[str | None, float, str]]:
        """(account, finished, usage JSON) of API answers in [since, until)."""
        stmt = select(T.c.account_id, T.c.finished_at, T.c.usage_json).where(
            T.c.finished_at >= since,
            T.c.finished_at < until,
            T.c.model_kind == "api",
            T.c.usage_json.is_not(None),
        )
        with read_tx(self.engine) as conn:
            return [tuple(r) for r in conn.execute(stmt)]

    def attempt_events(self, since: float, until: float) -> list[EventRow]:
        """The lines that start or end an attempt, ``since <= at < until``, in log order."""
        with read_tx(self.engine) as conn:
            first = self._first_id_at(conn, since - SKEW_S)
            stmt = (
                select(
                    E.c.at,
                    E.c.code,
                    E.c.lane,
                    E.c.account_id,
                    E.c.task_id,
                    E.c.params_json,
                )
                .where(
                    E.c.id >= first,
                    E.c.at >= since,
                    E.c.at < until,
                    E.c.code.in_(ATTEMPT_CODES),
                )
                .order_by(E.c.id)
            )
            out: list[EventRow] = []
            for at, code, lane, account, task_id, params in conn.execute(stmt):
                out.append(
                    (at, code, lane, account, task_id, None if code == "started" else params)
                )
            return out

    @staticmethod
    def _first_id_at(conn: Any, at: float) -> int:
        """The smallest id whose line is at or after ``at`` (the log's ids grow with time)."""
        lo = conn.execute(select(func.min(E.c.id))).scalar()
        hi = conn.execute(select(func.max(E.c.id))).scalar()
        if lo is None or hi is None:
            return 0
        hi += 1
        probe = select(E.c.id, E.c.at).where(E.c.id >= 0).order_by(E.c.id).limit(1)
        while lo < hi:
            mid = (lo + hi) // 2
            row = conn.execute(probe.where(E.c.id >= mid)).first()  # ids may have gaps
            if row is None or row[1] >= at:
                hi = mid
            else:
                lo = int(row[0]) + 1
        return int(lo)

    def backlog(self, moments: list[float]) -> dict[float, dict[str, int]]:
        """Per moment, the tasks of each lane submitted by then and not ended by then."""
        out: dict[float, dict[str, int]] = {}
        with read_tx(self.engine) as conn:
            for moment in moments:
                stmt = (
                    select(T.c.model_kind, func.count())
                    .where(
                        T.c.created_at <= moment,
                        or_(T.c.finished_at.is_(None), T.c.finished_at > moment),
                    )
                    .group_by(T.c.model_kind)
                )
                out[moment] = {str(k): int(n) for k, n in conn.execute(stmt)}
        return out

    def accounts(
        self,
    ) -> list[tuple[str, str, bool, int | None, int | None, int | None, int | None]]:
        """(id, kind, enabled, concurrency override, concurrency, rpm, tpm) of every account."""
        stmt = select(
            A.c.account_id,
            A.c.kind,
            A.c.enabled,
            A.c.concurrency,
            A.c.limit_concurrency,
            A.c.limit_rpm,
            A.c.limit_tpm,
        ).order_by(A.c.account_id)
        with read_tx(self.engine) as conn:
            return [tuple(r) for r in conn.execute(stmt)]

    def session_spans(self, since: float, until: float) -> list[tuple[float, float]]:
        """When a scheduler ran in [since, until): (start, last sign of life) per session."""
        end = func.coalesce(S.c.ended_at, S.c.heartbeat_at)
        stmt = select(S.c.started_at, end).where(and_(S.c.started_at < until, end >= since))
        with read_tx(self.engine) as conn:
            return [(float(a), float(b)) for a, b in conn.execute(stmt)]

    def running_attempts(self) -> list[tuple[str, str | None, str, float | None]]:
        """(lane, account, task id, started) of every running task now."""
        stmt = select(T.c.model_kind, T.c.account_id, T.c.task_id, T.c.started_at).where(
            T.c.state == "running"
        )
        with read_tx(self.engine) as conn:
            return [tuple(r) for r in conn.execute(stmt)]

    def submitted(self, since: float, until: float) -> list[tuple[str, float]]:
        """(lane, submitted) of the tasks submitted in (since, until]."""
        stmt = select(T.c.model_kind, T.c.created_at).where(
            T.c.created_at > since, T.c.created_at <= until
        )
        with read_tx(self.engine) as conn:
            return [(str(k), float(c)) for k, c in conn.execute(stmt)]
