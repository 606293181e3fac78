"""The lanes' figures from the store (issue 31), on SQLite and PostgreSQL, with a manual clock:
a batch with known wait and generation times, timeouts and deferrals injected."""

from __future__ import annotations

import statistics

import pytest
from sqlalchemy import insert

from media_assistant.core.metrics.compute import compute_figures
from media_assistant.core.metrics.figures import percentile
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import write_tx
from media_assistant.core.store.metrics_reads import MetricsReads
from media_assistant.core.store.schema import AccountRow, SessionRow
from tests.conftest import make_tasks

A = AccountRow.__table__  # type: ignore[attr-defined]
S = SessionRow.__table__  # type: ignore[attr-defined]


def _accounts(store: Store, start: float) -> None:
    with write_tx(store.engine) as conn:
        conn.execute(
            insert(A),
            [
                {"account_id": "api-1", "kind": "api", "enabled": True, "updated_at": 0.0,
                 "limit_concurrency": 2, "limit_rpm": 10, "limit_tpm": 1000},
                {"account_id": "web-1", "kind": "web", "enabled": True, "updated_at": 0.0,
                 "limit_concurrency": None, "limit_rpm": None, "limit_tpm": None},
            ],
        )  # fmt: skip
        conn.execute(
            insert(S).values(
                session_id="s1", pid=1, host="h", started_at=start, heartbeat_at=start + 10_000
            )
        )


def _claim(store: Store, kind: ModelKind, account: str, model: str) -> object:
    got = store.claim_next(
        kind=kind, account_id=account, models=(model,), owner_id="s1", deadline_s=1800
    )
    assert got is not None
    return got


def test_percentiles_are_exact_linear_interpolation() -> None:
    values = [float(v) for v in (7, 1, 3, 9, 4, 4, 12, 30, 2)]
    ordered = sorted(values)
    expected = statistics.quantiles(values, n=100, method="inclusive")
    assert percentile(ordered, 0.9) == pytest.approx(expected[89])
    assert percentile(ordered, 0.5) == statistics.median(values)
    assert percentile([5.0], 0.99) == 5.0 and percentile([], 0.5) is None


def test_figures_of_a_batch_with_known_times(store: Store, clock: ManualClock) -> None:
    t0 = clock.now()
    _accounts(store, t0)
    store.submit(make_tasks(10))  # api-model on the API lane, submitted at t0
    runs = [float(10 * (i + 1)) for i in range(10)]  # 10 s, 20 s … 100 s
    waits: list[float] = []
    for i, run in enumerate(runs):
        clock.advance_sync(5.0)
        c = _claim(store, ModelKind.API, "api-1", "api-model")
        waits.append(clock.now() - t0)
        clock.advance_sync(run)
        usage = {"total_tokens": 100}
        if i == 3:  # a timeout, then the retry answers at once
            assert store.requeue(c, not_before=None, keep_attempt=False,  # type: ignore[arg-type]
                                 kind=ErrorKind.TIMEOUT, message="timed out",
                                 code=EventCode.RETRY_SCHEDULED,
                                 params={"error_kind": "timeout"})  # fmt: skip
            c = _claim(store, ModelKind.API, "api-1", "api-model")
            waits[-1] = clock.now() - t0
            runs[i] = 0.0
        if i == 5:  # rate-limited once: deferred, then claimed again
            assert store.requeue(c, not_before=None, keep_attempt=True,  # type: ignore[arg-type]
                                 kind=ErrorKind.RATE_LIMITED, message="429",
                                 code=EventCode.DEFERRED,
                                 params={"error_kind": "rate_limited"})  # fmt: skip
            c = _claim(store, ModelKind.API, "api-1", "api-model")
            waits[-1] = clock.now() - t0
            runs[i] = 0.0
        assert store.finish_success(c, "answer", usage=usage)  # type: ignore[arg-type]
    store.submit(make_tasks(3, prefix="later"))  # backlog grows by 3
    until = clock.now() + 1.0
    figures = compute_figures(MetricsReads(store.engine), t0 - 1.0, until, bucket_s=60.0)
    api = figures.lanes["api"]
    totals = [w + r for w, r in zip(waits, runs, strict=True)]
    assert api.finished == api.succeeded == 10
    assert api.run.p90 == percentile(sorted(runs), 0.9)
    assert api.wait.p50 == percentile(sorted(waits), 0.5)
    assert api.total.p99 == percentile(sorted(totals), 0.99)
    assert api.attempts == 12  # 10 answers, a timeout, a deferral
    assert (api.timeouts, api.failures, api.deferrals) == (1, 1, 1)
    assert api.timeout_rate == 1 / 12 and api.deferral_rate == 1 / 12
    assert api.failures_by_kind == {"timeout": 1}
    assert (api.backlog_at_start, api.backlog) == (0, 3)
    assert api.per_minute == 10 / figures.minutes
    acc = {a.account: a for a in figures.accounts}
    api1 = acc["api-1"]
    generating = sum(10 * (i + 1) for i in range(10))  # the timed-out and deferred ones too
    assert api1.busy_s == generating
    assert api1.enabled_s == (until - (t0 - 1.0) - 1.0) * 2  # the session's span, 2 slots
    assert api1.quota is not None and api1.quota.in_flight == 0
    assert acc["web-1"].busy_share == 0.0  # enabled, idle
    assert figures.models["api-model"].finished == 10
    series = figures.series
    assert series is not None and sum(series.finished["api"]) == 10
    assert series.backlog["api"][-1] == 3
    assert series.rpm_use["api-1"][0] == 3 / 10  # started at +5 s, +20 s, +45 s


def test_quota_use_counts_the_last_minute_and_what_is_in_flight(
    store: Store, clock: ManualClock
) -> None:
    t0 = clock.now()
    _accounts(store, t0)
    store.submit(make_tasks(6))
    clock.advance_sync(100.0)
    claims = [_claim(store, ModelKind.API, "api-1", "api-model") for _ in range(2)]
    clock.advance_sync(10.0)
    for c in claims:
        assert store.finish_success(c, "x", usage={"total_tokens": 450})  # type: ignore[arg-type]
    c = _claim(store, ModelKind.API, "api-1", "api-model")  # in flight at the end
    clock.advance_sync(5.0)
    figures = compute_figures(MetricsReads(store.engine), t0, clock.now())
    quota = {a.account: a for a in figures.accounts}["api-1"].quota
    assert quota is not None
    assert (quota.rpm, quota.tpm, quota.in_flight) == (3, 900, 1)
    assert (quota.rpm_use, quota.tpm_use, quota.in_flight_use) == (0.3, 0.9, 0.5)
    assert figures.lanes["api"].backlog == 4
    assert c is not None
