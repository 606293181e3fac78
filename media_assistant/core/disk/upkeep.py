"""What a scheduler does once when it starts (``run``, the desktop app): old diagnostics are
pruned, and the daily check and backup of the task store run (core/disk/backups.py)."""

from __future__ import annotations

import datetime as dt
import logging

from media_assistant.core.config.schema import AppConfig
from media_assistant.core.disk.backups import DailyOutcome, daily_backup
from media_assistant.core.files.diagnostics import prune
from media_assistant.core.files.paths import Paths

log = logging.getLogger(__name__)


def start_of_day(
    paths: Paths, config: AppConfig, *, now: dt.datetime | None = None
) -> DailyOutcome:
    """Slow on a big store (it reads all of it): run it off the GUI thread."""
    removed = prune(paths.diagnostics, config.diagnostics.retention())
    if removed:
        log.info("diagnostics: removed %d old file(s) from %s", len(removed), paths.diagnostics)
    outcome = daily_backup(paths.database, paths.backups, now=now)
    if outcome.made is not None:
        log.info("task store backed up to %s (%d tasks)", outcome.made.path, outcome.made.tasks)
    if outcome.damage is not None:
        log.error("task store %s failed its daily check: %s", paths.database, outcome.damage)
    return outcome
