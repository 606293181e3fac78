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
        "This computer has no system keyring: a password typed here is only used to test "
        "the connection. Keep it in the PGPASSWORD environment variable or in the pgpass "
        "file (%APPDATA%\\postgresql\\pgpass.conf on Windows, ~/.pgpass elsewhere).",
    ),
    "unusable": QT_TRANSLATE_NOOP(
        "TeamPage",
        "The system keyring does not answer (locked?): unlock it, or keep the password in "
        "PGPASSWORD or the pgpass file.",
    ),
}


def _t(text: object) -> str:
    return QCoreApplication.translate(_CTX, str(text))


def keyring_text(state: str) -> str:
    return _t(_KEYRING.get(state, _KEYRING["unusable"]))


def keyring_missing(state: str) -> bool:
    """The password cannot be kept here (the page says so and saves none)."""
    return state in ("no_keyring", "unusable")


def probe_text(result: ProbeResult) -> tuple[str, bool]:
    """(what the page says, whether it is a problem)."""
    if not result.ok:
        words = (
            _t(_FAILURES.get(result.kind, _FAILURES["other"]))
            .replace("%1", result.user or "?")
            .replace("%2", result.host)
            .replace("%3", str(result.port))
            .replace("%4", result.database or "?")
        )
        if result.detail:
            words += "\n" + _t("The server said: %1").replace("%1", result.detail)
        return words, True
    connected = _t("Connected: PostgreSQL %1.").replace("%1", result.server_version or "?")
    ours = schema.SCHEMA_VERSION
    if result.schema_version is None and not result.can_create:
        return connected + " " + _t(
            "The database is empty and %1 may not create tables in it: ask its administrator "
            "to run GRANT CREATE ON SCHEMA public TO %1 (or to make %1 the database's owner)."
        ).replace("%1", result.user or "?"), True
    if result.schema_version is None:
        return connected + " " + _t(
            "The database is empty: Media Assistant creates its tables at its first start on it."
        ), False
    if result.schema_too_new:
        return connected + " " + _t(
            "Its queue has schema version %1, newer than this app's %2: update Media "
            "Assistant on this workstation first."
        ).replace("%1", str(result.schema_version)).replace("%2", str(ours)), True
    if result.schema_version < ours:
        return connected + " " + _t(
            "It holds a Media Assistant queue (schema version %1); the first start updates it "
            "to %2."
        ).replace("%1", str(result.schema_version)).replace("%2", str(ours)), False
    return connected + " " + _t("It holds a Media Assistant queue."), False


def running_text(
    store_url: str | None, workstation: str, database: str, config_url: str | None
) -> str:
    """Which queue this window works on now, and what wins over config.toml's address (the
    environment variable, or ``--store-url`` on the command line that started the app)."""
    from media_assistant.core.store.backends.postgres import redacted

    if store_url is None:
        text = _t("This window works on this PC's own queue (%1).").replace("%1", database)
    else:
        text = (
            _t("This window works on the team database %1 as workstation %2.")
            .replace("%1", redacted(store_url))
            .replace("%2", workstation)
        )
    if (os.environ.get(STORE_URL_ENV) or "").strip():
        text += " " + _t(
            "%1 is set on this computer: it wins over the address saved here."
        ).replace("%1", STORE_URL_ENV)
    elif store_url is not None and store_url != (config_url or "").strip():
        text += " " + _t("It was started with --store-url, which wins over the address saved here.")
    return text
