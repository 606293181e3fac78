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

from collections import defaultdict
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from media_assistant.core.metrics import open_tasks
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
from media_assistant.core.store.metrics_reads import (
    CREATED,
    DEFERRAL_ENDS,
    FAILURE_ENDS,
    FINISHED,
    NEUTRAL_ENDS,
    STARTED,
    STARTED_AT,
    TOKENS,
    AnswerKey,
    AttemptKey,
    MetricsReads,
    Rows,
)

LANES = ("web", "api")
QUOTA_S = 60.0  # quota use is per minute
QUANTILES = (0.5, 0.9, 0.99)
NOT_ANSWERED_ENDS = frozenset((*FAILURE_ENDS, *DEFERRAL_ENDS, *NEUTRAL_ENDS))


def compute_figures(
    reads: MetricsReads, since: float, until: float, *, bucket_s: float | None = None
) -> Figures:
    """The figures of [since, until); with ``bucket_s`` also their series per bucket. Every
    read in one transaction: one snapshot of the store."""
    with reads.together():
        return _figures(reads, since, until, bucket_s)


def _figures(reads: MetricsReads, since: float, until: float, bucket_s: float | None) -> Figures:
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
    unanswered = reads.unanswered(since, until)
    for row in unanswered:
        if not since <= row[5] < until:
            continue
        for col, groups, make in dims:
            if row[col] is None:
                continue
            g = groups.get(row[col]) or groups.setdefault(row[col], _new(make, row, col))
            g.finished += 1
            if row[4] == "failed":
                g.failed += 1
            else:
                g.canceled += 1

    # answered tasks: exact percentiles, one pass per dimension
    slots = reads.answers(since, until)
    answered = {key: _cut(rows, FINISHED, since, until) for key, rows in slots.items()}
    answered = {key: rows for key, rows in answered.items() if len(rows)}
    for col, groups, make in dims:
        parts: dict[Any, list[Rows]] = defaultdict(list)
        lane_of: dict[Any, str] = {}
        for key, rows in answered.items():
            parts[key[col]].append(rows)
            lane_of[key[col]] = key[0]
        for value, chunks in parts.items():
            if value is None:
                continue
            rows = np.concatenate(chunks)
            g = groups.get(value) or groups.setdefault(
                value, _new(make, (lane_of[value], value), 1)
            )
            g.finished += len(rows)
            g.succeeded += len(rows)
            g.wait = _quantiles(rows[:, STARTED_AT] - rows[:, CREATED])
            g.run = _quantiles(rows[:, FINISHED] - rows[:, STARTED_AT])
            g.total = _quantiles(rows[:, FINISHED] - rows[:, CREATED])
    for g in (*lanes.values(), *models.values(), *by_account.values(), *workstations.values()):
        g.per_minute = g.finished / minutes
    # each answer ended one attempt (its ``succeeded`` line): counted from the tasks, not the log
    for g in (*lanes.values(), *by_account.values()):
        g.attempts += g.succeeded
    busy: dict[str | None, float] = defaultdict(float)
    for key, rows in answered.items():
        began = np.maximum(rows[:, STARTED_AT], since)
        busy[key[2]] += float(np.sum(rows[:, FINISHED] - began))

    # attempts that ended in the window: rates; and the generating time of those not answered
    starts_since = since if bucket_s else max(since, until - QUOTA_S)  # the charts: all
    attempts = {
        key: _cut(rows, 1, since, until)
        for key, rows in reads.attempts(since, until, starts_since=starts_since).items()
    }
    for (lane, acc, code, error_kind), rows in attempts.items():
        if code in NOT_ANSWERED_ENDS and len(rows):
            busy[acc] += float(np.sum(rows[:, 1] - np.maximum(rows[:, 0], since)))
        failure, deferral = code in FAILURE_ENDS, code in DEFERRAL_ENDS
        n = len(rows)
        if not (failure or deferral) or not n:
            continue
        kind = error_kind or code
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
    running, later = reads.running(), reads.ended_from(until)
    for acc, seconds in open_tasks.ran_past(running, later, since, until).items():
        busy[acc] += seconds
    flying = open_tasks.in_flight(running, later, until)
    _busy_and_quota(reads, accounts, limits, since, until, busy, flying, slots, attempts)

    # backlog: the tasks not ended, and those that ended after the moment
    unfinished = reads.unfinished(since, until, bucket_s)
    at_start, at_end = open_tasks.backlogs(unfinished, later, slots, unanswered, since, until)
    for name, lane_fig in lanes.items():
        assert isinstance(lane_fig, LaneFigures)
        lane_fig.backlog = at_end.get(name, 0)
        lane_fig.backlog_at_start = at_start.get(name, 0)
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
        came = open_tasks.submitted(unfinished, later, slots, unanswered, since, until, bucket_s)
        figures.series = series_of(figures, bucket_s, answered, unanswered, attempts, limits, came)
    return figures


def _cut(rows: Rows, column: int, since: float, until: float) -> Rows:
    """The rows whose ``column`` (a time) falls in [since, until)."""
    at = rows[:, column]
    return rows[(at >= since) & (at < until)]


def _quantiles(values: Rows) -> Quantiles:
    """Exact p50/p90/p99: the values sorted (numpy: under a millisecond for 70,000), then
    :func:`percentile`'s interpolation between the nearest ranks."""
    ordered = cast(Sequence[float], np.sort(values))
    return Quantiles(*(_float(percentile(ordered, q)) for q in QUANTILES))


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


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
    busy: dict[str | None, float],
    flying: dict[str | None, int],
    slots: dict[AnswerKey, Rows],
    attempts: dict[AttemptKey, Rows],
) -> None:
    ran_s = _union_length(reads.session_spans(since, until), since, until)
    last = max(since, until - QUOTA_S)
    starts: dict[str | None, int] = defaultdict(int)
    for (lane, acc, code, _kind), rows in attempts.items():
        if code == STARTED and lane == "api":
            starts[acc] += len(_cut(rows, 1, last, until))
    tokens: dict[str | None, int] = defaultdict(int)
    for key, rows in slots.items():
        if key[0] == "api":
            tokens[key[2]] += int(np.sum(_cut(rows, FINISHED, last, until)[:, TOKENS]))
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


def series_of(
    figures: Figures,
    bucket_s: float,
    answered: dict[AnswerKey, Rows],
    unanswered: list[tuple[Any, ...]],
    attempts: dict[AttemptKey, Rows],
    limits: dict[str, Any],
    submitted: dict[str, Rows],
) -> Series:
    """The window's buckets for the charts (figures.py ``Series``), from what
    :func:`compute_figures` read."""
    since, until = figures.since, figures.until
    n = max(1, int(-(-(until - since) // bucket_s)))

    def buckets(at: Rows) -> Rows:
        return np.clip(((at - since) // bucket_s).astype(np.int64), 0, n - 1)

    by_lane: dict[str, list[Rows]] = defaultdict(list)
    tokens: dict[str, Rows] = defaultdict(lambda: np.zeros(n))
    for key, rows in answered.items():
        by_lane[key[0]].append(rows)
        if key[0] == "api":
            tokens[str(key[2])] += np.bincount(
                buckets(rows[:, FINISHED]), weights=rows[:, TOKENS], minlength=n
            )
    ended: dict[str, list[int]] = {}
    p90: dict[str, list[float | None]] = {}
    for lane in LANES:
        rows = np.concatenate(by_lane[lane]) if by_lane[lane] else np.empty((0, 5))
        at = buckets(rows[:, FINISHED])
        counts = np.bincount(at, minlength=n)
        for row in unanswered:
            if row[0] == lane and since <= row[5] < until:
                counts[min(int((row[5] - since) // bucket_s), n - 1)] += 1
        ended[lane] = [int(c) for c in counts]
        total = rows[:, FINISHED] - rows[:, CREATED]
        order = np.lexsort((total, at))
        edges = np.searchsorted(at[order], np.arange(n + 1))
        ordered = total[order]
        p90[lane] = [
            _float(percentile(cast(Sequence[float], ordered[edges[b] : edges[b + 1]]), 0.9))
            for b in range(n)
        ]
    backlog: dict[str, list[int]] = {}
    for lane in LANES:
        level, out = figures.lanes[lane].backlog_at_start, []
        came = submitted.get(lane, np.zeros(n, dtype=np.int64))
        for b in range(n):
            level += int(came[b]) - ended[lane][b]
            out.append(level)
        backlog[lane] = out
    started: dict[str, Rows] = defaultdict(lambda: np.zeros(n))
    for (of_lane, acc, code, _kind), rows in attempts.items():
        if code == STARTED and of_lane == "api":
            started[str(acc)] += np.bincount(buckets(rows[:, 1]), minlength=n)
    per_min = bucket_s / 60.0
    rpm_use: dict[str, list[float | None]] = {}
    tpm_use: dict[str, list[float | None]] = {}
    for fig in figures.accounts:
        if fig.lane != "api":
            continue
        limit_row = limits.get(fig.account)
        rpm_limit, tpm_limit = _limit(limit_row, 5), _limit(limit_row, 6)
        rpm_use[fig.account] = [
            float(c) / per_min / rpm_limit if rpm_limit else None for c in started[fig.account]
        ]
        tpm_use[fig.account] = [
            float(t) / per_min / tpm_limit if tpm_limit else None for t in tokens[fig.account]
        ]
    return Series(
        starts=[since + i * bucket_s for i in range(n)],
        finished=ended,
        p90_total=p90,
        backlog=backlog,
        rpm_use=rpm_use,
        tpm_use=tpm_use,
    )
