"""What the lanes' figures are computed from (core/metrics/): reads only, never a write.

The database does what it does fastest: it counts, sums and subtracts (``GROUP BY``, a task's
wait, generation and end-to-end time as columns), so Python receives one small row per group and
a single column triple per answered task for the exact percentiles — 100,000 tasks in well under
the 200 ms the window allows (benchmarks/bench_metrics.py). The same statements run on SQLite
and PostgreSQL (a team's figures are the team database's), on a database reader thread.

Attempts come from the event log (``task_events``): a ``started`` line opens one, the next line
of the same task that says how it ended (succeeded, failed, retry, deferred, lost, returned…)
closes it. The log has no index on its time: its id grows with it (one writer per database
appends in order; a team's workstations within their clocks' skew), so the first id of a window
is found by bisecting the ids — twenty primary-key look-ups — and the window read as an id range.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, Float, and_, case, cast, func, literal, or_, select

from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.store.db import read_tx
from media_assistant.core.store.schema import AccountRow, SessionRow, TaskEventRow, TaskRow

T = TaskRow.__table__  # type: ignore[attr-defined]
E = TaskEventRow.__table__  # type: ignore[attr-defined]
A = AccountRow.__table__  # type: ignore[attr-defined]
S = SessionRow.__table__  # type: ignore[attr-defined]

SUCCESS_END = EventCode.SUCCEEDED.value
# Lines that end an attempt the lane is answerable for, other than a success.
FAILURE_ENDS = tuple(
    c.value
    for c in (
        EventCode.FAILED,
        EventCode.RETRY_SCHEDULED,
        EventCode.LOST,
        EventCode.QUALITY_REJECTED,
    )
)
DEFERRAL_ENDS = (EventCode.DEFERRED.value,)
# Lines that end an attempt nobody is to blame for (a cancel, a hand-back).
NEUTRAL_ENDS = tuple(
    c.value
    for c in (
        EventCode.CANCELED,
        EventCode.RETURNED_SHUTDOWN,
        EventCode.RETURNED_SWITCHED_OFF,
        EventCode.RETURNED_STOPPING,
        EventCode.HELD_SITE_CHANGED,
    )
)
STARTED = EventCode.STARTED.value
# The clock skew between a team's workstations an id bisection tolerates.
SKEW_S = 120.0
CHUNK = 2_000

AnsweredRow = tuple[str, str, str | None, str | None, float, float, float, float]
"""lane, model, account, workstation, wait, run, total, finished — of an answered task"""


def _clip(column: Any, lo: float, hi: float) -> Any:
    """``column`` held inside [lo, hi] (portable: no LEAST/GREATEST in SQLite)."""
    upper = case((column > hi, literal(hi)), else_=column)
    return case((upper < lo, literal(lo)), else_=upper)


def _chunked(conn: Any, stmt: Any) -> list[Any]:
    """Every row of ``stmt``, fetched a chunk at a time: one ``fetchall`` of 100,000 rows holds
    the GIL for its whole length (the window's loop stood still for a second in B10); between
    chunks the loop's thread gets its turn."""
    result = conn.execute(stmt)
    rows: list[Any] = []
    while chunk := result.fetchmany(CHUNK):
        rows += chunk
    return rows


class MetricsReads:
    """The reads behind the lanes' figures (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def unanswered_counts(self, since: float, until: float) -> list[tuple[Any, ...]]:
        """(lane, model, account, workstation, state, count) of the tasks that ended in the
        window other than with an answer (failed, canceled): the few; the answered ones are
        counted from :meth:`answered`'s rows, which the percentiles read anyway."""
        stmt = (
            select(
                T.c.model_kind, T.c.model, T.c.account_id, T.c.workstation, T.c.state, func.count()
            )
            .where(T.c.finished_at >= since, T.c.finished_at < until, T.c.state != "success")
            .group_by(T.c.model_kind, T.c.model, T.c.account_id, T.c.workstation, T.c.state)
        )
        with read_tx(self.engine) as conn:
            return list(_chunked(conn, stmt))

    def answered(self, since: float, until: float) -> list[AnsweredRow]:
        """Tasks answered in the window, with their wait, generation and end-to-end seconds."""
        started = func.coalesce(T.c.started_at, T.c.created_at)
        stmt = select(
            T.c.model_kind,
            T.c.model,
            T.c.account_id,
            T.c.workstation,
            cast(started - T.c.created_at, Float),
            cast(T.c.finished_at - started, Float),
            cast(T.c.finished_at - T.c.created_at, Float),
            T.c.finished_at,
        ).where(T.c.finished_at >= since, T.c.finished_at < until, T.c.state == "success")
        with read_tx(self.engine) as conn:
            return list(_chunked(conn, stmt))

    def attempt_ends(self, since: float, until: float) -> list[tuple[Any, ...]]:
        """(lane, account, code, params JSON, count) of the attempts that ended in the window in
        a failure or a deferral (the answered ones are the tasks of :meth:`answered`)."""
        params = E.c.params_json
        with read_tx(self.engine) as conn:
            first = self._first_id_at(conn, since - SKEW_S)
            stmt = (
                select(E.c.lane, E.c.account_id, E.c.code, params, func.count())
                .where(
                    E.c.id >= first,
                    E.c.at >= since,
                    E.c.at < until,
                    E.c.code.in_((*FAILURE_ENDS, *DEFERRAL_ENDS)),
                )
                .group_by(E.c.lane, E.c.account_id, E.c.code, params)
            )
            return list(_chunked(conn, stmt))

    def busy(self, since: float, until: float) -> list[tuple[str | None, float]]:
        """(account, seconds generating inside the window) per account, but for the answers
        that came in the window (core/metrics/compute.py has them from :meth:`answered`):
        attempts still running at the window's end (or that ended after it), and every other
        attempt that ended in the window (a failure, a deferral…) from the log, paired with its
        start."""
        final_start = _clip(T.c.started_at, since, until)
        answered = (
            select(T.c.account_id, func.sum(literal(until) - final_start))
            .where(
                T.c.started_at < until,
                or_(T.c.state == "running", T.c.finished_at >= until),
            )
            .group_by(T.c.account_id)
        )
        out: list[tuple[str | None, float]] = []
        with read_tx(self.engine) as conn:
            out += [(a, float(s or 0.0)) for a, s in _chunked(conn, answered)]
            first = self._first_id_at(conn, since - SKEW_S)
            s = E.alias("s")
            start = (
                select(func.max(s.c.at))
                .where(s.c.task_id == E.c.task_id, s.c.id < E.c.id, s.c.code == STARTED)
                .scalar_subquery()
            )
            others = select(E.c.account_id, E.c.at, start).where(
                E.c.id >= first,
                E.c.at >= since,
                E.c.at < until,
                E.c.code.in_(FAILURE_ENDS + DEFERRAL_ENDS + NEUTRAL_ENDS),
            )
            for account, at, began in _chunked(conn, others):
                if began is not None:
                    out.append((account, float(at) - max(float(began), since)))
        return out

    def api_starts(self, since: float, until: float) -> list[tuple[str | None, int]]:
        """(account, attempts started) on the API lane in the window."""
        with read_tx(self.engine) as conn:
            first = self._first_id_at(conn, since - SKEW_S)
            stmt = (
                select(E.c.account_id, func.count())
                .where(
                    E.c.id >= first,
                    E.c.at >= since,
                    E.c.at < until,
                    E.c.code == STARTED,
                    E.c.lane == "api",
                )
                .group_by(E.c.account_id)
            )
            return [(a, int(n)) for a, n in _chunked(conn, stmt)]

    def api_tokens(self, since: float, until: float) -> list[tuple[str | None, float, str]]:
        """(account, finished, usage JSON) of API answers in [since, until)."""
        stmt = select(T.c.account_id, T.c.finished_at, T.c.usage_json).where(
            T.c.finished_at >= since,
            T.c.finished_at < until,
            T.c.model_kind == "api",
            T.c.usage_json.is_not(None),
        )
        with read_tx(self.engine) as conn:
            return list(_chunked(conn, stmt))

    def in_flight(self, at: float) -> list[tuple[str | None, int]]:
        """(account, attempts running) at the moment ``at`` (each task's last attempt)."""
        stmt = (
            select(T.c.account_id, func.count())
            .where(
                T.c.started_at <= at,
                or_(
                    and_(T.c.state == "running", T.c.finished_at.is_(None)),
                    T.c.finished_at > at,
                ),
                T.c.model_kind == "api",
            )
            .group_by(T.c.account_id)
        )
        with read_tx(self.engine) as conn:
            return [(a, int(n)) for a, n in _chunked(conn, stmt)]

    @staticmethod
    def _first_id_at(conn: Any, at: float) -> int:
        """The smallest id whose line is at or after ``at`` (the log's ids grow with time)."""
        lo = conn.execute(select(func.min(E.c.id))).scalar()
        hi = conn.execute(select(func.max(E.c.id))).scalar()
        if lo is None or hi is None:
            return 0
        hi += 1
        while lo < hi:
            mid = (lo + hi) // 2
            row = conn.execute(  # ids may have gaps: the first line at or after mid
                select(E.c.id, E.c.at).where(E.c.id >= mid).order_by(E.c.id).limit(1)
            ).first()
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
                out[moment] = {str(k): int(n) for k, n in _chunked(conn, stmt)}
        return out

    def accounts(self) -> list[tuple[Any, ...]]:
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
            return list(_chunked(conn, stmt))

    def session_spans(self, since: float, until: float) -> list[tuple[float, float]]:
        """When a scheduler ran in [since, until): (start, last sign of life) per session."""
        end = func.coalesce(S.c.ended_at, S.c.heartbeat_at)
        stmt = select(S.c.started_at, end).where(and_(S.c.started_at < until, end >= since))
        with read_tx(self.engine) as conn:
            return [(float(a), float(b)) for a, b in _chunked(conn, stmt)]

    def per_bucket(
        self, since: float, until: float, bucket_s: float
    ) -> dict[str, dict[tuple[str, int], int]]:
        """Counts per (lane or account, bucket): ``submitted`` and ``ended`` tasks per lane,
        ``started`` API attempts per account."""
        out: dict[str, dict[tuple[str, int], int]] = {"submitted": {}, "ended": {}, "started": {}}
        submitted = select(T.c.model_kind, T.c.created_at).where(
            T.c.created_at > since, T.c.created_at <= until
        )
        ended = select(T.c.model_kind, T.c.finished_at).where(
            T.c.finished_at >= since, T.c.finished_at < until
        )
        with read_tx(self.engine) as conn:
            first = self._first_id_at(conn, since - SKEW_S)
            started = select(E.c.account_id, E.c.at).where(
                E.c.id >= first,
                E.c.at >= since,
                E.c.at < until,
                E.c.code == STARTED,
                E.c.lane == "api",
            )
            for name, stmt in (("submitted", submitted), ("ended", ended), ("started", started)):
                counts = out[name]
                for key, at in _chunked(conn, stmt):
                    slot = (str(key), int((float(at) - since) // bucket_s))
                    counts[slot] = counts.get(slot, 0) + 1
        return out

    def ended(self, since: float, until: float) -> list[tuple[Any, ...]]:
        """(lane, model, account, state, error kind, wait, run, total) of the tasks that ended
        in [since, until); the three times only for answers (None otherwise)."""
        started = func.coalesce(T.c.started_at, T.c.created_at)
        answered = T.c.state == "success"
        stmt = select(
            T.c.model_kind,
            T.c.model,
            T.c.account_id,
            T.c.state,
            T.c.error_kind,
            case((answered, cast(started - T.c.created_at, Float)), else_=None),
            case((answered, cast(T.c.finished_at - started, Float)), else_=None),
            case((answered, cast(T.c.finished_at - T.c.created_at, Float)), else_=None),
        ).where(T.c.finished_at >= since, T.c.finished_at < until)
        with read_tx(self.engine) as conn:
            return list(_chunked(conn, stmt))
