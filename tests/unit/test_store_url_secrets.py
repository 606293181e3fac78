"""A team database's password never travels in its URL, nor is shown from one (issue 27 item 9):
in the user part or in the query (libpq reads ``?password=`` too)."""

from __future__ import annotations

import pytest

from media_assistant.core.config.team import checked_store_url, unauthenticated_server
from media_assistant.core.model.errors import RuleBroken
from media_assistant.core.store.backends.postgres import redacted


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://ma:hunter2@db.local/media",
        "postgresql://ma@db.local/media?password=hunter2",
        "postgresql://ma@db.local/media?sslmode=verify-full&PASSWORD=hunter2",
        "postgresql://ma@db.local/media?pass%77ord=hunter2",
    ],
)
def test_a_password_in_the_url_is_refused_without_being_repeated(url: str) -> None:
    with pytest.raises(RuleBroken) as refused:
        checked_store_url(url)
    assert refused.value.code == "store_url_password"
    assert "hunter2" not in str(refused.value)


def test_a_url_without_a_password_is_kept() -> None:
    url = "postgresql://ma@db.local:5432/media?sslmode=verify-full&sslrootcert=/etc/ca.pem"
    assert checked_store_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://ma:hunter2@db.local:5432/media",
        "postgresql://ma@db.local:5432/media?password=hunter2",
        "postgresql://ma:hunter2@db.local:5432/media?Password=hunter2",
    ],
)
def test_redacted_shows_no_password(url: str) -> None:
    shown = redacted(url)
    assert "hunter2" not in shown
    assert shown.startswith("postgresql://ma@db.local:5432/media")


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql://ma@db.local/media", "sslmode=prefer"),
        ("postgresql://ma@db.local/media?sslmode=require", "sslmode=require"),
        ("postgresql://ma@db.local/media?sslmode=verify-ca", "sslmode=verify-ca"),
        ("postgresql://ma@db.local/media?sslmode=verify-full&sslrootcert=/ca.pem", None),
        ("postgresql://ma@127.0.0.1:5432/media", None),  # this PC's own server
        ("postgresql://ma@/media?host=/var/run/postgresql", None),  # a socket
    ],
)
def test_a_connection_that_does_not_authenticate_the_server_is_named(
    url: str, said: str | None
) -> None:
    why = unauthenticated_server(url)
    if said is None:
        assert why is None
    else:
        assert why is not None and said in why and "verify-full" in why
