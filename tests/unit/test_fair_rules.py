"""The fair share's selection logic (core/rules/fair.py) on its own: accounts played on a
manual clock pick with :func:`fair.pick`, charge an estimate at the start and the difference at
the end, as the store does in its transactions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from media_assistant.core.model.clock import ManualClock
from media_assistant.core.rules import fair
from media_assistant.core.rules.fair import ActiveNode, Candidate, FairState


class Sim:
    """``accounts`` accounts; batches as (class, tenant, batch) → remaining task durations."""

    def __init__(self, accounts: int, estimate: float = 20.0) -> None:
        self.clock = ManualClock()
        self.state = FairState()
        self.queues: dict[Candidate, list[float]] = {}
        self.free = list(range(accounts))
        self.running: list[tuple[float, int, Candidate, float]] = []  # end, account, node, est
        self.estimate = estimate
        self.served: dict[str, float] = {}
        self.starts: list[tuple[int, str]] = []

    def add(self, cls: str, tenant: str, batch: str, durations: list[float], w: float = 1) -> None:
        c = Candidate(cls, tenant, batch)
        ck, tk, bk = fair.node_keys(cls, tenant, batch)
        self.state.weight.setdefault(ck, fair.DEFAULT_WEIGHTS[cls])
        self.state.weight[bk] = w
        # A node becoming active starts level with its active siblings (no back-pay).
        active = [fair.node_keys(q.cls, q.tenant, q.batch_id) for q in self.queues]
        self.state.activate(ck, {a[0] for a in active})
        self.state.activate(tk, {a[1] for a in active if a[0] == ck})
        self.state.activate(bk, {a[2] for a in active if a[1] == tk})
        self.queues[c] = list(durations)

    def run(self, seconds: float) -> None:
        until = self.clock.now() + seconds
        while True:
            while self.free:
                ready = [c for c, q in self.queues.items() if q]
                chosen = fair.pick(self.state, ready)
                if chosen is None:
                    break
                account = self.free.pop(0)
                took = self.queues[chosen].pop(0)
                self.state.start(
                    fair.node_keys(chosen.cls, chosen.tenant, chosen.batch_id), self.estimate
                )
                self.running.append((self.clock.now() + took, account, chosen, took))
                self.starts.append((account, chosen.batch_id))
            if not self.running:
                return
            self.running.sort(key=lambda r: r[0])
            end, account, node, took = self.running[0]
            if end > until:
                return
            self.running.pop(0)
            self.clock.advance_sync(end - self.clock.now())
            self.state.finish(
                fair.node_keys(node.cls, node.tenant, node.batch_id), took, self.estimate
            )
            self.served[node.batch_id] = self.served.get(node.batch_id, 0.0) + took
            self.free.append(account)


def test_a_batch_alone_gets_every_account() -> None:
    sim = Sim(3)
    sim.add(fair.NORMAL, "", "A", [10.0] * 30)
    sim.run(100.0)
    assert sim.served["A"] == pytest.approx(3 * 100.0)


def test_a_new_batch_starts_at_the_least_virtual_time_not_at_zero() -> None:
    sim = Sim(2)
    sim.add(fair.NORMAL, "", "A", [30.0] * 100)
    sim.run(600.0)
    sim.add(fair.NORMAL, "", "B", [10.0] * 20)
    before = len(sim.starts)
    sim.run(900.0)
    after = sim.starts[before:]
    # B's first tasks go to the next free account, and the next: within one task of each.
    assert [b for _, b in after[:2]] == ["B", "B"]
    # No back-pay: B does not own the accounts until it has A's 1,200 s — it shares.
    assert sim.served["B"] < 0.7 * (sim.served["A"] - 1200.0 + sim.served["B"])


def test_service_is_counted_in_seconds_not_tasks() -> None:
    sim = Sim(2)
    sim.add(fair.NORMAL, "", "short", [10.0] * 300)
    sim.add(fair.NORMAL, "", "long", [60.0] * 100)
    sim.run(3000.0)
    assert sim.served["short"] == pytest.approx(sim.served["long"], abs=120.0)


def test_classes_get_their_weights_and_borrow_what_others_leave() -> None:
    sim = Sim(4)
    sim.add(fair.URGENT, "", "U", [10.0] * 1000)
    sim.add(fair.NORMAL, "", "N", [10.0] * 1000)
    sim.add(fair.LOW, "", "L", [10.0] * 1000)
    sim.run(1000.0)
    total = sum(sim.served.values())
    got = [sim.served[b] / total for b in "UNL"]
    assert got == pytest.approx([0.70, 0.25, 0.05], abs=0.01)


def test_tenants_share_equally_whatever_their_number_of_batches() -> None:
    sim = Sim(2)
    for i in range(5):
        sim.add(fair.NORMAL, "li", f"li-{i}", [10.0] * 100)
    sim.add(fair.NORMAL, "wang", "wang", [10.0] * 300)
    sim.run(1000.0)
    li = sum(v for k, v in sim.served.items() if k.startswith("li-"))
    assert li / (li + sim.served["wang"]) == pytest.approx(0.5, abs=0.02)


def test_shares_are_weights_among_the_active_nodes() -> None:
    active = [
        ActiveNode(fair.URGENT, "li", "U"),
        ActiveNode(fair.NORMAL, "li", "N1", share=3),
        ActiveNode(fair.NORMAL, "li", "N2"),
        ActiveNode(fair.NORMAL, "wang", "N3"),
    ]
    got = fair.shares(active)
    assert got["U"] == pytest.approx(70 / 95)
    assert got["N3"] == pytest.approx(25 / 95 / 2)
    assert got["N1"] == pytest.approx(25 / 95 / 2 * 0.75)
    assert sum(got.values()) == pytest.approx(1.0)
    assert fair.shares([ActiveNode(fair.LOW, "", "L")]) == {"L": 1.0}


def test_class_of_a_priority() -> None:
    assert [fair.class_of(p) for p in (1000, 5, 1, 0, -1)] == [
        fair.FIRST,
        fair.URGENT,
        fair.URGENT,
        fair.NORMAL,
        fair.LOW,
    ]


def test_fair_order_interleaves_batches_and_puts_run_first_ahead() -> None:
    rows = [("a", i, 0) for i in range(4)] + [("b", i, 0) for i in range(2)] + [("z", 0, 1000)]
    order = fair.fair_order(rows, group=lambda r: (r[2], "", r[0], 1.0), cost=lambda _r: 10.0)
    assert [r[0] for r in order] == ["z", "a", "b", "a", "b", "a", "a"]


def _replayed_by_pick(
    rows: list[tuple[str, int, int, str, float, float]],
) -> list[tuple[str, int, int, str, float, float]]:
    """The claims one at a time, as the store takes them: :func:`fair.pick` over every batch
    that still waits, each claim charged to its class, tenant and batch."""
    first = sorted((r for r in rows if r[2] >= fair.RUN_FIRST_PRIORITY), key=lambda r: -r[2])
    queues: dict[str, list[tuple[str, int, int, str, float, float]]] = {}
    meta: dict[str, Candidate] = {}
    state = FairState()
    for r in rows:
        batch, _, priority, tenant, share, _ = r
        cls = fair.class_of(priority)
        if cls == fair.FIRST:
            continue
        ck, _, bk = fair.node_keys(cls, tenant, batch)
        if bk not in queues:
            queues[bk] = []
            meta[bk] = Candidate(cls, tenant, batch, len(meta))
            state.weight[ck] = fair.DEFAULT_WEIGHTS[cls]
            state.weight[bk] = share
        queues[bk].append(r)
    out = list(first)
    while queues:
        chosen = fair.pick(state, (meta[k] for k in queues))
        assert chosen is not None
        bk = fair.batch_key(chosen.cls, chosen.batch_id)
        row = queues[bk].pop(0)
        out.append(row)
        state.charge(fair.node_keys(chosen.cls, chosen.tenant, chosen.batch_id), row[5])
        if not queues[bk]:
            del queues[bk]
    return out


_ROW = st.tuples(
    st.sampled_from(["a", "b", "c", "d", "e"]),  # batch
    st.integers(0, 10**6),  # a serial, made unique below
    st.sampled_from([-1, 0, 0, 0, 5, 1000]),  # priority: low, normal, urgent, run first
    st.sampled_from(["", "li", "wang"]),  # tenant
    st.sampled_from([1.0, 1.0, 3.0, 0.5]),  # the batch's share
    st.sampled_from([1.0, 10.0, 20.0, 180.0]),  # the task's cost
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ROW, max_size=60))
def test_fair_order_takes_what_pick_takes_claim_after_claim(rows: list) -> None:  # type: ignore[type-arg]
    # One tenant and share per batch (the batch row says them), unique serials.
    owner = {r[0]: (r[3], r[4]) for r in rows}
    rows = [(b, i, p, *owner[b], c) for i, (b, _, p, _, _, c) in enumerate(rows)]
    order = fair.fair_order(rows, group=lambda r: (r[2], r[3], r[0], r[4]), cost=lambda r: r[5])
    assert order == _replayed_by_pick(rows)
