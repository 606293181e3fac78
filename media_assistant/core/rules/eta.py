"""Per-lane ETA, throughput and heartbeat health for the GUI's lane panels.

The ETA comes from the lane's *own* observed durations, per (model, account), never a global
average: a web account takes 30 s to 6 min per task, an API account 8 to 20 s, and two accounts on
the same site can differ by 4×. The estimate replays the lane's scheduler on paper (list
scheduling): every capacity unit becomes free when its running task is expected to end, then the
pending tasks are handed out in queue order, each to the unit that would finish it first. That is
how the lanes really hand out work, so a fast account ends up with more tasks in the estimate too.

Pure and cheap: no Qt, no I/O, no clock of its own (``now`` is in the snapshot); 10 000 pending
tasks over 10 accounts take a few milliseconds, so the GUI can recompute once per second.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median

from media_assistant.core.model.states import TaskState
from media_assistant.core.rules.pacing import PacingPlanner

# Samples per key the duration medians look at: recent enough to follow a site that slows down
# during the day, enough that one stuck generation is outvoted.
RECENT_SAMPLES = 20
# A running task past its expected duration is assumed to need at least this share of it more.
OVERRUN_FRACTION = 0.25
# Heartbeats arrive every 15 s: two missed ones are worth a look, the reaper kills at 90 s.
STALE_HEARTBEAT_S = 30.0
DEAD_HEARTBEAT_S = 90.0
# Below this, "per minute" over a span of a few milliseconds would be noise.
_MIN_THROUGHPUT_SPAN_S = 1.0
# Up to this many accounts serving a model, a plain scan picks the best one faster than a heap
# can be kept fresh (see _simulate; measured with 10k pending on 10 to 50 accounts).
_SCAN_MAX_CANDIDATES = 12

# A failed attempt also occupied its account for that long; a cancel says nothing about the work.
_DURATION_STATES = frozenset({TaskState.SUCCESS.value, TaskState.FAILED.value})

# (model, account_id, started_at, finished_at, state)
FinishedTask = tuple[str, str, float, float, str]


@dataclass(frozen=True, slots=True)
class Slot:
    """An account's capacity: a web account has 1 slot, an API account ``concurrency``."""

    account_id: str
    models: frozenset[str]
    slots: int
    available: bool  # enabled / cooling down (comes back) vs disabled / needs login (not counted)
    # A paced web account: when it may start each next task (gaps, window, cap, hours, holds).
    pacing: PacingPlanner | None = field(default=None, hash=False)


@dataclass(frozen=True, slots=True)
class LaneSnapshot:
    now: float  # epoch seconds
    pending_models: Sequence[str]  # one entry per pending task, in queue order
    running: Sequence[tuple[str, str, float]]  # (model, account_id, started_at)
    finished: Sequence[FinishedTask]  # this lane's ended tasks
    servers: Sequence[Slot]
    heartbeat_ages: Sequence[float]  # seconds since each running task's last heartbeat
    # Per pending task (same order), the earliest it may start: a batch scheduled for 16:09
    # holds its tasks until then. Empty: every pending task may start now. The caller puts
    # the tasks that may start now first, in queue order, then the held ones by that time.
    pending_release: Sequence[float] = ()


@dataclass(frozen=True, slots=True)
class LaneEstimate:
    eta_s: float | None  # None: no finished task yet, or nothing can serve the pending work
    finish_at: float | None  # now + eta_s
    basis: str  # "observed", "no_samples", "no_capacity", "idle"; "paused": gui/batches/eta.py
    throughput_per_min: float | None  # success + failed per minute; None if fewer than 2 ended
    stale_running: int  # heartbeat age in (stale_after_s, dead_after_s] (amber)
    dead_running: int  # heartbeat age > dead_after_s (red); not also counted as stale
    unserved_models: tuple[str, ...]  # pending models no available server serves, queue order
    # Nothing runs and nothing may start before this (every pending task is scheduled for
    # later): the work begins then, and ``finish_at`` is that start plus its durations.
    starts_at: float | None = None


class DurationModel:
    """Expected task durations learned from a lane's ended tasks.

    Statistic: the **median of the last** :data:`RECENT_SAMPLES` durations per key, no mean.
    Web durations have a heavy right tail (a generation that stalls until the hard timeout); in
    20 samples one such 6-minute outlier moves a mean by 15 s per task, which over a queue of 200
    swings the ETA by most of an hour, and an ETA that jumps around reads as "broken" just like the
    frozen progress bar did. The median ignores it until it becomes the typical case, and then
    follows within ~10 tasks. The price is a mild optimism on skewed distributions (the median of
    a right-skewed duration is below its mean); the estimate is recomputed every second from fresh
    samples, so that bias shows up as a gently sliding finish time rather than a wrong one.

    Success and failed attempts both count (both held the account that long); canceled ones and
    samples with a negative or non-finite duration do not.
    """

    __slots__ = ("_by_pair", "_by_model", "_lane")

    def __init__(self, finished: Sequence[FinishedTask], *, recent: int = RECENT_SAMPLES) -> None:
        if recent < 1:
            raise ValueError("recent must be at least 1")
        samples = sorted(
            (finished_at, finished_at - started_at, model, account_id)
            for model, account_id, started_at, finished_at, state in finished
            if state in _DURATION_STATES
            and math.isfinite(finished_at - started_at)
            and finished_at >= started_at
        )
        by_pair: defaultdict[tuple[str, str], list[float]] = defaultdict(list)
        by_model: defaultdict[str, list[float]] = defaultdict(list)
        for _, duration, model, account_id in samples:  # oldest first: keep the tail
            by_pair[model, account_id].append(duration)
            by_model[model].append(duration)
        self._by_pair = {key: median(values[-recent:]) for key, values in by_pair.items()}
        self._by_model = {key: median(values[-recent:]) for key, values in by_model.items()}
        self._lane: float | None = median(s[1] for s in samples[-recent:]) if samples else None

    @property
    def has_samples(self) -> bool:
        return self._lane is not None

    def expected(self, model: str, account_id: str) -> float | None:
        """Seconds one task of ``model`` takes on ``account_id``.

        The (model, account) median; else the model's median across the lane's accounts; else the
        lane's median over all models; else None (the lane has not finished anything yet).
        """
        pair = self._by_pair.get((model, account_id))
        if pair is not None:
            return pair
        by_model = self._by_model.get(model)
        return by_model if by_model is not None else self._lane

    def remaining(self, model: str, account_id: str, elapsed: float) -> float | None:
        """Seconds a task running for ``elapsed`` seconds still needs.

        Overrun rule: ``max(expected - elapsed, OVERRUN_FRACTION * expected)``. A task past its
        typical duration is most likely about to end, but it has not ended, so it is never "done
        now"; taking the floor (rather than switching to it once ``elapsed`` passes ``expected``)
        keeps the estimate continuous, so the ETA does not jump up the second a task runs long.
        """
        expected = self.expected(model, account_id)
        if expected is None:
            return None
        return max(expected - max(0.0, elapsed), OVERRUN_FRACTION * expected)


def estimate_lane(
    snapshot: LaneSnapshot,
    *,
    window_s: float = 600.0,
    stale_after_s: float = STALE_HEARTBEAT_S,
    dead_after_s: float = DEAD_HEARTBEAT_S,
) -> LaneEstimate:
    """ETA, throughput and heartbeat health of one lane at ``snapshot.now``.

    ``basis`` says where ``eta_s`` comes from, checked in this order: ``"idle"`` (nothing pending
    or running: ETA 0), ``"no_capacity"`` (pending work, none of it servable by an available
    account: no ETA), ``"no_samples"`` (the lane has not ended a task yet: no ETA), ``"observed"``.
    When only part of the pending work is servable, the ETA covers that part and
    ``unserved_models`` names the rest, so the panel can warn next to the number.

    Running tasks count with their remaining time (:meth:`DurationModel.remaining`) even on an
    account that is no longer available; they simply do not free a slot for new work there.
    Cooling-down accounts are counted as available from now (their pause is short next to a
    batch). A paced account (``Slot.pacing``) starts each task when its pacing allows: after
    its gap, within its window and daily cap, inside its active hours, after a running
    cooldown or pause (see :class:`~media_assistant.core.rules.pacing.PacingPlanner`).
    """
    now = snapshot.now
    stale, dead = _heartbeat_health(snapshot.heartbeat_ages, stale_after_s, dead_after_s)
    throughput = _throughput_per_min(snapshot.finished, now, window_s)
    servers = [s for s in snapshot.servers if s.available and s.slots >= 1]
    served = frozenset().union(*(s.models for s in servers))
    pending_models = set(snapshot.pending_models)
    unserved = tuple(m for m in dict.fromkeys(snapshot.pending_models) if m not in served)

    def result(eta: float | None, basis: str, starts_at: float | None = None) -> LaneEstimate:
        finish_at = None if eta is None else now + eta
        return LaneEstimate(eta, finish_at, basis, throughput, stale, dead, unserved, starts_at)

    if not snapshot.pending_models and not snapshot.running:
        return result(0.0, "idle")
    if pending_models and len(unserved) == len(pending_models):
        return result(None, "no_capacity")
    durations = DurationModel(snapshot.finished)
    if not durations.has_samples:
        first = min(snapshot.pending_release, default=now)
        return result(None, "no_samples", first if _later(first, now, snapshot) else None)
    latest, first = _simulate(snapshot, servers, durations)
    starts_at = first if _later(first, now, snapshot) else None
    return result(max(0.0, latest - now), "observed", starts_at)


def _later(first: float, now: float, snapshot: LaneSnapshot) -> bool:
    """The lane's work begins later than now (nothing runs; the first start is a schedule's)."""
    return not snapshot.running and math.isfinite(first) and first > now + 1.0


def finish_times(
    snapshot: LaneSnapshot, starts: list[float] | None = None
) -> tuple[list[float], list[float]] | None:
    """When each pending task (in ``snapshot.pending_models`` order) and each running task is
    expected to end, by the same list scheduling as :func:`estimate_lane` (``nan`` for a
    pending task no available account serves). None before the lane has finished anything.
    The window groups them per batch: a batch is done when its last task is. ``starts``, if
    given, gets each pending task's expected start (a scheduled batch: "after 16:09 + 4 min")."""
    durations = DurationModel(snapshot.finished)
    if not durations.has_samples:
        return None
    now = snapshot.now
    servers = [s for s in snapshot.servers if s.available and s.slots >= 1]
    pending: list[float] = []
    _simulate(snapshot, servers, durations, pending, starts)
    running = [
        now + (durations.remaining(model, account_id, now - started_at) or 0.0)
        for model, account_id, started_at in snapshot.running
    ]
    return pending, running


def _simulate(
    snapshot: LaneSnapshot,
    servers: list[Slot],
    durations: DurationModel,
    finishes: list[float] | None = None,
    starts: list[float] | None = None,
) -> tuple[float, float]:
    """List scheduling on paper; returns when the last task (running or pending) ends and
    when the first pending one starts (inf: none is scheduled). ``finishes`` and ``starts``,
    if given, get each pending task's end and start in queue order (nan: unserved). A task
    held by a schedule (``pending_release``) starts no earlier than its release.

    Per account, a min-heap of the times its slots become free (``free``; ``head`` mirrors each
    heap's top). Each pending task, in queue order, goes to the serving account whose earliest
    free slot plus its own duration for the model ends soonest (ties: the first server listed).

    Picking that account: a plain scan when a model has few candidates. With many, a heap per
    model over its accounts keyed by "earliest free slot + duration"; a task given to an account
    only delays that account, so its keys in other models' heaps can only be too early, never too
    late: stale entries (a version number per account tells) are refreshed when they reach the
    top, and the first fresh top is the true best. The scan wins below ~a dozen accounts because
    with many models sharing accounts nearly every top is stale; the heap wins beyond.
    """
    now = snapshot.now
    latest, first = now, math.inf
    release = snapshot.pending_release
    held = any(r > now for r in release)
    free = _slot_free_times(snapshot, servers, durations)
    for model, account_id, started_at in snapshot.running:  # also those on unavailable accounts
        latest = max(latest, now + (durations.remaining(model, account_id, now - started_at) or 0))
    head = [times[0] for times in free]
    versions = [0] * len(servers)
    # Paced accounts start their next task when pacing allows, not when their slot frees.
    pacers = [s.pacing.fresh() if s.pacing is not None else None for s in servers]
    busy = {account_id for _, account_id, _ in snapshot.running}
    for i, planner in enumerate(pacers):
        if planner is not None and servers[i].account_id in busy:
            planner.running_until(head[i])

    scans: dict[str, tuple[tuple[int, float], ...]] = {}
    heaps: dict[str, tuple[list[tuple[float, int, int]], dict[int, float]]] = {}
    for model in dict.fromkeys(snapshot.pending_models):
        cost = {
            i: durations.expected(model, server.account_id) or 0.0
            for i, server in enumerate(servers)
            if model in server.models
        }
        # The heap orders accounts by when they are free; a release time beyond that changes
        # the order, so held work is scanned.
        if len(cost) > _SCAN_MAX_CANDIDATES and not any(pacers[i] for i in cost) and not held:
            heap = [(head[i] + d, i, 0) for i, d in cost.items()]
            heapq.heapify(heap)
            heaps[model] = (heap, cost)
        elif cost:
            scans[model] = tuple(cost.items())

    heapreplace = heapq.heapreplace
    for k, model in enumerate(snapshot.pending_models):
        ready = release[k] if release else now
        candidates = scans.get(model)
        if candidates is not None:
            finish, i, start = math.inf, -1, 0.0
            for j, d in candidates:
                planner = pacers[j]
                begin = max(head[j], ready)
                if planner is not None:
                    begin = planner.start_after(begin)
                if begin + d < finish:
                    finish, i, start = begin + d, j, begin
            if (planner := pacers[i]) is not None:
                planner.commit(start, finish)
            heapreplace(free[i], finish)
            head[i] = free[i][0]
            versions[i] += 1
        elif (entry := heaps.get(model)) is not None:
            heap, cost = entry
            finish, i, version = heap[0]
            while version != versions[i]:
                heapreplace(heap, (head[i] + cost[i], i, versions[i]))
                finish, i, version = heap[0]
            start = head[i]
            heapreplace(free[i], finish)
            head[i] = free[i][0]
            versions[i] += 1
            heapreplace(heap, (head[i] + cost[i], i, versions[i]))
        else:  # unserved: reported, not scheduled
            if finishes is not None:
                finishes.append(math.nan)
            if starts is not None:
                starts.append(math.nan)
            continue
        if finishes is not None:
            finishes.append(finish)
        if starts is not None:
            starts.append(start)
        first = min(first, start)
        if finish > latest:
            latest = finish
    return latest, first


def _slot_free_times(
    snapshot: LaneSnapshot, servers: list[Slot], durations: DurationModel
) -> list[list[float]]:
    """Per available account, the sorted (so heap-ordered) times its slots become free."""
    now = snapshot.now
    index = {s.account_id: i for i, s in enumerate(servers)}
    ends: list[list[float]] = [[] for _ in servers]
    for model, account_id, started_at in snapshot.running:
        i = index.get(account_id)
        if i is not None:
            remaining = durations.remaining(model, account_id, now - started_at) or 0.0
            ends[i].append(now + remaining)
    # With more running tasks than slots (concurrency lowered mid-run) a slot frees only when
    # enough of them have ended: the slots' free times are the latest `slots` of all end times.
    return [
        sorted([*running, *([now] * server.slots)])[-server.slots :]
        for server, running in zip(servers, ends, strict=True)
    ]


def _heartbeat_health(
    ages: Sequence[float], stale_after_s: float, dead_after_s: float
) -> tuple[int, int]:
    """(stale, dead) counts as disjoint bands, so "2 stale · 1 dead" means three tasks."""
    dead = sum(1 for age in ages if age > dead_after_s)
    stale = sum(1 for age in ages if stale_after_s < age <= dead_after_s)
    return stale, dead


def _throughput_per_min(
    finished: Sequence[FinishedTask], now: float, window_s: float
) -> float | None:
    """Success + failed tasks per minute that ended in the last ``window_s``.

    Canceled tasks are left out: canceling a batch would read as a burst of thousands per minute.
    The rate is taken over the window, or over the time since the earliest of those tasks
    started if that is shorter, so a lane that started 2 minutes ago is not diluted over 10.
    """
    since = now - window_s
    ended = [
        (started_at, finished_at)
        for _, _, started_at, finished_at, state in finished
        if state in _DURATION_STATES and since < finished_at <= now
    ]
    if len(ended) < 2:
        return None
    first_start = min(started_at for started_at, _ in ended)
    span = max(now - max(since, first_start), _MIN_THROUGHPUT_SPAN_S)
    return len(ended) * 60.0 / span
