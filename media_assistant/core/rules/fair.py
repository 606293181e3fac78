"""Fair share of the team's accounts: hierarchical start-time fair queuing on virtual time.

Three levels: a **class** (the task's priority level: urgent / normal / low, weighted 70/25/5
by default, ``[scheduling]``), in it a **tenant** (the operator, ``[team] operator``, else the
workstation that submitted the batch; equal weights), in it a **batch** (weight ``--share N``,
default 1). Every node keeps a virtual time: the generation seconds charged to it divided by
its weight. An account that takes its next task takes it from the class with the least virtual
time among those it can serve, then the tenant with the least in that class, then the batch
with the least in that tenant, then the batch's own order (priority, submission). Charging
``seconds / weight`` at every level is what makes the shares weighted: over a backlog each node
receives service in proportion to its weight among its active siblings, and service is counted
in seconds, so a batch of 3-minute web tasks gets no more than one of 20-second ones.

- **Estimate, then correct**: the cost is not known when the task starts; the claim charges an
  estimate (the recent mean duration of the model) and the task's end charges the difference
  with the real seconds (core/store/fair_store.py does both in the claim's and the finish's own
  transactions).
- **No back-pay**: a node that becomes active (a new batch, a new tenant, an idle class) starts
  at the least virtual time of its active siblings, not at the zero it may hold — otherwise a
  batch submitted at 9:05 would own every account until it had "caught up" with the 9:00 one.
  So it starts on each account within one task, and shares only from then on.
- **A newcomer's credit**: a tenant or batch that becomes active with new work starts that
  work's estimated generation seconds (up to :data:`NEWCOMER_CREDIT_CAP_S`) *before* that
  least virtual time, never below the virtual time it already has. A colleague's 20 tasks
  behind a 2,000-task batch are then served by every account as they come, and end about
  when they would alone (the 2,000 wait their few minutes: the B10 target); a big newcomer
  gets at most the cap ahead, then shares. Batches submitted together are all level (each
  one's credit stops at its own zero). Classes get no credit: their weights are the shares.
- **Work-conserving**: a node alone is chosen every time; a class borrows what the others
  leave idle, because only classes with claimable work are candidates.
- **Run first**: a task moved to the top by hand (priority >= :data:`RUN_FIRST_PRIORITY`)
  bypasses the shares: strict priority, as before.

Pure functions of their inputs (no clock, no database): the store mirrors :func:`pick_key` in
its claim statement's ORDER BY, the window replays :func:`fair_order` for its ETAs, and the unit
tests drive both with an injected clock.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

URGENT, NORMAL, LOW = "urgent", "normal", "low"
FIRST = "first"  # run first: outside the shares
CLASSES = (URGENT, NORMAL, LOW)
CLASS_RANK = {URGENT: 0, NORMAL: 1, LOW: 2}
DEFAULT_WEIGHTS: Mapping[str, float] = {URGENT: 70.0, NORMAL: 25.0, LOW: 5.0}
# "Move to top" gives at least this priority: strict order, no share.
RUN_FIRST_PRIORITY = 1000
# The most generation seconds a newcomer (a tenant, a batch) may start ahead of the others:
# 30 minutes of one account's work, a few minutes of a team's.
NEWCOMER_CREDIT_CAP_S = 1800.0
# A batch's own weight when it says none; bounds of --share.
DEFAULT_SHARE = 1.0
MAX_SHARE = 100.0


def class_of(priority: int) -> str:
    """The class of a task's priority: >= 1000 run first, > 0 urgent, 0 normal, < 0 low."""
    if priority >= RUN_FIRST_PRIORITY:
        return FIRST
    if priority > 0:
        return URGENT
    return NORMAL if priority == 0 else LOW


def credit(work_s: float) -> float:
    """A newcomer's credit for ``work_s`` estimated seconds of new work."""
    return max(0.0, min(work_s, NEWCOMER_CREDIT_CAP_S))


def class_key(cls: str) -> str:
    return f"c:{cls}"


def tenant_key(cls: str, tenant: str) -> str:
    return f"t:{cls}:{tenant}"


def batch_key(cls: str, batch_id: str) -> str:
    return f"b:{cls}:{batch_id}"


def node_keys(cls: str, tenant: str, batch_id: str) -> tuple[str, str, str]:
    """(class, tenant, batch) node keys of a task; the class's name carries no ':' so every
    key is unambiguous whatever a tenant or batch id holds."""
    return class_key(cls), tenant_key(cls, tenant), batch_key(cls, batch_id)


@dataclass
class FairState:
    """Virtual times and weights of the nodes (the ``fair_nodes`` rows)."""

    vtime: dict[str, float] = field(default_factory=dict)
    weight: dict[str, float] = field(default_factory=dict)
    service: dict[str, float] = field(default_factory=dict)

    def weight_of(self, key: str) -> float:
        return self.weight.get(key, 1.0)

    inflight: dict[str, float] = field(default_factory=dict)

    def charge(self, keys: Iterable[str], seconds: float) -> None:
        """``seconds`` of generation charged to every level (negative: a correction)."""
        for key in keys:
            self.vtime[key] = self.vtime.get(key, 0.0) + seconds / self.weight_of(key)
            self.service[key] = self.service.get(key, 0.0) + seconds

    def start(self, keys: Sequence[str], estimate: float) -> None:
        """A claim: the estimate charged, and counted as running."""
        self.charge(keys, estimate)
        for key in keys:
            self.inflight[key] = self.inflight.get(key, 0.0) + estimate

    def finish(self, keys: Sequence[str], took: float, estimate: float) -> None:
        """The attempt's end: the real seconds replace the estimate."""
        self.charge(keys, took - estimate)
        for key in keys:
            self.inflight[key] = self.inflight.get(key, 0.0) - estimate

    def done(self, key: str) -> float:
        """Virtual time of the work ``key`` has finished (its running tasks' estimates out)."""
        return self.vtime.get(key, 0.0) - self.inflight.get(key, 0.0) / self.weight_of(key)

    def activate(self, key: str, active_siblings: Iterable[str], credit_s: float = 0.0) -> None:
        """``key`` becomes active: it starts at the least virtual time its active siblings have
        *finished* (start-time fair queuing: no back-pay for the time it was idle or did not
        exist, and the tasks they run now are ahead of it, so it takes the next free account),
        less its newcomer's credit (:func:`credit`), never below its own virtual time."""
        floors = [self.done(s) for s in active_siblings if s != key]
        if floors:
            start = min(floors) - credit_s / self.weight_of(key)
            self.vtime[key] = max(self.vtime.get(key, 0.0), start)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A batch node with claimable work for the account asking."""

    cls: str
    tenant: str
    batch_id: str
    order: int = 0  # tie-break: the batch's head task's submission number


def pick_key(state: FairState, c: Candidate) -> tuple[float, int, float, str, float, int]:
    """The claim's ORDER BY: class vtime, class rank, tenant vtime, tenant, batch vtime, head."""
    ck, tk, bk = node_keys(c.cls, c.tenant, c.batch_id)
    v = state.vtime
    return (
        v.get(ck, 0.0),
        CLASS_RANK.get(c.cls, 9),
        v.get(tk, 0.0),
        c.tenant,
        v.get(bk, 0.0),
        c.order,
    )


def pick(state: FairState, candidates: Iterable[Candidate]) -> Candidate | None:
    """The candidate the next claim takes (hierarchical least virtual time)."""
    return min(candidates, key=lambda c: pick_key(state, c), default=None)


# ------------------------------------------------------------------ shares


@dataclass(frozen=True, slots=True)
class ActiveNode:
    """An active batch node as the shares see it."""

    cls: str
    tenant: str
    batch_id: str
    share: float = DEFAULT_SHARE


def shares(
    active: Iterable[ActiveNode], class_weights: Mapping[str, float] | None = None
) -> dict[str, float]:
    """batch id → its share (0..1) of the team's capacity while every active node stays
    backlogged: its class's weight among the active classes × its tenant's among the class's
    active tenants (equal) × its own share among the tenant's active batches. A batch with
    tasks in two classes adds both parts."""
    weights = class_weights or DEFAULT_WEIGHTS
    nodes = [n for n in active if n.cls in CLASS_RANK]
    classes = {n.cls for n in nodes}
    class_total = sum(weights.get(c, 0.0) for c in classes)
    tenants: dict[str, set[str]] = {}
    batch_total: dict[tuple[str, str], float] = {}
    for n in nodes:
        tenants.setdefault(n.cls, set()).add(n.tenant)
        batch_total[(n.cls, n.tenant)] = batch_total.get((n.cls, n.tenant), 0.0) + n.share
    out: dict[str, float] = {}
    for n in nodes:
        if class_total <= 0:
            continue
        part = (
            weights.get(n.cls, 0.0)
            / class_total
            / len(tenants[n.cls])
            * n.share
            / batch_total[(n.cls, n.tenant)]
        )
        out[n.batch_id] = out.get(n.batch_id, 0.0) + part
    return out


# ------------------------------------------------------------------ the window's replay

R = TypeVar("R")


def fair_order(
    rows: Sequence[R],
    *,
    group: Callable[[R], tuple[int, str, str, float]],
    cost: Callable[[R], float],
    class_weights: Mapping[str, float] | None = None,
) -> list[R]:
    """``rows`` (one lane's pending tasks, already in each batch's own order) in the order the
    claims would take them: ``group(row)`` = (priority, tenant, batch id, batch share). Run-first
    rows come first (by priority); the rest interleave by least virtual time, every node
    starting level (the window does not know the stored virtual times: the plan is the share
    from now on).

    The same choice as :func:`pick` claim after claim, made level by level: :func:`pick_key`
    orders by class, then tenant within the class, then batch within the tenant, and a claim
    moves only the virtual times of the nodes it charges, so one heap per level gives the next
    claim in O(log n). (Asking :func:`pick` over every waiting batch for each row took the
    window's worker thread seconds for 20,000 pending tasks in 100 batches, and that thread's
    hold on the GIL stalled the window: BENCHMARKS.md B7.)"""
    weights = class_weights or DEFAULT_WEIGHTS
    first = [r for r in rows if class_of(group(r)[0]) == FIRST]
    first.sort(key=lambda r: -group(r)[0])
    queues: dict[str, list[R]] = {}
    # batch key → (class key, tenant key, class weight, batch weight): what a claim charges
    charged: dict[str, tuple[str, str, float, float]] = {}
    tenants_of: dict[str, dict[str, list[tuple[float, int, str]]]] = {}  # cls → tenant → batches
    for r in rows:
        priority, tenant, batch, share = group(r)
        cls = class_of(priority)
        if cls == FIRST:
            continue
        ck, tk, bk = node_keys(cls, tenant, batch)
        if bk not in queues:
            queues[bk] = []
            charged[bk] = (ck, tk, weights.get(cls, 1.0), max(share, 1e-6))
            batches = tenants_of.setdefault(cls, {}).setdefault(tenant, [])
            batches.append((0.0, len(charged), bk))
        queues[bk].append(r)
    for q in queues.values():
        q.reverse()  # pop() from the end takes each batch's head
    # Heaps of (virtual time, tie-break, name): classes by rank, tenants by name, batches by
    # their head's submission (the order of pick_key); every node starts at 0. A claim charges
    # its cost ÷ weight to its class, tenant (weight 1) and batch, as FairState.charge does.
    vtime = dict.fromkeys((k for ck, tk, _, _ in charged.values() for k in (ck, tk)), 0.0)
    vtime.update(dict.fromkeys(charged, 0.0))
    class_heap = [(0.0, CLASS_RANK.get(c, 9), c) for c in tenants_of]
    heapq.heapify(class_heap)
    tenant_heaps = {c: [(0.0, t, t) for t in ts] for c, ts in tenants_of.items()}
    for heap in tenant_heaps.values():
        heapq.heapify(heap)
    out = list(first)
    while class_heap:
        _, rank, cls = class_heap[0]
        tenant_heap = tenant_heaps[cls]
        tenant = tenant_heap[0][2]
        batch_heap = tenants_of[cls][tenant]
        _, order, bk = batch_heap[0]
        queue = queues[bk]
        row = queue.pop()
        out.append(row)
        seconds = max(cost(row), 1e-6)
        ck, tk, class_weight, batch_weight = charged[bk]
        vtime[ck] += seconds / class_weight
        vtime[tk] += seconds / 1.0
        vtime[bk] += seconds / batch_weight
        if queue:
            heapq.heapreplace(batch_heap, (vtime[bk], order, bk))
        else:
            heapq.heappop(batch_heap)
        if batch_heap:
            heapq.heapreplace(tenant_heap, (vtime[tk], tenant, tenant))
        else:
            heapq.heappop(tenant_heap)
        if tenant_heap:
            heapq.heapreplace(class_heap, (vtime[ck], rank, cls))
        else:
            heapq.heappop(class_heap)
    return out
