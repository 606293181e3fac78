"""Hypothesis drives the store the way the lanes do — claims, outcomes, heartbeats, the reaper,
cancels, operator retries, zombie writes, crashed sessions — in random orders, on a real SQLite
file, and checks DESIGN §3's invariants after every step."""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from media_assistant.core.accounts.ratelimit import ApiAccountGate
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.records import Claim, NewTask
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url

WEB_ACCOUNTS = ("web-1", "web-2")
API_ACCOUNTS = {"api-1": 2, "api-2": 3}  # account → concurrency
DEAD_AFTER = 90.0
TERMINAL = {s.value for s in TaskState if s.terminal}


class StoreMachine(RuleBasedStateMachine):
    @initialize()
    def open_store(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="ma-hyp-"))
        self.clock = ManualClock()
        self.store = Store(open_engine(sqlite_url(self.dir / "t.db")), self.clock)
        self.gates = {a: ApiAccountGate(c) for a, c in API_ACCOUNTS.items()}
        self.live: dict[str, Claim] = {}  # task id → the claim of its running attempt
        self.old_claims: list[Claim] = []  # claims whose attempt has ended (zombie material)
        self.submitted = 0
        self.seen_attempt: dict[str, int] = {}
        self.seen_terminal: dict[str, str] = {}
        self.retried: set[str] = set()
        self.sessions = 1
        self.owner = "session-1"
        self.reaped_at: float | None = None

    def teardown(self) -> None:
        self.store.engine.dispose()
        shutil.rmtree(self.dir, ignore_errors=True)

    # ------------------------------------------------------------------ helpers

    def _end(self, task_id: str) -> Claim:
        claim = self.live.pop(task_id)
        self.old_claims.append(claim)
        if claim.model_kind is ModelKind.API:
            self.gates[claim.account_id].release_slot()
        return claim

    def _sync_live(self) -> None:
        """Attempts whose row moved on without them (reaped, orphaned) end here, as in a lane."""
        rows = {r.task_id: r for r in self.store.get_many(list(self.live))}
        for tid, claim in list(self.live.items()):
            row = rows[tid]
            if row.state != "running" or (row.attempt, row.lease) != (claim.attempt, claim.lease):
                self._end(tid)

    # ------------------------------------------------------------------ rules

    @rule(n=st.integers(1, 4), kind=st.sampled_from(ModelKind), priority=st.integers(0, 2))
    def submit(self, n: int, kind: ModelKind, priority: int) -> None:
        model = "web-model" if kind is ModelKind.WEB else "api-model"
        tasks = [
            NewTask(
                f"t{self.submitted + i}",
                model,
                kind,
                f"p{self.submitted + i}",
                "b",
                priority=priority,
            )
            for i in range(n)
        ]
        # Re-submitting an old id alongside must not add a row.
        if self.submitted:
            tasks.append(NewTask("t0", model, kind, "dup", "b"))
        self.store.submit(tasks, max_attempts=3)
        self.submitted += n

    @rule(account=st.sampled_from(WEB_ACCOUNTS))
    def claim_web(self, account: str) -> None:
        # Tried even while the account runs a task: the database must refuse it.
        claim = self.store.claim_next(
            kind=ModelKind.WEB,
            account_id=account,
            models=["web-model"],
            owner_id=self.owner,
            deadline_s=600,
        )
        if claim is not None:
            assert not any(c.account_id == account for c in self.live.values())
            self.live[claim.task_id] = claim

    @rule(account=st.sampled_from(sorted(API_ACCOUNTS)))
    def claim_api(self, account: str) -> None:
        gate = self.gates[account]
        if not gate.has_free_slot:
            return
        claim = self.store.claim_next(
            kind=ModelKind.API,
            account_id=account,
            models=["api-model"],
            owner_id=self.owner,
            deadline_s=600,
        )
        if claim is not None:
            gate.take_slot()
            self.live[claim.task_id] = claim

    @precondition(lambda self: bool(self.live))
    @rule(
        data=st.data(),
        outcome=st.sampled_from(["success", "retryable", "fatal", "defer", "canceled"]),
    )
    def finish(self, data: st.DataObject, outcome: str) -> None:
        task_id = data.draw(st.sampled_from(sorted(self.live)))
        claim = self._end(task_id)
        store, now = self.store, self.clock.now()
        if outcome == "success":
            assert store.finish_success(claim, "ok")
        elif outcome == "fatal":
            assert store.finish_failed(claim, ErrorKind.AUTH_REJECTED, "401")
        elif outcome == "canceled":
            assert store.finish_canceled(claim)
        elif outcome == "defer":
            assert store.requeue(
                claim,
                not_before=None,
                keep_attempt=True,
                kind=ErrorKind.RATE_LIMITED,
                message="429",
            )
        elif claim.attempt < claim.max_attempts:
            assert store.requeue(
                claim,
                not_before=now + 5,
                keep_attempt=False,
                kind=ErrorKind.SERVER_ERROR,
                message="500",
            )
        else:
            assert store.finish_failed(claim, ErrorKind.SERVER_ERROR, "500, no attempts left")

    @precondition(lambda self: bool(self.old_claims))
    @rule(data=st.data())
    def zombie_writes(self, data: st.DataObject) -> None:
        claim = data.draw(st.sampled_from(self.old_claims))
        if claim.task_id in self.live:
            current = self.live[claim.task_id]
            if (current.attempt, current.lease) == (claim.attempt, claim.lease):
                return
        assert not self.store.finish_success(claim, "zombie")
        assert not self.store.requeue(
            claim, not_before=None, keep_attempt=True, kind=None, message="zombie"
        )

    @rule(seconds=st.floats(0, 120))
    def time_passes(self, seconds: float) -> None:
        self.clock.advance_sync(seconds)

    @precondition(lambda self: bool(self.live))
    @rule(data=st.data())
    def heartbeat(self, data: st.DataObject) -> None:
        beating = data.draw(st.lists(st.sampled_from(sorted(self.live)), unique=True))
        lost = self.store.heartbeat(
            self.owner, {t: (self.live[t].attempt, self.live[t].lease, 1) for t in beating}
        )
        assert lost == set()

    @rule()
    def reap(self) -> None:
        self.store.reap_stale(dead_after=DEAD_AFTER)
        self._sync_live()
        self.reaped_at = self.clock.now()

    @rule()
    def crash_and_restart(self) -> None:
        """The process dies; a new session recovers every orphan at start."""
        self.sessions += 1
        self.owner = f"session-{self.sessions}"
        self.store.recover_orphans([self.owner])
        self._sync_live()
        assert not self.live

    @rule(data=st.data())
    def cancel(self, data: st.DataObject) -> None:
        if not self.submitted:
            return
        ids = data.draw(
            st.lists(
                st.sampled_from([f"t{i}" for i in range(self.submitted)]), max_size=3, unique=True
            )
        )
        self.store.request_cancel(ids)

    @rule()
    def operator_retries_failed(self) -> None:
        self.retried.update(self.store.retry(all_failed=True, extra_attempts=3))

    # ------------------------------------------------------------------ invariants

    @invariant()
    def design_invariants(self) -> None:
        if not hasattr(self, "store"):
            return
        rows = self.store.list_tasks()
        assert len(rows) == self.submitted  # one row per task, forever
        running = [r for r in rows if r.state == "running"]
        per_web = Counter(r.account_id for r in running if r.model_kind == "web")
        assert all(n <= 1 for n in per_web.values()), per_web
        per_api = Counter(r.account_id for r in running if r.model_kind == "api")
        assert all(n <= API_ACCOUNTS[a] for a, n in per_api.items()), per_api
        for r in rows:
            assert r.attempt >= self.seen_attempt.get(r.task_id, 0)  # never decreases
            assert r.attempt <= r.max_attempts
            self.seen_attempt[r.task_id] = r.attempt
            before = self.seen_terminal.get(r.task_id)
            if before is not None and r.task_id not in self.retried:
                assert r.state == before, f"{r.task_id}: terminal {before} became {r.state}"
            if r.state in TERMINAL:
                self.seen_terminal[r.task_id] = r.state
            elif r.task_id in self.seen_terminal:
                del self.seen_terminal[r.task_id]
        self.retried.clear()
        if self.reaped_at == self.clock.now():
            cutoff = self.clock.now() - DEAD_AFTER
            assert all((r.heartbeat_at or 0) >= cutoff for r in running)


TestStoreInvariants = StoreMachine.TestCase
# Claims race the web lane's lock here on purpose: the database's unique index is the last line,
# and says so at ERROR when it holds.
TestStoreInvariants = pytest.mark.expect_errors("database refused a second running task")(
    TestStoreInvariants
)
TestStoreInvariants.settings = settings(
    max_examples=60,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
