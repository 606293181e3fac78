"""``run`` on a team database that stops answering mid-run and does not come back within
``--db-wait`` (issue 19 item 5, the headless side): one line saying why and exit 8 — before, a
script waiting on ``run`` waited all night, and stderr got a three-line "could not read the
pauses" every 2 s meanwhile. When the database is back, ``run`` finishes the rest: nothing lost,
nothing answered twice. A real PostgreSQL server, stopped and started."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from media_assistant.core.store.db import open_engine
from tests.integration.test_cli import write_batch
from tests.integration.test_cli_team import STORE_URL_ENV, ma, workstation
from tests.support.postgres import PostgresServer


def test_run_ends_with_exit_8_when_the_team_database_stays_away(
    tmp_path: Path, pg_server: PostgresServer, pg_url: str
) -> None:
    pc = workstation(tmp_path / "pc-a", "pc-a", ("web-1",), latency=3.0)
    batch = write_batch(tmp_path / "b.csv", 5, prefix="o")
    open_engine(pg_url).dispose()  # the schema, before anyone looks at it
    run = subprocess.Popen(  # noqa: S603 - our own command
        [
            *(sys.executable, "-m", "media_assistant", "--data-dir", str(pc)),
            *("--db-wait", "4", "run", str(batch)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, STORE_URL_ENV: pg_url},
    )
    try:
        deadline = time.monotonic() + 90
        with psycopg.connect(pg_url, autocommit=True) as watch:
            done = "SELECT count(*) FROM tasks WHERE state = 'success'"
            while not watch.execute(done).fetchone()[0]:  # type: ignore[index]
                assert time.monotonic() < deadline and run.poll() is None, "no task finished"
                time.sleep(0.1)
        pg_server.stop("fast")
        stopped = time.monotonic()
        out, err = run.communicate(timeout=90)
        took = time.monotonic() - stopped
    finally:
        if run.poll() is None:
            run.kill()
        if not pg_server.running:
            pg_server.start()
            pg_server.wait_ready()
    assert run.returncode == 8, out + err
    assert "waiting up to 4 s for the team database (--db-wait)" in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "could not be reached for 4 s (--db-wait)" in errors[0]
    assert "Traceback" not in err and "could not read the pauses" not in err
    assert took < 60

    again = ma(pc, "run", team=pg_url)
    assert again.returncode == 0, again.stdout + again.stderr
    with psycopg.connect(pg_url) as conn:
        states = dict(conn.execute("SELECT task_id, state FROM tasks").fetchall())
        answered = conn.execute(
            "SELECT task_id, count(*) FROM task_events WHERE code = 'succeeded' GROUP BY task_id"
        ).fetchall()
    assert states == {f"o{i}": "success" for i in range(5)}
    assert sorted(answered) == [(f"o{i}", 1) for i in range(5)]
