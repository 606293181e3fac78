"""What was open around a window: the backlog at its start and end, the submissions per bucket,
the attempts in flight at its end and the generating time of those that ran on past it.

Worked out from rows core/metrics/compute.py has read anyway — the answered tasks of the
window's rollup slots, the failed and canceled ones of the window — plus three small reads: the
tasks not ended (the backlog, counted per lane by the database), those running now and those
that ended at or after the window's end (few for a window ending now). Before (B12), the
submissions were counted from every task of the window, a PostgreSQL index scan that visits
every task's row while the day's pages are not yet all-visible (100,000 tasks: ~100 ms), and
the tasks that ended after the window's end were read three times.

A task counts as submitted in (since, until] and open at a moment ``m`` when ``created_at <= m``
and it has no ``finished_at`` or one after ``m``, as the ``tasks`` rows say.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from media_assistant.core.store.metrics_reads import CREATED, FINISHED, AnswerKey, Rows

Running = tuple[str | None, str, float | None, float | None]
"""account, lane, started, finished (core/store/metrics_reads.py ``running``)"""
# Columns of core/store/metrics_reads.py ``ended_from`` and ``unanswered`` rows.
E_LANE, E_ACCOUNT, E_STATE, E_CREATED, E_STARTED, E_FINISHED = range(6)
U_LANE, U_FINISHED, U_CREATED = 0, 5, 6


def ran_past(
    running: Iterable[Running], later: Iterable[tuple[Any, ...]], since: float, until: float
) -> dict[str | None, float]:
    """Per account, the seconds inside the window of the attempts still running (begun before
    its end) and of the last attempts of tasks that ended at or after its end: the rollups
    hold only what ended inside it."""
    out: dict[str | None, float] = defaultdict(float)
    for account, _lane, began, _finished in running:
        if began is not None and began < until:
            out[account] += until - max(began, since)
    for row in later:
        began = row[E_STARTED]
        if row[E_STATE] != "running" and began is not None and began < until:
            out[row[E_ACCOUNT]] += until - max(began, since)
    return out


def in_flight(
    running: Iterable[Running], later: Iterable[tuple[Any, ...]], at: float
) -> dict[str | None, int]:
    """Per API account, its attempts running at the moment ``at`` (each task's last)."""
    out: dict[str | None, int] = defaultdict(int)
    for account, lane, began, finished in running:
        if lane == "api" and finished is None and began is not None and began <= at:
            out[account] += 1
    for row in later:
        began = row[E_STARTED]
        if row[E_FINISHED] > at and row[E_LANE] == "api" and began is not None and began <= at:
            out[row[E_ACCOUNT]] += 1
    return out


def backlogs(
    unfinished: dict[tuple[str, int], int],
    later: Iterable[tuple[Any, ...]],
    answered: dict[AnswerKey, Rows],
    unanswered: Iterable[tuple[Any, ...]],
    since: float,
    until: float,
) -> tuple[dict[str, int], dict[str, int]]:
    """Per lane, the tasks open at the window's start and at its end: those not ended (counted
    by the database), those that ended after the moment (after the end: ``later``; between
    start and end: the answered tasks of the rollup slots and the failed or canceled ones)."""
    start: dict[str, int] = defaultdict(int)
    end: dict[str, int] = defaultdict(int)
    for (lane, bucket), n in unfinished.items():
        end[lane] += n
        if bucket < 0:
            start[lane] += n
    for row in later:
        if row[E_FINISHED] > until and row[E_CREATED] <= until:
            end[str(row[E_LANE])] += 1
            start[str(row[E_LANE])] += row[E_CREATED] <= since
    for key, rows in answered.items():
        finished, created = rows[:, FINISHED], rows[:, CREATED]
        ended_inside = (finished > since) & (finished <= until)
        start[key[0]] += int(np.count_nonzero(ended_inside & (created <= since)))
    for row in unanswered:
        if since < row[U_FINISHED] <= until and row[U_CREATED] <= since:
            start[str(row[U_LANE])] += 1
    return dict(start), dict(end)


def submitted(
    unfinished: dict[tuple[str, int], int],
    later: Iterable[tuple[Any, ...]],
    answered: dict[AnswerKey, Rows],
    unanswered: Iterable[tuple[Any, ...]],
    since: float,
    until: float,
    bucket_s: float,
) -> dict[str, Rows]:
    """Per lane, the tasks submitted in (since, until] per bucket of ``bucket_s`` from
    ``since`` (a submission at the very end in the last bucket): those not ended, those that
    ended after the window, and those that ended inside it — every one of them ended after its
    submission, so inside the window's rollup slots or among its failed and canceled tasks."""
    n = max(1, int(-(-(until - since) // bucket_s)))
    out: dict[str, Rows] = defaultdict(lambda: np.zeros(n, dtype=np.int64))

    def add(lane: str, created: Rows) -> None:
        inside = created[(created > since) & (created <= until)]
        at = np.clip(((inside - since) // bucket_s).astype(np.int64), 0, n - 1)
        out[lane] += np.bincount(at, minlength=n)

    for (lane, bucket), count in unfinished.items():
        if bucket >= 0:
            out[lane][min(bucket, n - 1)] += count
    ended: dict[str, list[float]] = defaultdict(list)
    for row in later:
        if row[E_FINISHED] > until:
            ended[str(row[E_LANE])].append(row[E_CREATED])
    for row in unanswered:
        if since < row[U_FINISHED] <= until:
            ended[str(row[U_LANE])].append(row[U_CREATED])
    for lane, created in ended.items():
        add(lane, np.asarray(created, dtype=np.float64))
    for key, rows in answered.items():
        add(key[0], rows[rows[:, FINISHED] <= until][:, CREATED])
    return dict(out)
