"""Submits don't block the team (issue 28 item 5), on the suite's real PostgreSQL.

An import (or a ``store copy``) is held open mid-way — its thread stopped right after it wrote
its tasks, before its end and commit — while another workstation submits and this workstation's
scheduler claims and beats. The other workstation's engine has a 0.5 s lock timeout: a submit
that had to wait for the held import would fail with it; one that waits for nothing commits at
once. No test here waits for time to pass: each waits for a state (a thread reaching its gate, a
backend shown waiting for a lock), or for a call that returns at once unless it is held up.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, text

from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.events import Event, EventBus, TasksAdded, TasksChanged
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.backends import postgres
from media_assistant.core.store.copy import copy_store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.task_ids import generated_task_id
from media_assistant.core.store.threads import DbThreads
from tests.conftest import make_tasks

SHORT_LOCK_TIMEOUT_MS = 500
HELD_FOR_S = 60.0  # how long a gate waits for its release before giving up (a hang's guard)


class HeldAfterInserts:
    """Stops the first transaction on ``engine`` of a thread ``named`` (a prefix) right after
    it wrote its first event lines — its tasks are all in, nothing of its end is — until
    :attr:`release` is set. ``phase``/``statement``: another point (before its tasks go in:
    ``"before_cursor_execute"``, ``"INSERT INTO TASKS"``)."""

    def __init__(
        self,
        engine: Engine,
        named: str,
        phase: str = "after_cursor_execute",
        statement: str = "INSERT INTO TASK_EVENTS",
    ) -> None:
        self.engine = engine
        self.named = named
        self.phase = phase
        self.statement = statement
        self.reached = threading.Event()
        self.release = threading.Event()
        event.listen(engine, phase, self._at)

    def _at(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if (
            not self.reached.is_set()
            and threading.current_thread().name.startswith(self.named)
            and statement.lstrip().upper().startswith(self.statement)
        ):
            self.reached.set()
            self.release.wait(HELD_FOR_S)

    def remove(self) -> None:
        """Once the held thread has gone on (a listener removed while it runs breaks the
        engine's dispatch)."""
        self.release.set()
        event.remove(self.engine, self.phase, self._at)


def generated(n: int, batch: str) -> list[NewTask]:
    """Tasks as a batch file without a task_id column makes them (ids proposed by row)."""
    return [
        NewTask(
            generated_task_id(batch, i),
            "api-model",
            ModelKind.API,
            f"prompt {batch} {i}",
            batch,
            generated_id=True,
        )
        for i in range(1, n + 1)
    ]


def rows_of(engine: Engine) -> list[tuple[str, int, str]]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT task_id, seq, batch_id FROM tasks ORDER BY seq")).all()
    return [(r[0], int(r[1]), r[2]) for r in rows]


def wait_for_a_backend_waiting_on_an_advisory_lock(engine: Engine) -> None:
    """Until the server shows a backend of this database waiting for an advisory lock."""
    deadline = time.monotonic() + HELD_FOR_S
    with engine.connect() as conn:
        while time.monotonic() < deadline:
            waiting = conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND wait_event = 'advisory' AND datname = current_database()"
                )
            ).scalar()
            conn.rollback()  # pg_stat_activity is a snapshot per transaction
            if waiting:
                return
            threading.Event().wait(0.02)
    raise AssertionError("no backend ever waited for the batch's lock")


def in_thread(name: str, fn: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = fn()
        except BaseException as exc:  # the test reports it
            out["error"] = exc

    thread = threading.Thread(target=run, name=name)
    thread.start()
    return thread, out


@pytest.fixture
def other_workstation_url(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Engines opened in this test wait at most 0.5 s for a lock."""
    monkeypatch.setattr(postgres, "LOCK_TIMEOUT_MS", SHORT_LOCK_TIMEOUT_MS)
    yield pg_url


def test_an_import_held_open_holds_up_no_other_batchs_import_and_the_same_batch_takes_turns(
    other_workstation_url: str,
) -> None:
    url = other_workstation_url
    clock = ManualClock(1_000.0)
    here = Store(open_engine(url), clock, EventBus())
    there = Store(open_engine(url), clock, EventBus())
    gate = HeldAfterInserts(here.engine, "importer")
    try:
        big, big_out = in_thread("importer", lambda: here.submit(generated(1_500, "big")))
        assert gate.reached.wait(HELD_FOR_S)

        # Another workstation, another batch: in at once (generated and supplied ids).
        theirs = there.submit(generated(15, "small") + make_tasks(5, batch="small", prefix="s"))
        assert len(theirs.added) == 20 and not theirs.skipped
        assert {b for _, _, b in rows_of(there.engine)} == {"small"}  # committed; big is not

        # Into the batch being imported: it waits for the import (past its 0.5 s lock
        # timeout), then numbers its generated ids on after the import's.
        same, same_out = in_thread("same-batch", lambda: there.submit(generated(10, "big")))
        wait_for_a_backend_waiting_on_an_advisory_lock(there.engine)
        assert same.is_alive() and not same_out
    finally:
        gate.release.set()
        big.join(HELD_FOR_S)
        gate.remove()
    same.join(HELD_FOR_S)
    assert "error" not in big_out and "error" not in same_out, (big_out, same_out)
    assert len(big_out["result"].added) == 1_500
    assert same_out["result"].added == tuple(generated_task_id("big", i) for i in range(1501, 1511))
    rows = rows_of(here.engine)
    assert len(rows) == 1_530
    assert len({seq for _, seq, _ in rows}) == len(rows)  # every number once
    assert len({task_id for task_id, _, _ in rows}) == len(rows)
    here.engine.dispose()
    there.engine.dispose()


def test_a_generated_id_another_batch_supplies_meanwhile_is_numbered_on_not_lost(
    other_workstation_url: str,
) -> None:
    """No lock keeps supplied ids out of a batch being imported: one that takes a generated id
    after the import settled its ids (another batch's file with a ``task_id`` column) makes the
    import number that task on — nothing is lost, nothing doubled."""
    url = other_workstation_url
    clock = ManualClock(1_000.0)
    here = Store(open_engine(url), clock, EventBus())
    there = Store(open_engine(url), clock, EventBus())
    gate = HeldAfterInserts(here.engine, "importer", "before_cursor_execute", "INSERT INTO TASKS")
    try:
        big, out = in_thread("importer", lambda: here.submit(generated(100, "x")))
        assert gate.reached.wait(HELD_FOR_S)  # ids settled: x-00001 … x-00100, none in yet
        taken = NewTask(generated_task_id("x", 50), "api-model", ModelKind.API, "theirs", "y")
        assert there.submit([taken]).added == (taken.task_id,)
    finally:
        gate.release.set()
        big.join(HELD_FOR_S)
        gate.remove()
    assert "error" not in out, out
    result = out["result"]
    expected = [generated_task_id("x", i) for i in range(1, 102) if i != 50]
    assert sorted(result.added) == expected and not result.skipped
    rows = rows_of(here.engine)
    assert len(rows) == 101 and len({seq for _, seq, _ in rows}) == 101
    assert [b for t, _, b in rows if t == taken.task_id] == ["y"]
    here.engine.dispose()
    there.engine.dispose()


def test_a_store_copy_held_open_holds_up_no_submit(
    other_workstation_url: str, tmp_path: Path
) -> None:
    clock = ManualClock(1_000.0)
    source = Store(open_engine(sqlite_url(tmp_path / "pc.db")), clock, EventBus())
    source.submit(make_tasks(300, batch="moved", prefix="m"))
    target = open_engine(other_workstation_url)
    there = Store(open_engine(other_workstation_url), clock, EventBus())
    there.submit(make_tasks(3, batch="before", prefix="b"))
    gate = HeldAfterInserts(target, "copier")
    try:
        copying, out = in_thread("copier", lambda: copy_store(source.engine, target))
        assert gate.reached.wait(HELD_FOR_S)
        theirs = there.submit(make_tasks(20, batch="meanwhile", prefix="w"))
        assert len(theirs.added) == 20
    finally:
        gate.release.set()
        copying.join(HELD_FOR_S)
        gate.remove()
    assert "error" not in out, out
    assert out["result"].tasks_added == 300
    rows = rows_of(target)
    assert len(rows) == 323 and len({seq for _, seq, _ in rows}) == 323
    moved = [task_id for task_id, _, batch in rows if batch == "moved"]
    assert moved == [f"m-{i:03d}" for i in range(300)]  # in their own order
    before = [seq for _, seq, batch in rows if batch == "before"]
    assert max(before) < min(seq for _, seq, batch in rows if batch == "moved")
    for engine in (source.engine, target, there.engine):
        engine.dispose()


async def test_the_windows_import_held_open_holds_up_no_heartbeat_or_claim(pg_url: str) -> None:
    """The window's and ``run``'s path (AsyncStore): the import runs on the bulk thread; the
    writer thread goes on beating and claiming. Its addition is heard before any change of an
    imported task: its commit and its event happen while no writer job runs."""
    bus = EventBus()
    store = Store(open_engine(pg_url), ManualClock(1_000.0), bus)
    db = DbThreads()
    astore = AsyncStore(store, db)
    heard: list[Event] = []
    bus.subscribe(heard.append)  # not bound to a loop: heard on the publishing thread, in order
    await astore.submit(make_tasks(2, batch="earlier", prefix="e"))

    async def claim() -> Any:
        return await astore.claim_next(
            kind=ModelKind.API, account_id="acc", models=["api-model"], owner_id="o", deadline_s=60
        )

    running = await claim()
    # At the return of the import's connection — after its commit, before its event — can a
    # writer job run? (A probe thread tries the lock every writer job holds while it runs.)
    at_checkin: list[tuple[bool, bool]] = []

    def checked_in(*_: Any) -> None:
        if threading.current_thread().name.startswith("db-bulk"):
            free: list[bool] = []
            probe = threading.Thread(target=lambda: free.append(_try(db.commit_order)))
            probe.start()
            probe.join()
            at_checkin.append((free[0], any(_adds(e, "big") for e in heard)))

    event.listen(store.engine.pool, "checkin", checked_in)
    gate = HeldAfterInserts(store.engine, "db-bulk")
    try:
        importing = asyncio.ensure_future(astore.submit(make_tasks(400, batch="big", prefix="big")))
        assert await asyncio.to_thread(gate.reached.wait, HELD_FOR_S)
        beat = astore.heartbeat("o", {running.task_id: (running.attempt, running.lease, 7)})
        assert await asyncio.wait_for(beat, HELD_FOR_S) == set()
        taken = await asyncio.wait_for(claim(), HELD_FOR_S)
        assert taken is not None and taken.task_id == "e-001"
        gate.release.set()
        claimed = []
        while not importing.done() or len(claimed) < 5:  # claims race the import's end
            if (c := await claim()) is not None:
                claimed.append(c.task_id)
        result = await importing
    finally:
        gate.release.set()
        await asyncio.wait([importing], timeout=HELD_FOR_S)
        gate.remove()
        event.remove(store.engine.pool, "checkin", checked_in)
    assert len(result.added) == 400 and set(claimed) <= set(result.added)
    assert at_checkin[-1] == (False, False)  # no writer job could run; not yet published
    added_at = next(i for i, e in enumerate(heard) if _adds(e, "big"))
    for i, e in enumerate(heard):
        if isinstance(e, TasksChanged) and any(c.task_id.startswith("big") for c in e.changes):
            assert i > added_at, "a change of an imported task was heard before its addition"
    db.close()
    store.engine.dispose()


def _adds(e: Event, batch: str) -> bool:
    return isinstance(e, TasksAdded) and e.batch_id == batch


def _try(lock: Any) -> bool:
    if lock.acquire(blocking=False):
        lock.release()
        return True
    return False
