"""*Test connection* on the set-up window's Team database page, and the keyring's state for its
password — plain Python (no Qt), run on a worker thread: a connection attempt waits for the
network (up to libpq's ``connect_timeout``, 5 s) and a keyring backend may wait for its daemon.

A failure is sorted into a kind the page words in the operator's language (a refused password,
an unknown database, nothing answering at the address…) and keeps libpq's or the server's own
first line as the detail (never the password: libpq does not repeat it, and a URL holding one
is refused before any attempt). Nothing is written to the database: the page says what the
first start will do (create the tables, or update them) and whether the role may.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from media_assistant.core.store import schema
from media_assistant.core.store.backends.postgres import libpq_args

# Kinds of failure, most specific first: (kind, words libpq or the server use for it).
_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bad_password", ("password authentication failed",)),
    ("no_password", ("no password supplied",)),
    ("unknown_database", ('database "',)),  # database "x" does not exist
    ("unknown_role", ('role "',)),  # role "x" does not exist
    ("not_allowed", ("no pg_hba.conf entry",)),
    ("no_permission", ("permission denied for database",)),
    ("starting", ("the database system is",)),  # starting up, shutting down, in recovery
    ("busy", ("too many connections", "remaining connection slots")),
    ("refused", ("connection refused",)),
    (
        "unknown_host",
        (
            "failed to resolve host",
            "could not translate host name",
            "name or service not known",
            "nodename nor servname",
            "no such host is known",
            "temporary failure in name resolution",
        ),
    ),
    ("timeout", ("timeout expired", "timed out")),
    ("tls", ("ssl", "certificate", "gssapi")),
    ("bad_url", ("invalid uri", "invalid connection option", "invalid sslmode", "invalid ")),
)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    kind: str  # "ok", or one of the kinds above, or "other"
    host: str = ""
    port: int = 5432
    database: str = ""
    user: str = ""
    detail: str = ""  # libpq's or the server's own first line
    server_version: str | None = None  # "15.18 (Debian 15.18-0+deb12u1)"
    schema_version: int | None = None  # None: no Media Assistant tables yet
    can_create: bool = True  # the role may create the tables (an empty database)

    @property
    def ok(self) -> bool:
        return self.kind == "ok"

    @property
    def schema_too_new(self) -> bool:
        return self.schema_version is not None and self.schema_version > schema.SCHEMA_VERSION


def failure_kind(message: str) -> str:
    low = message.lower()
    for kind, words in _KINDS:
        if kind == "unknown_database" and not re.search(r'database "[^"]*" does not exist', low):
            continue
        if kind == "unknown_role" and not re.search(r'role "[^"]*" does not exist', low):
            continue
        if any(word in low for word in words):
            return kind
    return "other"


def _first_line(message: str) -> str:
    text = message.strip().removeprefix("connection failed: ")
    # 'connection to server at "h", port 1 failed: FATAL:  password authentication failed…':
    # the address is on the page already; the reason is what the operator needs.
    text = re.sub(r'^connection to server at "[^"]*"(?: \([^)]*\))?, port \d+ failed: ', "", text)
    text = text.removeprefix("FATAL:").strip()
    lines = text.splitlines()
    return lines[0].strip()[:300] if lines else ""


def probe(url: str, password: str | None = None) -> ProbeResult:
    """Connect to the team database at ``url`` (``password`` when given, else libpq's own
    ways: PGPASSWORD, pgpass, a service file), read its version and the schema's, then close.
    Never raises for a connection problem: the result says what went wrong."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        return ProbeResult("bad_url", detail=str(exc)[:300])
    where: dict[str, Any] = {
        "host": parsed.host or "localhost",
        "port": parsed.port or 5432,
        "database": parsed.database or parsed.username or "",
        "user": parsed.username or "",
    }
    import psycopg

    try:
        plain, extra = libpq_args(url, password)
        with psycopg.connect(plain, **extra) as conn:
            conn.read_only = True
            version = conn.execute("SHOW server_version").fetchone()
            meta = conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()
            schema_version = None
            if meta and meta[0]:
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                schema_version = int(row[0]) if row else None
            can_create = True
            if schema_version is None:  # the first start creates the tables: may it?
                allowed = conn.execute(
                    "SELECT has_schema_privilege(current_schema(), 'CREATE')"
                ).fetchone()
                can_create = bool(allowed and allowed[0])
    except (psycopg.Error, ValueError) as exc:
        message = str(exc)
        return ProbeResult(failure_kind(message), detail=_first_line(message), **where)
    return ProbeResult(
        "ok",
        server_version=str(version[0]) if version else None,
        schema_version=schema_version,
        can_create=can_create,
        **where,
    )


# ----------------------------------------------------------------------------- the keyring


def keyring_state(url: str | None) -> str:
    """Where the password could be kept: "kept" (the OS keyring holds one for this database),
    "none" (a keyring, no password in it for this database), "no_keyring" (this system has
    none: PGPASSWORD or pgpass only), "unusable" (locked, or its daemon does not answer)."""
    import keyring
    import keyring.errors

    from media_assistant.providers.secrets import KEYRING_SERVICE, store_password_key

    try:
        entry = store_password_key(url) if url else "store:probe"
    except Exception:  # an address that does not parse: the keyring is still worth asking
        entry = "store:probe"
    try:
        value = keyring.get_password(KEYRING_SERVICE, entry)
    except keyring.errors.NoKeyringError:
        return "no_keyring"
    except Exception:  # locked, no daemon (D-Bus), a broken backend
        return "unusable"
    return "kept" if value and url else "none"
