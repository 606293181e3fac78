"""The lanes' figures over a window, computed from the store (core/store/metrics_reads.py).

Synchronous: run it on a database reader thread (``DbThreads.read``), never on a loop's thread.
Everything comes from the store, so a restart and every workstation of a team see the same
figures. What each figure means is in core/metrics/figures.py.

Busy share: an account's generating time (its attempts, from the event log) ÷ the time it could
have generated — the window's part in which a scheduler ran (the sessions table) times its
slots (1 for a web account, its concurrency for an API account). Rates and busy time are per
lane and account (the event log names both); per model and workstation only the task figures.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable

from media_assistant.core.metrics.figures import (
    AccountFigures,
    Figures,
    GroupFigures,
    LaneFigures,
    Quantiles,
    Quota,
    Series,
    percentile,
)
from media_assistant.core.store.metrics_reads import MetricsReads

LANES = ("web", "api")
# How far before the window an attempt's start is looked for (an attempt ending in the window).
LOOKBACK_S = 3 * 3600.0
QUOTA_S = 60.0  # quota use is per minute

FAILURE_CODES = frozenset({"failed", "retry_scheduled", "lost", "quality_rejected"})
DEFERRAL_CODES = frozenset({"deferred"})
Interval = tuple[str | None, str | None, float, float]  # account, lane, start, end


def compute_figures(
    reads: MetricsReads, since: float, until: float, *, bucket_s: float | None = None
) -> Figures:
    """The figures of [since, until); with ``bucket_s`` also their series per bucket."""
    lanes = {lane: LaneFigures() for lane in LANES}
    models: dict[str, GroupFigures] = {}
    workstations: dict[str, GroupFigures] = {}
    by_account: dict[str, AccountFigures] = {}
    minutes = max(until - since, 1e-9) / 60.0

    def account(name: str, lane: str | None) -> AccountFigures:
        found = by_account.get(name)
        if found is None:
            found = by_account[name] = AccountFigures(account=name, lane=lane or "")
        return found

    # tasks that ended in the window: counts and times
    times: dict[int, tuple[list[float], list[float], list[float]]] = {}
    rows = reads.finished_tasks(since, until)
    n_buckets = _buckets(since, until, bucket_s)
    finished_b = {lane: [0] * n_buckets for lane in LANES}
    totals_b: dict[str, list[list[float]]] = {
        lane: [[] for _ in range(n_buckets)] for lane in LANES
    }
    for lane, model, acc, ws, state, _kind, created, started, finished in rows:
        lane_fig = lanes.setdefault(lane, LaneFigures())
        groups: list[GroupFigures] = [lane_fig, models.setdefault(model, GroupFigures())]
        if acc:
            groups.append(account(acc, lane))
        if ws:
            groups.append(workstations.setdefault(ws, GroupFigures()))
        answered = state == "success" and started is not None
        for g in groups:
            g.finished += 1
            if state == "success":
                g.succeeded += 1
            elif state == "failed":
                g.failed += 1
            else:
                g.canceled += 1
            if answered:
                lists = times.get(id(g))
                if lists is None:
                    lists = times[id(g)] = ([], [], [])
                lists[0].append(started - created)  # type: ignore[operator]
                lists[1].append(finished - started)  # type: ignore[operator]
                lists[2].append(finished - created)
        if n_buckets and bucket_s:
            b = min(int((finished - since) // bucket_s), n_buckets - 1)
            finished_b[lane][b] += 1
            if answered:
                totals_b[lane][b].append(finished - created)
    for g in (*lanes.values(), *models.values(), *by_account.values(), *workstations.values()):
        g.per_minute = g.finished / minutes
        lists = times.get(id(g))
        if lists:
            g.wait, g.run, g.total = (Quantiles.of(values) for values in lists)

    # attempts that ended in the window: rates; every attempt: busy time
    intervals: list[Interval] = []
    opened: dict[str, tuple[float, str | None, str | None]] = {}
    attempt_b: dict[str, dict[str, list[int]]] = {
        name: {lane: [0] * n_buckets for lane in LANES}
        for name in ("attempts", "timeouts", "failures", "deferrals")
    }
    api_starts: dict[str, list[float]] = defaultdict(list)
    for at, code, ev_lane, ev_acc, task_id, params in reads.attempt_events(
        since - LOOKBACK_S, until
    ):
        if code == "started":
            opened[task_id] = (at, ev_lane, ev_acc)
            if ev_lane == "api" and ev_acc and at >= since:
                api_starts[ev_acc].append(at)
            continue
        opener = opened.pop(task_id, None)
        if opener is not None:
            intervals.append((opener[2], opener[1], opener[0], at))
        if at < since:
            continue
        failure, deferral = code in FAILURE_CODES, code in DEFERRAL_CODES
        if not (failure or deferral or code == "succeeded"):
            continue  # canceled or handed back: not the lane's doing
        kind = _error_kind(params) or code
        counted: list[GroupFigures] = []
        if ev_lane:
            counted.append(lanes.setdefault(ev_lane, LaneFigures()))
        if ev_acc:
            counted.append(account(ev_acc, ev_lane))
        for g in counted:
            g.attempts += 1
            if failure:
                g.failures += 1
                g.failures_by_kind[kind] = g.failures_by_kind.get(kind, 0) + 1
                g.timeouts += kind == "timeout"
            if deferral:
                g.deferrals += 1
                g.deferrals_by_kind[kind] = g.deferrals_by_kind.get(kind, 0) + 1
        if n_buckets and bucket_s and ev_lane in LANES:
            b = min(int((at - since) // bucket_s), n_buckets - 1)
            attempt_b["attempts"][ev_lane][b] += 1
            attempt_b["timeouts"][ev_lane][b] += failure and kind == "timeout"
            attempt_b["failures"][ev_lane][b] += failure
            attempt_b["deferrals"][ev_lane][b] += deferral
    intervals += [(acc, lane, at, until) for at, lane, acc in opened.values()]

    # accounts: busy share and quota
    sessions = reads.session_spans(since, until)
    ran_s = _union_length(sessions, since, until)
    limits = {row[0]: row for row in reads.accounts()}
    for acc_id, kind, enabled, *_ in limits.values():
        if enabled:
            account(acc_id, kind)
    busy: dict[str, float] = defaultdict(float)
    in_flight: dict[str, int] = defaultdict(int)
    for who, _lane, began, ended in intervals:
        if who is None:
            continue
        busy[who] += max(0.0, min(ended, until) - max(began, since))
        in_flight[who] += began < until <= ended  # open attempts end at ``until``
    tokens = reads.api_tokens(since if n_buckets else max(since, until - QUOTA_S), until)
    for fig in by_account.values():
        row = limits.get(fig.account)
        if row is not None:
            fig.lane, fig.enabled = row[1], bool(row[2])
        slots = _slots(row)
        fig.busy_s = busy.get(fig.account, 0.0)
        fig.enabled_s = ran_s * slots if (fig.enabled or fig.busy_s) else 0.0
        fig.per_minute = fig.finished / minutes
        if fig.lane == "api":
            last = until - QUOTA_S
            rpm = sum(1 for at in api_starts.get(fig.account, ()) if at >= last)
            tpm = sum(_tokens(u) for a, at, u in tokens if a == fig.account and at >= last)
            fig.quota = _quota(row, rpm, tpm, in_flight.get(fig.account, 0))

    # backlog
    counts = reads.backlog([since, until])
    for name, lane_fig in lanes.items():
        lane_fig.backlog_at_start = counts[since].get(name, 0)
        lane_fig.backlog = counts[until].get(name, 0)
        lane_fig.backlog_trend = (lane_fig.backlog - lane_fig.backlog_at_start) / minutes

    figures = Figures(
        since=since,
        until=until,
        lanes=lanes,
        models=models,
        accounts=sorted(by_account.values(), key=lambda f: (f.lane, f.account)),
        workstations=workstations,
    )
    if n_buckets and bucket_s:
        figures.series = _series(
            reads, figures, bucket_s, n_buckets, finished_b, totals_b, attempt_b, intervals,
            api_starts, tokens, limits, rows,
        )  # fmt: skip
    return figures


def _buckets(since: float, until: float, bucket_s: float | None) -> int:
    if not bucket_s:
        return 0
    return max(1, int(-(-(until - since) // bucket_s)))


def _error_kind(params: str | None) -> str | None:
    if not params:
        return None
    try:
        value = json.loads(params).get("error_kind")
    except (ValueError, AttributeError):
        return None
    return str(value) if value else None


def _tokens(usage: str) -> int:
    try:
        value = json.loads(usage)
        return int(value.get("total_tokens") or 0)
    except (ValueError, AttributeError, TypeError):
        return 0


def _slots(row: tuple[object, ...] | None) -> int:
    if row is None or row[1] != "api":
        return 1
    override, configured = row[3], row[4]
    value = override if isinstance(override, int) else configured
    return max(1, value) if isinstance(value, int) else 1


def _quota(row: tuple[object, ...] | None, rpm: int, tpm: int, flying: int) -> Quota:
    rpm_limit = row[5] if row is not None and isinstance(row[5], int) else None
    tpm_limit = row[6] if row is not None and isinstance(row[6], int) else None
    slots = _slots(row)
    return Quota(
        rpm_use=rpm / rpm_limit if rpm_limit else None,
        tpm_use=tpm / tpm_limit if tpm_limit else None,
        in_flight_use=flying / slots,
        rpm=rpm,
        tpm=tpm,
        in_flight=flying,
        rpm_limit=rpm_limit,
        tpm_limit=tpm_limit,
        in_flight_limit=slots,
    )


def _union_length(spans: Iterable[tuple[float, float]], since: float, until: float) -> float:
    """How much of [since, until) the spans cover together."""
    total, reach = 0.0, since
    for began, ended in sorted(spans):
        start, end = max(began, reach), min(ended, until)
        if end > start:
            total += end - start
            reach = end
    return total


def _series(
    reads: MetricsReads,
    figures: Figures,
    bucket_s: float,
    n: int,
    finished_b: dict[str, list[int]],
    totals_b: dict[str, list[list[float]]],
    attempt_b: dict[str, dict[str, list[int]]],
    intervals: list[Interval],
    api_starts: dict[str, list[float]],
    tokens: list[tuple[str | None, float, str]],
    limits: dict[str, tuple[str, str, bool, int | None, int | None, int | None, int | None]],
    rows: list[
        tuple[str, str, str | None, str | None, str, str | None, float, float | None, float]
    ],
) -> Series:
    since, until = figures.since, figures.until
    starts = [since + i * bucket_s for i in range(n)]

    def bucket(at: float) -> int:
        return min(max(int((at - since) // bucket_s), 0), n - 1)

    # backlog at each bucket's end: the start's, plus submitted, minus ended so far
    delta = {lane: [0] * n for lane in LANES}
    for lane, at in reads.submitted(since, until):
        if lane in delta:
            delta[lane][bucket(at)] += 1
    for task in rows:
        if task[0] in delta:
            delta[task[0]][bucket(task[8])] -= 1
    backlog: dict[str, list[int]] = {}
    for lane in LANES:
        level, out = figures.lanes[lane].backlog_at_start, []
        for d in delta[lane]:
            level += d
            out.append(level)
        backlog[lane] = out
    busy_s: dict[str, list[float]] = {f.account: [0.0] * n for f in figures.accounts}
    for who, _lane, began, ended in intervals:
        if who not in busy_s:
            continue
        t, end = max(began, since), min(ended, until)
        while t < end:
            b = bucket(t)
            edge = min(end, since + (b + 1) * bucket_s)
            busy_s[who][b] += edge - t
            t = edge if edge > t else end
    per_min = bucket_s / 60.0
    busy: dict[str, list[float]] = {}
    rpm_use: dict[str, list[float | None]] = {}
    tpm_use: dict[str, list[float | None]] = {}
    flying: dict[str, list[float | None]] = {}
    for fig in figures.accounts:
        row = limits.get(fig.account)
        slots = _slots(row)
        busy[fig.account] = [min(1.0, s / (bucket_s * slots)) for s in busy_s[fig.account]]
        if fig.lane != "api":
            continue
        flying[fig.account] = [s / bucket_s / slots for s in busy_s[fig.account]]
        starts_n = [0] * n
        for at in api_starts.get(fig.account, ()):
            starts_n[bucket(at)] += 1
        tokens_n = [0] * n
        for who, at, usage in tokens:
            if who == fig.account:
                tokens_n[bucket(at)] += _tokens(usage)
        rpm_limit = row[5] if row is not None else None
        tpm_limit = row[6] if row is not None else None
        rpm_use[fig.account] = [c / per_min / rpm_limit if rpm_limit else None for c in starts_n]
        tpm_use[fig.account] = [c / per_min / tpm_limit if tpm_limit else None for c in tokens_n]
    return Series(
        starts=starts,
        finished=finished_b,
        p90_total={lane: [percentile(sorted(v), 0.9) for v in totals_b[lane]] for lane in LANES},
        backlog=backlog,
        attempts=attempt_b["attempts"],
        timeouts=attempt_b["timeouts"],
        failures=attempt_b["failures"],
        deferrals=attempt_b["deferrals"],
        busy=busy,
        rpm_use=rpm_use,
        tpm_use=tpm_use,
        in_flight_use=flying,
    )
