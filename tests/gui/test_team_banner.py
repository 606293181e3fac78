"""The team database stops answering under an open window (issue 19 item 5), on a real
PostgreSQL stopped and started again: the banner says so and counts, the window keeps its
turns, what the operator does meanwhile fails with a line in the status bar (never a
traceback), and the banner goes when the database answers again."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

from media_assistant.core.model.events import EventBus, StoreLinkChanged
from media_assistant.core.store import db
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.window.store_banner import StoreBanner
from tests.conftest import make_tasks
from tests.gui.team_env import team_window
from tests.gui.test_i18n import use_language  # noqa: F401 - a fixture
from tests.support.postgres import PostgresServer


async def seen_within(predicate: Callable[[], bool], timeout: float) -> float:
    t0 = time.monotonic()
    while not predicate():
        assert time.monotonic() - t0 < timeout, f"not seen within {timeout} s"
        await asyncio.sleep(0.02)
    return time.monotonic() - t0


class _Paints(QObject):
    """Which of the watched widgets Qt has painted since it was asked to."""

    def __init__(self, widgets: tuple[QWidget, ...]) -> None:
        super().__init__()
        self.waiting = set(widgets)
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint:
            self.waiting.discard(watched)  # type: ignore[arg-type]
        return False


async def painted(*widgets: QWidget) -> None:
    """Until Qt has painted each of ``widgets`` again: the layout passes a resize or a shown
    widget asked for are done by then (a paint draws the geometry the layout gave)."""
    paints = _Paints(widgets)
    try:
        for widget in widgets:
            widget.update()
        await seen_within(lambda: not paints.waiting, 10.0)
    finally:
        for widget in widgets:
            widget.removeEventFilter(paints)


async def test_the_banner_shows_while_the_team_database_is_away_and_goes_when_it_answers(
    tmp_path: Path,
    qtbot: Any,
    pg_server: PostgresServer,
    pg_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    db.loop_sql_sites.clear()
    async with team_window(tmp_path / "pc-01", pg_url, qtbot, start_scheduler=True) as env:
        window = env.window
        banner = window.team_view.banner
        await env.scheduler.submit(make_tasks(3, model="nobody-serves-this"))
        await seen_within(lambda: window.model.task("api-002") is not None, 5)
        assert banner.isHidden()
        ticks: list[float] = []
        timer = QTimer()
        timer.setInterval(20)
        timer.timeout.connect(lambda: ticks.append(time.monotonic()))
        timer.start()
        await asyncio.to_thread(pg_server.stop, "fast")
        try:
            noticed = await seen_within(banner.isVisible, 20)
            first = banner.text.text()
            assert "Team database unreachable" in first and "reconnecting" in first, first
            await asyncio.sleep(2.1)
            assert banner.down_for() >= 2.0
            assert banner.text.text() != first  # the count goes on
            # What the operator does meanwhile: nothing is changed, and the status bar says so.
            bar = window.statusBar()
            for name, action in (
                ("cancel", env.controller.cancel(["api-000"])),
                ("pause", env.controller.pause("all")),
                ("open", window.show_details("api-001")),
                ("submit", env.controller.submit(make_tasks(1, prefix="late"))),
            ):
                bar.clearMessage()
                spawn(action, name)
                await seen_within(lambda: "cannot be reached" in bar.currentMessage(), 30)
            # An export meanwhile: it fails with one line in its box, and writes nothing.
            target = tmp_path / "out.xlsx"
            assert await window.task_actions.export_to(target, None) is None
            said = window.task_actions.result_box.text()  # type: ignore[union-attr]
            assert said.startswith("The team database cannot be reached"), said
            assert not target.exists()
            assert window.isVisible()
        finally:
            await asyncio.to_thread(pg_server.start)
        back = await seen_within(lambda: not banner.isVisible(), 30)
        timer.stop()
        gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
        # Never frozen: no statement ran on the loop's thread (a connection attempt there would
        # wait for the network), and the window kept its turns the whole time (a bound loose
        # enough for a loaded CI machine; a hang would be seconds).
        assert db.loop_sql_sites == [], db.loop_sql_sites
        assert max(gaps) < 1.0, max(gaps)
        # Back: nothing the operator did meanwhile was half done.
        assert env.services.store.get("api-000").state == "pending"  # type: ignore[union-attr]
        assert env.services.store.pauses() == []
        assert env.services.store.get("late-000") is None
    tracebacks = [r for r in caplog.records if r.exc_info and r.name.startswith("media_assistant")]
    assert not tracebacks, [(r.name, r.getMessage()) for r in tracebacks]
    print(f"banner after {noticed:.1f} s; hidden {back:.1f} s after the restart")


def test_the_banner_counts_and_says_how_many_answers_are_held(
    qtbot: Any,
    use_language: Callable[[str], None],  # noqa: F811 - the fixture imported above
) -> None:
    bus = EventBus()
    now = [1000.0]
    banner = StoreBanner(bus, lambda: now[0])
    qtbot.addWidget(banner)
    banner.show_state(StoreLinkChanged(False, 988.0, 0, "away"))
    assert not banner.isHidden()
    assert "reconnecting, 12s" in banner.text.text()
    assert "kept" not in banner.text.text()
    banner.show_state(StoreLinkChanged(False, 988.0, 2, "away"))
    assert "2 answers received are kept" in banner.text.text() or "2 answer(s)" in (
        banner.text.text()
    )
    use_language("zh_CN")
    banner._say()
    assert re.search("[\u4e00-\u9fff]", banner.text.text())
    banner.show_state(StoreLinkChanged(True, None, 0, "back"))
    assert banner.isHidden()


async def test_the_banner_moves_nothing_and_the_team_is_unknown_meanwhile(
    tmp_path: Path, qtbot: Any, pg_url: str
) -> None:
    """Issue 26 item 7: the banner pushed the layout 42 px down under the pointer, and the
    status bar kept saying "2 workstations online" while the database could not be asked."""
    async with team_window(tmp_path / "pc-01", pg_url, qtbot) as env:
        window = env.window
        window.resize(1366, 728)
        await env.controller.team.look()
        status = window.team_view.status
        assert status.text().startswith("Team: ")
        lanes = window.lanes["web"]
        await painted(lanes, window.table)
        before = (lanes.mapTo(window, lanes.rect().topLeft()), window.table.geometry())
        banner = window.team_view.banner
        down = StoreLinkChanged(False, env.controller.now() - 5, 0, "away")
        banner.show_state(down)
        await painted(banner, lanes, window.table)
        assert banner.isVisible() and banner.height() > 0
        after = (lanes.mapTo(window, lanes.rect().topLeft()), window.table.geometry())
        assert after == before  # nothing moved
        assert banner.geometry().top() < lanes.geometry().bottom()  # over the top, not above
        assert status.text() == "Team: unknown while the database is unreachable"
        banner.show_state(StoreLinkChanged(True, None, 0, ""))
        assert not banner.isVisible()
        assert "online" in status.text()
