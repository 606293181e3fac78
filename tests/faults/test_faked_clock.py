"""A real process whose wall clock is stepped mid-run by libfaketime (Debian's ``faketime``,
FAKETIME_DONT_FAKE_MONOTONIC=1 and a timestamp file, as an NTP step or a hand fix does it) keeps
the team database's time (issue 27 item 2): what it writes and compares — heartbeats, the
reaper's cutoff, rate times — does not move with its clock, and it knows to measure again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.postgres import PostgresServer

LIBFAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")

CHILD = """
import json, sys, time
from sqlalchemy import create_engine
from media_assistant.core.model.clock import ServerAlignedClock, SystemClock
from media_assistant.core.store.backends.postgres import clock_offset, server_time

engine = create_engine(sys.argv[1])
clock = ServerAlignedClock(SystemClock(), clock_offset(engine))

def look():
    with engine.connect() as conn:
        server = server_time(conn)
    return {"aligned": clock.now() - server, "wall": time.time() - server,
            "diverged": clock.diverged}

print(json.dumps(look()), flush=True)
sys.stdin.readline()  # the test steps the clock, then says so
print(json.dumps(look()), flush=True)
"""


@pytest.mark.skipif(not LIBFAKETIME.exists(), reason="faketime is not installed (setup.sh)")
def test_a_wall_clock_stepped_by_libfaketime_leaves_the_team_time_as_it_was(
    pg_server: PostgresServer, pg_url: str, tmp_path: Path
) -> None:
    stamp = tmp_path / "faketime"
    stamp.write_text("+0\n")
    env = {
        **os.environ,
        "LD_PRELOAD": str(LIBFAKETIME),
        "FAKETIME_TIMESTAMP_FILE": str(stamp),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
    url = pg_url.replace("postgresql://", "postgresql+psycopg://", 1)
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, url],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdin is not None and child.stdout is not None
        before = json.loads(child.stdout.readline())
        assert abs(before["aligned"]) < 2.0 and not before["diverged"]
        stamp.write_text("+120\n")  # two minutes ahead, mid-run
        child.stdin.write("stepped\n")
        child.stdin.flush()
        after = json.loads(child.stdout.readline())
        assert after["wall"] > 110.0  # libfaketime did step the process's wall clock
        assert abs(after["aligned"]) < 2.0  # the team's time did not move
        assert after["diverged"]  # and the scheduler is told to measure again
        child.stdin.close()
        assert child.wait(timeout=30) == 0
