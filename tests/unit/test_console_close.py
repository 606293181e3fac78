"""What a console ``run`` does when Windows closes its window or ends the session (issue 29
item 1): the decision, driven here with threads as Windows drives it (the handler runs on a
thread of its own and the process ends when it returns)."""

from __future__ import annotations

import threading

from media_assistant.commands import console_close
from media_assistant.commands.console_close import ConsoleEvents


def events(stop_finishes: bool) -> tuple[ConsoleEvents, list[str], threading.Event]:
    calls: list[str] = []
    stopped = threading.Event()

    def request_stop() -> None:
        calls.append("stop")
        if stop_finishes:  # the loop's graceful stop, finishing on the loop's thread
            threading.Timer(0.01, stopped.set).start()

    handler = ConsoleEvents(request_stop, stopped, lambda: calls.append("release"), wait_s=5.0)
    return handler, calls, stopped


def test_a_closed_console_waits_for_the_graceful_stop() -> None:
    handler, calls, stopped = events(stop_finishes=True)
    assert handler.handle(console_close.CTRL_CLOSE_EVENT) is True
    assert stopped.is_set()  # returned only once the stop had finished
    assert calls == ["stop"]


def test_a_stop_that_does_not_finish_in_time_returns_the_rows_itself() -> None:
    handler, calls, _stopped = events(stop_finishes=False)
    handler.wait_s = 0.05
    for event in (console_close.CTRL_LOGOFF_EVENT, console_close.CTRL_SHUTDOWN_EVENT):
        assert handler.handle(event) is True
    assert calls == ["stop", "release", "stop", "release"]


def test_ctrl_c_is_graceful_once_then_pythons_own() -> None:
    handler, calls, _stopped = events(stop_finishes=False)
    assert handler.handle(console_close.CTRL_C_EVENT) is True
    assert handler.handle(console_close.CTRL_BREAK_EVENT) is False  # KeyboardInterrupt, at once
    assert calls == ["stop"]


def test_unknown_events_are_left_to_the_next_handler() -> None:
    handler, calls, _stopped = events(stop_finishes=True)
    assert handler.handle(99) is False
    assert calls == []


def test_elsewhere_nothing_is_registered() -> None:
    handler, _calls, _stopped = events(stop_finishes=True)
    undo = console_close.install(handler)
    undo()  # a no-op off Windows; the registration itself is type-checked for win32
