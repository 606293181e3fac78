"""What the lanes' figures are computed from (core/metrics/): reads only, never a write.

The answered tasks and the attempts come from the ten-minute rollups the database keeps as
tasks end (core/store/rollups.py says what they hold and why): the window's slot rows, each
group's values joined end to end and mapped by ``numpy.frombuffer``, never a Python object per
task. The slots read run one past each end of the window; the entries' own times then cut it
exactly. Everything else is a few rows found through an index: the failed and canceled tasks of
the window (a partial index), those running now, those that ended after the window's end
(``finished_at``), the ones not ended counted per lane by the database — core/metrics/
open_tasks.py works the backlog and the submissions out of them and the rollups. So one
``stats`` of a day of 100,000 tasks reads a few thousand rows and no task's row twice
(benchmarks/bench_metrics.py, B12). The same statements run on SQLite and PostgreSQL, on a
database reader thread, in one transaction per computation (:meth:`MetricsReads.together`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from contextlib import AbstractContextManager
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import (
    Engine,
    Float,
    Integer,
    and_,
    case,
    cast,
    func,
    literal,
    or_,
    select,
)

from media_assistant.core.store.backends.postgres import BINARY_RESULTS
from media_assistant.core.store.db import one_read, read_tx
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
ENDS = (*FAILURE_ENDS, *DEFERRAL_ENDS, *NEUTRAL_ENDS)  # the attempt rollup's codes but STARTED
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

    def together(self) -> AbstractContextManager[None]:
        """Every read of this thread inside the block in one transaction: one snapshot of the
        store for all the figures, and one BEGIN and COMMIT instead of one pair per read."""
        return one_read(self.engine)

    def answers(self, since: float, until: float) -> dict[AnswerKey, Rows]:
        """Per group, its answered tasks whose slot touches [since, until): an array of rows
        ``seq, created, started, finished, tokens`` (not yet cut to the window)."""
        lo, hi = _slots(since, until)
        stmt = select(TS.c.lane, TS.c.model, TS.c.account_id, TS.c.workstation, TS.c.answers).where(
            TS.c.slot >= lo, TS.c.slot <= hi, TS.c.n > 0
        )
        width = ANSWER.size // 8
        return {
            (lane, model, _none(acc), _none(ws)): _array(data, width)
            for (lane, model, acc, ws), data in self._joined(stmt).items()
        }

    def attempts(
        self, since: float, until: float, *, starts_since: float
    ) -> dict[AttemptKey, Rows]:
        """Per (lane, account, code, kind), the attempts started or ended whose slot touches
        [since, until): an array of rows ``start, end`` (not yet cut to the window). The
        ``started`` lines — nine in ten of the rollup's entries — only of the API lane (what the
        quota counts) and only from ``starts_since`` on (the quota's minute; the whole window
        for the charts)."""
        lo, hi = _slots(since, until)
        starts_lo = max(lo, _slots(starts_since, until)[0])
        stmt = select(AS.c.lane, AS.c.account_id, AS.c.code, AS.c.kind, AS.c.spans).where(
            AS.c.slot >= lo,
            AS.c.slot <= hi,
            # Conditions on the key's columns, not a "code <> 'started'": the index then
            # skips the started lines' rows without reading them.
            or_(
                AS.c.code.in_(ENDS),
                and_(AS.c.lane == "api", AS.c.code == STARTED, AS.c.slot >= starts_lo),
            ),
        )
        width = SPAN.size // 8
        return {
            (_none(lane), _none(acc), code, _none(kind)): _array(data, width)
            for (lane, acc, code, kind), data in self._joined(stmt).items()
        }

    def _joined(self, stmt: Any) -> dict[tuple[Any, ...], bytes]:
        """Each group's slot values end to end (the statement's last column is the value).
        Joined here rather than by the database: its aggregate sorted every row, values
        included, and spilled them to disk past ``work_mem`` (B12). On PostgreSQL the rows come
        in the binary format: bytes as they are, not hex."""
        parts: dict[tuple[Any, ...], list[bytes]] = defaultdict(list)
        with read_tx(self.engine) as conn:
            rows = conn.execute(stmt.execution_options(**{BINARY_RESULTS: True})).all()
        for row in rows:
            parts[row[:-1]].append(row[-1])
        return {key: b"".join(chunks) for key, chunks in parts.items()}

    def unanswered(self, since: float, until: float) -> list[tuple[Any, ...]]:
        """(lane, model, account, workstation, state, finished, created) of the tasks that
        ended failed or canceled in [since, until] (the few; the partial index holds only
        them)."""
        stmt = select(
            T.c.model_kind,
            T.c.model,
            T.c.account_id,
            T.c.workstation,
            T.c.state,
            T.c.finished_at,
            T.c.created_at,
        ).where(T.c.state.in_(UNANSWERED), T.c.finished_at >= since, T.c.finished_at <= until)
        with read_tx(self.engine) as conn:
            return [tuple(r) for r in conn.execute(stmt)]

    def running(self) -> list[tuple[str | None, str, float | None, float | None]]:
        """(account, lane, started, finished) of the tasks running now (the few: the partial
        index of running tasks)."""
        stmt = select(T.c.account_id, T.c.model_kind, T.c.started_at, T.c.finished_at).where(
            T.c.state == "running"
        )
        with read_tx(self.engine) as conn:
            return [(a, str(k), s, f) for a, k, s, f in conn.execute(stmt)]

    def ended_from(self, moment: float) -> list[tuple[Any, ...]]:
        """(lane, account, state, created, started, finished) of the tasks that ended at or
        after ``moment`` (``ix_tasks_finished``): few for a window ending now. What was open or
        generating at a window's end and ended since. Filtered by the caller, not here: a lane
        equality in the WHERE lures SQLite's planner off ``ix_tasks_finished``. The upper bound
        changes no row: it makes the condition a range, which PostgreSQL's planner takes for a
        few rows (0.5 %) when it has no statistics yet (a store just filled by a copy), where
        an open inequality is a third of the table and a scan of every row (B12)."""
        stmt = select(
            T.c.model_kind, T.c.account_id, T.c.state, T.c.created_at, T.c.started_at,
            T.c.finished_at,
        ).where(T.c.finished_at >= moment, T.c.finished_at <= math.inf)  # fmt: skip
        with read_tx(self.engine) as conn:
            return [tuple(r) for r in conn.execute(stmt)]

    def unfinished(
        self, since: float, until: float, bucket_s: float | None
    ) -> dict[tuple[str, int], int]:
        """The tasks not ended (no ``finished_at``: pending or running) submitted by ``until``,
        counted per (lane, bucket): -1 for those submitted by ``since``, else the bucket of
        ``bucket_s`` from ``since`` their submission falls in (0 for all when None; the last
        bucket may come out one past the window's last for a submission at its very end)."""
        created = T.c.created_at
        if bucket_s is None:
            bucket: Any = literal(0)
        else:
            at = (created - since) / bucket_s  # > 0 here: truncating is flooring
            bucket = cast(func.floor(at) if self.pg else at, Integer)  # PG's CAST rounds
        grouped = case((created <= since, -1), else_=bucket)
        stmt = (
            select(T.c.model_kind, grouped, func.count())
            .where(T.c.finished_at.is_(None), created <= until)
            .group_by(T.c.model_kind, grouped)
        )
        with read_tx(self.engine) as conn:
            return {(str(lane), int(b)): int(n) for lane, b, n in conn.execute(stmt)}

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
