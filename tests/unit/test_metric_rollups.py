"""The rollups behind the lanes' figures (core/store/rollups.py), on SQLite and PostgreSQL: the
percentiles they give are the exact ones (compared bit for bit with a brute-force computation
over the tasks' rows), they follow every change of a task — retries, cancels, a success reset or
re-timed or deleted — in its own transaction, and migration step 12 backfills them."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

import numpy as np
from sqlalchemy import Engine, delete, insert, select, text, update

from media_assistant.core.metrics.compute import compute_figures
from media_assistant.core.metrics.figures import Figures, percentile
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store, rollups
from media_assistant.core.store.db import open_engine, write_tx
from media_assistant.core.store.metrics_reads import MetricsReads
from media_assistant.core.store.schema import TaskEventRow, TaskRow, TaskSlotRow
from tests.conftest import make_tasks

T = TaskRow.__table__  # type: ignore[attr-defined]
E = TaskEventRow.__table__  # type: ignore[attr-defined]
TS = TaskSlotRow.__table__  # type: ignore[attr-defined]
T0 = 1_780_000_000.0


def _seed(engine: Engine, n: int, seed: int = 7) -> None:
    """``n`` ended tasks over three hours (answered, failed, canceled; two lanes, three models,
    five accounts, two workstations, some never started) and their attempts' event lines."""
    rng = random.Random(seed)
    tasks: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    for i in range(n):
        lane = rng.choice(("api", "web"))
        created = T0 + rng.uniform(0, 10_800)
        started = created + rng.expovariate(1 / 40) if rng.random() > 0.02 else None
        finished = (started or created) + rng.lognormvariate(3.0, 0.8)
        state = rng.choices(("success", "failed", "canceled"), (0.85, 0.1, 0.05))[0]
        account = f"{lane}-{rng.randrange(5)}" if rng.random() > 0.03 else None
        tasks.append(
            {
                "task_id": f"t{i:05d}",
                "seq": i + 1,
                "batch_id": "b",
                "model": f"{lane}-model-{rng.randrange(3)}",
                "model_kind": lane,
                "account_id": account,
                "workstation": rng.choice(("pc-1", "pc-2", None)),
                "prompt": "p",
                "state": state,
                "created_at": created,
                "started_at": started,
                "finished_at": finished,
                "usage_json": json.dumps({"total_tokens": rng.randrange(900)})
                if lane == "api"
                else None,
            }
        )
        if started is not None:
            end = rng.choice(("succeeded", "retry_scheduled", "deferred", "failed"))
            kind = {"retry_scheduled": "timeout", "deferred": "rate_limited"}.get(end)
            events += [
                _line(i, started, "started", lane, account, None),
                _line(i, finished, end, lane, account, kind),
            ]
    with write_tx(engine) as conn:
        conn.execute(insert(T), tasks)
        conn.execute(insert(E), sorted(events, key=lambda e: e["at"]))


def _line(
    i: int, at: float, code: str, lane: str, account: str | None, kind: str | None
) -> dict[str, Any]:
    return {
        "task_id": f"t{i:05d}",
        "at": at,
        "kind": "state",
        "lane": lane,
        "account_id": account,
        "message": code,
        "code": code,
        "params_json": json.dumps({"error_kind": kind}) if kind else None,
    }


def _brute_force(engine: Engine, since: float, until: float) -> dict[str, Any]:
    """Every answered task's times from its row, grouped and sorted in plain Python."""
    times: dict[tuple[int, Any], list[tuple[float, float, float]]] = defaultdict(list)
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                T.c.model_kind,
                T.c.model,
                T.c.account_id,
                T.c.workstation,
                T.c.created_at,
                T.c.started_at,
                T.c.finished_at,
            ).where(T.c.state == "success")
        ).all()
    for lane, model, account, workstation, created, started, finished in rows:
        if not since <= finished < until:
            continue
        began = created if started is None else started
        for dim, value in enumerate((lane, model, account, workstation)):
            if value is not None:
                times[(dim, value)].append((began - created, finished - began, finished - created))
    out: dict[str, Any] = {}
    for (dim, value), triples in times.items():
        out[f"{dim}:{value}"] = [
            tuple(percentile(sorted(t[m] for t in triples), q) for q in (0.5, 0.9, 0.99))
            for m in range(3)
        ] + [len(triples)]
    return out


def _figures_as_brute(figures: Figures) -> dict[str, Any]:
    out: dict[str, Any] = {}
    groups = (
        figures.lanes,
        figures.models,
        {a.account: a for a in figures.accounts},
        figures.workstations,
    )
    for dim, by_value in enumerate(groups):
        for value, g in by_value.items():
            if g.succeeded:
                out[f"{dim}:{value}"] = [
                    (q.p50, q.p90, q.p99) for q in (g.wait, g.run, g.total)
                ] + [g.succeeded]
    return out


def _slots(conn: Any) -> dict[tuple[Any, ...], list[tuple[float, ...]]]:
    """The task rollup, decoded, each group's entries sorted (their order is the writes')."""
    out: dict[tuple[Any, ...], list[tuple[float, ...]]] = {}
    for *key, n, data in conn.execute(select(TS)).all():
        entries = sorted(map(tuple, np.frombuffer(bytes(data), ">f8").reshape(-1, 5).tolist()))
        assert len(entries) == n
        if entries:
            out[tuple(key)] = entries
    return out


def _assert_rollup_is_the_rebuilt_one(engine: Engine) -> None:
    """What the triggers kept equals what migration step 12's backfill rebuilds from the rows."""
    with engine.connect().execution_options(write=True) as conn:
        tx = conn.begin()
        kept = _slots(conn)
        rollups.backfill(conn)
        rebuilt = _slots(conn)
        tx.rollback()
    assert kept == rebuilt


def test_percentiles_are_exact_over_a_window_that_cuts_through_slots(store: Store) -> None:
    _seed(store.engine, 3_000)
    reads = MetricsReads(store.engine)
    for since, until in ((T0 + 1_234.567, T0 + 9_000.125), (T0 - 1.0, T0 + 20_000.0)):
        figures = compute_figures(reads, since, until)
        expected = _brute_force(store.engine, since, until)
        assert len(expected) == 20  # 2 lanes, 6 models, 10 accounts, 2 workstations
        assert _figures_as_brute(figures) == expected  # bit for bit, every group
    _assert_rollup_is_the_rebuilt_one(store.engine)


def _claim(store: Store, account: str) -> Any:
    got = store.claim_next(
        kind=ModelKind.API,
        account_id=account,
        models=("api-model",),
        owner_id="s1",
        deadline_s=1800,
    )
    assert got is not None
    return got


def test_the_rollups_follow_retries_cancels_resets_and_deletes(
    store: Store, clock: ManualClock
) -> None:
    reads = MetricsReads(store.engine)
    t0 = clock.now()
    store.submit(make_tasks(8))

    def answered() -> int:
        return compute_figures(reads, t0, clock.now() + 1.0).lanes["api"].succeeded

    for _ in range(3):  # three answers
        c = _claim(store, "api-1")
        clock.advance_sync(30.0)
        assert store.finish_success(c, "answer", usage={"total_tokens": 10})
    c = _claim(store, "api-1")  # a timeout: back in the queue, then answered
    clock.advance_sync(20.0)
    assert store.requeue(c, not_before=None, keep_attempt=False, kind=ErrorKind.TIMEOUT,
                         message="timed out", code=EventCode.RETRY_SCHEDULED,
                         params={"error_kind": "timeout"})  # fmt: skip
    c = _claim(store, "api-1")
    clock.advance_sync(700.0)  # into another slot
    assert store.finish_success(c, "answer")
    c = _claim(store, "api-2")  # failed, then retried by the operator and answered
    clock.advance_sync(5.0)
    assert store.finish_failed(c, ErrorKind.SERVER_ERROR, "500")
    assert answered() == 4
    assert store.retry([c.task_id]) == [c.task_id]
    c = _claim(store, "api-2")
    clock.advance_sync(12.0)
    assert store.finish_success(c, "answer")
    cancel = store.request_cancel(batch_id="b1")  # the rest: canceled
    assert cancel.canceled and answered() == 5
    _assert_rollup_is_the_rebuilt_one(store.engine)

    with write_tx(store.engine) as conn:  # a success reset by hand, another re-timed
        first, second, third = conn.execute(
            select(T.c.task_id).where(T.c.state == "success").order_by(T.c.seq).limit(3)
        ).scalars()
        conn.execute(
            update(T).where(T.c.task_id == first).values(state="pending", finished_at=None)
        )
        conn.execute(
            update(T)
            .where(T.c.task_id == second)
            .values(finished_at=T.c.finished_at + 1_000.0, workstation="pc-9")
        )
    assert answered() == 3  # one reset, one moved past the window's end
    _assert_rollup_is_the_rebuilt_one(store.engine)
    with write_tx(store.engine) as conn:
        conn.execute(delete(T).where(T.c.task_id == third))
    clock.advance_sync(2_000.0)
    figures = compute_figures(reads, t0, clock.now())
    assert figures.lanes["api"].succeeded == 3
    assert figures.workstations["pc-9"].succeeded == 1
    assert _figures_as_brute(figures) == _brute_force(store.engine, t0, clock.now())
    _assert_rollup_is_the_rebuilt_one(store.engine)


def _undo_step_12(engine: Engine) -> None:
    """Take a store back to version 11: no rollups, no triggers, no new indexes."""
    pg = engine.dialect.name == "postgresql"
    with engine.begin() as conn:
        for name in (*rollups._TRIGGERS, "media_assistant_attempt_slots"):
            table = "task_events" if name.endswith("attempt_slots") else "tasks"
            conn.execute(text(f"DROP TRIGGER IF EXISTS {name}" + (f" ON {table}" if pg else "")))
        conn.execute(text("DROP TABLE task_slots"))
        conn.execute(text("DROP TABLE attempt_slots"))
        for index in ("ix_tasks_finished", "ix_tasks_unanswered_end", "ix_tasks_created"):
            conn.execute(text(f"DROP INDEX {index}"))
        conn.execute(text("UPDATE meta SET value = '11' WHERE key = 'schema_version'"))


def test_migration_step_12_backfills_the_rollups(store: Store, store_url: str) -> None:
    _seed(store.engine, 1_500, seed=11)
    since, until = T0 + 600.5, T0 + 12_000.0
    before = compute_figures(MetricsReads(store.engine), since, until, bucket_s=900.0)
    _undo_step_12(store.engine)
    with store.engine.connect() as conn:
        assert "task_slots" not in conn.dialect.get_table_names(conn)
    engine = open_engine(store_url)  # migrates 11 → 12
    try:
        after = compute_figures(MetricsReads(engine), since, until, bucket_s=900.0)
        assert after == before
        assert after.lanes["api"].succeeded > 500 and after.lanes["api"].timeouts > 50
        assert _figures_as_brute(after) == _brute_force(engine, since, until)
        _assert_rollup_is_the_rebuilt_one(engine)
    finally:
        engine.dispose()
