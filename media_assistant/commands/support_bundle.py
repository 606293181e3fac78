"""The support bundle (``support-bundle -o FILE.zip``, Help → Create support bundle…): what a
developer needs to understand a problem, with every secret taken out.

Inside: ``README.txt``; ``versions.json`` (app, Python, OS, libraries, the store's schema);
``config.toml`` redacted; ``status.json`` (tasks per lane and state, accounts and why, the
team's workstations); ``store.json`` (as ``store info --json``: the engine, its address without
a password, server and schema version, workstations);
``task_events.jsonl`` (the newest :data:`MAX_EVENTS` lines of every task's log, read with a
query); ``logs/`` (the app's and the CLI's logs, redacted line by line); ``selfcheck.txt``.

Secrets: every value the config points to — API keys (``api_key_env`` or the keyring),
webhook URLs and signing secrets (``url_env``/``secret_env`` or the keyring), the team
database's password (the keyring, ``PGPASSWORD``) — is looked up and
replaced by ``<redacted>`` wherever it occurs, and patterns catch what was pasted where it
does not belong (``sk-…`` keys, DingTalk ``SEC…`` secrets, ``key=``/``token=`` query values,
Feishu hook ids, a URL's user:password). The store is read only through SQLite (queries), never
opened as a file: closing any descriptor of the live database drops SQLite's locks.

The self-check stops leftover browsers on our profiles; with a scheduler running on the data
folder (the window, ``run``) it would stop that scheduler's own browsers, so then the bundle
holds the self-check findings the scheduler logged instead, and says so.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib.metadata
import json
import os
import platform
import re
import sys
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sqlalchemy import select

from media_assistant import __version__
from media_assistant.core.files.atomic import write_atomically
from media_assistant.core.model.errors import InputError
from media_assistant.core.store.db import read_tx
from media_assistant.core.store.schema import SCHEMA_VERSION, TaskEventRow
from media_assistant.services import Services

MAX_EVENTS = 20_000
MAX_LOG_BYTES = 20_000_000
REDACTED = "<redacted>"
PACKAGES = (
    "PySide6-Essentials",
    "qasync",
    "playwright",
    "httpx",
    "SQLAlchemy",
    "sqlmodel",
    "pydantic",
    "openpyxl",
    "python-docx",
    "markdown-it-py",
    "markdownify",
    "keyring",
    "psutil",
    "psycopg",
)
_PATTERNS = (
    re.compile(r"sk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"SEC[0-9a-fA-F]{16,}"),
    re.compile(r"(?i)((?:key|token|access_token|secret|sign|password)=)[^&\s\"']+"),
    re.compile(r"(/open-apis/bot/v2/hook/)[A-Za-z0-9\-]+"),
    re.compile(r"(https?://)[^/\s:@]+:[^/\s@]+@"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
)


class Redactor:
    def __init__(self, secrets: Iterable[str]) -> None:
        # Longest first: a URL goes before the key inside it.
        self.secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        for pattern in _PATTERNS:
            text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
        return text


def known_secrets(services: Services) -> list[str]:
    """Every secret value the config refers to, from the environment and the keyring."""
    from media_assistant.providers import secrets

    config = services.config
    wanted = [(secrets.API_KEY, a.id, a.api_key_env) for a in config.accounts]
    wanted += [
        (secrets.WEBHOOK, name, name)
        for hook in config.webhooks
        for name in (hook.url_env, hook.secret_env)
        if name
    ]
    from media_assistant.core.config.proxy import effective_proxy

    for a in config.accounts:  # issue 32: proxy passwords, wherever they are kept
        proxy = effective_proxy(config.network, a)
        if proxy is not None and proxy.needs_password:
            wanted.append(
                (secrets.PROXY_PASSWORD, secrets.proxy_password_name(proxy), proxy.password_env)
            )
    out: list[str] = []
    for kind, name, env in wanted:
        if env and (from_env := os.environ.get(env, "").strip()):
            out.append(from_env)
        # The keyring's entry too, even when the variable is set: either may be pasted in a log.
        if stored := secrets.lookup(kind, name).value:
            out.append(stored)
    # Team mode: the team database's password, from the keyring or libpq's variable.
    if services.store_password:
        out.append(services.store_password)
    if value := os.environ.get("PGPASSWORD"):
        out.append(value)
    return out


def make_bundle(
    services: Services,
    output: Path,
    *,
    scheduler_running: bool,
    selfcheck: Callable[[], str] | None = None,
    now: dt.datetime | None = None,
) -> list[str]:
    """Write the bundle to ``output`` (0600, atomically); returns the names inside."""
    if output.suffix.lower() != ".zip":
        raise InputError(f"{output}: a support bundle is a .zip file")
    redact = Redactor(known_secrets(services))
    made = now or dt.datetime.now().astimezone()
    files: dict[str, str] = {}
    files["versions.json"] = json.dumps(_versions(services), ensure_ascii=False, indent=2)
    files["config.toml"] = _config_text(services, redact)
    files["status.json"] = json.dumps(_status(services), ensure_ascii=False, indent=2)
    files["store.json"] = json.dumps(_store(services), ensure_ascii=False, indent=2)
    files["task_events.jsonl"] = "".join(
        json.dumps(e, ensure_ascii=False) + "\n" for e in _events(services)
    )
    files["selfcheck.txt"] = _selfcheck_text(services, scheduler_running, selfcheck)
    for path in _log_files(services.paths.logs):
        files[f"logs/{path.name}"] = _tail(path)
    files["README.txt"] = (
        f"Media Assistant {__version__} support bundle, made {made.isoformat('T', 'seconds')}\n"
        f"data folder: {services.paths.data_dir}\n\n"
        "Secrets (API keys, webhook addresses and signing secrets, the team database's "
        "password) were replaced by "
        f"{REDACTED}. Prompts and answers are not included, except where a log line quotes "
        "one; task_events.jsonl holds the newest task log lines.\n\n"
        + "\n".join(sorted(files))
        + "\n"
    )

    def write(tmp: Path) -> int:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, text in sorted(files.items()):
                archive.writestr(name, redact(text))
        return len(files)

    write_atomically(output, write)
    return sorted(files)


def _versions(services: Services) -> dict[str, Any]:
    packages: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            packages[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            packages[name] = None
    store_version = None
    with contextlib.suppress(Exception):
        from media_assistant.core.store.migrations import current_version

        with services.engine.connect() as conn:
            store_version = current_version(conn)
    return {
        "media_assistant": __version__,
        "frozen": bool(getattr(sys, "frozen", False)),
        "python": sys.version,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "schema_version_code": SCHEMA_VERSION,
        "schema_version_store": store_version,
        "packages": packages,
    }


def _config_text(services: Services, redact: Redactor) -> str:
    path = services.paths.config_file
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        return f"# {path}: cannot read ({exc.strerror})\n"
    return f"# {path} (secrets redacted)\n" + redact(text)


def _status(services: Services) -> dict[str, object]:
    from media_assistant.commands.tasks import status_data

    return status_data(services)


def _store(services: Services) -> dict[str, Any]:
    """As ``store info --json``: the engine, its address without a password, the versions and
    the team's workstations."""
    from media_assistant.commands.team_store import store_info_data

    return store_info_data(services)


def _events(services: Services) -> list[dict[str, Any]]:
    e = TaskEventRow.__table__  # type: ignore[attr-defined]
    with read_tx(services.engine) as conn:
        rows = conn.execute(select(e).order_by(e.c.id.desc()).limit(MAX_EVENTS)).mappings().all()
    out = []
    for row in reversed(rows):
        item = dict(row)
        item["at"] = dt.datetime.fromtimestamp(item["at"]).isoformat(sep=" ", timespec="seconds")
        out.append(item)
    return out


def _selfcheck_text(
    services: Services, scheduler_running: bool, selfcheck: Callable[[], str] | None
) -> str:
    if not scheduler_running and selfcheck is not None:
        try:
            return selfcheck()
        except Exception as exc:  # the bundle is for problems: say what went wrong, go on
            return f"the self-check could not run: {type(exc).__name__}: {exc}\n"
    e = TaskEventRow.__table__  # type: ignore[attr-defined]
    with read_tx(services.engine) as conn:
        rows = conn.execute(
            select(e.c.at, e.c.task_id, e.c.account_id, e.c.message)
            .where(e.c.kind == "selfcheck")
            .order_by(e.c.id.desc())
            .limit(200)
        ).all()
    head = (
        "A scheduler is running on this data folder: the self-check was not run (it would stop "
        "that scheduler's browsers). The self-check findings it logged, newest first:\n"
    )
    lines = [
        f"{dt.datetime.fromtimestamp(at):%Y-%m-%d %H:%M:%S} {account or '-'} {task}: {message}"
        for at, task, account, message in rows
    ]
    return head + ("\n".join(lines) or "(none)") + "\n"


def _log_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and ".log" in p.name)


def _tail(path: Path) -> str:
    """The end of a log file (logs never are the database: plain file I/O is fine here)."""
    with path.open("rb") as file:
        file.seek(0, os.SEEK_END)
        size = file.tell()
        file.seek(max(0, size - MAX_LOG_BYTES))
        data = file.read()
    return data.decode("utf-8", errors="replace")
