"""When each batch is expected to be done: the lanes' list scheduling on paper (core/eta.py),
with the queue as it really is — batches ahead take the accounts first — grouped per batch.

Pending tasks a pause or a schedule holds back are left out of the plan (they will not start
now); a batch held that way says so instead of an ETA.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from media_assistant.core.eta import LaneSnapshot, Slot, finish_times
from media_assistant.gui.task_rows import LaneIndex, Row

Held = Callable[[Row], bool]


def lane_snapshot(
    index: LaneIndex, servers: Sequence[Slot], now: float, held: Held | None = None
) -> tuple[LaneSnapshot, list[Row], list[Row]]:
    """The lane as the estimate sees it, with the pending rows (queue order: priority, then
    submission) and running rows it was built from."""
    pending = sorted(
        (r for r in index.pending.values() if held is None or not held(r)),
        key=lambda r: (-r.priority, r.seq),
    )
    running = list(index.running.values())
    snapshot = LaneSnapshot(
        now=now,
        pending_models=[r.model for r in pending],
        running=[(r.model, r.account_id or "", r.started_at or now) for r in running],
        finished=list(index.finished),
        servers=list(servers),
        heartbeat_ages=[now - r.heartbeat_at for r in running if r.heartbeat_at is not None],
    )
    return snapshot, pending, running


Finishes = dict[str, float | None]  # batch id → expected end (None: cannot be served now)


def batch_finishes(
    lanes: Mapping[str, LaneIndex],
    servers: Callable[[str], Sequence[Slot]],
    now: float,
    held: Held | None = None,
) -> dict[str, Finishes]:
    """Per lane: batch id → when its last unfinished task in that lane is expected to end
    (None: some of them cannot be served by any available account now). A lane that has not
    finished a task yet has no durations to go by: its batches are left out."""
    out: dict[str, Finishes] = {}
    for lane, index in lanes.items():
        snapshot, pending, running = lane_snapshot(index, servers(lane), now, held)
        if not pending and not running:
            continue
        times = finish_times(snapshot)
        if times is None:
            continue
        ends: Finishes = out.setdefault(lane, {})
        pending_ends, running_ends = times
        for row, end in _pairs(pending, pending_ends, running, running_ends):
            _merge(ends, row.batch_id, None if math.isnan(end) else end)
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
