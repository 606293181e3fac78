"""The lanes' figures over a window, computed from the store (core/store/metrics_reads.py).

Synchronous: run it on a database reader thread (``DbThreads.read``), never on a loop's thread.
Everything comes from the store, so a restart and every workstation of a team see the same
figures. What each figure means is in core/metrics/figures.py.

Busy share: an account's generating time (its attempts: the answered ones from the tasks' rows,
the others paired with their start in the event log) ÷ the time it could have generated — the
window's part in which a scheduler ran (the sessions table) times its slots (1 for a web account,
its concurrency for an API account). Rates are per lane and account (the event log names both);
per model and workstation the task figures only.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

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
from media_assistant.core.store.metrics_reads import DEFERRAL_ENDS, FAILURE_ENDS, MetricsReads

LANES = ("web", "api")
QUOTA_S = 60.0  # quota use is per minute


class _Times:
    __slots__ = ("lane", "wait", "run", "total")

    def __init__(self) -> None:
        self.lane = ""
        self.wait: list[float] = []
        self.run: list[float] = []
        self.total: list[float] = []


def compute_figures(
    reads: MetricsReads, since: float, until: float, *, bucket_s: float | None = None
) -> Figures:
    """The figures of [since, until); with ``bucket_s`` also their series per bucket."""
    minutes = max(until - since, 1e-9) / 60.0
    lanes: dict[str, GroupFigures] = {lane: LaneFigures() for lane in LANES}
    models: dict[str, GroupFigures] = {}
    workstations: dict[str, GroupFigures] = {}
    by_account: dict[str, GroupFigures] = {}
    limits = {row[0]: row for row in reads.accounts()}
    for acc_id, kind, enabled, *_ in limits.values():
        if enabled:
            by_account[acc_id] = AccountFigures(account=acc_id, lane=kind)
    dims: list[tuple[int, dict[str, GroupFigures], type[GroupFigures]]] = [
        (0, lanes, LaneFigures),
        (1, models, GroupFigures),
        (2, by_account, AccountFigures),
        (3, workstations, GroupFigures),
    ]

    # tasks that ended in the window without an answer: counts
    for row in reads.unanswered_counts(since, until):
        state, n = row[4], int(row[5])
        for col, groups, make in dims:
            if row[col] is None:
                continue
            g = groups.get(row[col]) or groups.setdefault(row[col], _new(make, row, col))
            g.finished += n
            if state == "success":
                g.succeeded += n
            elif state == "failed":
                g.failed += n
            else:
                g.canceled += n

    # answered tasks: exact percentiles, one pass per dimension
    answered = reads.answered(since, until)
    for col, groups, make in dims:
        times: dict[Any, _Times] = defaultdict(_Times)
        for row in answered:
            t = times[row[col]]
            t.lane = row[0]
            t.wait.append(row[4])
            t.run.append(row[5])
            t.total.append(row[6])
        for key, t in times.items():
            if key is None:
                continue
            g = groups.get(key) or groups.setdefault(key, _new(make, (t.lane, key), 1))
            g.finished += len(t.total)
            g.succeeded += len(t.total)
            g.wait, g.run, g.total = (
                Quantiles.of(t.wait),
                Quantiles.of(t.run),
                Quantiles.of(t.total),
            )
    for g in (*lanes.values(), *models.values(), *by_account.values(), *workstations.values()):
        g.per_minute = g.finished / minutes
    # each answer ended one attempt (its ``succeeded`` line): counted from the tasks, not the log
    for g in (*lanes.values(), *by_account.values()):
        g.attempts += g.succeeded
    answered_busy: dict[str | None, float] = defaultdict(float)
    for row in answered:
        answered_busy[row[2]] += row[7] - max(row[7] - row[5], since)

    # attempts that ended in the window: rates
    for lane, acc, code, params, n in reads.attempt_ends(since, until):
        failure, deferral = code in FAILURE_ENDS, code in DEFERRAL_ENDS
        kind = _error_kind(params) or code
        counted: list[GroupFigures] = []
        if lane:
            counted.append(lanes.get(lane) or lanes.setdefault(lane, LaneFigures()))
        if acc:
            counted.append(
                by_account.get(acc)
                or by_account.setdefault(acc, AccountFigures(account=acc, lane=lane or ""))
            )
        for g in counted:
            g.attempts += n
            if failure:
                g.failures += n
                g.failures_by_kind[kind] = g.failures_by_kind.get(kind, 0) + n
                g.timeouts += n if kind == "timeout" else 0
            if deferral:
                g.deferrals += n
                g.deferrals_by_kind[kind] = g.deferrals_by_kind.get(kind, 0) + n

    # accounts: busy share and quota
    accounts = [a for a in by_account.values() if isinstance(a, AccountFigures)]
    _busy_and_quota(reads, accounts, limits, since, until, answered_busy)

    # backlog
    counts = reads.backlog([since, until])
    for name, lane_fig in lanes.items():
        assert isinstance(lane_fig, LaneFigures)
        lane_fig.backlog_at_start = counts[since].get(name, 0)
        lane_fig.backlog = counts[until].get(name, 0)
        lane_fig.backlog_trend = (lane_fig.backlog - lane_fig.backlog_at_start) / minutes

    figures = Figures(
        since=since,
        until=until,
        lanes={k: v for k, v in lanes.items() if isinstance(v, LaneFigures)},
        models=models,
        accounts=sorted(accounts, key=lambda f: (f.lane, f.account)),
        workstations=workstations,
    )
    if bucket_s:
        figures.series = _series(reads, figures, bucket_s, answered, limits)
    return figures


def _new(make: type[GroupFigures], row: Any, col: int) -> GroupFigures:
    """A group met first in ``row`` (its lane first, its key at ``col``)."""
    if make is AccountFigures:
        return AccountFigures(account=str(row[col]), lane=str(row[0]))
    return make()


def _busy_and_quota(
    reads: MetricsReads,
    accounts: list[AccountFigures],
    limits: dict[str, Any],
    since: float,
    until: float,
    answered_busy: dict[str | None, float],
) -> None:
    ran_s = _union_length(reads.session_spans(since, until), since, until)
    busy: dict[str | None, float] = defaultdict(float, answered_busy)
    for acc, seconds in reads.busy(since, until):
        busy[acc] += seconds
    last = max(since, until - QUOTA_S)
    starts = dict(reads.api_starts(last, until))
    flying = dict(reads.in_flight(until))
    tokens: dict[str | None, int] = defaultdict(int)
    for acc, _at, usage in reads.api_tokens(last, until):
        tokens[acc] += _tokens(usage)
    for fig in accounts:
        row = limits.get(fig.account)
        if row is not None:
            fig.lane, fig.enabled = str(row[1]), bool(row[2])
        fig.busy_s = busy.get(fig.account, 0.0)
        fig.enabled_s = ran_s * _slots(row) if (fig.enabled or fig.busy_s) else 0.0
        if fig.lane == "api":
            fig.quota = _quota(
                row, starts.get(fig.account, 0), tokens[fig.account], flying.get(fig.account, 0)
            )


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
        return int(json.loads(usage).get("total_tokens") or 0)
    except (ValueError, AttributeError, TypeError):
        return 0


def _slots(row: Any) -> int:
    if row is None or row[1] != "api":
        return 1
    override, configured = row[3], row[4]
    value = override if isinstance(override, int) else configured
    return max(1, value) if isinstance(value, int) else 1


def _limit(row: Any, index: int) -> int | None:
    return row[index] if row is not None and isinstance(row[index], int) and row[index] else None


def _quota(row: Any, rpm: int, tpm: int, flying: int) -> Quota:
    rpm_limit, tpm_limit, slots = _limit(row, 5), _limit(row, 6), _slots(row)
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


def _union_length(spans: list[tuple[float, float]], since: float, until: float) -> float:
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
    answered: list[Any],
    limits: dict[str, Any],
) -> Series:
    since, until = figures.since, figures.until
    n = max(1, int(-(-(until - since) // bucket_s)))

    def bucket(at: float) -> int:
        return min(max(int((at - since) // bucket_s), 0), n - 1)

    totals: dict[str, list[list[float]]] = {lane: [[] for _ in range(n)] for lane in LANES}
    for row in answered:
        if row[0] in totals:
            totals[row[0]][bucket(row[7])].append(row[6])
    counts = reads.per_bucket(since, until, bucket_s)
    backlog: dict[str, list[int]] = {}
    ended: dict[str, list[int]] = {}
    for lane in LANES:
        level, out = figures.lanes[lane].backlog_at_start, []
        ended[lane] = [counts["ended"].get((lane, b), 0) for b in range(n)]
        for b in range(n):
            level += counts["submitted"].get((lane, b), 0) - ended[lane][b]
            out.append(level)
        backlog[lane] = out
    per_min = bucket_s / 60.0
    tokens: dict[tuple[str, int], int] = defaultdict(int)
    for acc, at, usage in reads.api_tokens(since, until):
        tokens[(str(acc), bucket(at))] += _tokens(usage)
    rpm_use: dict[str, list[float | None]] = {}
    tpm_use: dict[str, list[float | None]] = {}
    for fig in figures.accounts:
        if fig.lane != "api":
            continue
        row = limits.get(fig.account)
        rpm_limit, tpm_limit = _limit(row, 5), _limit(row, 6)
        rpm_use[fig.account] = [
            counts["started"].get((fig.account, b), 0) / per_min / rpm_limit if rpm_limit else None
            for b in range(n)
        ]
        tpm_use[fig.account] = [
            tokens[(fig.account, b)] / per_min / tpm_limit if tpm_limit else None for b in range(n)
        ]
    return Series(
        starts=[since + i * bucket_s for i in range(n)],
        finished=ended,
        p90_total={lane: [percentile(sorted(v), 0.9) for v in totals[lane]] for lane in LANES},
        backlog=backlog,
        rpm_use=rpm_use,
        tpm_use=tpm_use,
    )
