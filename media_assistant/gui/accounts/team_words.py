"""What the Team database page says, in the operator's language (context "TeamPage"): the result
of *Test connection*, where the password can be kept, which queue this window works on.

A failure names its cause in words (a refused password, an unknown database, nothing answering
at the address) and then quotes the server's or libpq's own line as it came: it is what an
administrator will ask for, and it is never translated."""

from __future__ import annotations

import os

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from media_assistant.core.config.team import STORE_URL_ENV
from media_assistant.core.store import schema
from media_assistant.gui.accounts.team_probe import ProbeResult

_CTX = "TeamPage"

_FAILURES: dict[str, object] = {
    "bad_password": QT_TRANSLATE_NOOP(
        "TeamPage", "The server refused the password of %1: type it again."
    ),
    "no_password": QT_TRANSLATE_NOOP(
        "TeamPage",
        "The server asks for a password for %1: type it above, or put it in PGPASSWORD or "
        "the pgpass file.",
    ),
    "unknown_database": QT_TRANSLATE_NOOP("TeamPage", "There is no database %4 on %2:%3."),
    "unknown_role": QT_TRANSLATE_NOOP("TeamPage", "There is no user (role) %1 on %2:%3."),
    "not_allowed": QT_TRANSLATE_NOOP(
        "TeamPage",
        "The server does not let %1 connect from this computer (pg_hba.conf): ask its "
        "administrator.",
    ),
    "no_permission": QT_TRANSLATE_NOOP(
        "TeamPage", "%1 may not connect to the database %4: ask the administrator to allow it."
    ),
    "starting": QT_TRANSLATE_NOOP(
        "TeamPage", "The server is starting up or shutting down: try again in a moment."
    ),
    "busy": QT_TRANSLATE_NOOP(
        "TeamPage", "The server has no free connection: try again later, or ask its administrator."
    ),
    "refused": QT_TRANSLATE_NOOP(
        "TeamPage",
        "Nothing answers at %2:%3: the server is not running there, or a firewall blocks the port.",
    ),
    "unknown_host": QT_TRANSLATE_NOOP(
        "TeamPage", "The computer %2 is not known on this network: check the address."
    ),
    "timeout": QT_TRANSLATE_NOOP(
        "TeamPage",
        "%2:%3 does not answer: check the network, the address and the firewall.",
    ),
    "tls": QT_TRANSLATE_NOOP(
        "TeamPage",
        "The encrypted connection (TLS) failed: check sslmode in the address and the "
        "server's certificate.",
    ),
    "bad_url": QT_TRANSLATE_NOOP(
        "TeamPage",
        "The address cannot be used: write it as postgresql://USER@HOST:5432/DATABASE "
        "(libpq parameters such as ?sslmode=require after it).",
    ),
    "other": QT_TRANSLATE_NOOP("TeamPage", "The connection failed."),
}

_KEYRING: dict[str, object] = {
    "kept": QT_TRANSLATE_NOOP(
        "TeamPage",
        "A password for this database is kept in the system keyring; type a new one to replace it.",
    ),
    "none": QT_TRANSLATE_NOOP(
        "TeamPage",
        "A password typed here is kept in the system keyring, never in config.toml. Or leave "
        "it empty and use PGPASSWORD or the pgpass file.",
    ),
    "no_keyring": QT_TRANSLATE_NOOP(
        "TeamPage",
        "This computer has no system keyring: a password typed here can be written, when you "
        "save, to PostgreSQL's own password file (%APPDATA%\\postgresql\\pgpass.conf on "
        "Windows, ~/.pgpass elsewhere), or set the PGPASSWORD environment variable.",
    ),
    "unusable": QT_TRANSLATE_NOOP(
        "TeamPage",
        "The system keyring does not answer (locked?): unlock it, or keep the password in "
        "PGPASSWORD or the pgpass file.",
    ),
}


# Everything else the page says (the words of a connection that worked, which queue it is).
_SAID: dict[str, object] = {
    "server_said": QT_TRANSLATE_NOOP("TeamPage", "The server said: %1"),
    "connected": QT_TRANSLATE_NOOP("TeamPage", "Connected: PostgreSQL %1."),
    "empty_no_create": QT_TRANSLATE_NOOP(
        "TeamPage",
        "The database is empty and %1 may not create tables in it: ask its administrator to "
        "run GRANT CREATE ON SCHEMA public TO %1 (or to make %1 the database's owner).",
    ),
    "empty": QT_TRANSLATE_NOOP(
        "TeamPage", "The database is empty: Media Assistant creates its tables at its first start."
    ),
    "too_new": QT_TRANSLATE_NOOP(
        "TeamPage",
        "Its queue has schema version %1, newer than this app's %2: update Media Assistant on "
        "this workstation first.",
    ),
    "older": QT_TRANSLATE_NOOP(
        "TeamPage",
        "It holds a Media Assistant queue (schema version %1); the first start updates it to %2.",
    ),
    "current": QT_TRANSLATE_NOOP("TeamPage", "It holds a Media Assistant queue."),
    "own_queue": QT_TRANSLATE_NOOP("TeamPage", "This window works on this PC's own queue (%1)."),
    "team_queue": QT_TRANSLATE_NOOP(
        "TeamPage", "This window works on the team database %1 as workstation %2."
    ),
    "env_wins": QT_TRANSLATE_NOOP(
        "TeamPage", "%1 is set on this computer: it wins over the address saved here."
    ),
    "flag_wins": QT_TRANSLATE_NOOP(
        "TeamPage", "It was started with --store-url, which wins over the address saved here."
    ),
}


def _t(text: object, *values: object) -> str:
    out = QCoreApplication.translate(_CTX, str(text))
    for i, value in enumerate(values, start=1):
        out = out.replace(f"%{i}", str(value))
    return out


def _said(key: str, *values: object) -> str:
    return _t(_SAID[key], *values)


def keyring_text(state: str) -> str:
    return _t(_KEYRING.get(state, _KEYRING["unusable"]))


def keyring_missing(state: str) -> bool:
    """The password cannot be kept here (the page says so and saves none)."""
    return state in ("no_keyring", "unusable")


def probe_text(result: ProbeResult) -> tuple[str, bool]:
    """(what the page says, whether it is a problem)."""
    if not result.ok:
        failure = _FAILURES.get(result.kind, _FAILURES["other"])
        words = _t(failure, result.user or "?", result.host, result.port, result.database or "?")
        if result.detail:  # the server's or libpq's own line, as it came
            words += "\n" + _said("server_said", result.detail)
        return words, True
    connected = _said("connected", result.server_version or "?")
    ours, theirs = schema.SCHEMA_VERSION, result.schema_version
    if theirs is None and not result.can_create:
        return f"{connected} {_said('empty_no_create', result.user or '?')}", True
    if theirs is None:
        return f"{connected} {_said('empty')}", False
    if result.schema_too_new:
        return f"{connected} {_said('too_new', theirs, ours)}", True
    if theirs < ours:
        return f"{connected} {_said('older', theirs, ours)}", False
    return f"{connected} {_said('current')}", False


def running_text(
    store_url: str | None, workstation: str, database: str, config_url: str | None
) -> str:
    """Which queue this window works on now, and what wins over config.toml's address (the
    environment variable, or ``--store-url`` on the command line that started the app)."""
    from media_assistant.core.store.backends.postgres import redacted

    if store_url is None:
        text = _said("own_queue", database)
    else:
        text = _said("team_queue", redacted(store_url), workstation)
    if (os.environ.get(STORE_URL_ENV) or "").strip():
        text += " " + _said("env_wins", STORE_URL_ENV)
    elif store_url is not None and store_url != (config_url or "").strip():
        text += " " + _said("flag_wins")
    return text
