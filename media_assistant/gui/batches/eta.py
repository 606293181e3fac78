"""When each lane and each batch is expected to be done: the lanes' list scheduling on paper
(core/rules/eta.py), with the queue as it really is — batches ahead take the accounts first —
grouped per batch. One plan serves the lane panels and the batches list
(gui/window/queue_controls.py decides when to make one, and where: at once for a short queue, on
a worker thread for a long one).

Pending tasks a pause or a schedule holds back are left out of the plan (they will not start
now); a batch held that way says so instead of an ETA.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from media_assistant.core.rules.eta import (
    FinishedTask,
    LaneEstimate,
    LaneSnapshot,
    Slot,
    estimate_lane,
    finish_times,
)
from media_assistant.gui.tasks.rows import LaneIndex, Row

Held = frozenset[tuple[str, str]]  # (batch id, lane) a pause or a schedule holds back now


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
    """Per lane: the panel's estimate, and batch id → when its last task there should end."""

    now: float
    estimates: dict[str, LaneEstimate]
    finishes: dict[str, Finishes]


def plan_lanes(lanes: Mapping[str, LaneInputs], now: float, held: Held = frozenset()) -> Plan:
    """Every lane's estimate and batch ends, from the lanes' own observed durations.

    A pure function of its inputs, so the window can run it on a worker thread when the queue is
    long (sorting and replaying 20,000 pending tasks takes tens of milliseconds). The rows are
    the model's own objects: the window may change a field of one meanwhile (a heartbeat, a
    priority); the plan then reads either value, and the next plan, a second later, the new one.
    """
    estimates: dict[str, LaneEstimate] = {}
    finishes: dict[str, Finishes] = {}
    for lane, inputs in lanes.items():
        pending = sorted(
            (r for r in inputs.pending if (r.batch_id, lane) not in held),
            key=lambda r: (-r.priority, r.seq),
        )
        running = inputs.running
        snapshot = LaneSnapshot(
            now=now,
            pending_models=[r.model for r in pending],
            running=[(r.model, r.account_id or "", r.started_at or now) for r in running],
            finished=inputs.finished,
            servers=list(inputs.servers),
            heartbeat_ages=[now - r.heartbeat_at for r in running if r.heartbeat_at is not None],
        )
        estimates[lane] = estimate_lane(snapshot)
        if not pending and not running:
            continue
        times = finish_times(snapshot)
        if times is None:  # a lane that has not finished a task yet has no durations to go by
            continue
        ends: Finishes = finishes.setdefault(lane, {})
        pending_ends, running_ends = times
        for row, end in _pairs(pending, pending_ends, running, running_ends):
            _merge(ends, row.batch_id, None if math.isnan(end) else end)
    return Plan(now, estimates, finishes)


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
