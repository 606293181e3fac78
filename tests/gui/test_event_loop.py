"""The app's loop runs a callback only while it runs (as every asyncio loop does).

qasync 0.28's ``run_until_complete`` processes Qt's events once more after its loop stopped, and
pytest-qt processes them between a test's phases: a task's step that came due then ran with no
running loop, so its next ``await`` raised "no running event loop" inside the task — a web
lane's worker died of it between a GUI test's body and its teardown (seen under load, stop 40).
The app's own ``run_until_complete(main)`` ends the same way."""

from __future__ import annotations

import asyncio
import time

from PySide6.QtWidgets import QApplication

from media_assistant.gui.bridge.event_loop import AppEventLoop


def test_a_step_due_while_the_loop_is_stopped_waits_for_the_next_run(qapp: QApplication) -> None:
    loop = AppEventLoop(qapp, already_running=False)
    with loop:

        async def worker() -> asyncio.AbstractEventLoop:
            await asyncio.sleep(0.01)
            return asyncio.get_running_loop()  # raised when stepped without a running loop

        async def start() -> asyncio.Task[asyncio.AbstractEventLoop]:
            return asyncio.create_task(worker())

        task = loop.run_until_complete(start())
        time.sleep(0.05)  # the worker's sleep is due
        qapp.processEvents()  # as pytest-qt does between a test's phases
        qapp.processEvents()
        assert not task.done()  # held, not stepped without a loop
        assert loop.run_until_complete(task) is loop  # and it runs at the loop's next run


def test_a_callback_cancelled_while_held_never_runs(qapp: QApplication) -> None:
    loop = AppEventLoop(qapp, already_running=False)
    with loop:
        ran: list[str] = []

        async def schedule() -> asyncio.TimerHandle:
            return loop.call_later(0.01, ran.append, "late")

        handle = loop.run_until_complete(schedule())
        time.sleep(0.05)
        qapp.processEvents()
        handle.cancel()
        loop.run_until_complete(asyncio.sleep(0.02))
        assert ran == []
        loop.call_soon(ran.append, "soon")
        loop.run_until_complete(asyncio.sleep(0.02))
        assert ran == ["soon"]
