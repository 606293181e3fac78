"""Background jobs (gui/bridge/jobs.py) end with whoever waits for them, and all of them end
when the app closes: a job never outlives its window."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from media_assistant.core.exports.write import ExportScope
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.jobs import JobCanceled, JobControl
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.gui.bridge.jobs import JobRunner, running_jobs, stop_jobs


def steps_until_canceled(ended: list[str], limit_s: float = 20.0) -> Any:
    """Work that checks Cancel between short steps, for up to ``limit_s``; says how it ended."""

    def work(control: JobControl) -> str:
        started = time.monotonic()
        try:
            while time.monotonic() - started < limit_s:
                control.check()
                time.sleep(0.01)
        except JobCanceled:
            ended.append("canceled")
            raise
        ended.append("ran to its end")
        return "done"

    return work


async def until(predicate: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)


async def test_a_job_whose_waiter_is_cancelled_stops_too(qtbot: Any) -> None:
    """Before: cancelling the coroutine that awaited a job left the job running to its end
    (an export went on writing a file nobody would open)."""
    widget = QWidget()
    qtbot.addWidget(widget)
    ended: list[str] = []
    waiter = asyncio.ensure_future(JobRunner(widget).run("work", steps_until_canceled(ended)))
    await until(lambda: running_jobs() == 1, 5)
    waiter.cancel()
    await until(lambda: bool(ended), 5)
    assert ended == ["canceled"]
    await until(lambda: running_jobs() == 0, 5)


async def test_closing_the_app_stops_every_job_and_kills_an_exports_process(
    qtbot: Any, tmp_path: Path
) -> None:
    """Before: the app ignored running jobs when its window closed; an export's process and
    the thread waiting for it kept the app alive until the export was done."""
    from media_assistant.core.exports.child import export_in_child

    engine = open_engine(sqlite_url(tmp_path / "tasks.db"))
    store = Store(engine, ManualClock(1_764_483_900.0), EventBus())
    store.submit(
        [NewTask(f"t{i:05d}", "m", ModelKind.API, "写一段话 " * 40, "b") for i in range(20_000)]
    )
    widget = QWidget()
    qtbot.addWidget(widget)
    runner = JobRunner(widget)
    ended: list[str] = []
    target = tmp_path / "all.xlsx"
    steps = asyncio.ensure_future(runner.run("steps", steps_until_canceled(ended)))
    export = asyncio.ensure_future(
        runner.run(
            "export",
            lambda control: export_in_child(engine, ExportScope(), target, None, "en", control),
        )
    )
    await until(lambda: _export_children() == 1, 20)
    # A limit beyond the test's own timeout (120 s): a stop that waited out its limit instead
    # of returning once both jobs ended would fail the test.
    assert await stop_jobs(wait_s=300.0) == 0
    for job in (steps, export):
        with pytest.raises(JobCanceled):
            await job
    assert ended == ["canceled"]
    assert _export_children() == 0 and not target.exists()
    engine.dispose()


async def test_a_job_that_ignores_cancel_cannot_hold_the_process(qtbot: Any) -> None:
    """A job stuck in a call it cannot leave (a file on a network share that stopped
    answering) is left behind after the wait, on a daemon thread: Python does not wait for
    it at exit, as it would for an executor's thread."""
    widget = QWidget()
    qtbot.addWidget(widget)
    release = threading.Event()
    job = asyncio.ensure_future(JobRunner(widget).run("stuck", lambda _c: release.wait(30)))
    await until(lambda: running_jobs() == 1, 5)
    try:
        assert await stop_jobs(wait_s=0.2) == 1
        [thread] = [t for t in threading.enumerate() if t.name == "job: stuck"]
        assert thread.daemon
    finally:
        release.set()
    assert await job is True


def _export_children() -> int:
    import multiprocessing

    return sum(1 for p in multiprocessing.active_children() if p.name == "media-assistant-export")
