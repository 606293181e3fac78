"""Team mode's two settings, resolved.

Where the task store is: ``--store-url``, else ``$MEDIA_ASSISTANT_STORE_URL``, else ``[store]
url`` in ``config.toml``; none of them: the SQLite file in the data dir, as always. A team
database's URL never holds a password (PGPASSWORD, ~/.pgpass, a service file or the OS keyring
do): one pasted by mistake is refused without being repeated.

This workstation's name: ``[team] workstation``, else the host name."""

from __future__ import annotations

import os
import socket
import urllib.parse

from media_assistant.core.model.errors import ConfigError, RuleBroken

STORE_URL_ENV = "MEDIA_ASSISTANT_STORE_URL"


def checked_store_url(url: str) -> str:
    """A team database's URL as the config may hold it, or RuleBroken (the password, if one was
    pasted, is never repeated)."""
    url = url.strip()
    scheme = url.split(":", 1)[0].split("+", 1)[0].lower()
    if scheme not in ("postgresql", "postgres"):
        raise RuleBroken(
            "store_url_scheme",
            "the team database's url must start with postgresql:// "
            "(for example postgresql://ma@db.local:5432/media)",
        )
    rest = url.split("://", 1)[1] if "://" in url else ""
    userinfo = rest.split("@", 1)[0] if "@" in rest.split("/", 1)[0] else ""
    if ":" in userinfo or _password_in_query(rest):
        raise RuleBroken(
            "store_url_password",
            "the team database's url holds a password: remove it (it is not shown here) and "
            "keep it in PGPASSWORD, ~/.pgpass or the OS keyring ('media-assistant store "
            "set-password')",
        )
    return url


def _password_in_query(rest: str) -> bool:
    """libpq reads ``?password=…`` (any case, percent-encoded or not) as the password too."""
    query = rest.split("?", 1)[1] if "?" in rest else ""
    return any(
        key.strip().lower() == "password"
        for key, _ in urllib.parse.parse_qsl(query, keep_blank_values=True)
    )


LOCAL_HOSTS = frozenset({"", "localhost", "127.0.0.1", "::1"})


def unauthenticated_server(url: str) -> str | None:
    """Why a connection to this team database would not prove the server is ours (issue 27
    item 9), or None: ``sslmode=verify-full`` checks its certificate and name; anything less
    lets a machine on the network pose as the server and collect the password and the queue.
    A server on this very PC (a socket, localhost) needs no proof."""
    rest = url.split("://", 1)[1] if "://" in url else ""
    netloc = rest.split("/", 1)[0].split("?", 1)[0]
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0].strip("[]").lower()
    query = dict(urllib.parse.parse_qsl(rest.split("?", 1)[1] if "?" in rest else ""))
    params = {k.lower(): v for k, v in query.items()}
    host = params.get("host", host).lower()
    if host in LOCAL_HOSTS or host.startswith("/"):
        return None
    mode = params.get("sslmode", "prefer")
    if mode == "verify-full":
        return None
    return (
        f"the team database's connection (sslmode={mode}) does not check that the server is "
        "yours: anyone on the network could pose as it. Use sslmode=verify-full with the "
        "server's CA certificate (sslrootcert), as the README's team mode section says"
    )


def store_url(
    flag: str | None, config_url: str | None, config_file: str = "config.toml"
) -> str | None:
    """The team database to use, or None for the SQLite file in the data dir."""
    for value, where in (
        (flag, "--store-url"),
        (os.environ.get(STORE_URL_ENV), STORE_URL_ENV),
        (config_url, f"{config_file}: store.url"),
    ):
        if value and value.strip():
            try:
                return checked_store_url(value)
            except RuleBroken as exc:
                raise ConfigError(f"{where}: {exc}") from None
    return None


def workstation_name(configured: str | None) -> str:
    """``[team] workstation``, else this computer's host name."""
    return (configured or "").strip() or socket.gethostname() or "workstation"
