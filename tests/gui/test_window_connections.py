"""The window's connection budget on a real PostgreSQL (issue 28 item 1): one connection while
idle — its LISTEN is that connection, not one more — and at most ``[store] connections`` (2)
while an export runs: the export's process borrows one of the window's. Counted by the server
(``pg_stat_activity``), the window composed as the app composes it, its scheduler running."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest

from media_assistant.core.model.jobs import JobControl
from media_assistant.core.store import follower
from media_assistant.core.store.backends.postgres import app_name
from tests.conftest import make_tasks
from tests.gui.team_env import other_workstation, team_window
from tests.gui.test_team_window import SOON, seen_within

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "SIGSTOP"), reason="the export's process is held with SIGSTOP"
)

OURS = "media-assistant%"  # every connection the app opens, whatever its workstation


def connections(url: str, name: str = OURS) -> int:
    """The client connections the server lists for this database under ``name`` (LIKE)."""
    with psycopg.connect(url, autocommit=True, application_name="test-count") as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name LIKE %s",
            (name,),
        ).fetchone()
    assert row is not None
    return int(row[0])


async def settled(url: str, name: str, at_most: int) -> int:
    """The count once it is at most ``at_most`` (a connection given back a moment ago may still
    be listed while its server process ends), or as it stays."""
    held = await asyncio.to_thread(connections, url, name)
    for _ in range(200):
        if held <= at_most:
            break
        await asyncio.sleep(0.05)
        held = await asyncio.to_thread(connections, url, name)
    return held


def export_processes() -> list[psutil.Process]:
    """The export's child processes (multiprocessing's spawn) running now."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "spawn_main" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:  # ended meanwhile
            continue
    return found


def export_process() -> psutil.Process:
    found = export_processes()
    assert len(found) == 1, found
    return found[0]


async def test_an_idle_window_holds_one_connection_and_still_wakes_at_a_teammates_commit(
    tmp_path: Path, qtbot: Any, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The follower's own tick is pushed out (600 s): what shows came by NOTIFY, heard on the
    window's one connection."""
    monkeypatch.setattr(follower, "TEAM_FOLLOW_EVERY_S", 600.0)
    me = app_name("pc-01")
    with other_workstation(tmp_path / "pc-03", pg_url) as (other, _sessions, _session):
        async with team_window(tmp_path / "pc-01", pg_url, qtbot, start_scheduler=True) as env:
            listener = env.controller.follower._listener
            assert listener is not None
            assert await asyncio.to_thread(listener.connected.wait, 10)
            assert await settled(pg_url, me, at_most=1) == 1
            for i in range(3):
                other.store.submit(make_tasks(2, prefix=f"n{i}"))
                await seen_within(lambda i=i: env.window.model.task(f"n{i}-001") is not None, SOON)
                assert listener.connected.is_set()  # heard, not polled after a loss
            assert await settled(pg_url, me, at_most=1) == 1


def wait_for_the_gate(url: str) -> None:
    """Until a connection of the app's waits for the gate's lock on ``meta`` (the export's
    process checks the schema there first: it holds its connection from then on)."""
    for _ in range(3000):  # patience: a process spawned on a loaded machine
        with psycopg.connect(url, autocommit=True, application_name="test-count") as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND application_name LIKE %s AND wait_event_type = 'Lock'",
                (OURS,),
            ).fetchone()
        if row is not None and row[0]:
            return
        threading.Event().wait(0.02)
    raise AssertionError("the export's process never reached the team database")


def the_window_wants_two(url: str, engine: Any) -> dict[str, Any]:
    """The window takes a connection and wants another meanwhile: what the server counts."""
    seen: dict[str, Any] = {}
    with engine.connect():
        second = threading.Thread(target=lambda: engine.connect().close())
        second.start()
        seen["during"] = connections(url)
        seen["named"] = connections(url, app_name("pc-01"))
    second.join(30)
    seen["second_done"] = not second.is_alive()
    return seen


async def test_an_export_borrows_one_of_the_windows_two_connections(
    tmp_path: Path, qtbot: Any, pg_url: str
) -> None:
    """The export's process is held once it has its connection (its schema check waits behind
    a lock the test holds; then SIGSTOP, and the lock goes). The window, asked for two
    connections at once meanwhile, gets one: the workstation holds two in all, both under its
    name (``store info`` counts the export's). After the export, one again."""
    me = app_name("pc-01")
    async with team_window(tmp_path / "pc-01", pg_url, qtbot, start_scheduler=True) as env:
        await asyncio.to_thread(env.services.store.submit, make_tasks(3))
        work = env.controller.export_work(tmp_path / "out.csv", "csv")
        gate = psycopg.connect(pg_url, application_name="test-gate")
        try:
            gate.execute("LOCK TABLE meta IN ACCESS EXCLUSIVE MODE")  # held till the commit
            export = asyncio.ensure_future(
                asyncio.to_thread(work, JobControl(lambda done, total: None))
            )
            await asyncio.to_thread(wait_for_the_gate, pg_url)
            child = export_process()
            os.kill(child.pid, signal.SIGSTOP)
        finally:
            gate.commit()
            gate.close()
        try:
            seen = await asyncio.to_thread(the_window_wants_two, pg_url, env.services.engine)
        finally:
            os.kill(child.pid, signal.SIGCONT)
        assert await export == 3
        assert seen["during"] <= 2, seen
        assert seen["named"] == seen["during"], seen  # the export's connection is the team's
        assert seen["second_done"]  # it got the window's connection when that was given back
        assert await settled(pg_url, me, at_most=1) == 1


async def test_with_one_connection_the_export_runs_in_the_window_on_it(
    tmp_path: Path, qtbot: Any, pg_url: str
) -> None:
    """``[store] connections = 1``: no connection to lend, so no export process: the export
    reads through the window's one connection, page by page."""
    me = app_name("pc-01")
    seen: list[tuple[int, int]] = []
    async with team_window(
        tmp_path / "pc-01", pg_url, qtbot, start_scheduler=True, connections=1
    ) as env:
        await asyncio.to_thread(env.services.store.submit, make_tasks(3))

        def at_progress(done: int, total: int) -> None:
            seen.append((len(export_processes()), connections(pg_url)))

        work = env.controller.export_work(tmp_path / "out.csv", "csv")
        assert await asyncio.to_thread(work, JobControl(at_progress)) == 3
        assert seen
        assert all(children == 0 for children, _ in seen), seen
        assert all(held <= 1 for _, held in seen), seen
        assert await settled(pg_url, me, at_most=1) == 1
