"""The desktop session ends under the window (issue 29 item 1): Qt's session-end signals start
the synchronous release once, and a qasync loop stopped from outside is a shutdown (exit 0),
not "Event loop stopped before Future completed" in an error box."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtWidgets import QApplication

from media_assistant.gui.bridge.event_loop import AppEventLoop
from media_assistant.gui.bridge.session_end import SessionEndGuard, run_app_loop


def test_the_session_end_releases_once_then_closes(qapp: QApplication) -> None:
    calls: list[str] = []
    guard = SessionEndGuard(qapp, lambda: calls.append("release"), lambda: calls.append("close"))
    try:
        guard._on_app_commit_data_request(None)  # what WM_QUERYENDSESSION becomes
        guard._on_app_about_to_quit()  # then Qt quits its loop: nothing twice
        assert calls == ["release", "close"]
    finally:
        guard.uninstall()


def test_after_uninstall_the_apps_own_quit_is_no_session_end(qapp: QApplication) -> None:
    before = [
        qapp.receivers(sig) for sig in ("2aboutToQuit()", "2commitDataRequest(QSessionManager&)")
    ]
    guard = SessionEndGuard(qapp, lambda: None, lambda: None)
    during = [
        qapp.receivers(sig) for sig in ("2aboutToQuit()", "2commitDataRequest(QSessionManager&)")
    ]
    guard.uninstall()
    after = [
        qapp.receivers(sig) for sig in ("2aboutToQuit()", "2commitDataRequest(QSessionManager&)")
    ]
    assert during == [n + 1 for n in before]
    assert after == before


def test_a_loop_stopped_from_outside_is_a_shutdown(qapp: QApplication) -> None:
    loop = AppEventLoop(qapp)
    forever = loop.create_future()

    async def window_running() -> int:
        await forever  # the window's coroutine, never finished: the session ended under it
        return 5

    loop.call_later(0.05, loop.stop)  # what Qt's quit on WM_ENDSESSION does to qasync's loop
    with loop:
        assert run_app_loop(loop, window_running()) == 0
        # The process would end here; the test's loop ends its task instead, so no pending task
        # is collected (and reported) during a later test.
        left = [t for t in asyncio.all_tasks(loop) if not t.done()]
        assert left  # the window's coroutine was indeed cut off, not finished
        for task in left:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
    asyncio.set_event_loop(None)


def test_other_runtime_errors_still_surface(qapp: QApplication) -> None:
    loop = AppEventLoop(qapp)

    async def broken() -> int:
        raise RuntimeError("something else")

    with loop, pytest.raises(RuntimeError, match="something else"):
        run_app_loop(loop, broken())
    asyncio.set_event_loop(None)
