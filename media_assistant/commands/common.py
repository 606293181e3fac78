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

from media_assistant.core.batch_import import read_batch
from media_assistant.core.errors import InputError
from media_assistant.core.paths import Paths
from media_assistant.core.private_files import PrivateRotatingFileHandler
from media_assistant.core.records import NewTask, SubmitResult
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
    )


def read_batch_args(services: Services, args: argparse.Namespace) -> list[NewTask]:
    """Parse the batch named on the command line; InputError (exit 2) rejects the whole file."""
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
    return read_batch(
        batch,
        models=models,
        default_model=args.model,
        template=template,
        batch_id=args.batch_id,
    )


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


def log_file_in_use() -> str | None:
    """The CLI's log file (cli.py sets it up), to name it in a one-line error."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrivateRotatingFileHandler):
            return handler.baseFilename
    return None
