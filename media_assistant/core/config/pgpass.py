"""A team database's password in libpq's own password file, for a PC without an OS keyring.

libpq (the PostgreSQL client library psycopg uses, and psql) reads ``PGPASSFILE``, else
``%APPDATA%\\postgresql\\pgpass.conf`` on Windows, else ``~/.pgpass``; one line per server:
``host:port:database:user:password``, ``:`` and ``\\`` escaped with ``\\``. On Linux and macOS
libpq ignores the file unless only its owner may read it, so it is written 0600. This module
writes that line (replacing the line of the same host, port, database and user, keeping every
other line and comment) atomically; libpq itself reads it — nothing here reads a password back.
The format is small and fixed (PostgreSQL's documentation, "The Password File"): no library
writes it, and libpq is the reader either way.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from media_assistant.core.model.errors import ConfigError


def pgpass_path(
    environ: Mapping[str, str] | None = None, platform: str | None = None, home: Path | None = None
) -> Path:
    """Where libpq looks for the password file on this computer."""
    env = os.environ if environ is None else environ
    if env.get("PGPASSFILE"):
        return Path(env["PGPASSFILE"])
    if (platform or sys.platform) == "win32":
        appdata = env.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(appdata) / "postgresql" / "pgpass.conf"
    return (home or Path.home()) / ".pgpass"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")


def _fields(line: str) -> list[str]:
    """A pgpass line's fields, unescaped (``a\\:b`` is one field ``a:b``)."""
    fields, current, escaped = [], [], False
    for char in line:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ":":
            fields.append("".join(current))
            current = []
        else:
            current.append(char)
    fields.append("".join(current))
    return fields


def entry_of(url: str) -> tuple[str, str, str, str]:
    """(host, port, database, user) of a ``postgresql://`` URL, as libpq matches them: a URL
    without a host connects to the local socket, which the file calls ``localhost``."""
    from sqlalchemy.engine import make_url

    try:
        u = make_url(url)
    except Exception as exc:
        raise ConfigError(f"[store] url: not a database address ({exc})") from None
    if not u.username:
        raise ConfigError("[store] url: name the database's user (postgresql://USER@HOST/DB)")
    return (u.host or "localhost", str(u.port or 5432), u.database or "*", u.username)


def write_password(url: str, password: str, path: Path | None = None) -> Path:
    """Keep ``password`` for ``url``'s server, database and user in the password file; returns
    the file. Raises ConfigError (an empty password, a file that cannot be written)."""
    if not password:
        raise ConfigError("the password is empty")
    if "\n" in password or "\r" in password:
        raise ConfigError("the password has a line break: the password file cannot hold it")
    target = path or pgpass_path()
    key = entry_of(url)
    line = ":".join(_escape(v) for v in (*key, password))
    try:
        old = target.read_text(encoding="utf-8").splitlines() if target.exists() else []
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{target}: cannot be read ({exc})") from None
    kept = [
        row
        for row in old
        if row.lstrip().startswith("#") or tuple(_fields(row)[:4]) != key or not row.strip()
    ]
    text = "\n".join([*kept, line]) + "\n"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=".pgpass-", dir=target.parent)
        try:
            os.chmod(temp, 0o600)  # before the password is in it
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                out.write(text)
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ConfigError(f"{target}: cannot be written ({exc})") from None
    return target
