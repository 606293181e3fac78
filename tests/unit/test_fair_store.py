"""Fair share in the store (issue 30), on both engines (a real SQLite file, the suite's real
PostgreSQL), with accounts played by a loop on a manual clock: each account claims, the clock
runs to the earliest end, that task finishes with its own duration, the account claims again."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import event, select, text

from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.records import BatchInfo, Claim, NewTask
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.rules import fair
from media_assistant.core.store import Store, fair_store
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.sessions import SessionStore
from tests.conftest import make_tasks


@dataclass
class Team:
    """Accounts taking one task at a time; ``took(task_id)``: its generation seconds."""

    store: Store
    clock: ManualClock
    took: Callable[[str], float]
    accounts: tuple[str, ...] = ("acc-1", "acc-2")
    running: dict[str, tuple[Claim, float]] = field(default_factory=dict)
    log: list[tuple[str, str, float, float]] = field(default_factory=list)  # acct, task, s, e

    def fill(self) -> None:
        for account in self.accounts:
            if account not in self.running:
                c = self.store.claim_next(
                    kind=ModelKind.API,
                    account_id=account,
                    models=["api-model"],
                    owner_id="owner",
                    deadline_s=10**6,
                )
                if c is not None:
                    self.running[account] = (c, self.clock.now() + self.took(c.task_id))

    def step(self) -> bool:
        self.fill()
        if not self.running:
            return False
        account, (c, end) = min(self.running.items(), key=lambda kv: kv[1][1])
        self.clock.advance_sync(end - self.clock.now())
        assert self.store.finish_success(c, "ok")
        self.log.append((account, c.task_id, c.started_at, end))
        del self.running[account]
        return True

    def run_until(self, t: float) -> None:
        while self.clock.now() < t and self.step():
            pass

    def service(self, prefix: str, since: float = 0.0, until: float = float("inf")) -> float:
        """Generation seconds of ``prefix``'s tasks inside [since, until]."""
        return sum(
            max(0.0, min(e, until) - max(s, since))
            for _, t, s, e in self.log
            if t.startswith(prefix)
        )


def tasks(n: int, prefix: str, batch: str, priority: int = 0) -> list[NewTask]:
    return make_tasks(n, prefix=prefix, batch=batch, priority=priority)


def _claim(store: Store, account: str = "acc", owner: str = "o", **kw: Any) -> Claim:
    """One claim of an API task for ``account`` (``kw``: ``workstation``), which must exist."""
    c = store.claim_next(
        kind=ModelKind.API,
        account_id=account,
        models=["api-model"],
        owner_id=owner,
        deadline_s=10**6,
        **kw,
    )
    assert c is not None
    return c


def test_a_small_batch_starts_on_each_account_within_one_task(
    store: Store, clock: ManualClock
) -> None:
    team = Team(store, clock, lambda t: 30.0 if t.startswith("a") else 10.0)
    store.submit(tasks(200, "a", "A"))
    team.run_until(clock.now() + 1200)  # A alone for 20 minutes: it had everything
    assert {a for a, *_ in team.log} == {"acc-1", "acc-2"}
    submitted = clock.now()
    store.submit(tasks(10, "b", "B"))
    team.run_until(clock.now() + 600)
    for account in team.accounts:
        after = [t for a, t, s, _ in team.log if a == account and s >= submitted]
        first_b = next(i for i, t in enumerate(after) if t.startswith("b"))
        assert first_b <= 1, (account, after[:4])
    # From then on the two share: B's ten tasks are done long before A's backlog.
    done_b = max(e for _, t, _, e in team.log if t.startswith("b"))
    assert done_b - submitted <= 10 * 10.0 * 2 / 2 + 30.0 + 30.0


def test_a_small_batch_behind_a_big_one_ends_about_when_it_would_alone(
    store: Store, clock: ManualClock
) -> None:
    """The newcomer's credit (B10 (a)): a colleague's ten tasks behind a big backlog are taken
    by each account as it frees, one after the other, so they end within one running task of
    their time alone; the big batch waits only for their work."""
    team = Team(store, clock, lambda t: 30.0 if t.startswith("a") else 10.0)
    store.submit(tasks(200, "a", "A"))
    team.run_until(clock.now() + 1200)
    submitted = clock.now()
    store.submit(tasks(10, "b", "B"))
    team.run_until(submitted + 600)
    started_after = [t for _, t, s, _ in sorted(team.log, key=lambda e: e[2]) if s >= submitted]
    assert started_after[:10] == [f"b-{i:03d}" for i in range(10)], started_after[:12]
    done_b = max(e for _, t, _, e in team.log if t.startswith("b"))
    alone = 10 * 10.0 / 2  # ten 10 s tasks on two accounts
    assert done_b - submitted <= alone + 30.0  # + the A task each account was running


def test_a_big_newcomer_gets_at_most_the_credit_cap_ahead(store: Store, clock: ManualClock) -> None:
    """A second big batch is not a small one: it starts at most
    :data:`fair.NEWCOMER_CREDIT_CAP_S` generation seconds ahead, then the two share."""
    team = Team(store, clock, lambda _t: 30.0)
    store.submit(tasks(1000, "a", "A"))  # 30,000 s of work: A never runs dry here
    team.run_until(clock.now() + 3 * fair.NEWCOMER_CREDIT_CAP_S)
    submitted = clock.now()
    store.submit(tasks(400, "c", "C"))  # 12,000 s of work: its credit is the cap
    team.run_until(submitted + 4 * fair.NEWCOMER_CREDIT_CAP_S)
    first_a = min(s for _, t, s, _ in team.log if t.startswith("a") and s >= submitted + 30.0)
    ahead = team.service("c", submitted, first_a)
    assert fair.NEWCOMER_CREDIT_CAP_S - 2 * 30.0 <= ahead <= fair.NEWCOMER_CREDIT_CAP_S + 2 * 30.0
    # then shares: equal generation seconds over the rest
    later = first_a + 600.0
    a, c = team.service("a", later, clock.now()), team.service("c", later, clock.now())
    assert abs(a - c) <= 2 * 30.0, (a, c)


def test_equal_batches_get_equal_generation_seconds(store: Store, clock: ManualClock) -> None:
    # C's tasks take 10 s, D's 30 s: counted in seconds, D gets a third as many tasks.
    team = Team(store, clock, lambda t: 10.0 if t.startswith("c") else 30.0)
    start = clock.now()
    store.submit(tasks(200, "c", "C") + tasks(200, "d", "D"))
    team.run_until(start + 1800)
    c, d = team.service("c", start, clock.now()), team.service("d", start, clock.now())
    assert abs(c - d) <= 2 * 30.0 + 10.0, (c, d)


def test_classes_share_70_25_5_when_all_are_backlogged(store: Store, clock: ManualClock) -> None:
    team = Team(store, clock, lambda _t: 10.0)
    start = clock.now()
    store.submit(tasks(300, "u", "U", priority=1))
    store.submit(tasks(300, "n", "N", priority=0))
    store.submit(tasks(300, "l", "L", priority=-1))
    team.run_until(start + 2000)
    total = sum(team.service(p, start, clock.now()) for p in "unl")
    shares = [team.service(p, start, clock.now()) / total for p in "unl"]
    assert shares == pytest.approx([0.70, 0.25, 0.05], abs=0.02), shares


def test_a_class_alone_gets_everything(store: Store, clock: ManualClock) -> None:
    team = Team(store, clock, lambda _t: 10.0)
    store.submit(tasks(300, "u", "U", priority=1))
    team.run_until(clock.now() + 600)
    store.submit(tasks(60, "n", "N", priority=0))  # normal alone once urgent is... still there
    team.run_until(clock.now() + 200)
    # Urgent runs out (300 tasks): normal alone takes both accounts, every second of them.
    team.run_until(clock.now() + 4000)
    last_u = max(e for _, t, _, e in team.log if t.startswith("u"))
    end = max(e for *_, e in team.log)
    assert team.service("n", last_u, end) == pytest.approx(2 * (end - last_u), abs=20.0)


def test_a_tenant_with_five_batches_gets_what_one_with_one_gets(
    store: Store, clock: ManualClock
) -> None:
    team = Team(store, clock, lambda _t: 10.0)
    start = clock.now()
    for i in range(5):
        store.submit(tasks(100, f"x{i}", f"X{i}"), batch=BatchInfo(f"X{i}", tenant="xiao-li"))
    store.submit(tasks(300, "y", "Y"), batch=BatchInfo("Y", tenant="wang"))
    team.run_until(start + 1500)
    x = sum(team.service(f"x{i}", start, clock.now()) for i in range(5))
    y = team.service("y", start, clock.now())
    assert x / (x + y) == pytest.approx(0.5, abs=0.03), (x, y)


def test_a_batch_share_weights_it_among_its_tenants_batches(
    store: Store, clock: ManualClock
) -> None:
    team = Team(store, clock, lambda _t: 10.0)
    start = clock.now()
    store.submit(tasks(200, "h", "H"), batch=BatchInfo("H", share=3))
    store.submit(tasks(200, "o", "O"))
    team.run_until(start + 1000)
    h, o = team.service("h", start, clock.now()), team.service("o", start, clock.now())
    assert h / (h + o) == pytest.approx(0.75, abs=0.03)
    assert store.fair_shares()["H"] == pytest.approx(0.75)


def test_move_to_top_runs_first_past_the_shares(store: Store, clock: ManualClock) -> None:
    team = Team(store, clock, lambda _t: 10.0)
    store.submit(tasks(50, "a", "A", priority=1))
    store.submit(tasks(5, "z", "Z"))
    store.set_priority(batch_id="Z", where="top")
    team.run_until(clock.now() + 30)
    assert [t for _, t, *_ in team.log[:5]] == [f"z-{i:03d}" for i in range(5)]


def _active_nodes(store: Store) -> set[str]:
    with store.engine.connect() as conn:
        return set(conn.execute(text("SELECT node FROM fair_nodes WHERE active")).scalars())


def _vtime(store: Store, node: str) -> float:
    with store.engine.connect() as conn:
        f = fair_store.F
        return float(conn.execute(select(fair_store.vtime_of(f)).where(f.c.node == node)).scalar())


def test_a_canceled_batch_gives_its_share_back(store: Store, clock: ManualClock) -> None:
    """Canceling a batch's pending tasks is the end of its work as much as its last finish: its
    node, and its tenant's when that tenant has nothing else, leave the fair share. Before, the
    canceled batch kept half of the shares in status's "shares", and the other's ETA doubled."""
    team = Team(store, clock, lambda _t: 10.0)
    store.submit(tasks(20, "a", "A"), batch=BatchInfo("A", tenant="wang"))
    store.submit(tasks(20, "b", "B"), batch=BatchInfo("B", tenant="li"))
    team.fill()  # one task of each runs: their nodes stay active while they run
    assert store.fair_shares() == {"A": 0.5, "B": 0.5}
    store.request_cancel(batch_id="B")
    assert store.fair_shares() == {"A": 0.5, "B": 0.5}  # B's running task still runs
    team.step()
    team.step()  # both running tasks end; B's cancel-requested one with its finish
    assert store.fair_shares() == {"A": 1.0}
    report = store.shares_report()
    assert [(r["batch"], r["share"]) for r in report] == [("A", 1.0)]
    # A batch whose every task was still pending: the cancel itself gives the share back.
    store.submit(tasks(5, "c", "C"), batch=BatchInfo("C", tenant="zhao"))
    assert store.fair_shares() == {"A": 0.5, "C": 0.5}
    assert store.request_cancel(batch_id="C").canceled
    assert store.fair_shares() == {"A": 1.0}
    assert _active_nodes(store) == set(fair.node_keys(fair.NORMAL, "wang", "A"))
    # Canceling by task ids, across batches, the same; a batch with work left keeps its share.
    store.submit(tasks(3, "d", "D"), batch=BatchInfo("D", tenant="zhao"))
    store.submit(tasks(3, "e", "E"), batch=BatchInfo("E", tenant="zhao"))
    store.request_cancel(["d-000", "d-001", "d-002", "e-000"])
    assert store.fair_shares() == {"A": 0.5, "E": 0.5}


def test_a_newcomer_after_a_canceled_batch_starts_level_with_the_batches_that_run(
    store: Store, clock: ManualClock
) -> None:
    """A canceled batch's node no longer sets the start of the next newcomer: before, its
    virtual time stayed where the cancel left it while A's ran on, and the next batch started
    there — owed everything A had run since."""
    team = Team(store, clock, lambda _t: 10.0)
    store.submit(tasks(400, "a", "A"))
    team.run_until(clock.now() + 500)
    store.submit(tasks(3, "b", "B"))
    store.request_cancel(batch_id="B")
    canceled_at = _vtime(store, fair.batch_key(fair.NORMAL, "B"))
    team.run_until(clock.now() + 1000)  # A alone runs 2,000 more generation seconds
    for _ in range(2):  # nothing of A in flight: its virtual time is all done work
        team.step()
    store.submit(tasks(3, "d", "D"))  # 30 s of estimated work: 30 s of credit
    a = _vtime(store, fair.batch_key(fair.NORMAL, "A"))
    d = _vtime(store, fair.batch_key(fair.NORMAL, "D"))
    assert a - canceled_at > 1500
    assert d == pytest.approx(a - 30.0, abs=2 * 10.0), (a, d, canceled_at)


def test_a_reaped_task_that_fails_gives_its_batchs_share_back(
    store: Store, clock: ManualClock
) -> None:
    """No finish settles an attempt the reaper takes back; when that was the batch's last task
    and it fails there (no attempts left), the batch leaves the shares all the same. One that
    goes back to the queue keeps its batch's share."""
    store.submit(tasks(20, "a", "A"))
    store.submit(tasks(2, "b", "B"), max_attempts=1)
    store.submit(tasks(1, "r", "R"), max_attempts=3)
    claims = [_claim(store, f"acc-{i}") for i in range(6)]
    assert {c.task_id for c in claims} >= {"b-000", "b-001", "r-000"}
    for c in claims:
        if c.task_id.startswith("a"):
            assert store.finish_success(c, "ok")
    clock.advance_sync(100.0)
    reaped = {r.task_id: r.new_state for r in store.reap_stale(dead_after=90.0)}
    assert reaped == {
        "b-000": TaskState.FAILED,
        "b-001": TaskState.FAILED,
        "r-000": TaskState.PENDING,
    }
    assert set(store.fair_shares()) == {"A", "R"}


def _inflight(store: Store, node: str) -> float:
    """A node's seconds in flight: its own and its workstations' charge rows."""
    with store.engine.connect() as conn:
        return float(
            conn.execute(
                text(
                    "SELECT n.inflight + coalesce((SELECT sum(c.inflight) FROM fair_charges c "
                    "WHERE c.node = n.node), 0) FROM fair_nodes n WHERE n.node = :n"
                ),
                {"n": node},
            ).scalar()
        )


def test_an_attempt_released_without_a_finish_is_no_longer_in_flight(
    store: Store, clock: ManualClock
) -> None:
    """A claim counts its estimate in flight; a finish takes it out. An attempt the reaper
    takes back, or a shutdown returns, has no finish: its estimate stayed in flight for good
    (each class and tenant node's ``inflight`` grew by every such attempt, and an activation
    levels with virtual time less that). Now the release takes it out; the service keeps it."""
    store.submit(tasks(4, "a", "A"), batch=BatchInfo("A", tenant="wang"))
    keys = fair.node_keys(fair.NORMAL, "wang", "A")
    claims = [_claim(store, f"acc-{i}", f"o{i}", workstation=f"pc-{i % 2}") for i in range(3)]
    assert all(c.fair_charge > 0 for c in claims)
    done, lost, returned = claims
    assert _inflight(store, keys[2]) == pytest.approx(3 * done.fair_charge)
    clock.advance_sync(100.0)
    assert store.finish_success(done, "ok")
    alive = {returned.task_id: (returned.attempt, returned.lease)}
    assert [r.task_id for r in store.reap_stale(dead_after=90.0, alive=alive)] == [lost.task_id]
    assert [r.task_id for r in store.release_owned("o2", "shutting down")] == [returned.task_id]
    for key in keys:
        assert _inflight(store, key) == pytest.approx(0.0, abs=1e-9), key
    assert _service(store, keys[2]) == pytest.approx(
        100.0 + lost.fair_charge + returned.fair_charge
    )
    # Everything claimed again and finished: nothing left in flight, no more.
    team = Team(store, clock, lambda _t: 10.0)
    while team.step():
        pass
    assert len(team.log) == 3
    for key in keys:
        assert _inflight(store, key) == pytest.approx(0.0, abs=1e-9), key


@pytest.mark.parametrize("end", ["requeue", "reaped", "success"])
def test_a_task_moved_to_another_class_while_it_runs_ends_in_that_class(
    store: Store, clock: ManualClock, end: str
) -> None:
    """X's one task is raised to urgent while it runs: its normal node goes (nothing open
    there). Back in the queue (a deferral, or the reaper), it waits in urgent — whose node
    must be active, or the fair choice never picks it (before: only the plain queue head,
    when nothing else waited). Ended, nothing of X stays in the shares."""
    store.submit(tasks(1, "x", "X"))
    c = _claim(store)
    store.set_priority(["x-000"], priority=5)
    assert _active_nodes(store) == set()
    if end == "requeue":
        assert store.requeue(c, not_before=None, keep_attempt=True, kind=None, message="later")
    elif end == "reaped":
        clock.advance_sync(100.0)
        assert [r.new_state for r in store.reap_stale(dead_after=90.0)] == [TaskState.PENDING]
    else:
        assert store.finish_success(c, "ok")
        assert _active_nodes(store) == set() and store.fair_shares() == {}
        return
    assert _active_nodes(store) == set(fair.node_keys(fair.URGENT, "", "X"))
    assert store.fair_shares() == {"X": 1.0}
    again = _claim(store)
    assert again.fair_keys == fair.node_keys(fair.URGENT, "", "X")
    assert store.finish_success(again, "ok")
    assert _active_nodes(store) == set()


def test_a_task_moved_to_another_class_and_back_while_it_runs_finds_its_class_active(
    store: Store, clock: ManualClock
) -> None:
    """Raised while it runs, its normal node goes (nothing open there); lowered again, nothing
    is pending to activate. Back in the queue its class is the claim's — and its node must be
    active again (before: pending under an inactive node, never the fair share's choice)."""
    store.submit(tasks(1, "x", "X"))
    c = _claim(store)
    store.set_priority(["x-000"], priority=5)
    store.set_priority(["x-000"], priority=0)
    assert _active_nodes(store) == set()
    assert store.requeue(c, not_before=None, keep_attempt=True, kind=None, message="later")
    assert _active_nodes(store) == set(fair.node_keys(fair.NORMAL, "", "X"))
    assert store.fair_shares() == {"X": 1.0}


@pytest.mark.parametrize("action", ["retry", "cancel", "priority"])
def test_operator_actions_take_the_node_rows_after_their_event_lines(
    store: Store, clock: ManualClock, action: str
) -> None:
    """An operator's retry, cancel or priority change writes an event line per task (20,000
    tasks: seconds). It takes the fair share's node rows last, just before its commit — a
    finish of one of the batch's last tasks waits for those rows, and it waited all that
    time (up to the 10 s lock timeout: the finish failed and was tried again)."""
    store.submit(tasks(6, "a", "A"))
    claims = [_claim(store, f"acc-{i}") for i in range(3)]
    for c in claims:
        assert store.finish_failed(c, ErrorKind.SERVER_ERROR, "boom")
    sent: list[str] = []

    def capture(_c: object, _cur: object, statement: str, *_: object) -> None:
        sent.append(statement)

    event.listen(store.engine, "before_cursor_execute", capture)
    if action == "retry":
        assert len(store.retry([c.task_id for c in claims])) == 3
    elif action == "cancel":
        assert len(store.request_cancel(batch_id="A").canceled) == 3
    else:
        assert len(store.set_priority(batch_id="A", priority=5).changed) == 3
    event.remove(store.engine, "before_cursor_execute", capture)
    events = [i for i, st in enumerate(sent) if st.startswith("INSERT INTO task_events")]
    nodes = [i for i, st in enumerate(sent) if "fair_nodes" in st and st.startswith("UPDATE")]
    assert len(events) == 3 and nodes, sent
    assert min(nodes) > max(events)


def test_a_batch_left_active_with_nothing_open_shows_no_share_and_goes_at_the_next_activation(
    store: Store, clock: ManualClock
) -> None:
    """A finish and a cancel that end a batch's last work at once each see the other's part
    still open, and neither makes the node inactive (PostgreSQL, READ COMMITTED; the state is
    set directly here). Its share is not shown, and the next activation anywhere makes it
    inactive, tenant and class with it, before the newcomer levels with its frozen time."""
    store.submit(tasks(2, "a", "A"), batch=BatchInfo("A", tenant="wang"))
    store.request_cancel(batch_id="A")
    with store.engine.begin() as conn:  # what the race leaves
        conn.execute(text("UPDATE fair_nodes SET active = TRUE"))
    assert store.fair_shares() == {}
    store.submit(tasks(2, "b", "B"), batch=BatchInfo("B", tenant="li"))
    assert _active_nodes(store) == set(fair.node_keys(fair.NORMAL, "li", "B"))
    assert store.fair_shares() == {"B": 1.0}


def test_a_finish_waiting_for_a_retrys_lock_leaves_the_retried_batch_active(
    store_url: str, clock: ManualClock
) -> None:
    """Two real connections. X's last running task finishes while an operator's retry of X's
    failed task holds X's node row (it made the task pending and X active, not committed
    yet). Before, the finish's one statement waited for that row, then tested "nothing
    pending" against its snapshot from before the wait — and made X inactive with the
    retried task waiting: the fair choice never picked X again. Now it tests again after the
    lock, in a statement of its own."""
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite's one writer serialises the transactions themselves")
    store = Store(open_engine(store_url), clock, EventBus())
    other = Store(open_engine(store_url), clock, EventBus())
    try:
        store.submit(tasks(2, "x", "X"))
        first, last = _claim(store, "acc-1"), _claim(store, "acc-2")
        assert store.finish_failed(first, ErrorKind.SERVER_ERROR, "boom")
        at_commit, go = threading.Event(), threading.Event()

        def hold(_conn: object) -> None:
            if not at_commit.is_set():
                at_commit.set()
                go.wait(30)

        event.listen(other.engine, "commit", hold)
        results: dict[str, Any] = {}
        retry = threading.Thread(target=lambda: results.update(retry=other.retry([first.task_id])))
        retry.start()
        assert at_commit.wait(30)
        finish = threading.Thread(
            target=lambda: results.update(finish=store.finish_success(last, "ok"))
        )
        finish.start()
        assert _lock_waiters(store.engine, "%fair_nodes%") == 1
        go.set()
        retry.join(timeout=30)
        finish.join(timeout=30)
        event.remove(other.engine, "commit", hold)
        assert results == {"retry": [first.task_id], "finish": True}
        assert store.fair_shares() == {"X": 1.0}
        assert _claim(store).task_id == first.task_id
    finally:
        store.engine.dispose()
        other.engine.dispose()


def test_a_priority_change_moving_a_batch_to_another_class_leaves_the_old_one(
    store: Store, clock: ManualClock
) -> None:
    """Every pending task of U moved from normal to urgent: U's normal node leaves the share
    (before, U stood in both classes, and normal stayed active with nothing to run)."""
    store.submit(tasks(5, "u", "U"))
    store.set_priority(batch_id="U", priority=5)
    assert _active_nodes(store) == set(fair.node_keys(fair.URGENT, "", "U"))
    store.set_priority(["u-000"], priority=0)  # one back: both classes have work
    assert _active_nodes(store) == set(fair.node_keys(fair.URGENT, "", "U")) | set(
        fair.node_keys(fair.NORMAL, "", "U")
    )


def _service(store: Store, node: str) -> float:
    with store.engine.connect() as conn:
        return fair_store.service_of(conn, node)


def test_two_connections_claiming_at_once_take_each_task_once_and_count_exactly(
    store_url: str, clock: ManualClock
) -> None:
    """Two stores (two engines: two workstations' connections) claim from one batch at once,
    from two threads, until it is empty; every task is claimed once and the batch's service
    is exactly the estimates charged (10 s each), then exactly the real seconds (7 s each)."""
    stores = [Store(open_engine(store_url), clock, EventBus()) for _ in range(2)]
    try:
        stores[0].submit(tasks(60, "p", "P"))
        claims: list[list[Claim]] = [[], []]
        gate = threading.Barrier(2)

        def worker(i: int) -> None:
            gate.wait()
            while (
                c := stores[i].claim_next(
                    kind=ModelKind.API,
                    account_id=f"acc-{i}",
                    models=["api-model"],
                    owner_id=f"o{i}",
                    deadline_s=999,
                )
            ) is not None:
                claims[i].append(c)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        ids = [c.task_id for got in claims for c in got]
        assert len(ids) == 60 and len(set(ids)) == 60
        node = fair.batch_key(fair.NORMAL, "P")
        assert _service(stores[0], node) == pytest.approx(60 * 10.0)
        clock.advance_sync(7.0)
        for i, got in enumerate(claims):
            for c in got:
                assert stores[i].finish_success(c, "ok")
        assert _service(stores[0], node) == pytest.approx(60 * 7.0)
        assert _service(stores[0], fair.class_key(fair.NORMAL)) == pytest.approx(60 * 7.0)
    finally:
        for s in stores:
            s.engine.dispose()


def _lock_waiters(engine: Any, query_like: str) -> int:
    """Backends waiting for a lock while running a statement ``LIKE query_like``: polled until
    one is (at most 10 s: 200 looks), then their number."""
    waiting = 0
    with engine.connect() as look:
        for _ in range(200):
            waiting = look.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND query LIKE :like"
                ),
                {"like": query_like},
            ).scalar()
            look.rollback()  # pg_stat_activity is a snapshot per transaction
            if waiting:
                break
            threading.Event().wait(0.05)
    return int(waiting or 0)


@pytest.mark.parametrize("claimer", ["pc-2", "pc-1"])
def test_a_charge_waits_only_for_its_own_workstations_open_charge(
    store_url: str, clock: ManualClock, claimer: str
) -> None:
    """READ COMMITTED, two real connections: connection 1 charges batch Q's nodes as
    workstation pc-1 and keeps its transaction open. A claim of another workstation (pc-2)
    charges its own rows and commits meanwhile — nobody waits on the shared node rows (issue 30
    item 3). A claim of pc-1 itself waits for that commit on its charge rows (it shows in
    pg_stat_activity), then adds to the committed value. Either way nothing is lost: the
    batch's service is the 5 s held plus the claim's 10 s estimate."""
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite's one writer serialises the transactions themselves")
    store = Store(open_engine(store_url), clock, EventBus())
    other = open_engine(store_url)
    try:
        store.submit(tasks(3, "q", "Q"))
        keys = fair.node_keys(fair.NORMAL, "", "Q")
        node = keys[2]
        before = _service(store, node)
        holder = other.connect()
        tx = holder.begin()
        fair_store.charge(holder, keys, 5.0, clock.now(), shard="pc-1")
        got: list[Claim | None] = []
        t = threading.Thread(
            target=lambda: got.append(
                store.claim_next(
                    kind=ModelKind.API,
                    account_id="acc",
                    models=["api-model"],
                    owner_id="o",
                    deadline_s=99,
                    workstation=claimer,
                )
            )
        )
        t.start()
        if claimer == "pc-2":
            t.join(timeout=30)  # well inside the 10 s lock timeout had it waited
            assert got and got[0] is not None and got[0].fair_shard == "pc-2"
            assert _service(store, node) == pytest.approx(before + 10.0)  # 5 s uncommitted
        else:
            # Waiting for the row lock on its charge row, not finished.
            assert _lock_waiters(other, "%INSERT INTO fair_charges%") == 1 and not got
        tx.commit()
        holder.close()
        t.join(timeout=30)
        assert got and got[0] is not None
        assert _service(store, node) == pytest.approx(before + 5 + 10.0)
    finally:
        store.engine.dispose()
        other.dispose()


def test_a_finish_idling_its_tenant_and_class_takes_them_in_key_order(
    store_url: str, clock: ManualClock
) -> None:
    """Two real connections. A submit's activation locks the class row, then the tenant row
    (key order: ``c:`` before ``t:``). A finish that idles its batch's last task idles the
    tenant and class too: it must wait for the class row before touching the tenant's, or the
    two deadlock (PostgreSQL aborts one after a second). Here the activation holds the class
    row; the finish waits for it (seen in pg_stat_activity); the activation then takes the
    tenant row at once, commits, and the finish ends normally."""
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite's one writer serialises the transactions themselves")
    store = Store(open_engine(store_url), clock, EventBus())
    other = open_engine(store_url)
    try:
        store.submit(tasks(1, "z", "Z"))
        claim = store.claim_next(
            kind=ModelKind.API, account_id="acc", models=["api-model"], owner_id="o", deadline_s=9
        )
        assert claim is not None
        ck, tk, _ = claim.fair_keys
        activation = other.connect()
        tx = activation.begin()
        activation.execute(text("SET LOCAL lock_timeout = '5s'"))
        lock = text("SELECT node FROM fair_nodes WHERE node = :n FOR UPDATE")
        activation.execute(lock, {"n": ck})
        finished: list[bool | BaseException] = []

        def finish() -> None:
            try:
                finished.append(store.finish_success(claim, "ok"))
            except BaseException as exc:  # noqa: BLE001 - reported below
                finished.append(exc)

        t = threading.Thread(target=finish)
        t.start()
        assert _lock_waiters(other, "%fair_nodes%") == 1 and not finished
        activation.execute(lock, {"n": tk})  # free: the finish took nothing after the class
        tx.commit()
        activation.close()
        t.join(timeout=30)
        assert finished == [True]
    finally:
        store.engine.dispose()
        other.dispose()


def test_a_retry_across_batches_and_a_finish_idling_one_of_them_never_deadlock(
    store_url: str, clock: ManualClock
) -> None:
    """Two real connections. An operator's retry of failed tasks of batches X and Y makes both
    active again; meanwhile the last running task of one of them (the second the retry comes
    to) finishes, which idles its batch node and then wants the class and tenant rows. Held
    at the second batch, the retry used to hold the first's class and tenant rows already
    while the finish held the second's batch row: each waited for the other and PostgreSQL
    aborted one (DeadlockDetected) after a second. Now the retry locks every node it changes
    first, in key order; both end, and both batches are active with their retried work."""
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite's one writer serialises the transactions themselves")
    store = Store(open_engine(store_url), clock, EventBus())
    other = Store(open_engine(store_url), clock, EventBus())
    try:
        for b in ("X", "Y"):
            store.submit(tasks(2, b.lower(), b))
        claims = {c.task_id: c for c in (_claim(store, f"acc-{i}") for i in range(4))}
        for failed in ("x-000", "y-000"):
            assert store.finish_failed(claims.pop(failed), ErrorKind.SERVER_ERROR, "boom")
        # The retry, held at its first statement about the second batch's node alone after
        # one about the first's alone (whichever batch it takes first): before, it held the
        # first batch's class and tenant rows there; now it holds every row it changes.
        alone: list[str] = []
        at_second, go = threading.Event(), threading.Event()

        def hold(_c: object, _cur: object, statement: str, params: Any, *_: object) -> None:
            about = [b for b in "XY" if f"b:normal:{b}" in str(params)]
            if len(about) == 1 and not at_second.is_set():
                if alone and about[0] != alone[0]:
                    alone.append(about[0])
                    at_second.set()
                    go.wait(30)
                elif not alone:
                    alone.append(about[0])

        event.listen(other.engine, "before_cursor_execute", hold)
        results: dict[str, Any] = {}

        def run(name: str, work: Callable[[], Any]) -> None:
            try:
                results[name] = work()
            except BaseException as exc:  # noqa: BLE001 - asserted below
                results[name] = exc

        retry = threading.Thread(
            target=run, args=("retry", lambda: other.retry(["x-000", "y-000"]))
        )
        retry.start()
        assert at_second.wait(30)
        second = alone[1]
        finish = threading.Thread(
            target=run,
            args=("finish", lambda: store.finish_success(claims[f"{second.lower()}-001"], "ok")),
        )
        finish.start()
        # The finish ends, or waits for a lock the retry holds (as it did before).
        with store.engine.connect() as look:
            for _ in range(600):
                waiting = look.execute(
                    text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                ).scalar()
                look.rollback()
                if waiting or "finish" in results:
                    break
                threading.Event().wait(0.05)
        go.set()
        retry.join(timeout=60)
        finish.join(timeout=60)
        event.remove(other.engine, "before_cursor_execute", hold)
        assert sorted(results["retry"]) == ["x-000", "y-000"] and results["finish"] is True, results
        assert set(store.fair_shares()) == {"X", "Y"}
    finally:
        store.engine.dispose()
        other.engine.dispose()


def _charge_rows(engine: Any, node: str) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                text("SELECT count(*) FROM fair_charges WHERE node = :n"), {"n": node}
            ).scalar()
        )


def test_a_start_folds_the_charge_rows_of_finished_batches_and_loses_no_seconds(
    store_url: str, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    """``fair_charges`` holds a row per node and workstation: kept for every batch a team ever
    ran, it grew without end. A workstation's start folds the rows of inactive batch nodes into
    the node rows (one statement deletes and adds), so their figures stay what they were: here
    two workstations' claims of F end normally (4 × 7 s), H's one task fails at the reaper (its
    estimate stays charged: the attempt held an account). A node or charge row another
    transaction holds is skipped, never waited for; a role without DELETE on the table starts
    all the same, with a WARNING naming the grant."""
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite charges the node rows themselves: it has no charge rows")
    store = Store(open_engine(store_url), clock, EventBus())
    try:
        store.submit(tasks(4, "f", "F"))
        claims = [_claim(store, f"acc-{i}", workstation=f"pc-{i % 2}") for i in range(4)]
        node = fair.batch_key(fair.NORMAL, "F")
        clock.advance_sync(7.0)
        for c in claims:
            assert store.finish_success(c, "ok")
        store.submit(tasks(1, "h", "H"), max_attempts=1)
        h = _claim(store, workstation="pc-1")
        clock.advance_sync(100.0)
        assert [r.new_state for r in store.reap_stale(dead_after=90.0)] == [TaskState.FAILED]
        h_node = fair.batch_key(fair.NORMAL, "H")
        assert _active_nodes(store) == set()
        # Kept rows: F's two workstations; H's claim and the reaper's correction.
        assert (_charge_rows(store.engine, node), _charge_rows(store.engine, h_node)) == (2, 2)
        figures = {n: (_service(store, n), _vtime(store, n)) for n in (node, h_node)}
        assert figures[node] == (pytest.approx(28.0), pytest.approx(28.0))
        assert figures[h_node][0] == pytest.approx(h.fair_charge) and h.fair_charge > 0

        other = open_engine(store_url)
        try:
            for held in ("fair_nodes", "fair_charges"):  # F's node row, then a charge row of F
                with other.begin() as holder:
                    holder.execute(
                        text(f"SELECT node FROM {held} WHERE node = :n LIMIT 1 FOR UPDATE"),
                        {"n": node},
                    )
                    with store.engine.begin() as conn:
                        conn.execute(text("SET LOCAL lock_timeout = '5s'"))  # fail, not hang
                        fair_store.fold_idle_charges(conn)  # skips what the holder holds
                    assert _charge_rows(store.engine, h_node) == 0  # H's went meanwhile
                    assert _charge_rows(store.engine, node) == (2 if held == "fair_nodes" else 1)
        finally:
            other.dispose()
        SessionStore(store.engine, clock).open()  # a start
        assert _charge_rows(store.engine, node) == 0
        for n, (service, vtime) in figures.items():
            assert (_service(store, n), _vtime(store, n)) == (pytest.approx(service), vtime)

        # A workstation role granted before DELETE was (INSERT and UPDATE only): it starts.
        with store.engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO fair_charges (node, shard, vtime, service, inflight, "
                    "updated_at) VALUES (:n, 'old-pc', 5, 5, 0, 0)"
                ),
                {"n": node},
            )
            conn.execute(text("DROP ROLE IF EXISTS ma_fold_test"))
            conn.execute(text("CREATE ROLE ma_fold_test LOGIN"))
            conn.execute(
                text("GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO ma_fold_test")
            )
            conn.execute(text("GRANT DELETE ON sessions TO ma_fold_test"))  # as the README's
        limited = open_engine(store_url.replace("ma_admin@", "ma_fold_test@", 1))
        try:
            with caplog.at_level("WARNING"):
                assert SessionStore(limited, clock).open()
            assert "needs DELETE on fair_charges" in caplog.text
            assert _charge_rows(store.engine, node) == 1
        finally:
            limited.dispose()
            with store.engine.begin() as conn:
                conn.execute(text("DROP OWNED BY ma_fold_test"))
                conn.execute(text("DROP ROLE ma_fold_test"))
    finally:
        store.engine.dispose()


def test_setting_the_class_weights_takes_the_class_rows_in_key_order(
    store_url: str, clock: ManualClock
) -> None:
    """A workstation's start writes the class weights (one row per class). It took them in
    the classes' order (urgent, normal, low), not in key order: beside a transaction holding
    ``c:normal`` that then wanted ``c:urgent`` (a retry across classes, in key order), each
    waited for the other. Now ``c:low``, ``c:normal``, ``c:urgent``: it waits, then ends."""
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite's one writer serialises the transactions themselves")
    store = Store(open_engine(store_url), clock, EventBus())
    other = open_engine(store_url)
    try:
        store.set_class_weights(dict(fair.DEFAULT_WEIGHTS))  # the rows exist
        holder = other.connect()
        tx = holder.begin()
        lock = text("SELECT node FROM fair_nodes WHERE node = :n FOR UPDATE")
        holder.execute(lock, {"n": fair.class_key(fair.NORMAL)})
        done: list[BaseException | None] = []

        def weights() -> None:
            try:
                store.set_class_weights({**fair.DEFAULT_WEIGHTS, fair.LOW: 2.0})
                done.append(None)
            except BaseException as exc:  # noqa: BLE001 - asserted below
                done.append(exc)

        t = threading.Thread(target=weights)
        t.start()
        assert _lock_waiters(other, "%fair_nodes%") == 1 and not done
        holder.execute(lock, {"n": fair.class_key(fair.URGENT)})  # free: not taken before
        tx.commit()
        holder.close()
        t.join(timeout=30)
        assert done == [None]
        assert store.fair_shares() == {}  # nothing active; the weights are written
        with store.engine.connect() as conn:
            assert fair_store.class_weights(conn)[fair.LOW] == 2.0
    finally:
        store.engine.dispose()
        other.dispose()


def test_a_claim_and_its_finish_are_three_statements_each_on_postgresql(
    store: Store, clock: ManualClock
) -> None:
    """What a claim costs (issue 30 item 3), counted, not timed: on PostgreSQL the claim from a
    backlog is the transaction's lock timeout, one statement that chooses the batch, locks its
    head (SKIP LOCKED) and claims it, and one that writes the event row and charges the nodes;
    the finish is the lock timeout, the task's update, and one that writes the event row and
    settles the nodes. SQLite (no data-modifying CTEs, no round trips) keeps them apart."""
    store.submit(tasks(5, "s", "S"))
    first = store.claim_next(
        kind=ModelKind.API, account_id="acc", models=["api-model"], owner_id="o", deadline_s=99
    )
    assert first is not None and store.finish_success(first, "ok")  # the backlog is known
    sent: list[str] = []

    def capture(_c: object, _cur: object, statement: str, *_: object) -> None:
        sent.append(statement)

    event.listen(store.engine, "before_cursor_execute", capture)
    c = store.claim_next(
        kind=ModelKind.API, account_id="acc", models=["api-model"], owner_id="o", deadline_s=99
    )
    claimed = list(sent)
    sent.clear()
    assert c is not None and c.fair_keys and store.finish_success(c, "ok")
    finished = list(sent)
    event.remove(store.engine, "before_cursor_execute", capture)
    events = [s for s in claimed + finished if "INSERT INTO task_events" in s]
    assert len(events) == 2
    if store.engine.dialect.name != "postgresql":
        return
    assert len(claimed) == 3, claimed
    assert claimed[0].startswith("SET LOCAL lock_timeout")
    assert "FOR UPDATE OF tasks SKIP LOCKED" in claimed[1] and "UPDATE tasks SET" in claimed[1]
    assert "INSERT INTO task_events" in claimed[2] and "INSERT INTO fair_charges" in claimed[2]
    assert len(finished) == 3, finished
    assert "INSERT INTO task_events" in finished[2] and "INSERT INTO fair_charges" in finished[2]
    # The charge and the correction add up exactly: 10 s estimated, then the real 0 s.
    assert _service(store, fair.batch_key(fair.NORMAL, "S")) == pytest.approx(0.0)
