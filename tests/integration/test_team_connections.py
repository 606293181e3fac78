"""A workstation's share of the team database's connections (issue 28): one while idle, at most
``[store] connections`` (2) at peak, counted by the server under the workstation's name, and
what ``store info`` says of them."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from media_assistant.core.store.backends.postgres import app_name
from media_assistant.core.store.db import open_engine
from tests.integration.test_cli_team import ma, ok, workstation

pytestmark = pytest.mark.timeout(300)


def held_by(url: str, workstation: str) -> int:
    """The connections the server counts for ``workstation``."""
    with psycopg.connect(url, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
            (app_name(workstation),),
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_workstation_holds_one_connection_idle_and_two_at_peak(pg_url: str) -> None:
    engine = open_engine(pg_url, application_name=app_name("pc-x"))
    try:
        assert held_by(pg_url, "pc-x") == 1  # the schema check's, kept for the next use
        first, second = engine.connect(), engine.connect()
        assert held_by(pg_url, "pc-x") == 2
        assert engine.pool.size() + engine.pool._max_overflow == 2  # type: ignore[attr-defined]
        second.close()
        first.close()
        assert held_by(pg_url, "pc-x") == 1  # the peak's second connection is closed
    finally:
        engine.dispose()
    with_three = open_engine(pg_url, application_name=app_name("pc-y"), connections=3)
    try:
        held = [with_three.connect() for _ in range(3)]
        assert held_by(pg_url, "pc-y") == 3  # [store] connections = 3
        for conn in held:
            conn.close()
        assert held_by(pg_url, "pc-y") == 1
    finally:
        with_three.dispose()


def test_store_info_shows_this_workstations_connections_and_the_servers(
    tmp_path: Path, pg_url: str
) -> None:
    pc_a = workstation(tmp_path / "pc-a", "pc-a", ("web-1",))
    ok(ma(pc_a, "status", team=pg_url))  # the schema is made
    engine = open_engine(pg_url, application_name=app_name("pc-a"))  # as pc-a's `run` holds
    try:
        info = json.loads(ok(ma(pc_a, "store", "info", "--json", team=pg_url)))
        with psycopg.connect(pg_url, autocommit=True) as admin:
            limit = admin.execute("SHOW max_connections").fetchone()
        assert limit is not None
        use = info["connections"]
        assert use["this_workstation"] == 1  # the `run`'s, not `store info`'s own
        assert use["per_workstation_max"] == 2
        assert use["server_max"] == int(limit[0])
        assert 2 <= use["server_in_use"] <= use["server_max"]
        text = ok(ma(pc_a, "store", "info", team=pg_url))
        assert f"connections: this workstation 1 (at most 2); server " in text
        assert f" of {use['server_max']} in use" in text
    finally:
        engine.dispose()
