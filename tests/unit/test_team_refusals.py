"""A team database that answers "no" is not one that cannot be reached: a wrong or missing
password, a database that does not exist, TLS the server does not offer are refusals, said at
once (ConfigError, exit 2) — every failed connection's text begins "connection failed", which
once made all of them "unreachable", waited out for --db-wait and then misnamed (exit 8)."""

from __future__ import annotations

import time

import pytest

from media_assistant.core.model.errors import ConfigError, StoreUnreachable
from media_assistant.core.store.team import open_team_store
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, PostgresServer, free_port


@pytest.mark.parametrize(
    ("user", "database", "query", "password", "words"),
    [
        (PASSWORD_ROLE, "postgres", "", None, "no password supplied"),
        (PASSWORD_ROLE, "postgres", "", "wrong-one", "password authentication failed"),
        ("ma_admin", "no_such_db", "", None, 'database "no_such_db" does not exist'),
        ("ma_admin", "postgres", "?sslmode=require", None, "SSL was required"),
    ],
    ids=["no-password", "wrong-password", "no-database", "no-tls"],
)
def test_a_refusal_is_said_at_once(
    pg_server: PostgresServer,
    user: str,
    database: str,
    query: str,
    password: str | None,
    words: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pg_server.ensure_password_role()
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", "/nonexistent/pgpass")
    url = f"postgresql://{user}@127.0.0.1:{pg_server.port}/{database}{query}"
    started = time.monotonic()
    with pytest.raises(ConfigError) as refused:
        open_team_store(url, password=password, wait_s=20)
    assert time.monotonic() - started < 10
    assert words in str(refused.value) and "refused" in str(refused.value)
    if password:
        assert password not in str(refused.value)
    if "password" in words:
        assert "store set-password" in str(refused.value)


def test_past_the_login_a_refusal_is_still_one_and_a_silent_port_is_unreachable(
    pg_server: PostgresServer,
) -> None:
    pg_server.ensure_password_role()
    url = f"postgresql://{PASSWORD_ROLE}@127.0.0.1:{pg_server.port}/postgres"
    # The role may not create tables in "postgres": a read-only open only looks at it.
    with pytest.raises(ConfigError, match="permission denied"):
        open_team_store(url, password=PASSWORD, wait_s=5)
    with pytest.raises(StoreUnreachable, match="could not be reached"):
        open_team_store(f"postgresql://ma@127.0.0.1:{free_port()}/media", wait_s=0.5)
