"""A workstation's share of the team database's connections (issue 28): one while idle, at most
``[store] connections`` (2) at peak, counted by the server under the workstation's name, and
what ``store info`` says of them; a server with no free connection is waited for, and said as
such — not an outage."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import text

from media_assistant.core.model.clock import ManualClock
from media_assistant.core.store.backends.postgres import app_name
from media_assistant.core.store.backends.postgres_pool import LendingPool, connection_lent
from media_assistant.core.store.db import open_engine, read_tx
from media_assistant.core.store.link import StoreLink
from tests.integration.test_cli import write_batch
from tests.integration.test_cli_team import ma, ok, workstation
from tests.support.postgres import PostgresServer, start_server

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


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout:.0f} s: {what}"
        time.sleep(0.05)


def test_a_workstation_holds_one_connection_idle_and_two_at_peak(pg_url: str) -> None:
    engine = open_engine(pg_url, application_name=app_name("pc-x"))
    try:
        assert held_by(pg_url, "pc-x") == 1  # the schema check's, kept for the next use
        first, second = engine.connect(), engine.connect()
        assert held_by(pg_url, "pc-x") == 2
        assert engine.pool.size() + engine.pool._max_overflow == 2  # type: ignore[attr-defined]
        second.close()
        first.close()
        # The peak's second connection is closed (its server process ends a moment later).
        wait_for(lambda: held_by(pg_url, "pc-x") == 1, "one connection kept")
    finally:
        engine.dispose()
    with_three = open_engine(pg_url, application_name=app_name("pc-y"), connections=3)
    try:
        held = [with_three.connect() for _ in range(3)]
        assert held_by(pg_url, "pc-y") == 3  # [store] connections = 3
        for conn in held:
            conn.close()
        wait_for(lambda: held_by(pg_url, "pc-y") == 1, "one connection kept")
    finally:
        with_three.dispose()


def test_store_info_shows_this_workstations_connections_and_the_servers(
    tmp_path: Path, pg_url: str
) -> None:
    pc_a = workstation(tmp_path / "pc-a", "pc-a", ("web-1",))
    ok(ma(pc_a, "status", team=pg_url))  # the schema is made
    # The server lists an exited client's connections until their processes have ended.
    wait_for(lambda: held_by(pg_url, "pc-a") == 0, "the status command's connections closed")
    engine = open_engine(pg_url, application_name=app_name("pc-a"))  # as pc-a's `run` holds
    try:
        info = json.loads(ok(ma(pc_a, "store", "info", "--json", team=pg_url)))
        with psycopg.connect(pg_url, autocommit=True) as admin:
            limit = admin.execute("SHOW max_connections").fetchone()
        assert limit is not None
        use = info["connections"]
        assert use["this_workstation"] == 1  # the `run`'s, not `store info`'s own
        assert use["pooled"] is False
        assert use["per_workstation_max"] == 2
        assert use["server_max"] == int(limit[0])
        assert 2 <= use["server_in_use"] <= use["server_max"]
        text = ok(ma(pc_a, "store", "info", team=pg_url))
        assert "connections: this workstation 1 (at most 2); server " in text
        assert f" of {use['server_max']} in use" in text
    finally:
        engine.dispose()


# ----------------------------------------------------------------------------- a full server

USER = "ma_member"  # not a superuser: the reserved slots are not for it
SLOTS = 5  # max_connections 8 - superuser_reserved_connections 3


@pytest.fixture(scope="module")
def small_server() -> Iterator[PostgresServer]:
    """A server with 5 connections for ordinary roles, as a default one has 97."""
    server = start_server({"max_connections": "8", "superuser_reserved_connections": "3"})
    if server is None:
        pytest.skip("PostgreSQL is not installed (scripts/setup.sh installs it)")
    with psycopg.connect(server.admin_url(), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {USER} LOGIN")
        admin.execute(f"CREATE DATABASE team OWNER {USER}")
    yield server
    server.destroy()


@pytest.fixture
def full(small_server: PostgresServer) -> Iterator[tuple[str, list[psycopg.Connection[Any]]]]:
    """The team database's URL, and connections taking every slot but none (fill the last)."""
    url = f"postgresql://{USER}@127.0.0.1:{small_server.port}/team"
    held: list[psycopg.Connection[Any]] = []
    yield url, held
    for conn in held:
        conn.close()


def take_every_slot(url: str, held: list[psycopg.Connection[Any]]) -> None:
    while True:
        try:
            held.append(psycopg.connect(url, autocommit=True))
        except psycopg.OperationalError as exc:
            assert "remaining connection slots are reserved" in str(exc)
            return
        assert len(held) <= SLOTS


class Heard(logging.Handler):
    def __init__(self, words: str) -> None:
        super().__init__(logging.WARNING)
        self.words = words
        self.event = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.words in record.getMessage():
            self.event.set()


def test_a_burst_on_a_full_server_waits_for_a_free_connection(
    full: tuple[str, list[psycopg.Connection[Any]]],
) -> None:
    url, held = full
    engine = open_engine(url)
    engine.dispose()  # no connection kept: the next statement needs a slot
    take_every_slot(url, held)
    heard = Heard("team database busy: waiting for a connection")
    logging.getLogger("media_assistant.core.store.backends.postgres").addHandler(heard)
    answers: list[object] = []
    errors: list[BaseException] = []

    def statement() -> None:
        try:
            with read_tx(engine) as conn:
                answers.append(conn.execute(text("SELECT 42")).scalar())
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=statement)
    worker.start()
    try:
        assert heard.event.wait(30)  # it waits, and says so
        held.pop().close()  # someone else's work is done: a slot is free
        worker.join(30)
        assert not worker.is_alive()
        assert errors == [] and answers == [42]
    finally:
        logging.getLogger("media_assistant.core.store.backends.postgres").removeHandler(heard)
        engine.dispose()


def test_a_workstation_that_cannot_join_a_full_server_says_so_and_touches_nothing(
    tmp_path: Path, full: tuple[str, list[psycopg.Connection[Any]]]
) -> None:
    url, held = full
    pc_a = workstation(tmp_path / "pc-a", "pc-a", ("web-1",))
    ok(ma(pc_a, "status", team=url))  # the schema is made
    take_every_slot(url, held)
    batch = write_batch(tmp_path / "b.csv", 3)
    result = ma(pc_a, "--db-wait", "1", "run", str(batch), team=url)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "the team database" in result.stderr and "has no free connection" in result.stderr
    assert "nothing was changed" in result.stderr
    for conn in held:
        conn.close()
    held.clear()
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM tasks").fetchone()
    assert row is not None and row[0] == 0


def test_a_full_server_met_while_running_is_said_as_such() -> None:
    """Not "cannot be reached": the server answered; the scheduler waits it out all the same."""
    link = StoreLink(clock=ManualClock())
    assert link.absorb(psycopg.OperationalError("connection failed: FATAL: too many clients"))
    assert link.down and link.full
    assert link.describe().startswith("the team database has no free connection: waiting")


# ----------------------------------------------------------------------------- lending one


def test_a_loan_takes_the_peak_connection_and_leaves_the_workstation_one(pg_url: str) -> None:
    """An export's process borrows one of the workstation's two connections (issue 28 item 1):
    the loan waits for the peak's second connection to be given back — and closes it, though
    the pool's kept place is free —, then the engine opens one at most until it is returned."""
    engine = open_engine(pg_url, application_name=app_name("pc-l"))
    pool = engine.pool
    assert isinstance(pool, LendingPool)
    try:
        first, second = engine.connect(), engine.connect()  # the peak: two
        assert pool.lend(lambda: True) is False  # Cancel while it waited: nothing lent
        assert pool.lent == 0
        loans: list[bool] = []
        lending = threading.Thread(target=lambda: loans.append(pool.lend()))
        lending.start()
        assert lending.is_alive() and not loans  # two are open: nothing to lend yet
        first.close()  # given back while over the budget: closed, not kept
        lending.join(30)
        assert loans == [True]
        wait_for(lambda: held_by(pg_url, "pc-l") == 1, "the peak's connection closed")
        waiting: list[object] = []
        other = threading.Thread(target=lambda: waiting.append(engine.connect()))
        other.start()  # the engine wants a second connection: it waits for the one open
        assert held_by(pg_url, "pc-l") == 1
        second.close()
        other.join(30)
        assert len(waiting) == 1
        waiting[0].close()  # type: ignore[attr-defined]
        pool.give_back()
        both = engine.connect(), engine.connect()  # the whole budget again
        assert held_by(pg_url, "pc-l") == 2
        for conn in both:
            conn.close()
    finally:
        engine.dispose()


def test_one_connection_has_none_to_lend_and_sqlite_needs_no_loan(
    pg_url: str, tmp_path: Path
) -> None:
    single = open_engine(pg_url, application_name=app_name("pc-s"), connections=1)
    try:
        with connection_lent(single) as lent:
            assert lent is False
    finally:
        single.dispose()
    two = open_engine(pg_url, application_name=app_name("pc-t"))
    try:
        with connection_lent(two) as lent:
            assert lent is True
            with connection_lent(two) as again:
                assert again is False  # lent already
        assert two.pool.lend() is True  # type: ignore[attr-defined]  # given back
        two.pool.give_back()  # type: ignore[attr-defined]
    finally:
        two.dispose()
    sqlite = open_engine(f"sqlite:///{tmp_path / 'tasks.db'}")
    try:
        with connection_lent(sqlite) as lent:
            assert lent is True  # a file: no budget to lend from
    finally:
        sqlite.dispose()
