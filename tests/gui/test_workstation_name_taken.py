"""The window says that this workstation's name is another PC's (issue 27 item 1): a live session
under the same name on another host refuses the scheduler's start; the window says so with both
hosts, opens the set-up window (whose Team database page sets the name) and runs nothing — no
traceback, no error dialog."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import psycopg
import pytest
from PySide6.QtWidgets import QMessageBox

from media_assistant.app import say_workstation_name_taken
from media_assistant.core.store.sessions import WorkstationNameTaken
from media_assistant.gui.accounts.team_page import TeamPage
from tests.gui.app_env import running_app
from tests.gui.team_env import team_config


async def test_a_name_in_use_elsewhere_is_said_in_the_window(
    tmp_path: Path, pg_url: str, qtbot: Any
) -> None:
    data = team_config(tmp_path / "pc-1", pg_url, "pc-1", ["web-1"])
    async with running_app(data, qtbot, start_scheduler=False) as env:
        now = env.services.store.clock.now()
        with psycopg.connect(pg_url, autocommit=True) as c:  # pc-1 runs on a cloned PC
            c.execute(
                "INSERT INTO sessions (session_id, pid, host, started_at, heartbeat_at, "
                "workstation) VALUES ('clone-1', 4242, 'clone-of-pc-1', %s, %s, 'pc-1')",
                (now - 60, now),
            )
        with pytest.raises(WorkstationNameTaken) as refused:
            await env.scheduler.start()
        box = say_workstation_name_taken(env.window, refused.value)
        try:
            assert isinstance(box, QMessageBox) and box.isVisible()
            text = box.text()
            assert "pc-1" in text and "clone-of-pc-1" in text and socket.gethostname() in text
            assert "Traceback" not in text
            assert env.window.setup_dialog is not None and env.window.setup_dialog.isVisible()
            assert not env.scheduler.started
        finally:
            box.close()
            # The set-up window's Team page looks its password up in the background: let that
            # end before the window goes (closing it under that look-up is issue 26's matter).
            page = env.window.setup_dialog.findChild(TeamPage)
            assert page is not None  # the page where the name is set is there
            await asyncio.wait_for(page.looked.wait(), 10)
            env.window.setup_dialog.close()
