"""Issue 9, item 9: a graceful shutdown writes back every running row, on every path — also for
attempts that outlast its wait — and a shutdown of ours cut short never costs an attempt."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from media_assistant.core.lanes import base as lane_base
from media_assistant.core.lanes import scheduler as scheduler_module
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.model.states import ModelKind
from tests.conftest import make_tasks
from tests.faults.conftest import cli, no_traceback, rows, write_config, write_csv
from tests.integration.conftest import Harness


class IgnoresCancellation:
    """A web generation that will not stop when asked (a page whose stop control does nothing,
    a stuck driver call): it outlasts every wait of the shutdown."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        self.started.set()
        while not self.release.is_set():
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue
        raise AssertionError("released at teardown")

    async def aclose(self) -> None:
        self.release.set()


async def test_an_attempt_that_outlasts_the_shutdown_wait_goes_back_without_using_an_attempt(
    harness_factory: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a web attempt still running when the shutdown's 15 s wait ran out had its worker
    cancelled, which took it out of the runner's list; the row stayed ``running`` and the next
    start counted it as a lost attempt (an operator closing the window mid-answer lost an
    attempt per web account, and a task on its last attempt failed for good)."""
    monkeypatch.setattr(scheduler_module, "SHUTDOWN_WAIT_S", 0.3)
    monkeypatch.setattr(lane_base, "STOP_WAIT_S", 0.3)
    h = harness_factory(web_accounts=1, api_accounts=0)
    stubborn = IgnoresCancellation()
    h.overrides["web-1"] = stubborn
    s = await h.start()
    await s.submit(make_tasks(1, model="web-model", kind=ModelKind.WEB))
    await asyncio.wait_for(stubborn.started.wait(), 10)
    await asyncio.wait_for(s.stop(), 30)
    [row] = h.store.list_tasks()
    assert (row.state, row.attempt, row.lost_count) == ("pending", 1, 0)
    events = [e.message for e in h.store.events(row.task_id)]
    assert any("outlasted" in m or "returned to the queue at shutdown" in m for m in events)

    # The next start runs it as the same attempt, not as attempt 2.
    h2 = harness_factory(web_accounts=1, api_accounts=0)
    s2 = await h2.start()
    assert await h2.run() == []
    [row] = h2.store.list_tasks()
    assert (row.state, row.attempt, row.lost_count) == ("success", 1, 0)
    await s2.stop()


async def test_the_shutdown_wait_is_seconds_even_on_a_busy_loop(
    harness_factory: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the wait for interrupted attempts counted turns of ``sleep(0.02)`` as 0.02 s
    each; on a loop busy 100 ms a turn (a window repainting a long table), 15 s became 75 s
    and the window stayed on screen that long after the operator closed it."""
    monkeypatch.setattr(scheduler_module, "SHUTDOWN_WAIT_S", 0.5)
    monkeypatch.setattr(lane_base, "STOP_WAIT_S", 0.1)
    h = harness_factory(web_accounts=1, api_accounts=0)
    stubborn = IgnoresCancellation()
    h.overrides["web-1"] = stubborn
    s = await h.start()
    await s.submit(make_tasks(1, model="web-model", kind=ModelKind.WEB))
    await asyncio.wait_for(stubborn.started.wait(), 10)
    loop = asyncio.get_running_loop()
    busy = True
    turns = 0

    def hog() -> None:  # every turn of the loop costs 100 ms (at least: more under load)
        nonlocal turns
        turns += 1
        time.sleep(0.1)
        if busy:
            loop.call_soon(hog)

    # The wait begins right after the attempts are interrupted and ends when the lanes stop:
    # both moments noted with the turns the loop had made by then.
    marks: dict[str, tuple[float, int]] = {}
    interrupt_all = s.runner.interrupt_all

    def recorded_interrupt(reason: str) -> None:
        marks["wait began"] = (time.monotonic(), turns)
        interrupt_all(reason)

    web = s.lanes[ModelKind.WEB]
    stop_lane = web.stop

    async def recorded_stop() -> None:
        marks.setdefault("lanes stopped", (time.monotonic(), turns))
        await stop_lane()

    monkeypatch.setattr(s.runner, "interrupt_all", recorded_interrupt)
    monkeypatch.setattr(web, "stop", recorded_stop)
    loop.call_soon(hog)
    try:
        await asyncio.wait_for(s.stop(), 60)
    finally:
        busy = False
    (began, first), (ended, last) = marks["wait began"], marks["lanes stopped"]
    # Real seconds: at least the wait, and fewer turns than the 25 sleeps of 0.02 s that
    # counting turns as time would have made (each turn here is 100 ms or more: the more
    # loaded the machine, the fewer the turns).
    assert ended - began >= 0.5, ended - began
    assert last - first < 0.5 / 0.02, last - first


# A `run` whose web provider ignores cancellation: its graceful stop waits its full 15 s. The
# provider leaves a file named "generating" in the data folder once it is under way.
STUBBORN_RUN = """
import asyncio, pathlib, sys
from media_assistant.sim import fake_web

async def stubborn(self, ctx):
    pathlib.Path({data!r}, "generating").touch()
    while True:
        try:
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            continue

fake_web.FakeWebProvider.generate = stubborn
from media_assistant.cli import main
sys.exit(main(["--data-dir", {data!r}, "run"]))
"""


def session_stopping(db: Path) -> bool:
    con = sqlite3.connect(db)
    try:
        row = con.execute("SELECT count(*) FROM sessions WHERE ended_at IS NOT NULL").fetchone()
    finally:
        con.close()
    return bool(row[0])


def test_a_shutdown_cut_short_costs_no_attempt_at_the_next_start(tmp_path: Path) -> None:
    """Before: Ctrl-C, then a second Ctrl-C (or a service manager's kill) while the graceful
    stop still waited for a web page left the rows ``running``; the next start took them for
    a crash's orphans and used up an attempt of each (three such evenings failed a task)."""
    data = tmp_path / "data"
    write_config(data)
    batch = write_csv(
        tmp_path / "b.csv",
        [{"task_id": "s1", "prompt": "Prompt s1", "model": "web-model"}],
    )
    assert cli(data, "submit", str(batch)).returncode == 0
    db = data / "media-assistant.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(STUBBORN_RUN.format(data=str(data)))],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Under way: the row says "running" from its claim on, but until the page is being
        # driven a stop gives the claim straight back (a full run once took the Ctrl-C there).
        deadline = time.monotonic() + 60
        while not (data / "generating").exists():
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        assert [r["state"] for r in rows(db)] == ["running"]
        proc.send_signal(signal.SIGINT)  # the first Ctrl-C: a graceful stop begins
        while not session_stopping(db):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        proc.kill()  # ... and is cut short before the row was written back
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    [left] = rows(db)
    assert left["state"] == "running"  # what the next start finds

    result = cli(data, "run")
    assert result.returncode == 0, result.stdout + result.stderr
    assert no_traceback(result)
    [row] = rows(db)
    assert (row["state"], row["attempt"], row["lost_count"]) == ("success", 1, 0)


async def test_a_closing_workstation_claims_nothing(
    harness_factory: Callable[..., Harness],
) -> None:
    """Issue 26 item 7: at shutdown, tasks another workstation released were claimed by one
    that was itself closing (its window closed, its scheduler not stopped yet): 8 paid
    requests sent and dropped. From the moment the app begins to close, nothing is claimed —
    not by a worker, not as the follow-up of an answer — and the tasks wait for the others."""
    h = harness_factory(web_accounts=1, api_accounts=1)
    s = await h.start()
    s.close_claims()  # the window was closed: the app's shutdown has begun
    await s.submit(make_tasks(3, model="api-model", kind=ModelKind.API))
    await s.submit(make_tasks(2, model="web-model", kind=ModelKind.WEB, prefix="w"))
    for kind in (ModelKind.API, ModelKind.WEB):
        lane = s.lanes[kind]
        [account] = [a for a in h.config.accounts if a.kind is kind]
        assert await lane.claim(account) is None  # the worker's own claim
    api = s.lanes[ModelKind.API]
    [api_account] = [a for a in h.config.accounts if a.kind is ModelKind.API]
    assert api._follow_up(api_account) is None  # type: ignore[attr-defined]
    assert set(h.states().values()) == {"pending"}
    await s.stop()
    assert set(h.states().values()) == {"pending"}
    assert all(r.attempt == 0 for r in h.store.list_tasks())


async def test_a_claim_the_closing_app_gives_back_says_the_app_closed(
    harness_factory: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app begins to close while a claim waits for the writer: the task goes back with no
    attempt used, and its history says the app was closed — not that the operator switched
    its account off (what it said before: seen in a crash test's store)."""
    h = harness_factory(web_accounts=1)
    s = await h.start()
    store = s.rt.store
    claim_next = store.claim_next

    async def claimed_as_the_window_closes(**kwargs: object) -> object:
        claim = await claim_next(**kwargs)
        s.close_claims()  # the window closed while the claim was being written
        return claim

    monkeypatch.setattr(store, "claim_next", claimed_as_the_window_closes)
    await s.submit(make_tasks(1, model="web-model", kind=ModelKind.WEB, prefix="w"))
    deadline = asyncio.get_running_loop().time() + 30
    # The claim writes "started"; what follows it is the give-back.
    while (events := h.store.events("w-000"))[-1].code in ("submitted", "started"):
        assert asyncio.get_running_loop().time() < deadline, events
        await asyncio.sleep(0.02)
    [task] = h.store.list_tasks()
    assert task.state == "pending"
    assert events[-1].code == EventCode.RETURNED_SHUTDOWN, events[-1]
    assert "switched off" not in events[-1].message
    assert "attempt not used up" in events[-1].message
    await s.stop()
