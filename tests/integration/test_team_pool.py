"""The team database's connection pool (core/store/backends/postgres.py ``ping_idle_connections``):
a connection that sat idle is pinged before use and replaced if it died meanwhile; one used a
moment ago costs no extra round trip (B8: a claim and an answer's write are a transaction each,
and the ping at every checkout was a third of their time on a busy machine)."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import Engine, text

from media_assistant.core.store.backends import postgres
from media_assistant.core.store.db import open_engine, read_tx


@pytest.fixture
def engine(pg_url: str) -> Iterator[Engine]:
    made = open_engine(pg_url)
    yield made
    made.dispose()


@pytest.fixture
def pings(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every ping the pool sends, counted."""
    sent: list[object] = []
    real = engine.dialect.do_ping

    def counted(dbapi_connection: object) -> bool:
        sent.append(dbapi_connection)
        return bool(real(dbapi_connection))

    monkeypatch.setattr(engine.dialect, "do_ping", counted)
    return sent


def backend_pid(engine: Engine) -> int:
    with read_tx(engine) as conn:
        return int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())


def test_a_connection_used_a_moment_ago_is_not_pinged(
    engine: Engine, pings: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres, "IDLE_PING_S", 3600.0)
    first = backend_pid(engine)
    for _ in range(5):
        assert backend_pid(engine) == first  # the same pooled connection, reused
    assert pings == []


def test_an_idle_connection_that_died_is_replaced_before_use(
    engine: Engine, pg_url: str, pings: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server ended the connection while it sat in the pool (a restart, an administrator,
    an idle timeout): the next transaction gets a fresh one instead of an error."""
    dead = backend_pid(engine)
    with psycopg.connect(pg_url, autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", (dead,)).fetchone() == (True,)
    monkeypatch.setattr(postgres, "IDLE_PING_S", 0.0)  # it has been idle long enough
    alive = backend_pid(engine)
    assert alive != dead
    assert len(pings) == 1
