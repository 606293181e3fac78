"""What the lanes' figures are computed from (core/metrics/): reads only, never a write.

The answered tasks and the attempts come from the ten-minute rollups the database keeps as
tasks end (core/store/rollups.py says what they hold and why): one value per group — lane,
model, account, workstation; or lane, account, event code, error kind — concatenated over the
window's slots by the database and mapped by ``numpy.frombuffer``, never a Python object per
task. The slots read run one past each end of the window; the entries' own times then cut it
exactly. Everything else is counted by the database through an index (``finished_at``,
``created_at``, the partial index of failed and canceled tasks, the running tasks'), so one
``stats`` of a day of 100,000 tasks reads a few hundred rows (benchmarks/bench_metrics.py, B12).
The same statements run on SQLite and PostgreSQL, on a database reader thread.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import (
    Engine,
    Float,
    Integer,
    LargeBinary,
    and_,
    case,
    cast,
    func,
    literal,
    select,
)

from media_assistant.core.store.db import read_tx
from media_assistant.core.store.rollups import (
    ANSWER,
    DEFERRAL_ENDS,
    FAILURE_ENDS,
    NEUTRAL_ENDS,
    SLOT_S,
    SPAN,
    STARTED,
    SUCCESS_END,
)
from media_assistant.core.store.schema import (
    AccountRow,
    AttemptSlotRow,
    SessionRow,
    TaskRow,
    TaskSlotRow,
)

__all__ = ["DEFERRAL_ENDS", "FAILURE_ENDS", "NEUTRAL_ENDS", "STARTED", "SUCCESS_END"]

T = TaskRow.__table__  # type: ignore[attr-defined]
A = AccountRow.__table__  # type: ignore[attr-defined]
S = SessionRow.__table__  # type: ignore[attr-defined]
TS = TaskSlotRow.__table__  # type: ignore[attr-defined]
AS = AttemptSlotRow.__table__  # type: ignore[attr-defined]

UNANSWERED = ("failed", "canceled")
LANES = ("web", "api")
# Columns of an answered task's entry (rollups.ANSWER), as numpy reads it.
SEQ, CREATED, STARTED_AT, FINISHED, TOKENS = range(5)
Rows = npt.NDArray[np.float64]
AnswerKey = tuple[str, str, str | None, str | None]
"""lane, model, account, workstation"""
AttemptKey = tuple[str | None, str | None, str, str | None]
"""lane, account, event code, error kind"""


def _slots(since: float, until: float) -> tuple[int, int]:
    """The slots to read for [since, until): one more each side (a slot is computed by the
    database's own division, which may round a time next to a slot's edge into its neighbour)."""
    return int(since // SLOT_S) - 1, int(until // SLOT_S) + 1


def _array(raw: bytes | memoryview | None, width: int) -> Rows:
    data = bytes(raw or b"")
    return np.frombuffer(data, dtype=">f8").reshape(-1, width).astype(np.float64)


def _none(value: str) -> str | None:
    return value or None


class MetricsReads:
    """The reads behind the lanes' figures (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.pg = engine.dialect.name == "postgresql"

    def _concat(self, column: Any) -> Any:
        """A group's values end to end, as bytes (SQLite's ``group_concat`` returns text)."""
        if self.pg:
            return func.string_agg(column, literal(b"", LargeBinary))
        return cast(func.group_concat(column, literal("")), LargeBinary)

    def answers(self, since: float, until: float) -> dict[AnswerKey, Rows]:
        """Per group, its answered tasks whose slot touches [since, until): an array of rows
        ``seq, created, started, finished, tokens`` (not yet cut to the window)."""
        lo, hi = _slots(since, until)
        stmt = (
            select(
                TS.c.lane, TS.c.model, TS.c.account_id, TS.c.workstation, self._concat(TS.c.answers)
            )
            .where(TS.c.slot >= lo, TS.c.slot <= hi, TS.c.n > 0)
            .group_by(TS.c.lane, TS.c.model, TS.c.account_id, TS.c.workstation)
        )
        with read_tx(self.engine) as conn:
            rows = conn.execute(stmt).all()
        width = ANSWER.size // 8
        return {
            (lane, model, _none(acc), _none(ws)): _array(data, width)
            for lane, model, acc, ws, data in rows
        }

    def attempts(self, since: float, until: float) -> dict[AttemptKey, Rows]:
        """Per (lane, account, code, kind), the attempts started or ended whose slot touches
        [since, until): an array of rows ``start, end`` (not yet cut to the window)."""
        lo, hi = _slots(since, until)
        stmt = (
            select(AS.c.lane, AS.c.account_id, AS.c.code, AS.c.kind, self._concat(AS.c.spans))
            .where(AS.c.slot >= lo, AS.c.slot <= hi)
            .group_by(AS.c.lane, AS.c.account_id, AS.c.code, AS.c.kind)
        )
        with read_tx(self.engine) as conn:
            rows = conn.execute(stmt).all()
        width = SPAN.size // 8
        return {
            (_none(lane), _none(acc), code, _none(kind)): _array(data, width)
            for lane, acc, code, kind, data in rows
        }

    def unanswered(self, since: float, until: float) -> list[tuple[Any, ...]]:
        """(lane, model, account, workstation, state, finished) of the tasks that ended failed
        or canceled in [since, until] (the few; the partial index holds only them)."""
        stmt = select(
            T.c.model_kind, T.c.model, T.c.account_id, T.c.workstation, T.c.state, T.c.finished_at
        ).where(T.c.state.in_(UNANSWERED), T.c.finished_at >= since, T.c.finished_at <= until)
        with read_tx(self.engine) as conn:
            return [tuple(r) for r in conn.execute(stmt)]

    def ran_past(self, since: float, until: float) -> list[tuple[str | None, float]]:
        """(account, seconds generating inside the window) of the attempts still running at the
        window's end or whose task ended after it (the rollups have the others)."""
        began = T.c.started_at
        later_of = func.greatest if self.pg else func.max  # SQLite's max(a, b) is scalar
        clipped = func.sum(literal(until) - later_of(began, literal(since)))
        running = (
            select(T.c.account_id, clipped)
            .where(T.c.state == "running", began < until)
            .group_by(T.c.account_id)
        )
        later = (
            select(T.c.account_id, clipped)
            .where(T.c.finished_at >= until, T.c.state != "running", began < until)
            .group_by(T.c.account_id)
        )
        out: list[tuple[str | None, float]] = []
        with read_tx(self.engine) as conn:
            for stmt in (running, later):
                out += [(a, float(s or 0.0)) for a, s in conn.execute(stmt)]
        return out

    def in_flight(self, at: float) -> list[tuple[str | None, int]]:
        """(account, attempts running) at the moment ``at`` (each task's last attempt)."""
        running = (
            select(T.c.account_id, func.count())
            .where(
                T.c.state == "running",
                T.c.model_kind == "api",
                T.c.finished_at.is_(None),
                T.c.started_at <= at,
            )
            .group_by(T.c.account_id)
        )
        # Tasks that ended after ``at``: few for a window ending now. Filtered here, not in the
        # WHERE: a lane equality there lures SQLite's planner off ix_tasks_finished.
        later = select(T.c.account_id, T.c.model_kind, T.c.started_at).where(T.c.finished_at > at)
        counts: dict[str | None, int] = {}
        with read_tx(self.engine) as conn:
            for acc, n in conn.execute(running):
                counts[acc] = counts.get(acc, 0) + int(n)
            for acc, lane, began in conn.execute(later):
                if lane == "api" and began is not None and began <= at:
                    counts[acc] = counts.get(acc, 0) + 1
        return list(counts.items())

    def backlog_at(self, moment: float) -> dict[str, int]:
        """Per lane, the tasks submitted by ``moment`` and not ended by then."""
        unfinished = (
            select(T.c.model_kind, func.count())
            .where(T.c.finished_at.is_(None), T.c.created_at <= moment)
            .group_by(T.c.model_kind)
        )
        later = select(T.c.model_kind, T.c.created_at).where(T.c.finished_at > moment)
        out: dict[str, int] = {}
        with read_tx(self.engine) as conn:
            for lane, n in conn.execute(unfinished):
                out[str(lane)] = out.get(str(lane), 0) + int(n)
            for lane, created in conn.execute(later):  # few: see in_flight
                if created <= moment:
                    out[str(lane)] = out.get(str(lane), 0) + 1
        return out

    def submitted(
        self, since: float, until: float, bucket_s: float | None = None
    ) -> dict[tuple[str, int], int]:
        """Tasks submitted in (since, until], per (lane, bucket of ``bucket_s`` from since; 0
        for all when None), counted by the database in ``ix_tasks_created`` (lane, time): one
        range per lane."""
        out: dict[tuple[str, int], int] = {}
        with read_tx(self.engine) as conn:
            for lane in LANES:
                where = (T.c.model_kind == lane, T.c.created_at > since, T.c.created_at <= until)
                if bucket_s is None:
                    n = conn.execute(select(func.count()).where(*where)).scalar()
                    out[(lane, 0)] = int(n or 0)
                    continue
                bucket = cast((T.c.created_at - since) / bucket_s, Integer)
                stmt = select(bucket, func.count()).where(*where).group_by(bucket)
                out.update(((lane, int(b)), int(n)) for b, n in conn.execute(stmt))
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
            return [tuple(r) for r in conn.execute(stmt)]

    def session_spans(self, since: float, until: float) -> list[tuple[float, float]]:
        """When a scheduler ran in [since, until): (start, last sign of life) per session."""
        end = func.coalesce(S.c.ended_at, S.c.heartbeat_at)
        stmt = select(S.c.started_at, end).where(and_(S.c.started_at < until, end >= since))
        with read_tx(self.engine) as conn:
            return [(float(a), float(b)) for a, b in conn.execute(stmt)]

    def ended(self, since: float, until: float) -> list[tuple[Any, ...]]:
        """(lane, model, account, state, error kind, wait, run, total) of the tasks that ended
        in [since, until), the three times only for answers (None otherwise): what the
        Prometheus endpoint adds to its histograms at each scrape (``ix_tasks_finished``)."""
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
            return [tuple(r) for r in conn.execute(stmt)]
