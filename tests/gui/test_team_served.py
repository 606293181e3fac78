"""One truth per account across workstations (issue 26 item 5), on a real PostgreSQL: a model
another workstation's web account serves is "served on pc-03" in this window — its lane panel
and its batches list — never "no account can take it", while that workstation is online.

The afternoon's case: workstation B (here pc-01) has its own web account for the model, signed
out (here: switched off); workstation A (pc-03) runs the batch on its web account."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from media_assistant.core.model.states import ModelKind
from tests.conftest import make_tasks
from tests.gui.team_env import other_workstation, team_window


async def test_a_model_another_workstation_serves_is_served_there(
    tmp_path: Path, qtbot: Any, pg_url: str
) -> None:
    with other_workstation(tmp_path / "pc-03", pg_url, web=("web-3",)) as (other, sessions, s):
        async with team_window(tmp_path / "pc-01", pg_url, qtbot, web=("web-1",)) as env:
            window, controller = env.window, env.controller
            await controller.set_account_enabled("web-1", False)  # ours cannot take it
            await controller.submit(make_tasks(3, model="web-model", kind=ModelKind.WEB))
            claim = other.store.claim_next(
                kind=ModelKind.WEB,
                account_id="web-3",
                models=("web-model",),
                owner_id=s,
                deadline_s=600,
                workstation="pc-03",
            )
            assert claim is not None
            panel = window.lanes["web"]

            def said() -> str:
                window.refresh()
                return panel.warning.text()

            await controller.team.look()
            for _ in range(200):  # the follower brings the claim; the next plan counts web-3
                if "served on pc-03" in said() and window.model.task(claim.task_id):
                    break
                await asyncio.sleep(0.05)
            assert "web-model: served on pc-03" in said(), said()
            assert "no available account" not in said()
            assert "no account can take" not in panel.eta.text(), panel.eta.text()
            batches = window.batch_list.model
            statuses = [batches.status_text(batches.line(r)) for r in range(batches.rowCount())]
            assert "No account can take it now" not in statuses, statuses

            sessions.close(s)  # pc-03 goes away: its account cannot take it now, and that is said
            await controller.team.look()
            window.queue._eta_at = 0.0  # the next refresh plans again (as the ETA tick would)
            for _ in range(100):
                if "cannot take it now" in said():
                    break
                await asyncio.sleep(0.05)
            assert "web-model: served on pc-03, which cannot take it now" in said(), said()
