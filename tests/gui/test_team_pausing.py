"""One truth about a paused batch on every workstation (issue 26 item 7): two windows on one
team database; a batch paused while its first task runs, before the lane has finished anything.
The workstation whose operator had the batch picked said "Pausing after the current task"; the
other, looking at the whole lane, planned the running task alone and said "ETA after the first
task finishes" — as if work would go on. Both lanes now say the pause, then what waits."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from media_assistant.core.model.states import ModelKind
from tests.conftest import make_tasks
from tests.gui.team_env import team_window

PATIENCE_S = 30.0  # only how long to wait for the follower's sighting: never a judged time


async def until(predicate: Callable[[], bool], what: Callable[[], str]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PATIENCE_S
    while not predicate():
        assert loop.time() < deadline, what()
        await asyncio.sleep(0.02)


async def test_a_paused_batch_reads_the_same_on_both_workstations(
    tmp_path: Path, qtbot: Any, pg_url: str
) -> None:
    async with (
        team_window(tmp_path / "pc-01", pg_url, qtbot, workstation="pc-01") as a,
        team_window(tmp_path / "pc-02", pg_url, qtbot, workstation="pc-02", web=("web-2",)) as b,
    ):
        store = a.services.store
        store.submit(make_tasks(3, batch="周报"))
        claim = store.claim_next(
            kind=ModelKind.API,
            account_id="api-1",
            models=("api-model",),
            owner_id="pc-01-owner",
            deadline_s=600,
            workstation="pc-01",
        )
        assert claim is not None
        for env in (a, b):
            model = env.window.model
            await until(
                lambda m=model: (
                    (row := m.task(claim.task_id)) is not None and row.state == "running"
                ),
                lambda: "the running task reached both windows",
            )
        # pc-01's operator picks the batch and pauses it; pc-02's window shows the whole lane.
        a.window.table.set_batch("周报")
        await a.window.task_actions._set_paused("batch", "周报", True)
        lanes = {"pc-01": a.window.lanes["api"], "pc-02": b.window.lanes["api"]}

        def said() -> str:
            return repr({name: panel.eta.text() for name, panel in lanes.items()})

        await until(
            lambda: all(p.eta.text() == "Pausing after the current task" for p in lanes.values()),
            said,
        )
        store.finish_success(claim, "答案")  # the running task ends; two wait, paused
        await until(  # "2 task(s)" or "2 tasks": the English catalogue may be installed
            lambda: all(
                p.eta.text().startswith("Paused: 2 task") and p.eta.text().endswith(" wait")
                for p in lanes.values()
            ),
            said,
        )
