"""Alarms at the incident accounts' thresholds (issue 31 item 3), judged from a real store (SQLite
and PostgreSQL) with a manual clock: raised once per episode, cleared once, sent once per team."""

from __future__ import annotations

import asyncio

from sqlalchemy import insert

from media_assistant.core.config.metrics import AlarmsConfig
from media_assistant.core.metrics.alarms import Alarm, evaluate
from media_assistant.core.metrics.watch import AlarmWatch, alarm_notice, team_keys
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.states import ModelKind, NoticeKind
from media_assistant.core.notices.center import Notice, notice_text
from media_assistant.core.store import Store
from media_assistant.core.store.db import write_tx
from media_assistant.core.store.metrics_reads import MetricsReads
from media_assistant.core.store.schema import AccountRow, SessionRow
from tests.conftest import make_tasks

A = AccountRow.__table__  # type: ignore[attr-defined]
S = SessionRow.__table__  # type: ignore[attr-defined]


def _setup(store: Store, *, rpm: int | None = None) -> None:
    t = store.clock.now()
    with write_tx(store.engine) as conn:
        conn.execute(
            insert(A),
            [
                {"account_id": "api-1", "kind": "api", "enabled": True, "updated_at": 0.0,
                 "limit_concurrency": 5, "limit_rpm": rpm, "limit_tpm": None},
                {"account_id": "web-1", "kind": "web", "enabled": True, "updated_at": 0.0,
                 "limit_concurrency": None, "limit_rpm": None, "limit_tpm": None},
            ],
        )  # fmt: skip
        conn.execute(
            insert(S).values(session_id="s", pid=1, host="h", started_at=t, heartbeat_at=t + 1e5)
        )


def _attempts(store: Store, clock: ManualClock, n: int, *, timeouts: int, prefix: str) -> None:
    """``n`` API attempts, one every 30 s: the first ``timeouts`` time out (retried)."""
    store.submit(make_tasks(n, prefix=prefix))
    for i in range(n):
        c = store.claim_next(
            kind=ModelKind.API, account_id="api-1", models=("api-model",), owner_id="s",
            deadline_s=1800,
        )  # fmt: skip
        assert c is not None
        clock.advance_sync(30.0)
        if i < timeouts:
            assert store.requeue(
                c, not_before=1e12, keep_attempt=False, kind=ErrorKind.TIMEOUT, message="t",
                code=EventCode.RETRY_SCHEDULED, params={"error_kind": "timeout"},
            )  # fmt: skip
        else:
            assert store.finish_success(c, "ok")
    clock.advance_sync(1.0)  # the last one ended before the look


def test_timeouts_over_five_percent_raise_an_alarm_and_its_end_clears_it(
    store: Store, clock: ManualClock
) -> None:
    _setup(store)
    config = AlarmsConfig()
    reads = MetricsReads(store.engine)
    _attempts(store, clock, 12, timeouts=1, prefix="a")  # 1 of 12: 8 % over 6 minutes
    posted: list[Notice] = []

    async def judge(at: float) -> list[Alarm]:
        return evaluate(reads, config, at)

    watch = AlarmWatch(judge, posted.append, clock)
    first = asyncio.run(watch.check())
    kinds = {(n.kind, n.params["alarm"], n.subject) for n in first}
    # 1 of 12 attempts: a timeout over 5 %, its failure + deferral rate within 10 %
    assert kinds == {(NoticeKind.ALARM, "timeout_rate", "api")}
    timeout = next(n for n in first if n.params["alarm"] == "timeout_rate")
    assert timeout.params["value"] == round(1 / 12, 4) and timeout.params["threshold"] == 0.05
    assert asyncio.run(watch.check()) == []  # still holds: no second notice
    clock.advance_sync(11 * 60.0)  # the timeout leaves the 10-minute window
    _attempts(store, clock, 12, timeouts=0, prefix="b")
    cleared = asyncio.run(watch.check())
    assert {(n.kind, n.params["alarm"]) for n in cleared} == {
        (NoticeKind.ALARM_CLEARED, str(n.params["alarm"])) for n in first
    }
    assert posted == first + cleared


def test_rates_are_not_judged_from_a_handful_of_attempts(store: Store, clock: ManualClock) -> None:
    _setup(store)
    _attempts(store, clock, 3, timeouts=2, prefix="a")
    assert evaluate(MetricsReads(store.engine), AlarmsConfig(), clock.now()) == []
    lenient = AlarmsConfig(min_attempts=3, failure_rate=0.9, timeout_rate=0.9)
    assert evaluate(MetricsReads(store.engine), lenient, clock.now()) == []
    strict = AlarmsConfig(min_attempts=3)
    got = {a.kind for a in evaluate(MetricsReads(store.engine), strict, clock.now())}
    assert got == {"timeout_rate", "failure_rate"}


def test_quota_at_85_percent_for_five_minutes(store: Store, clock: ManualClock) -> None:
    _setup(store, rpm=2)
    store.submit(make_tasks(20))
    for _ in range(20):  # a request started every 30 s: 100 % of rpm 2
        c = store.claim_next(
            kind=ModelKind.API, account_id="api-1", models=("api-model",), owner_id="s",
            deadline_s=1800,
        )  # fmt: skip
        assert c is not None and store.finish_success(c, "ok")
        clock.advance_sync(30.0)
    alarms = evaluate(MetricsReads(store.engine), AlarmsConfig(), clock.now())
    quota = [a for a in alarms if a.kind == "quota_use"]
    assert [(a.subject, a.value, a.threshold) for a in quota] == [("api-1", 1.0, 0.85)]
    clock.advance_sync(60.0)  # a minute without requests: no longer 5 minutes in a row
    alarms = evaluate(MetricsReads(store.engine), AlarmsConfig(), clock.now())
    assert not [a for a in alarms if a.kind == "quota_use"]


def test_a_growing_backlog_beside_an_idle_account(store: Store, clock: ManualClock) -> None:
    _setup(store)
    for minute in range(11):
        store.submit(make_tasks(2, kind=ModelKind.WEB, model="web-model", prefix=f"w{minute}"))
        clock.advance_sync(60.0)
    alarms = evaluate(MetricsReads(store.engine), AlarmsConfig(), clock.now())
    growing = [a for a in alarms if a.kind == "backlog_growing"]
    assert [(a.subject, a.value) for a in growing] == [("web", 22.0)]
    off = AlarmsConfig(backlog_growth=False)
    assert evaluate(MetricsReads(store.engine), off, clock.now()) == []


def test_a_team_sends_an_alarm_once(store: Store, clock: ManualClock) -> None:
    alarm = Alarm("timeout_rate", "api", clock.now() - 600, 0.2, 0.05)
    seen_by_a = alarm_notice(alarm, clock.now())
    seen_by_b = alarm_notice(alarm, clock.now() + 45.0)  # a look later, maybe the next slot
    won = [
        all([store.claim_notice(k, ws) for k in team_keys(notice, 60.0)])
        for notice, ws in ((seen_by_a, "pc-a"), (seen_by_b, "pc-b"))
    ]
    assert won == [True, False]


def test_alarm_words_in_chinese_and_english() -> None:
    alarm = Alarm("failure_rate", "web", 0.0, 0.125, 0.1)
    notice = alarm_notice(alarm, 600.0)
    assert notice_text(notice, "zh") == (
        "网页版通道失败和延后过多",
        "最近 10 分钟的尝试中失败和延后占 12%（阈值 10%）",
    )
    assert notice_text(notice, "en")[0] == "Too many failures and deferrals on the web lane"
    cleared = alarm_notice(alarm, 900.0, cleared=True)
    assert notice_text(cleared, "zh")[0] == "已恢复：网页版通道失败和延后过多"
