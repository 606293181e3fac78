"""When each lane and each batch is expected to be done: the lanes' list scheduling on paper
(core/rules/eta.py), with the queue as it really is — batches ahead take the accounts first —
grouped per batch. One plan serves the lane panels and the batches list
(gui/window/queue_controls.py decides when to make one, and where: at once for a short queue, on
a worker thread for a long one).

Pending tasks a pause holds back are left out of the plan (nobody knows when they will start);
a batch held that way says so instead of an ETA, and so does a lane whose every waiting task is
held by a pause while its running ones finish (basis ``"paused"``: no ETA for work that will not
start, the same words on every workstation whichever batch its operator picked). Tasks a
schedule holds are planned from the time it lets them start ("after 16:09 + 4 min"), after the
work that may start now.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from media_assistant.core.rules import fair
from media_assistant.core.rules.eta import (
    FinishedTask,
    LaneEstimate,
    LaneSnapshot,
    Slot,
    estimate_lane,
    finish_times,
)
from media_assistant.gui.tasks.rows import LaneIndex, Row

# (batch id, lane) a pause or a schedule holds back now → when it may start (None: a pause)
Held = Mapping[tuple[str, str], float | None]
# batch id → (tenant, share): who submitted it and its own weight (the batch rows)
Groups = Mapping[str, tuple[str, float]]


@dataclass(frozen=True, slots=True)
class LaneInputs:
    """One lane as a plan reads it: copies of its index's lists, taken on the window's thread
    (the plan may run on a worker thread while the index changes; see :func:`plan_lanes`)."""

    pending: list[Row]
    running: list[Row]
    finished: list[FinishedTask]
    servers: tuple[Slot, ...]

    @classmethod
    def of(cls, index: LaneIndex, servers: Sequence[Slot]) -> LaneInputs:
        return cls(
            list(index.pending.values()),
            list(index.running.values()),
            list(index.finished),
            tuple(servers),
        )


Finishes = dict[str, float | None]  # batch id → expected end (None: cannot be served now)


@dataclass(frozen=True, slots=True)
class Plan:
    """Per lane: the panel's estimate, batch id → when its last task there should end, and
    batch id → when its first task there should start (``now`` once one runs)."""

    now: float
    estimates: dict[str, LaneEstimate]
    finishes: dict[str, Finishes]
    starts: dict[str, dict[str, float]] = field(default_factory=dict)
    # batch id → its share of the capacity while every unfinished batch has work (fair share)
    shares: dict[str, float] = field(default_factory=dict)


def plan_lanes(
    lanes: Mapping[str, LaneInputs],
    now: float,
    held: Held | None = None,
    groups: Groups | None = None,
    class_weights: Mapping[str, float] | None = None,
) -> Plan:
    """Every lane's estimate and batch ends, from the lanes' own observed durations.

    A pure function of its inputs, so the window can run it on a worker thread when the queue is
    long (sorting and replaying 20,000 pending tasks takes tens of milliseconds). The rows are
    the model's own objects: the window may change a field of one meanwhile (a heartbeat, a
    priority); the plan then reads either value, and the next plan, a second later, the new one.
    """
    held = held or {}
    groups = groups or {}
    estimates: dict[str, LaneEstimate] = {}
    finishes: dict[str, Finishes] = {}
    starts: dict[str, dict[str, float]] = {}
    for lane, inputs in lanes.items():
        pending, release = _queue(inputs.pending, lane, now, held, groups, class_weights)
        running = inputs.running
        snapshot = LaneSnapshot(
            now=now,
            pending_models=[r.model for r in pending],
            running=[(r.model, r.account_id or "", r.started_at or now) for r in running],
            finished=inputs.finished,
            servers=list(inputs.servers),
            heartbeat_ages=[now - r.heartbeat_at for r in running if r.heartbeat_at is not None],
            pending_release=release,
        )
        estimates[lane] = estimate_lane(snapshot)
        if inputs.pending and not pending and running:  # a pause holds all that waits
            estimates[lane] = replace(estimates[lane], basis="paused")
        if not pending and not running:
            continue
        begins: dict[str, float] = starts.setdefault(lane, {})
        for row in running:
            begins[row.batch_id] = now
        planned: list[float] = []
        times = finish_times(snapshot, planned)
        if times is None:  # a lane that has not finished a task yet has no durations to go by
            for row, at in zip(pending, release, strict=True):
                begins[row.batch_id] = min(begins.get(row.batch_id, math.inf), at)
            continue
        for row, at in zip(pending, planned, strict=True):
            if not math.isnan(at):
                begins[row.batch_id] = min(begins.get(row.batch_id, math.inf), at)
        ends: Finishes = finishes.setdefault(lane, {})
        pending_ends, running_ends = times
        for row, end in _pairs(pending, pending_ends, running, running_ends):
            _merge(ends, row.batch_id, None if math.isnan(end) else end)
    return Plan(now, estimates, finishes, starts, _shares(lanes, groups, class_weights))


def _group(groups: Groups) -> Callable[[Row], tuple[int, str, str, float]]:
    def group(row: Row) -> tuple[int, str, str, float]:
        tenant, share = groups.get(row.batch_id, ("", fair.DEFAULT_SHARE))
        return row.priority, tenant, row.batch_id, share

    return group


def _shares(
    lanes: Mapping[str, LaneInputs], groups: Groups, weights: Mapping[str, float] | None
) -> dict[str, float]:
    """Each unfinished batch's share of the team's capacity (core/rules/fair.py ``shares``)."""
    # (class, batch) pairs first: 20,000 pending tasks are a few hundred of them.
    active_in = {
        (fair.class_of(row.priority), row.batch_id)
        for inputs in lanes.values()
        for rows in (inputs.pending, inputs.running)
        for row in rows
    }
    active = set()
    for cls, batch in active_in:
        tenant, share = groups.get(batch, ("", fair.DEFAULT_SHARE))
        active.add(fair.ActiveNode(cls, tenant, batch, share))
    return fair.shares(active, weights)


def _queue(
    rows: Iterable[Row],
    lane: str,
    now: float,
    held: Held,
    groups: Groups | None = None,
    class_weights: Mapping[str, float] | None = None,
) -> tuple[list[Row], list[float]]:
    """The lane's pending tasks as the plan takes them, with when each may start: those that
    may start now in the order the fair share's claims take them (core/rules/fair.py: batches
    interleaved by their shares, each in its own order), then those a schedule holds by that
    time; paused ones left out. (The claim skips held tasks, so later ones of the queue go
    first meanwhile.)"""
    ready: list[Row] = []
    later: list[tuple[float, Row]] = []
    for row in rows:
        key = (row.batch_id, lane)
        if key not in held:
            ready.append(row)
        elif (until := held[key]) is not None:
            later.append((until, row))
    ready.sort(key=lambda r: (-r.priority, r.seq))
    if len({r.batch_id for r in ready}) > 1:
        ready = fair.fair_order(
            ready, group=_group(groups or {}), cost=lambda _r: 1.0, class_weights=class_weights
        )
    later.sort(key=lambda x: (x[0], -x[1].priority, x[1].seq))
    return ready + [r for _, r in later], [now] * len(ready) + [at for at, _ in later]


def combined_starts(per_lane: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """A batch begins when its first lane does."""
    out: dict[str, float] = {}
    for begins in per_lane.values():
        for batch, at in begins.items():
            out[batch] = min(out.get(batch, math.inf), at)
    return out


def combined(per_lane: Mapping[str, Finishes]) -> Finishes:
    """A batch is done when its last lane is."""
    out: Finishes = {}
    for ends in per_lane.values():
        for batch, end in ends.items():
            _merge(out, batch, end)
    return out


def _merge(ends: Finishes, batch: str, end: float | None) -> None:
    if batch in ends and ends[batch] is None:
        return
    before = ends.get(batch)
    ends[batch] = None if end is None else (end if before is None else max(before, end))


def _pairs(
    pending: Iterable[Row],
    pending_ends: Iterable[float],
    running: Iterable[Row],
    running_ends: Iterable[float],
) -> Iterable[tuple[Row, float]]:
    yield from zip(pending, pending_ends, strict=True)
    yield from zip(running, running_ends, strict=True)
