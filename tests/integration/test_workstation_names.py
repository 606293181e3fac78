"""Two workstations with one name (issue 27 item 1): PCs cloned from one image, a config handed
out with ``[team] workstation`` set, one PC with two data folders. The second start is refused
with both hosts named (exit 2) and touches nothing; only stale or ended sessions of the name
are recovered. A real PostgreSQL; real ``media-assistant run`` processes for the exit code."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from media_assistant.core.config.schema import AccountConfig, parse_config
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.sessions import WorkstationNameTaken
from media_assistant.core.store.threads import DbThreads
from tests.conftest import config_dict, make_tasks
from tests.integration.test_cli import write_batch
from tests.integration.test_cli_team import STORE_URL_ENV, workstation

pytestmark = pytest.mark.timeout(300)


def _another_pc_runs(store: Store, url: str, name: str, *, beat_age: float, host: str) -> str:
    """What another PC running under ``name`` leaves in the team database: its session (last
    beaten ``beat_age`` seconds ago) and a task it is running."""
    store.submit(make_tasks(1, model="by-hand"))
    now = store.clock.now()
    session = f"{host}-4242-abcdef"
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(
            "INSERT INTO sessions (session_id, pid, host, started_at, heartbeat_at, workstation)"
            " VALUES (%s, 4242, %s, %s, %s, %s)",
            (session, host, now - 600, now - beat_age, name),
        )
    claim = store.claim_next(
        kind=ModelKind.API,
        account_id="api-1",
        models=["by-hand"],
        owner_id=session,
        deadline_s=600,
        workstation=name,
    )
    assert claim is not None
    store.heartbeat(session, {claim.task_id: (claim.attempt, claim.lease, 0)})
    return claim.task_id


def _scheduler(store: Store, db: DbThreads, name: str) -> Scheduler:
    cfg = parse_config(
        {**config_dict(web_accounts=0, api_accounts=1), "team": {"workstation": name}}, "c.toml"
    )

    def factory(account: AccountConfig) -> Any:
        return _Idle()

    return Scheduler(cfg, AsyncStore(store, db), SystemClock(), factory, seed=1)


async def test_a_name_held_by_a_live_session_elsewhere_is_refused_and_nothing_is_touched(
    pg_url: str,
) -> None:
    store = Store(open_engine(pg_url), SystemClock(), EventBus())
    db = DbThreads()
    try:
        running = _another_pc_runs(store, pg_url, "pc-1", beat_age=1.0, host="clone-of-pc-1")
        scheduler = _scheduler(store, db, "pc-1")
        with pytest.raises(WorkstationNameTaken) as refused:
            await scheduler.start()
        message = str(refused.value)
        assert "'clone-of-pc-1'" in message and repr(socket.gethostname()) in message
        assert refused.value.exit_code == 2
        (row,) = store.get_many([running])
        assert row.state == "running" and row.attempt == 1  # the other PC's work goes on
        with psycopg.connect(pg_url) as c:
            sessions = c.execute("SELECT count(*) FROM sessions").fetchone()
        assert sessions == (1,)  # the refused start left no session behind
        assert not scheduler.providers  # and built nothing
    finally:
        db.close()
        store.engine.dispose()


async def test_a_stale_session_of_the_name_is_recovered_at_start(pg_url: str) -> None:
    store = Store(open_engine(pg_url), SystemClock(), EventBus())
    db = DbThreads()
    scheduler = None
    try:
        orphan = _another_pc_runs(store, pg_url, "pc-1", beat_age=600.0, host="old-pc-1")
        # Its task's own heartbeat is old too: the PC died ten minutes ago.
        with psycopg.connect(pg_url, autocommit=True) as c:
            c.execute("UPDATE tasks SET heartbeat_at = heartbeat_at - 600")
        scheduler = _scheduler(store, db, "pc-1")
        await scheduler.start()
        (row,) = store.get_many([orphan])
        assert row.state == "pending"
    finally:
        if scheduler is not None:
            await scheduler.stop()
        db.close()
        store.engine.dispose()


class _Idle:
    async def generate(self, ctx: Any) -> Any:
        raise AssertionError("nothing is run here")

    async def aclose(self) -> None:
        return None


def test_one_pc_with_two_data_folders_under_one_name_is_refused_with_exit_2(
    tmp_path: Path, pg_url: str
) -> None:
    first = workstation(tmp_path / "a", "pc-1", ("web-1",), latency=3.0)
    second = workstation(tmp_path / "b", "pc-1", ("web-2",), latency=0.2)
    open_engine(pg_url).dispose()
    env = {**os.environ, STORE_URL_ENV: pg_url}
    batch = write_batch(tmp_path / "b.csv", 4, prefix="n")
    run = subprocess.Popen(  # noqa: S603 - our own command
        [sys.executable, "-m", "media_assistant", "--data-dir", str(first), "run", str(batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 90
        with psycopg.connect(pg_url, autocommit=True) as watch:
            live = "SELECT count(*) FROM tasks WHERE state = 'running'"
            while not watch.execute(live).fetchone()[0]:  # type: ignore[index]
                assert time.monotonic() < deadline and run.poll() is None, "nothing ran"
                time.sleep(0.1)
        refused = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
            [sys.executable, "-m", "media_assistant", "--data-dir", str(second), "run"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "workstation name 'pc-1' is in use" in refused.stderr
        assert "Traceback" not in refused.stderr
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, out + err  # the first one was not disturbed
        with psycopg.connect(pg_url) as c:
            rows = c.execute("SELECT state, attempt FROM tasks").fetchall()
        assert rows and all(r == ("success", 1) for r in rows)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
