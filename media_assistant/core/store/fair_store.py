"""Fair share in the store (core/rules/fair.py says what it is): the ``fair_nodes`` rows, the
claim's choice of batch, the charge at the claim and the correction at the finish.

**The claim** (``QueueRoom.claim_next``) first looks for a run-first task (priority >= 1000, the
old head query, an index probe), then asks :data:`CHOOSE_BATCH` which batch node comes next —
the active batch nodes (a handful of rows) in hierarchical virtual-time order, the first with a
claimable task for the account (an ``EXISTS`` probe of ``ix_tasks_pending_batch`` each) — then
locks that batch's head task with ``FOR UPDATE SKIP LOCKED`` (:data:`HEAD_IN_BATCH`). If the
head of every chosen batch is locked by other claims just then, the old head query takes
whatever is free (work-conserving). The choice is a plain read: it takes no lock and waits for
nobody.

**Counters** are changed by relative writes in the claim's and the finish's own transactions
(``vtime = vtime + seconds / weight``), the transaction's last statement before its event row
and commit. On a team's database (PostgreSQL) each workstation adds to rows of its own, the
``fair_charges`` rows (node, workstation): a node's virtual time, service and seconds in flight
are its ``fair_nodes`` values plus the sum of its charge rows, summed by the choice (a handful
of nodes, an index probe each). Charging the shared ``fair_nodes`` rows instead made every
claim and finish of the team wait for the previous one's commit on the class, tenant and batch
rows — one batch's claims took turns across workstations (B14: 0.53 × the claims/s before the
fair share; issue 30 item 3). Two claims of one workstation still write the same charge row:
under READ COMMITTED the second waits for the first's commit, then re-reads the row and adds
to the committed value: no charge is lost and none is counted twice
(tests/unit/test_fair_store.py holds two connections to prove both). A ``fair_nodes`` row is
locked only when its node may change state: an activation, a cancel or a priority change, a
claim that wakes a node, and a finish in the tail of a batch's class (nothing of it pending
any more: it may be the last). Every statement or transaction that locks several locks them
in the order of their keys (``lock_nodes``, ``_WAKE``), and takes node rows after the task
and charge rows it writes, never before: two of them never wait in a circle. SQLite has
one writer, so nobody waits for anybody there: it charges the ``fair_nodes`` rows themselves
(one statement; its ``fair_charges`` stays empty and the sums find nothing).

**Activation** (submit, an operator's retry, a priority change, a resume): a node that was not
active starts at the least virtual time of its active siblings (no back-pay); the finish of a
batch's last open task of a class makes its node inactive again, and its tenant and class when
they have no other active child.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Connection,
    Select,
    Update,
    and_,
    any_,
    bindparam,
    case,
    column,
    delete,
    exists,
    func,
    insert,
    literal,
    literal_column,
    not_,
    or_,
    select,
    true,
    tuple_,
    union_all,
    update,
    values,
)
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import aliased

from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.states import TaskState
from media_assistant.core.rules import fair
from media_assistant.core.store.base import (
    INSERT_EVENT,
    IS_PENDING,
    IS_RUNNING,
    E,
    T,
    chunks,
    state_is,
)
from media_assistant.core.store.holds import B, account_held, held_batch_ids, scope_paused
from media_assistant.core.store.schema import FairChargeRow, FairNodeRow
from media_assistant.core.store.upsert import upsert

F = FairNodeRow.__table__  # type: ignore[attr-defined]
C = FairChargeRow.__table__  # type: ignore[attr-defined]


# A task's class from its priority, in SQL (fair.class_of).
def _inline(value: str | int) -> Any:
    """A constant written into the SQL, not bound: a statement run at every claim carries
    fewer parameters to convert and send."""
    return literal_column(f"'{value}'" if isinstance(value, str) else str(value))


CLASS_OF_TASK = case(
    (T.c.priority >= _inline(fair.RUN_FIRST_PRIORITY), _inline(fair.FIRST)),
    (T.c.priority > _inline(0), _inline(fair.URGENT)),
    (T.c.priority == _inline(0), _inline(fair.NORMAL)),
    else_=_inline(fair.LOW),
)
IS_SUCCESS = state_is(TaskState.SUCCESS)
DEFAULT_ESTIMATE_S = {"web": 60.0, "api": 10.0}


# Each class's priorities, both ends included.
CLASS_RANGES = {
    fair.FIRST: (fair.RUN_FIRST_PRIORITY, 2**31 - 1),
    fair.URGENT: (1, fair.RUN_FIRST_PRIORITY - 1),
    fair.NORMAL: (0, 0),
    fair.LOW: (-(2**31), -1),
}


def _of_class(cls: Any) -> tuple[Any, Any]:
    """``tasks.priority`` inside the range of class ``cls`` (a column or expression): the
    same test as ``CLASS_OF_TASK == cls``, written as a range so the planners probe
    ``ix_tasks_pending_batch`` (batch, priority, seq) for it. As ``CLASS_OF_TASK``, SQLite
    chose ``ix_tasks_batch_id`` and stepped over every finished task of the batch at each
    claim and finish (B13: 0.6 → 2.9 ms a finish over 1,500 tasks)."""
    lo = case(
        *[(cls == _inline(c), _inline(r[0])) for c, r in CLASS_RANGES.items()], else_=_inline(0)
    )
    hi = case(
        *[(cls == _inline(c), _inline(r[1])) for c, r in CLASS_RANGES.items()], else_=_inline(-1)
    )
    return T.c.priority >= lo, T.c.priority <= hi


def _ready() -> tuple[Any, ...]:
    """A pending task's own conditions to be claimed now for the claiming account's models.
    The holds (core/store/holds.py) are checked once per statement, not per task: the pauses
    and the account's hold do not depend on the task, a batch's hold only on its batch."""
    return (
        IS_PENDING,
        T.c.model.in_(bindparam("models", expanding=True)),
        or_(T.c.not_before.is_(None), T.c.not_before <= bindparam("now")),
        or_(T.c.keep_attempt, T.c.attempt < T.c.max_attempts),
    )


def _charged(column: str, node: Any) -> Any:
    """The sum of a node's workstation counters ``column`` (``fair_charges``; 0 with none).
    ``node``: the table or alias whose row it is summed for (correlated)."""
    total = select(func.sum(C.c[column])).where(C.c.node == node.c.node).correlate(node)
    return func.coalesce(total.scalar_subquery(), literal_column("0.0"))


def vtime_of(node: Any) -> Any:
    """A node's virtual time: its ``fair_nodes`` value and its workstations' charges."""
    return node.c.vtime + _charged("vtime", node)


def _done_of(node: Any) -> Any:
    """A node's virtual time without its tasks in flight (what its activation levels with)."""
    inflight = node.c.inflight + _charged("inflight", node)
    return vtime_of(node) - inflight / node.c.weight


_claimable_task = (
    exists().where(T.c.batch_id == F.c.batch_id, *_of_class(F.c.cls), *_ready()).correlate(F)
)
_tn = aliased(F, name="tn")
_cl = aliased(F, name="cl")
# The next batch node for the claiming account: least class vtime, then tenant, then batch.
_FAIR_CHOICE = (
    select(_inline(1).label("k"), F.c.cls, F.c.tenant, F.c.batch_id)
    .select_from(F.join(_tn, _tn.c.node == F.c.parent).join(_cl, _cl.c.node == _tn.c.parent))
    .where(
        F.c.level == _inline(2),
        F.c.active,
        F.c.batch_id.not_in(held_batch_ids()),
        _claimable_task,
    )
    .order_by(
        vtime_of(_cl),
        _cl.c.rank,
        vtime_of(_tn),
        _tn.c.created_at,
        _tn.c.node,
        vtime_of(F),
        F.c.created_at,
        F.c.node,
    )
    .limit(1)
    .subquery()
)
# A run-first task (moved to the top by hand) goes before every share: its batch, class FIRST.
_RUN_FIRST = (
    select(
        _inline(0).label("k"),
        literal_column(f"'{fair.FIRST}'", F.c.cls.type).label("cls"),
        literal(None, type_=F.c.tenant.type).label("tenant"),
        T.c.batch_id,
    )
    .where(
        *_ready(),
        T.c.priority >= _inline(fair.RUN_FIRST_PRIORITY),
        T.c.batch_id.not_in(held_batch_ids()),
    )
    .order_by(T.c.priority.desc(), T.c.seq)
    .limit(1)
    .subquery()
)
_EITHER = union_all(select(_RUN_FIRST), select(_FAIR_CHOICE)).subquery()
# One statement, one round trip: the run-first task's batch, else the fair share's choice —
# nothing while the queue, the lane or the account is paused or the account held.
CHOOSE_BATCH = (
    select(_EITHER).where(not_(scope_paused()), not_(account_held())).order_by(_EITHER.c.k).limit(1)
)


def chosen_head() -> Any:
    """One statement, one round trip: :data:`CHOOSE_BATCH` as a CTE (PostgreSQL runs it once),
    then that batch's head task of the chosen class — locked, skipping locked ones — with the
    node it was chosen for (``cls``, ``tenant``); the order of core/store/queue.py
    ``_queue_head`` inside the batch."""
    chosen = CHOOSE_BATCH.cte("chosen")
    bounds = {
        name: [(chosen.c.cls == _inline(cls), _inline(r[i])) for cls, r in CLASS_RANGES.items()]
        for i, name in enumerate(("lo", "hi"))
    }
    lo = select(case(*bounds["lo"], else_=_inline(0))).scalar_subquery()
    hi = select(case(*bounds["hi"], else_=_inline(-1))).scalar_subquery()
    return (
        select(
            T.c.task_id,
            func.length(T.c.prompt),
            select(chosen.c.cls).scalar_subquery().label("cls"),
            select(chosen.c.tenant).scalar_subquery().label("tenant"),
            T.c.batch_id,
        )
        .where(
            *_ready(),  # the holds: checked by the choice
            T.c.batch_id == select(chosen.c.batch_id).scalar_subquery(),
            T.c.priority >= lo,
            T.c.priority <= hi,
        )
        .order_by(T.c.priority.desc(), T.c.seq)
        .limit(1)
        .with_for_update(of=T, skip_locked=True)
    )


def claim_chosen(claim: Update) -> Update:
    """PostgreSQL: :func:`chosen_head` and the claim's ``UPDATE`` in one statement — the
    choice, the head task locked (SKIP LOCKED) and moved to running, its node's ``cls`` and
    ``tenant`` returned after ``claim``'s own columns. ``claim``: the claim's update of
    ``tasks`` without its choice of row (core/store/queue.py)."""
    head = chosen_head().cte("head")
    return claim.where(T.c.task_id == head.c.task_id).returning(head.c.cls, head.c.tenant)


@dataclass(frozen=True, slots=True)
class ChosenNode:
    cls: str
    tenant: str | None
    batch_id: str


def recent_duration(conn: Connection, model: str, last: int = 20) -> float | None:
    """The mean duration of the model's last successful tasks (None: none yet)."""
    took = (T.c.finished_at - T.c.started_at).label("took")
    recent = (
        select(took)
        .where(T.c.model == model, IS_SUCCESS, T.c.started_at.is_not(None))
        .order_by(T.c.finished_at.desc())
        .limit(last)
        .subquery()
    )
    mean = conn.execute(select(func.avg(recent.c.took))).scalar()
    return float(mean) if mean is not None and mean > 0 else None


# --------------------------------------------------------------------------- nodes


def _node_rows(
    cls: str, tenant: str, batch_id: str, share: float | None, now: float
) -> list[dict[str, Any]]:
    ck, tk, bk = fair.node_keys(cls, tenant, batch_id)
    rank = fair.CLASS_RANK[cls]
    base = {
        "cls": cls,
        "rank": rank,
        "vtime": 0.0,
        "service": 0.0,
        "inflight": 0.0,
        "active": False,
    }
    return [
        {
            **base,
            "node": ck,
            "level": 0,
            "tenant": None,
            "batch_id": None,
            "parent": None,
            "weight": fair.DEFAULT_WEIGHTS[cls],
            "updated_at": now,
            "created_at": now,
        },
        {
            **base,
            "node": tk,
            "level": 1,
            "tenant": tenant,
            "batch_id": None,
            "parent": ck,
            "weight": 1.0,
            "updated_at": now,
            "created_at": now,
        },
        {
            **base,
            "node": bk,
            "level": 2,
            "tenant": tenant,
            "batch_id": batch_id,
            "parent": tk,
            "weight": share or fair.DEFAULT_SHARE,
            "updated_at": now,
            "created_at": now,
        },
    ]


def ensure_nodes(
    conn: Connection, cls: str, tenant: str, batch_id: str, share: float | None, now: float
) -> tuple[str, str, str]:
    """The class, tenant and batch rows exist (made once; an existing one is left as it is)."""
    rows = sorted(_node_rows(cls, tenant, batch_id, share, now), key=lambda r: str(r["node"]))
    upsert(conn, F, rows, key=["node"])  # in key order, as every statement takes node rows
    return fair.node_keys(cls, tenant, batch_id)


def _floor(conn: Connection, key: str, level: int, parent: str | None) -> float | None:
    """The least virtual time of ``key``'s active siblings (None: it has none)."""
    siblings = F.c.parent == parent if parent is not None else F.c.level == 0
    return conn.execute(
        select(func.min(_done_of(F))).where(
            siblings, F.c.level == level, F.c.active, F.c.node != key
        )
    ).scalar()


@dataclass(frozen=True, slots=True)
class Activation:
    """A class of a batch that has pending work: its node becomes active (:func:`activate`).
    ``share``: the batch's own share, if the operator gave one; ``credit_s``: the newcomer's
    credit (:func:`fair.credit`)."""

    cls: str
    tenant: str
    batch_id: str
    share: float | None = None
    credit_s: float = 0.0


def lock_nodes(conn: Connection, keys: Iterable[str]) -> None:
    """PostgreSQL: these ``fair_nodes`` rows locked in the order of their keys, before any of
    them changes. A transaction that changes the nodes of several batches (a retry or a cancel
    across batches, a submission of several) takes them all here first: taken a batch at a
    time, it held the class and tenant rows of the first while it waited for the second's
    batch row, which a finish idling that batch held while it waited for the class row — a
    deadlock, one of the two aborted by PostgreSQL after a second (issue 34's review). SQLite's
    one writer needs no row lock."""
    wanted = sorted(set(keys))
    if wanted and conn.dialect.name == "postgresql":
        conn.execute(_NODES_LOCKED, {"nodes": wanted})


def _ensure_all(
    conn: Connection, items: Sequence[Activation], now: float
) -> list[tuple[str, str, str]]:
    """Every item's class, tenant and batch rows exist; their keys, item by item. The missing
    ones are inserted in key order, in one statement: an insert waits for a transaction that
    changed a row of the same key, so rows inserted in another order could wait in a circle."""
    rows: dict[str, dict[str, Any]] = {}
    for a in items:
        for row in _node_rows(a.cls, a.tenant, a.batch_id, a.share, now):
            rows.setdefault(row["node"], row)
    present: set[str] = set()
    for chunk in chunks(list(rows)):
        present.update(conn.execute(select(F.c.node).where(F.c.node.in_(chunk))).scalars())
    missing = [rows[key] for key in sorted(rows) if key not in present]
    if missing:
        upsert(conn, F, missing, key=["node"])
    return [fair.node_keys(a.cls, a.tenant, a.batch_id) for a in items]


def activate(conn: Connection, items: Sequence[Activation], now: float) -> None:
    """Each item's batch node (and its tenant and class) become active; one that was not
    starts at its active siblings' least virtual time, the tenant and the batch ``credit_s``
    generation seconds before it (the newcomer's credit, :func:`fair.credit`; never below the
    virtual time it already has) — if its batch still has pending work of its class when its
    row is locked. Any batch node left active with nothing open becomes inactive first
    (:func:`_apply`). Inside the caller's write transaction; every node row is locked first
    (:func:`lock_nodes`)."""
    _apply(conn, items, [], now)


# A batch node's batch has pending work of its class (tested after the node's lock, by a
# statement of its own: it sees what committed while the lock was awaited).
_HAS_PENDING = exists().where(T.c.batch_id == F.c.batch_id, IS_PENDING, *_of_class(F.c.cls))


def _activate(conn: Connection, item: Activation, trio: tuple[str, str, str], now: float) -> None:
    """One item of :func:`activate`, its rows locked. The batch node becomes active only if
    its batch still has pending work of its class (a claim and finish may have taken the last
    one while this waited for the lock), and its tenant and class only with it."""
    ck, tk, bk = trio
    if item.share is not None:
        conn.execute(update(F).where(F.c.node == bk).values(weight=item.share))
    floors = {
        ck: _floor(conn, ck, 0, None),
        tk: _floor(conn, tk, 1, ck),
        bk: _floor(conn, bk, 2, tk),
    }
    for key in sorted(floors):  # the order every statement locks node rows in: b:, c:, t:
        floor = floors[key]
        start = floor if floor is None or key == ck else floor - item.credit_s / F.c.weight
        # Lifted to ``start`` counting its workstations' charges (kept as they are).
        charged = _charged("vtime", F)
        lifted = (
            F.c.vtime
            if start is None
            else case(
                (F.c.active, F.c.vtime),
                (F.c.vtime + charged < start, start - charged),
                else_=F.c.vtime,
            )
        )
        which = [F.c.node == key] + ([_HAS_PENDING.correlate(F)] if key == bk else [])
        done = conn.execute(
            update(F).where(*which).values(vtime=lifted, active=True, updated_at=now)
        ).rowcount
        if key == bk and not done:
            return


def refresh(conn: Connection, batch_ids: Iterable[str], now: float) -> None:
    """The fair share follows these batches' open work. Each of their batch nodes with no open
    task of its class left becomes inactive, and a tenant or class left without an active
    child with it (after a cancel, a reaped task that failed, a priority change that moved a
    class's every task to another); then each class of theirs with pending work becomes active
    (after a retry, a priority change, a resume, an attempt returned to the queue in a class
    it was moved to while it ran). A finish does both for its own batch (:func:`settle`);
    before these paths did too, a canceled batch kept its share in status's ``"shares"`` and
    halved the others' (their ETA doubled), and its frozen virtual time was the start of every
    newcomer after it. Every node row it changes is locked first, in key order
    (:func:`lock_nodes`), and each change is tested by a statement of its own after those
    locks, so it sees what committed while it waited for them."""
    batches = list(dict.fromkeys(batch_ids))
    wanted: list[Activation] = []
    for batch_id in batches:
        classes = conn.execute(
            select(CLASS_OF_TASK).where(T.c.batch_id == batch_id, IS_PENDING).distinct()
        ).scalars()
        tenant = conn.execute(select(B.c.tenant).where(B.c.batch_id == batch_id)).scalar()
        wanted += [Activation(cls, tenant or "", batch_id) for cls in classes]
    idle: list[Any] = []
    for chunk in chunks(batches):
        idle += conn.execute(
            select(F.c.node, F.c.cls, F.c.parent).where(
                F.c.level == 2, F.c.active, F.c.batch_id.in_(chunk)
            )
        ).all()
    _apply(conn, wanted, idle, now)


def _apply(conn: Connection, wanted: Sequence[Activation], idle: Sequence[Any], now: float) -> None:
    """``wanted`` become active, the batch nodes ``idle`` (rows: ``node``, ``cls``,
    ``parent``) inactive if they have no open work — and so does any other active batch node
    without open work (:data:`_STALE`): two transactions that each ended part of a batch's
    work at once (a finish and a cancel, say) each saw the other's part still open, and
    neither made the node inactive; it is found here, before a newcomer levels with it. Every
    row locked first, in key order; the inactive ones before the activations, so a newcomer
    does not level with a node that leaves."""
    wanted = [a for a in wanted if a.cls in fair.CLASS_RANK]  # run-first: outside the shares
    awake = {fair.batch_key(a.cls, a.batch_id) for a in wanted}
    candidates = {r.node: r for r in [*idle, *conn.execute(_STALE)] if r.node not in awake}
    trios = _ensure_all(conn, wanted, now)
    lock_nodes(
        conn,
        [key for trio in trios for key in trio]
        + [key for r in candidates.values() for key in (r.node, r.parent, fair.class_key(r.cls))],
    )
    idled = [
        r
        for key, r in sorted(candidates.items())
        if conn.execute(_IDLE_BATCH, {"batch_node": key}).rowcount
    ]
    _idle_parents(conn, [(fair.class_key(r.cls), r.parent) for r in idled])
    for item, trio in zip(wanted, trios, strict=True):
        _activate(conn, item, trio, now)


def batches_of(conn: Connection, task_ids: Sequence[str]) -> set[str]:
    out: set[str] = set()
    for chunk in chunks(task_ids):
        out.update(
            conn.execute(select(T.c.batch_id).where(T.c.task_id.in_(chunk)).distinct()).scalars()
        )
    return out


def adopt_open_batches(conn: Connection) -> None:
    """Migration: nodes for the batches that have open work, all level and active."""
    rows = conn.execute(
        select(T.c.batch_id, CLASS_OF_TASK, B.c.tenant)
        .select_from(T.outerjoin(B, B.c.batch_id == T.c.batch_id))
        .where(or_(IS_PENDING, IS_RUNNING))
        .distinct()
    ).all()
    for batch_id, cls, tenant in rows:
        if cls in fair.CLASS_RANK:
            keys = ensure_nodes(conn, cls, tenant or "", batch_id, None, 0.0)
            conn.execute(update(F).where(F.c.node.in_(keys)).values(active=True))


def set_class_weights(conn: Connection, weights: Mapping[str, float], now: float) -> None:
    """The class weights of this workstation's ``[scheduling]`` (the latest to start wins)."""
    upsert(
        conn,
        F,
        [
            {
                "node": fair.class_key(cls),
                "level": 0,
                "cls": cls,
                "rank": fair.CLASS_RANK[cls],
                "weight": float(weights[cls]),
                "vtime": 0.0,
                "service": 0.0,
                "inflight": 0.0,
                "active": False,
                "updated_at": now,
                "created_at": now,
            }
            # In key order: the order every statement locks node rows in (lock_nodes).
            for cls in sorted(fair.CLASSES, key=fair.class_key)
        ],
        key=["node"],
        update=["weight"],
    )


# --------------------------------------------------------------------------- charges


# Built once with bind parameters (a statement built per call costs SQLAlchemy more than the
# database needs to run it: see core/store/queue.py). SQLite: the (class, tenant, batch) node
# rows themselves, ``k0``..``k2`` (three parameters, not an expanding ``IN``, which SQLAlchemy
# renders again at every execution); its one writer needs no row lock.
_THREE_NODES = F.c.node.in_([bindparam("k0"), bindparam("k1"), bindparam("k2")])
_CHARGE = (
    update(F)
    .where(_THREE_NODES)
    .values(
        vtime=F.c.vtime + bindparam("sec", type_=F.c.vtime.type) / F.c.weight,
        service=F.c.service + bindparam("sec", type_=F.c.vtime.type),
        inflight=F.c.inflight + bindparam("sec", type_=F.c.vtime.type),
        active=True,
        updated_at=bindparam("now", type_=F.c.updated_at.type),
    )
)
# The batch's open work of the node's class: two probes, each on an index — its pending head
# (ix_tasks_pending_batch) and the running rows (a few per account).
# A CASE, not an OR: SQLite computes both sides of an OR that is a value, and the running
# probe walks the batch's rows (ix_tasks_batch_id); it is needed only once nothing is pending.
_OPEN = case(
    (
        exists().where(T.c.batch_id == F.c.batch_id, IS_PENDING, *_of_class(F.c.cls)).correlate(F),
        true(),
    ),
    else_=exists()
    .where(IS_RUNNING, T.c.batch_id == F.c.batch_id, *_of_class(F.c.cls))
    .correlate(F),
)
# The real seconds replace the estimate, and the batch node stays active only while its batch
# has open work of its class: one statement, the batch's activity returned.
_SETTLE = (
    update(F)
    .where(_THREE_NODES)
    .values(
        vtime=F.c.vtime + bindparam("delta", type_=F.c.vtime.type) / F.c.weight,
        service=F.c.service + bindparam("delta", type_=F.c.vtime.type),
        inflight=F.c.inflight - bindparam("charged", type_=F.c.vtime.type),
        active=case((F.c.level == 2, and_(F.c.active, _OPEN)), else_=F.c.active),
    )
    .returning(F.c.level, F.c.active)
)
# One node row (a finish's batch node): a statement built once, not an expanding IN.
_NODE_LOCKED = select(F.c.node).where(F.c.node == bindparam("batch_node")).with_for_update()
_NODES_LOCKED = (
    select(F.c.node)
    .where(F.c.node.in_(bindparam("nodes", expanding=True)))
    .order_by(F.c.node)
    .with_for_update()
)
_child = aliased(F)
_IDLE_PARENT = (
    update(F)
    .where(
        F.c.node == bindparam("key"),
        ~exists().where(_child.c.parent == F.c.node, _child.c.active).correlate(F),
    )
    .values(active=False)
)
# A batch node with no open task of its class: neither pending (ix_tasks_pending_batch) nor
# running (a few per account).
_NO_OPEN_WORK = (
    ~exists().where(T.c.batch_id == F.c.batch_id, IS_PENDING, *_of_class(F.c.cls)).correlate(F),
    ~exists().where(IS_RUNNING, T.c.batch_id == F.c.batch_id, *_of_class(F.c.cls)).correlate(F),
)
_IDLE_BATCH = (
    update(F)
    .where(F.c.node == bindparam("batch_node"), F.c.level == 2, F.c.active, *_NO_OPEN_WORK)
    .values(active=False)
)
# Active batch nodes whose batch has no open task of their class (a handful of active rows,
# two index probes each).
_STALE = select(F.c.node, F.c.cls, F.c.parent).where(F.c.level == 2, F.c.active, *_NO_OPEN_WORK)


def _idle_parents(conn: Connection, parents: Iterable[tuple[str, str]]) -> None:
    """Each (class, tenant) whose batch node went inactive: the tenant becomes inactive if it
    has no active child left, and then its class likewise. Their rows are already locked, in
    key order (:func:`lock_nodes`); each test is a statement of its own, so its snapshot, taken
    after those locks, sees a child another transaction's activation made active meanwhile."""
    classes = set()
    for ck, tk in sorted(set(parents), key=lambda p: p[1]):
        if conn.execute(_IDLE_PARENT, {"key": tk}).rowcount:
            classes.add(ck)
    for ck in sorted(classes):
        conn.execute(_IDLE_PARENT, {"key": ck})


# How many idle batch nodes a start folds at most (:func:`fold_idle_charges`).
FOLD_SWEEP_NODES = 500


def _fold(idle: Select[Any]) -> Any:
    """PostgreSQL, one statement: the ``fair_charges`` rows of the batch nodes ``idle`` selects
    (and locks) added into their ``fair_nodes`` values and deleted, each as it is: a node's
    sums are unchanged, values moved, not recounted. It waits for nobody: a charge row another
    transaction is writing just then is skipped — it still counts where it is, and a later
    fold takes it: a claim writes its charge rows before it locks a node it wakes, and a finish
    before it locks its batch node, so waiting for one while holding the node row could wait
    in a circle."""
    chosen = idle.cte("idle")
    free = (
        select(C.c.node, C.c.shard)
        .where(C.c.node.in_(select(chosen.c.node)))
        .with_for_update(skip_locked=True)
        .cte("free")
    )
    gone = (
        delete(C)
        .where(tuple_(C.c.node, C.c.shard).in_(select(free.c.node, free.c.shard)))
        .returning(C.c.node, C.c.vtime, C.c.service, C.c.inflight)
        .cte("gone")
    )
    sums = (
        select(
            gone.c.node,
            func.sum(gone.c.vtime).label("v"),
            func.sum(gone.c.service).label("s"),
            func.sum(gone.c.inflight).label("i"),
        )
        .group_by(gone.c.node)
        .subquery("sums")
    )
    return (
        update(F)
        .where(F.c.node == sums.c.node)
        .values(
            vtime=F.c.vtime + sums.c.v,
            service=F.c.service + sums.c.s,
            inflight=F.c.inflight + sums.c.i,
        )
    )


# A start's sweep: idle batch nodes that still have charge rows, those no one holds.
_FOLD_SWEEP = _fold(
    select(F.c.node)
    .where(F.c.level == 2, not_(F.c.active), exists().where(C.c.node == F.c.node).correlate(F))
    .order_by(F.c.node)
    .limit(bindparam("limit"))
    .with_for_update(skip_locked=True)
)


def fold_idle_charges(conn: Connection, limit: int = FOLD_SWEEP_NODES) -> None:
    """At a workstation's start (PostgreSQL): the charge rows of up to ``limit`` idle batch
    nodes folded into their node rows, so ``fair_charges`` keeps rows for work in progress,
    not one per workstation for every batch the team ever ran. Not inside the finish that
    makes a node inactive: it needs ``DELETE`` on ``fair_charges``, which a workstation role
    granted before this did not have — the finish would fail, and be tried again, for good. A
    node another transaction holds is skipped (the next start takes it)."""
    if conn.dialect.name == "postgresql":
        conn.execute(_FOLD_SWEEP, {"limit": limit})


# The claim's or the finish's event row, inserted by the statement that charges or settles the
# nodes (PostgreSQL: a data-modifying CTE; one round trip instead of two).
_EVENT_COLUMNS = (
    "task_id",
    "at",
    "kind",
    "lane",
    "account_id",
    "attempt",
    "message",
    "origin",
    "code",
    "params_json",
)
_EVENT_CTE = (
    insert(E).values({c: bindparam(f"ev_{c}", type_=E.c[c].type) for c in _EVENT_COLUMNS}).cte("ev")
)


# PostgreSQL: the charge and the correction go to the workstation's own ``fair_charges`` rows
# (``shard``), inserted in key order, added to on conflict. The shared ``fair_nodes`` rows are
# read for their weights, not locked. The keys are one array (``= ANY``): an expanding ``IN``
# makes SQLAlchemy render the statement again at every execution.
def _one_of_keys() -> Any:
    return F.c.node == any_(bindparam("keys", type_=postgresql.ARRAY(F.c.node.type)))


def _into_shard(vtime: Any, service: Any, inflight: Any) -> Any:
    rows = (
        select(
            F.c.node,
            bindparam("shard", type_=C.c.shard.type),
            vtime,
            service,
            inflight,
            bindparam("now", type_=C.c.updated_at.type),
        )
        .where(_one_of_keys())
        .order_by(F.c.node)
    )
    add = postgresql.insert(C).from_select(
        ["node", "shard", "vtime", "service", "inflight", "updated_at"], rows
    )
    return add.on_conflict_do_update(
        index_elements=[C.c.node, C.c.shard],
        set_={
            "vtime": C.c.vtime + add.excluded.vtime,
            "service": C.c.service + add.excluded.service,
            "inflight": C.c.inflight + add.excluded.inflight,
            "updated_at": add.excluded.updated_at,
        },
    )


_sec = bindparam("sec", type_=F.c.vtime.type)
_delta = bindparam("delta", type_=F.c.vtime.type)
# A node not active yet (a task claimed past the shares' choice) becomes active: the only
# ``fair_nodes`` rows a charge locks, and only then.
_WAKE = (
    update(F)
    .where(
        F.c.node.in_(
            select(F.c.node)
            .where(_one_of_keys(), not_(F.c.active))
            .order_by(F.c.node)
            .with_for_update()
        )
    )
    .values(active=True, updated_at=bindparam("now", type_=F.c.updated_at.type))
    .returning(F.c.node)
    .cte("wake")
)
_CHARGE_SHARD = _into_shard(_sec / F.c.weight, _sec, _sec).add_cte(_WAKE)
_CHARGE_SHARD_WITH_EVENT = _CHARGE_SHARD.add_cte(_EVENT_CTE)
# The correction: the real seconds against the estimate, out of flight (the finish's charge rows).
_SETTLED = (
    _into_shard(_delta / F.c.weight, _delta, -bindparam("charged", type_=F.c.vtime.type))
    .returning(C.c.node)
    .cte("settled")
)
# The correction and the event; whether the batch node is active, and whether its batch has no
# pending task of the node's class left (the statement's own snapshot: a hint, tested again
# after the node's lock).
_SETTLE_SHARD = (
    select(
        F.c.active,
        and_(
            F.c.active,
            ~exists()
            .where(T.c.batch_id == F.c.batch_id, IS_PENDING, *_of_class(F.c.cls))
            .correlate(F),
        ).label("tail"),
    )
    .where(F.c.node == bindparam("batch_node"))
    .add_cte(_SETTLED)
)
_SETTLE_SHARD_WITH_EVENT = _SETTLE_SHARD.add_cte(_EVENT_CTE)


def _with_event(
    conn: Connection,
    event: Mapping[str, Any] | None,
    plain: Any,
    combined: Any,
    params: dict[str, Any],
) -> Any:
    """``plain`` with ``params``, after inserting ``event`` (a row of ``task_events``) — or, on
    PostgreSQL, ``combined``: both in one statement."""
    if event is None:
        return conn.execute(plain, params)
    if conn.dialect.name == "postgresql":
        return conn.execute(combined, {**params, **{f"ev_{k}": v for k, v in event.items()}})
    conn.execute(INSERT_EVENT, dict(event))
    return conn.execute(plain, params)


def charge(
    conn: Connection,
    keys: Sequence[str],
    seconds: float,
    now: float,
    event: Mapping[str, Any] | None = None,
    shard: str = "",
) -> None:
    """``seconds`` of generation (a claim's estimate) charged to each node, divided by its
    weight, and counted in flight; relative, so concurrent charges add up exactly. ``event``:
    the claim's event row (``StoreBase._event_row``), written by the same statement.
    ``shard``: the claiming workstation, whose own counters take the charge on PostgreSQL."""
    if len(keys) == 3:
        params: dict[str, Any] = {"sec": seconds, "now": now}
        if conn.dialect.name == "postgresql":
            params.update(keys=list(keys), shard=shard)
            _with_event(conn, event, _CHARGE_SHARD, _CHARGE_SHARD_WITH_EVENT, params)
        else:
            params.update(k0=keys[0], k1=keys[1], k2=keys[2])
            _with_event(conn, event, _CHARGE, None, params)
    elif event is not None:
        conn.execute(INSERT_EVENT, dict(event))


def settle(
    conn: Connection,
    keys: Sequence[str],
    took: float,
    charged: float,
    now: float,
    event: Mapping[str, Any] | None = None,
    shard: str = "",
    idle: bool = True,
) -> bool:
    """At an attempt's end: the difference between its real seconds (``took``) and the
    estimate ``charged`` at its claim; if its batch has no open task of that class left, the
    batch node (and a tenant or class left without an active child) becomes inactive.
    ``event``: the finish's event row, written by the same statement. ``shard``: the
    workstation whose counters the claim charged (PostgreSQL). ``idle`` False: the counters
    only — the caller refreshes the batch (:func:`refresh`; its task changed class meanwhile).
    Whether the batch node is active (as this transaction saw it first): a task back in the
    queue under an inactive node needs the caller's :func:`refresh`."""
    if len(keys) != 3:
        if event is not None:
            conn.execute(INSERT_EVENT, dict(event))
        return True
    ck, tk, bk = keys
    params: dict[str, Any] = {"delta": took - charged, "charged": charged}
    if conn.dialect.name != "postgresql":
        params.update(k0=ck, k1=tk, k2=bk)
        rows = _with_event(conn, event, _SETTLE, None, params).all()
        active = any(level == 2 and on for level, on in rows)
        if idle and not active:
            _idle_parents(conn, [(ck, tk)])
        return active
    params.update(keys=list(keys), shard=shard, now=now, batch_node=bk)
    row = _with_event(conn, event, _SETTLE_SHARD, _SETTLE_SHARD_WITH_EVENT, params).first()
    active, tail = (bool(row.active), bool(row.tail)) if row is not None else (False, False)
    if not (idle and tail):
        return active
    # Nothing pending of the class any more: the batch node locked, then tested by a statement
    # of its own, which sees what committed while it waited — a retry that made tasks pending
    # again (tested in the first statement's snapshot, the node went inactive with work
    # waiting), the other finishes of the batch's last running tasks (each saw the others
    # running: none idled the node). Finishes lock it only in this tail of a batch's class.
    conn.execute(_NODE_LOCKED, {"batch_node": bk})
    if conn.execute(_IDLE_BATCH, {"batch_node": bk}).rowcount:
        lock_nodes(conn, [ck, tk])  # after the batch row: b: sorts before c: and t:
        _idle_parents(conn, [(ck, tk)])
    return active


# Where an attempt released without a finish gives its estimate back (PostgreSQL): a shard of
# its own, written in one statement in node order at the end of the release's transaction, so
# it never waits for a workstation's own claims and finishes on their charge rows. (A node's
# figures are sums over its shards: which shard holds a correction changes nothing.)
RELEASED_SHARD = "(released)"


def claim_charges(conn: Connection, task_ids: Sequence[str]) -> dict[str, tuple[list[str], float]]:
    """task id → (node keys, estimate) the fair share charged at the task's latest claim (its
    ``started`` event's ``fair`` and ``fair_s``); tasks whose claim charged nothing (run-first,
    or claimed before the event said so) are left out."""
    out: dict[str, tuple[list[str], float]] = {}
    for chunk in chunks(task_ids):
        for task_id, raw in conn.execute(
            select(E.c.task_id, E.c.params_json)
            .where(E.c.task_id.in_(chunk), E.c.code == EventCode.STARTED.value)
            .order_by(E.c.task_id, E.c.id)
        ):
            params = json.loads(raw) if raw else {}
            keys, charged = params.get("fair"), params.get("fair_s")
            if isinstance(keys, list) and len(keys) == 3 and isinstance(charged, (int, float)):
                out[task_id] = ([str(k) for k in keys], float(charged))
            else:
                out.pop(task_id, None)  # the latest claim charged nothing
    return out


def uncharge(conn: Connection, charges: Iterable[tuple[Sequence[str], float]], now: float) -> None:
    """Attempts that ended without a finish — taken back by the reaper, returned at a shutdown
    or a session's end, recovered as orphans — are no longer in flight: their estimates leave
    the nodes' seconds in flight, which nothing else would take back (a node's ``inflight``
    grew by every such attempt for good, and with it the gap between its virtual time and its
    done work that the next activation levels with). Their virtual time and service keep the
    estimate: the attempt held an account for about that long."""
    per_node: dict[str, float] = {}
    for keys, charged in charges:
        if len(keys) == 3 and charged:
            for key in keys:
                per_node[key] = per_node.get(key, 0.0) + charged
    if not per_node:
        return
    if conn.dialect.name != "postgresql":
        for key, charged in sorted(per_node.items()):
            conn.execute(update(F).where(F.c.node == key).values(inflight=F.c.inflight - charged))
        return
    given = values(
        column("node", F.c.node.type), column("back", F.c.inflight.type), name="given"
    ).data(sorted(per_node.items()))
    rows = select(
        given.c.node,
        literal(RELEASED_SHARD, type_=C.c.shard.type),
        literal(0.0, type_=C.c.vtime.type),
        literal(0.0, type_=C.c.service.type),
        -given.c.back,
        literal(now, type_=C.c.updated_at.type),
    ).order_by(given.c.node)
    add = postgresql.insert(C).from_select(
        ["node", "shard", "vtime", "service", "inflight", "updated_at"], rows
    )
    conn.execute(
        add.on_conflict_do_update(
            index_elements=[C.c.node, C.c.shard],
            set_={
                "inflight": C.c.inflight + add.excluded.inflight,
                "updated_at": add.excluded.updated_at,
            },
        )
    )


# --------------------------------------------------------------------------- shares


def active_batches(conn: Connection) -> list[fair.ActiveNode]:
    """The active batch nodes that have open work: one left active by two transactions that
    ended its work at once (see :func:`_apply`) shows no share until the next activation
    makes it inactive."""
    rows = conn.execute(
        select(F.c.cls, F.c.tenant, F.c.batch_id, F.c.weight).where(
            F.c.level == 2, F.c.active, not_(and_(*_NO_OPEN_WORK))
        )
    ).all()
    return [fair.ActiveNode(r.cls, r.tenant or "", r.batch_id, r.weight) for r in rows]


def class_weights(conn: Connection) -> dict[str, float]:
    rows = conn.execute(select(F.c.cls, F.c.weight).where(F.c.level == 0)).all()
    return {**fair.DEFAULT_WEIGHTS, **{r.cls: r.weight for r in rows}}


def service_by_batch(conn: Connection) -> dict[str, float]:
    """batch id → generation seconds charged to it (every class)."""
    rows = conn.execute(
        select(F.c.batch_id, func.sum(F.c.service + _charged("service", F)))
        .where(F.c.level == 2)
        .group_by(F.c.batch_id)
    ).all()
    return {b: float(s or 0.0) for b, s in rows}


def service_of(conn: Connection, node: str) -> float:
    """One node's generation seconds: its ``fair_nodes`` value and its workstations' charges."""
    total = conn.execute(select(F.c.service + _charged("service", F)).where(F.c.node == node))
    return float(total.scalar() or 0.0)
