"""Helpers shared by the headless commands."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import psutil

from media_assistant.core.batches.batch_import import (
    default_title_column,
    preview_table,
    read_batch,
)
from media_assistant.core.config.schema import load_config
from media_assistant.core.config.team import store_url
from media_assistant.core.files.paths import Paths
from media_assistant.core.files.private_files import PrivateRotatingFileHandler
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import BatchInfo, NewTask, SubmitResult, WorkstationInfo
from media_assistant.core.rules.schedules import parse_start_at, start_text
from media_assistant.core.store.batches import active_window
from media_assistant.services import Services


def open_services(
    paths: Paths,
    args: argparse.Namespace,
    *,
    read_only: bool = False,
    require_config: bool = True,
) -> Services:
    """The store for a headless command: waits (saying so on stderr) up to ``--db-wait`` seconds
    while another process holds the database, then StoreLocked (exit 7)."""
    return Services.open(
        paths,
        require_config=require_config,
        read_only=read_only,
        db_wait_s=getattr(args, "db_wait", None),
        notify=lambda message: print(message, file=sys.stderr, flush=True),
        store_url=getattr(args, "store_url", None),
    )


def configured_store_url(paths: Paths, args: argparse.Namespace) -> str | None:
    """The team database this command would use (``--store-url``, ``$MEDIA_ASSISTANT_STORE_URL``,
    ``[store] url``), or None for the SQLite file in the data dir — without opening anything.
    A config file that is there is checked whole (ConfigError, exit 2)."""
    config_url = load_config(paths.config_file).store.url if paths.config_file.exists() else None
    return store_url(getattr(args, "store_url", None), config_url, paths.config_file.name)


def workstation_data(info: WorkstationInfo) -> dict[str, Any]:
    """One workstation as ``store info --json`` and ``status --json`` give it."""
    return {
        "workstation": info.workstation,
        "online": info.online,
        "last_seen_s": None if info.last_seen_s is None else round(info.last_seen_s, 1),
        "version": info.version,
        "web_accounts": list(info.web_accounts),
        "running": info.running,
    }


def workstations_data(services: Services) -> list[dict[str, Any]]:
    """Every workstation the store knows (online: a scheduler beating within the dead
    threshold)."""
    dead_after = services.config.scheduler.dead_after_s
    return [workstation_data(w) for w in services.store.workstations(dead_after=dead_after)]


def seen_text(seconds: float | None) -> str:
    """``3 s ago``, ``12 min ago``, ``5 h ago``, ``2 days ago``; ``never`` for None."""
    if seconds is None:
        return "never"
    if seconds < 90:
        return f"{seconds:.0f} s ago"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min ago"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.0f} h ago"
    return f"{seconds / 86400:.0f} days ago"


def read_batch_and_info(
    services: Services, args: argparse.Namespace
) -> tuple[list[NewTask], BatchInfo | None]:
    """The tasks and what the command line says about their batch (name, source file,
    template, title column, schedule); nothing is read when the schedule is wrong."""
    tasks, template = _read_batch_args(services, args)
    if not tasks:
        return tasks, None
    title = args.title_column
    if title is None:  # the column read_batch chose, for the batch's record
        columns, rows, _ = preview_table(args.batch, limit=50)
        title = default_title_column(columns, rows)
    return tasks, BatchInfo(
        tasks[0].batch_id,
        name=args.name,
        source_file=str(args.batch.expanduser().absolute()),
        template=template,
        title_column=title or None,
        start_at=_start_at(services, args),
        active_hours=args.active_hours,
        share=getattr(args, "share", None),
    )


def _start_at(services: Services, args: argparse.Namespace) -> float | None:
    if not args.start_at:
        return None
    return parse_start_at(args.start_at, services.clock.now())


def _read_batch_args(
    services: Services, args: argparse.Namespace
) -> tuple[list[NewTask], str | None]:
    _start_at(services, args)  # a wrong schedule is said before the file is read
    if args.active_hours:
        try:
            active_window(args.active_hours)
        except InputError as exc:
            raise InputError(f"--active-hours: {exc}") from None
    template: str | None = args.template
    if template and template.startswith("@"):
        template_path = Path(template[1:])
        try:
            template = template_path.read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise InputError(f"--template {template_path}: cannot read: {exc.strerror}") from None
    models = {m.name: m.kind for m in services.config.models}
    if args.model is not None and args.model not in models:
        known = ", ".join(sorted(models)) or "none configured"
        raise InputError(f"--model {args.model!r}: unknown model (known: {known})")
    batch: Path = args.batch
    if not batch.exists():
        raise InputError(f"{batch}: no such file")
    tasks = read_batch(
        batch,
        models=models,
        default_model=args.model,
        template=template,
        batch_id=args.batch_id,
        title_column=args.title_column,
    )
    return tasks, template


def scheduler_holder(paths: Paths) -> dict[str, Any] | None:
    """Who runs a scheduler on this data dir right now (from its owner file), or None."""
    try:
        info = json.loads((paths.data_dir / "scheduler.owner").read_text(encoding="utf-8"))
        pid = int(info["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if pid != os.getpid() and not psutil.pid_exists(pid):
        return None
    return {"pid": pid, "host": info.get("host")}


def print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def submit_report(result: SubmitResult) -> str:
    """``batch B: N tasks added`` and, when ids the operator supplied were already present, every
    one of them (they are not added again: re-importing a file is idempotent)."""
    line = f"batch {result.batch_id}: {len(result.added)} tasks added"
    if result.skipped:
        line += f", {len(result.skipped)} already present (skipped, not added again): " + ", ".join(
            result.skipped
        )
    return line


def schedule_report(services: Services, batch_id: str) -> str | None:
    """``batch B: scheduled 12-02 01:00 (active hours 22:00-06:00)``, when it is held now."""
    batch = services.store.batch(batch_id)
    if batch is None:
        return None
    text = start_text(batch, services.clock.now())
    hours = f" (active hours {batch.active_hours})" if batch.active_hours else ""
    if text is None:
        return f"batch {batch_id}: runs inside its active hours{hours}" if hours else None
    return f"batch {batch_id}: {text}{hours}; nothing of it starts earlier"


def log_file_in_use() -> str | None:
    """The CLI's log file (cli.py sets it up), to name it in a one-line error."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrivateRotatingFileHandler):
            return handler.baseFilename
    return None
