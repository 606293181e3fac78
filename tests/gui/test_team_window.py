"""Every window sees the team (issue 19 item 4) on a real PostgreSQL: what another workstation
does shows at the database's notification, with where it ran; the accounts panel lists the
other workstations' web accounts read-only, online or not; the status bar counts the
workstations online; pause, resume, cancel, retry and priorities from the window act on the
shared queue."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QCheckBox, QPushButton

from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import follower
from media_assistant.gui.accounts.panel import COL_ACTION, COL_ENABLED, COL_STATE
from media_assistant.gui.tasks.rows import COL_WORKSTATION
from tests.conftest import make_tasks
from tests.gui.team_env import other_workstation, team_window

SOON = 30.0  # patience only: how soon is measured by B8, not judged here


async def seen_within(predicate: Callable[[], bool], timeout: float) -> float:
    t0 = time.monotonic()
    while not predicate():
        assert time.monotonic() - t0 < timeout, f"not seen within {timeout} s"
        await asyncio.sleep(0.01)
    return time.monotonic() - t0


def checkbox_in(widget: Any) -> QCheckBox:
    box = widget.findChild(QCheckBox)
    assert isinstance(box, QCheckBox)
    return box


async def test_another_workstations_work_shows_at_its_notification_with_where_it_ran(
    tmp_path: Path, qtbot: Any, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The follower's own tick is pushed out of the test (600 s): what shows came by the
    team database's NOTIFY. How soon is B8's figure (a follower's sighting, p95)."""
    monkeypatch.setattr(follower, "TEAM_FOLLOW_EVERY_S", 600.0)
    with other_workstation(tmp_path / "pc-03", pg_url) as (other, _sessions, _session):
        async with team_window(tmp_path / "pc-01", pg_url, qtbot) as env:
            window, model = env.window, env.window.model
            assert not window.table.view.isColumnHidden(COL_WORKSTATION)
            listener = env.controller.follower._listener
            assert listener is not None
            assert await asyncio.to_thread(listener.connected.wait, 10)
            for i in range(3):
                other.store.submit(make_tasks(2, prefix=f"b{i}"))  # committed on return
                await seen_within(lambda i=i: model.task(f"b{i}-001") is not None, SOON)
            claim = other.store.claim_next(
                kind=ModelKind.API,
                account_id="api-1",
                models=("api-model",),
                owner_id="pc-03-owner",
                deadline_s=600,
                workstation="pc-03",
            )
            assert claim is not None
            await seen_within(
                lambda: (
                    (row := model.task(claim.task_id)) is not None and row.workstation == "pc-03"
                ),
                SOON,
            )
            assert listener.connected.is_set()  # no reconnect fell back to a faster tick
            index = model.index(model.row_for(claim.task_id) or 0, COL_WORKSTATION)
            assert model.data(index) == "pc-03"


async def test_the_accounts_panel_lists_other_workstations_web_accounts_read_only(
    tmp_path: Path, qtbot: Any, pg_url: str
) -> None:
    """pc-03 holds web-3 and web-4; pc-01's config declares web-1 and (by mistake) web-3."""
    with other_workstation(tmp_path / "pc-03", pg_url, web=("web-3", "web-4")) as (
        _other,
        sessions,
        session,
    ):
        async with team_window(tmp_path / "pc-01", pg_url, qtbot, web=("web-1", "web-3")) as env:
            panel = env.window.accounts
            team = env.controller.team
            await team.look()
            assert [w.workstation for w in team.workstations] == ["pc-01", "pc-03"]
            panel.refresh()
            others = panel.team
            assert others.isVisible()
            assert others.shown == ["web-4"]  # web-3 is in our own config: the main table
            where = others.table.item(0, 1).text()  # type: ignore[union-attr]
            assert where.startswith("on pc-03 · online"), where
            for column in (0, 1):  # nothing to press: another PC's browser
                assert others.table.cellWidget(0, column) is None
            # Our own web-1: its toggle and Log in (a "fake" site: no browser) as ever.
            rows = {panel.table.item(r, 0).data(256): r for r in range(panel.table.rowCount())}  # type: ignore[union-attr]
            mine = rows["web-1"]
            assert checkbox_in(panel.table.cellWidget(mine, COL_ENABLED)).isEnabled()
            # web-3, declared here but held by pc-03: said, and locked.
            held = rows["web-3"]
            state = panel.table.item(held, COL_STATE).text()  # type: ignore[union-attr]
            assert state.startswith("on pc-03 · online") and "not run on this" in state, state
            assert not checkbox_in(panel.table.cellWidget(held, COL_ENABLED)).isEnabled()
            login = panel.table.cellWidget(held, COL_ACTION)
            assert isinstance(login, QPushButton) and not login.isEnabled()
            assert env.services.accounts.get("web-3").workstation == "pc-03"  # type: ignore[union-attr]
            # The status bar: pc-01's window runs no scheduler here, pc-03 beats.
            status = env.window.team_view.status
            assert status.isVisible() and status.text().startswith("Team: 1 workstation")
            assert "pc-03: online" in status.toolTip() and "web-4" in status.toolTip()
            # pc-03 goes away: offline, with when it was last seen.
            sessions.close(session)
            await team.look()
            others.refresh()
            where = others.table.item(0, 1).text()  # type: ignore[union-attr]
            assert where.startswith("on pc-03 · offline, last seen"), where
            assert status.text().startswith("Team: 0 workstation")


async def test_the_status_bar_counts_the_workstations_online_every_ten_seconds(
    tmp_path: Path, qtbot: Any, pg_url: str
) -> None:
    """With its scheduler running, this workstation is one of them; the look runs on its own
    (a timer), on a database reader."""
    with other_workstation(tmp_path / "pc-03", pg_url):
        async with team_window(tmp_path / "pc-01", pg_url, qtbot, start_scheduler=True) as env:
            status = env.window.team_view.status
            await seen_within(lambda: status.text().startswith("Team: 2 workstation"), SOON)
            assert "pc-01 (this one): online" in status.toolTip()
            assert env.controller.team._timer.interval() == 10_000


async def test_the_windows_actions_act_on_the_shared_queue(
    tmp_path: Path, qtbot: Any, pg_url: str
) -> None:
    """Pause, resume, cancel, retry and priorities from pc-01's window, seen by pc-03's store
    (what pc-03's scheduler claims from)."""
    with other_workstation(tmp_path / "pc-03", pg_url) as (other, _sessions, _session):
        store = other.store

        def claim_on_pc03() -> Any:
            return store.claim_next(
                kind=ModelKind.API,
                account_id="api-1",
                models=("api-model",),
                owner_id="pc-03-owner",
                deadline_s=600,
                workstation="pc-03",
            )

        async with team_window(tmp_path / "pc-01", pg_url, qtbot) as env:
            actions, controller = env.window.task_actions, env.controller
            store.submit(make_tasks(5, batch="shared"))
            await seen_within(lambda: env.window.model.task("api-004") is not None, SOON)
            await actions._set_paused("all", "", True)
            assert [p.scope for p in store.pauses()] == ["all"]
            assert claim_on_pc03() is None  # pc-03 claims nothing while the team is paused
            await actions._set_paused("all", "", False)
            assert store.pauses() == []
            await actions._prioritize(["api-003"], None, None, "top")
            first = claim_on_pc03()
            assert first is not None and first.task_id == "api-003"
            await controller.cancel(["api-004", "api-003"])
            assert store.get("api-004").state == "canceled"  # type: ignore[union-attr]
            assert store.get("api-003").cancel_requested  # type: ignore[union-attr]
            second = claim_on_pc03()
            assert second is not None
            store.finish_failed(second, ErrorKind.SERVER_ERROR, "boom")
            assert await controller.retry([second.task_id]) == [second.task_id]
            assert store.get(second.task_id).state == "pending"  # type: ignore[union-attr]
