"""``store info``, ``store copy`` and ``store set-password``: where the task store is, who works
on it, moving a queue in and out of a team database, and that database's password.

A store is named on the command line as ``postgresql://USER@HOST:PORT/DATABASE`` (a team
database; never with a password: libpq's PGPASSWORD / ~/.pgpass / service files or the OS
keyring hold it, ``store set-password``), ``sqlite:///PATH`` or a plain file path (a SQLite
file: a snapshot, or another workstation's store).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from media_assistant.commands.common import (
    configured_store_url,
    open_services,
    print_json,
    scheduler_holder,
    seen_text,
    workstations_data,
)
from media_assistant.core.config.team import checked_store_url
from media_assistant.core.disk.store_file import open_store
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import (
    ConfigError,
    InputError,
    RuleBroken,
    SchedulerBusy,
)
from media_assistant.core.store import key_gate
from media_assistant.core.store.backends.postgres import (
    app_name,
    behind_a_pooler,
    connection_use,
    is_postgres_url,
    libpq_args,
    redacted,
)
from media_assistant.core.store.copy import CopyReport, copy_store
from media_assistant.core.store.db import read_tx, schema_version, server_version
from media_assistant.core.store.migrations import SchemaTooNew
from media_assistant.core.store.team import open_team_store
from media_assistant.services import Services

EXIT_OK = 0
PROGRESS_EVERY = 10_000  # tasks between two progress lines of a long copy


def cmd_store(paths: Paths, args: argparse.Namespace) -> int:
    action = args.store_command
    if action == "info":
        return _info(paths, args)
    if action == "copy":
        return _copy(paths, args)
    return _set_password(paths, args)


# ----------------------------------------------------------------------------- where a store is


@dataclass(frozen=True, slots=True)
class Location:
    """A store named on the command line: a team database's URL, or a SQLite file."""

    url: str | None = None
    path: Path | None = None

    @property
    def label(self) -> str:
        return redacted(self.url) if self.url else str(self.path)

    def same_as(self, other: Location) -> bool:
        if self.path is not None and other.path is not None:
            return self.path.resolve() == other.path.resolve()
        if self.url is not None and other.url is not None:
            return _database_of(self.url) == _database_of(other.url)
        return False


def _database_of(url: str) -> tuple[str, int, str]:
    u = make_url(url)
    return (u.host or "", u.port or 5432, u.database or "")


def parse_location(text: str, option: str) -> Location:
    """``postgresql://…``, ``sqlite:///PATH`` or a file path; anything else is refused, and a
    URL holding a password is refused without repeating it."""
    value = text.strip()
    if is_postgres_url(value):
        try:
            return Location(url=checked_store_url(value))
        except RuleBroken as exc:
            raise ConfigError(f"{option}: {exc}") from None
    if value.startswith("sqlite:///"):
        return Location(path=Path(value.removeprefix("sqlite:///")).expanduser())
    if "://" in value or not value:
        # Only the scheme is repeated: whatever follows it might hold a secret.
        got = value.split("://", 1)[0] + "://…" if value else "nothing"
        raise InputError(
            f"{option}: expected postgresql://USER@HOST:PORT/DATABASE, sqlite:///PATH or a "
            f"file path (got {got})"
        )
    return Location(path=Path(value).expanduser())


def open_location(
    location: Location, args: argparse.Namespace, *, read_only: bool, must_exist: bool
) -> Engine:
    """The engine of a store named on the command line, at this app's schema (a new SQLite file
    or an empty team database is created; ``read_only`` opens an existing one as it is)."""
    notify = _notify
    wait_s = getattr(args, "db_wait", None)
    try:
        if location.url is not None:
            from media_assistant.providers.secrets import read_store_password

            return open_team_store(
                location.url,
                password=read_store_password(location.url),
                read_only=read_only,
                wait_s=wait_s,
                notify=notify,
            )
        path = location.path
        assert path is not None
        if path.is_dir():
            raise InputError(f"{path}: is a folder, not a task store")
        if must_exist and not path.is_file():
            raise InputError(f"{path}: no such file")
        if not path.parent.is_dir():
            raise InputError(f"{path}: the folder {path.parent} does not exist")
        return open_store(path, read_only=read_only, wait_s=wait_s, notify=notify)
    except SchemaTooNew as exc:
        raise InputError(f"{location.label}: {exc}") from None


def _notify(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- store info


def store_info_data(services: Services) -> dict[str, Any]:
    """``store info --json``: the store's engine and address (never a password), versions, and
    the workstations it knows."""
    url = services.store_url
    return {
        "backend": "postgresql" if url else "sqlite",
        "url": redacted(url) if url else str(services.paths.database),
        "server_version": server_version(services.engine),
        "schema_version": schema_version(services.engine),
        "workstations": workstations_data(services),
        "connections": connections_data(services),
        "api_key_disagreements": key_disagreements_data(services),
    }


def key_disagreements_data(services: Services) -> list[dict[str, Any]]:
    """API keys the configs of workstations online give different limits (issue 27 item 5):
    each workstation's name for the key and its limits, and what the team holds (the
    stricter). Only the key's identity is shown, never the key."""
    if services.store_url is None:
        return []
    with read_tx(services.engine) as conn:
        found = key_gate.disagreements(
            conn,
            now=services.clock.now(),
            dead_after=services.config.scheduler.dead_after_s,
        )
    return [{**d.to_json(), "message": d.message()} for d in found]


def connections_data(services: Services) -> dict[str, Any] | None:
    """A team database's connections (issue 28): this workstation's open ones (its ``run`` and
    window, by ``application_name``), the most it may hold (``[store] connections``), and the
    server's limit and use. None for a SQLite file."""
    if services.store_url is None:
        return None
    with read_tx(services.engine) as conn:
        use: dict[str, Any] = connection_use(conn, app_name(services.workstation))
    # Behind PgBouncer the server sees the pool's connections, under one name: which of them
    # serve this workstation is not the server's to say.
    pooled = bool(behind_a_pooler(services.engine))
    if pooled:
        use["this_workstation"] = None
    return {**use, "per_workstation_max": services.config.store.connections, "pooled": pooled}


def _info(paths: Paths, args: argparse.Namespace) -> int:
    services = open_services(paths, args, read_only=True, require_config=False)
    try:
        data = store_info_data(services)
        this = services.workstation
    finally:
        services.close()
    if args.json:
        print_json(data)
        return EXIT_OK
    engine = "PostgreSQL" if data["backend"] == "postgresql" else "SQLite"
    print(f"store: {engine} {data['server_version']}, {data['url']}")
    print(f"schema version: {data['schema_version']}")
    print(f"this workstation: {this}")
    if (use := data["connections"]) is not None:
        this_ws = (
            "behind a connection pooler, the server sees its pool"
            if use["pooled"]
            else f"this workstation {use['this_workstation']}"
        )
        print(
            f"connections: {this_ws} (at most {use['per_workstation_max']}); server "
            f"{use['server_in_use']} of {use['server_max']} in use ({use['server_reserved']} "
            "kept for superusers)"
        )
    for d in data["api_key_disagreements"]:
        print(f"warning: {d['message']}")
    workstations: list[dict[str, Any]] = data["workstations"]
    online = sum(1 for w in workstations if w["online"])
    print(f"workstations: {len(workstations)} ({online} online)")
    width = max((len(w["workstation"]) for w in workstations), default=0)
    for w in workstations:
        accounts = ", ".join(w["web_accounts"]) or "none"
        print(
            f"  {w['workstation']:<{width}}  {'online' if w['online'] else 'offline':<7}  "
            f"seen {seen_text(w['last_seen_s'])}, version {w['version'] or '?'}, "
            f"running {w['running']}, web accounts: {accounts}"
        )
    return EXIT_OK


# ----------------------------------------------------------------------------- store copy


def _copy(paths: Paths, args: argparse.Namespace) -> int:
    target = parse_location(args.to, "--to")
    services: Services | None = None
    engines: list[Engine] = []
    try:
        if args.source:
            source = parse_location(args.source, "--from")
            source_engine = open_location(source, args, read_only=True, must_exist=True)
            engines.append(source_engine)
        else:
            services = open_services(paths, args, read_only=True, require_config=False)
            source_engine = services.engine
            source = (
                Location(url=services.store_url)
                if services.store_url
                else Location(path=paths.database)
            )
            holder = scheduler_holder(paths) if services.store_url is None else None
            if holder is not None and target.url is not None:
                raise SchedulerBusy(
                    f"a scheduler (pid {holder['pid']}) is running on {paths.data_dir}: the "
                    "tasks it runs would run again in the team database. Close the app (or "
                    "stop 'run') first, then copy"
                )
        if source.same_as(target):
            raise InputError(f"--to {target.label}: that is the store being copied")
        target_engine = open_location(target, args, read_only=False, must_exist=False)
        engines.append(target_engine)
        report = copy_store(source_engine, target_engine, progress=copy_progress)
    finally:
        for engine in engines:
            engine.dispose()
        if services is not None:
            services.close()
    for line in copy_lines(report, source.label, target.label):
        print(line)
    return EXIT_OK


def copy_progress(done: int, total: int) -> None:
    if total >= PROGRESS_EVERY and (done % PROGRESS_EVERY < 500 or done == total):
        print(f"copying: {done:,} of {total:,} tasks…", file=sys.stderr, flush=True)


def copy_lines(report: CopyReport, source: str, target: str) -> list[str]:
    """What a copy did, for the operator."""
    if not report.changed:
        return [
            f"nothing to copy: the {report.tasks_present} tasks of {source} are already in "
            f"{target}, as they are here"
        ]
    requeued = (
        f" ({report.running_requeued} that were running went in as pending, their attempt not "
        "used up)"
        if report.running_requeued
        else ""
    )
    lines = [
        f"copied into {target}: {report.tasks_added} tasks{requeued}, "
        f"{report.events_added} event lines, {report.batches_added} batches, "
        f"{report.accounts_added} accounts, {report.pacing_added} pacing states"
    ]
    if report.tasks_present:
        lines.append(f"already there, the same: {report.tasks_present} tasks (left as they are)")
    if report.pauses_added:
        held = ", ".join(f"{s} {t}".strip() for s, t in report.pauses_added)
        lines.append(
            f"pauses copied (they hold there too; 'media-assistant resume' lifts one): {held}"
        )
    for account, owner in report.accounts_elsewhere:
        lines.append(
            f"web account {account} belongs to workstation {owner} there: it keeps it "
            f"('media-assistant accounts release {account}' hands it on)"
        )
    return lines


# ----------------------------------------------------------------------------- set-password


def _set_password(paths: Paths, args: argparse.Namespace) -> int:
    from media_assistant.providers.secrets import save_store_password, store_password_key

    if args.url:
        location = parse_location(args.url, "--url")
        if location.url is None:
            raise InputError("--url: a team database's URL (postgresql://USER@HOST:PORT/DB)")
        url = location.url
    else:
        configured = configured_store_url(paths, args)
        if configured is None:
            raise ConfigError(
                "no team database is configured: name it with --url "
                "postgresql://USER@HOST:PORT/DATABASE (or set [store] url, --store-url or "
                "$MEDIA_ASSISTANT_STORE_URL)"
            )
        url = configured
    if make_url(url).username is None:
        raise ConfigError(f"{redacted(url)}: the URL names no user (postgresql://USER@HOST/DB)")
    if sys.stdin.isatty():
        password = getpass.getpass(f"password for {redacted(url)} (not shown): ")
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    if not password:
        raise InputError("empty password: nothing stored")
    verdict, detail = check_password(url, password)
    if verdict == "rejected":
        raise ConfigError(
            f"the team database {redacted(url)} refused that password ({detail}); nothing stored"
        )
    save_store_password(url, password)  # ConfigError (exit 2) when there is no keyring
    print(f"password for {redacted(url)} stored in the OS keyring ({store_password_key(url)})")
    if verdict == "ok":
        print(f"the server accepted it (PostgreSQL {detail})")
    else:
        print(f"warning: not checked with the server: {detail}", file=sys.stderr)
    return EXIT_OK


def check_password(url: str, password: str) -> tuple[str, str]:
    """Log in once with ``password``: ("ok", server version), ("rejected", why) when the server
    refused the password itself, ("unchecked", why) when it could not say (unreachable, no such
    database, no pg_hba.conf entry for this address)."""
    import psycopg

    conninfo, extra = libpq_args(url)
    extra["password"] = password
    try:
        with psycopg.connect(conninfo, **extra) as conn:
            return "ok", str(conn.execute("SHOW server_version").fetchone()[0])  # type: ignore[index]
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        reason = first.removeprefix("connection failed: ")[:300]
        if "password authentication failed" in reason or "authentication failed" in reason:
            return "rejected", reason
        return "unchecked", reason
