"""What was open around a window (core/metrics/open_tasks.py), on SQLite and PostgreSQL: the
backlog at the window's start and end, the backlog chart's buckets, the API attempts in flight at
its end and each account's generating time — worked out from the rollups and a few rows — equal
a brute-force count over every task's row, for a window with tasks submitted before it, inside it
and after it, still pending or running, and ended inside it or after it."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

from sqlalchemy import Engine, insert, select

from media_assistant.core.metrics.compute import compute_figures
from media_assistant.core.store import Store
from media_assistant.core.store.db import write_tx
from media_assistant.core.store.metrics_reads import MetricsReads
from media_assistant.core.store.schema import AccountRow, TaskRow

T = TaskRow.__table__  # type: ignore[attr-defined]
A = AccountRow.__table__  # type: ignore[attr-defined]
T0 = 1_780_000_000.0
SINCE, UNTIL, BUCKET_S = T0 + 3_001.25, T0 + 9_007.5, 900.0  # buckets cut through slots


def _seed(engine: Engine, n: int) -> None:
    """``n`` tasks submitted over four hours: ended (answered, failed, canceled), running or
    pending; some of the ended ones end hours after they started."""
    rng = random.Random(31)
    tasks: list[dict[str, Any]] = []
    for i in range(n):
        lane = rng.choice(("api", "web"))
        created = T0 + rng.uniform(0, 14_400)
        state = rng.choices(("success", "failed", "canceled", "running", "pending"),
                            (0.6, 0.1, 0.05, 0.1, 0.15))[0]  # fmt: skip
        if state == "running" and lane == "web":
            state = "success"  # one running task per web account at most (a unique index)
        started = created + rng.expovariate(1 / 300) if state != "pending" else None
        if state == "canceled" and rng.random() < 0.5:
            started = None  # canceled while pending
        finished = None
        if state in ("success", "failed", "canceled"):
            finished = (started or created) + rng.lognormvariate(5.0, 1.5)
        tasks.append(
            {
                "task_id": f"t{i:05d}",
                "seq": i + 1,
                "batch_id": "b",
                "model": f"{lane}-model",
                "model_kind": lane,
                "account_id": f"{lane}-{rng.randrange(3)}" if state != "pending" else None,
                "prompt": "p",
                "state": state,
                "created_at": created,
                "started_at": started,
                "finished_at": finished,
                "usage_json": json.dumps({"total_tokens": 5}) if lane == "api" else None,
            }
        )
    accounts = [
        {"account_id": f"{lane}-{k}", "kind": lane, "enabled": True, "updated_at": 0.0}
        for lane in ("api", "web")
        for k in range(3)
    ]
    with write_tx(engine) as conn:
        conn.execute(insert(T), tasks)
        conn.execute(insert(A), accounts)


def _rows(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(
                    T.c.model_kind,
                    T.c.account_id,
                    T.c.state,
                    T.c.created_at,
                    T.c.started_at,
                    T.c.finished_at,
                )
            )
        )


def _open_at(rows: list[Any], moment: float) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for lane, _acc, _state, created, _started, finished in rows:
        if created <= moment and (finished is None or finished > moment):
            out[lane] += 1
    return dict(out)


def _backlog_chart(rows: list[Any], lane: str) -> list[int]:
    """The chart's level at each bucket's end: the open tasks at the window's start, plus the
    bucket's submissions (since, until], minus the tasks it saw end [since, until)."""
    n = int(-(-(UNTIL - SINCE) // BUCKET_S))
    came, went = [0] * n, [0] * n
    for of_lane, _acc, _state, created, _started, finished in rows:
        if of_lane != lane:
            continue
        if SINCE < created <= UNTIL:
            came[min(int((created - SINCE) // BUCKET_S), n - 1)] += 1
        if finished is not None and SINCE <= finished < UNTIL:
            went[int((finished - SINCE) // BUCKET_S)] += 1
    level, out = _open_at(rows, SINCE).get(lane, 0), []
    for b in range(n):
        level += came[b] - went[b]
        out.append(level)
    return out


def _in_flight(rows: list[Any]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for lane, acc, state, _created, started, finished in rows:
        if lane != "api" or started is None or started > UNTIL:
            continue
        if (state == "running" and finished is None) or (finished is not None and finished > UNTIL):
            out[acc] += 1
    return dict(out)


def _busy(rows: list[Any]) -> dict[str, float]:
    """Generating seconds inside the window per account (no attempt here ended unanswered: no
    event lines): answers that ended inside it, attempts running at its end or ended after."""
    out: dict[str, float] = defaultdict(float)
    for _lane, acc, state, created, started, finished in rows:
        if state == "success" and SINCE <= finished < UNTIL:
            out[acc] += finished - max(created if started is None else started, SINCE)
        elif started is not None and started < UNTIL:
            if state == "running" or (finished is not None and finished >= UNTIL):
                out[acc] += UNTIL - max(started, SINCE)
    return dict(out)


def test_backlog_in_flight_and_busy_time_equal_a_count_over_every_task(store: Store) -> None:
    _seed(store.engine, 2_000)
    figures = compute_figures(MetricsReads(store.engine), SINCE, UNTIL, bucket_s=BUCKET_S)
    rows = _rows(store.engine)
    start, end = _open_at(rows, SINCE), _open_at(rows, UNTIL)
    assert start["api"] > 50 and end["api"] > start["api"]  # a real backlog on both sides
    for lane in ("api", "web"):
        fig = figures.lanes[lane]
        assert (fig.backlog_at_start, fig.backlog) == (start[lane], end[lane])
        assert figures.series is not None
        assert figures.series.backlog[lane] == _backlog_chart(rows, lane)
        assert figures.series.backlog[lane][-1] == end[lane]
    flying = _in_flight(rows)
    assert sum(flying.values()) > 20
    busy = _busy(rows)
    for fig in figures.accounts:
        if fig.lane == "api":
            assert fig.quota is not None and fig.quota.in_flight == flying.get(fig.account, 0)
        assert abs(fig.busy_s - busy.get(fig.account, 0.0)) < 1e-6 * max(
            1.0, busy.get(fig.account, 0.0)
        )
