"""A batch's schedule as the operator types it: ``--start-at 2026-12-02T01:00`` (local time),
``--active-hours 22:00-06:00``; and what a schedule means at a given moment.

Pure (``now`` is passed in); the claim statement applies schedules (core/store/holds.py), this
module only reads and describes them.
"""

from __future__ import annotations

import datetime as dt

from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import BatchRecord
from media_assistant.core.rules.pacing import in_active_hours, next_opening

_FORMATS = "YYYY-MM-DDTHH:MM (local time), or HH:MM for the next such time"


def parse_start_at(text: str, now: float) -> float:
    """Epoch seconds for ``2026-12-02T01:00`` / ``2026-12-02 01:00`` (local time unless it
    carries an offset) or ``01:00`` (the next 01:00 from ``now``)."""
    value = text.strip()
    try:
        if len(value) <= 5 and ":" in value:
            clock = dt.time.fromisoformat(value.zfill(5))
            base = dt.datetime.fromtimestamp(now)
            moment = base.replace(hour=clock.hour, minute=clock.minute, second=0, microsecond=0)
            if moment.timestamp() <= now:
                moment += dt.timedelta(days=1)
            return moment.timestamp()
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise InputError(f"--start-at {text!r}: not a time; write {_FORMATS}") from None
    return moment.timestamp()  # a naive time is local time


def held_until(batch: BatchRecord, now: float) -> float | None:
    """When the batch's schedule next lets its tasks start, if it holds them at ``now``."""
    until: float | None = None
    if batch.start_at is not None and batch.start_at > now:
        until = batch.start_at
    if batch.active_from is not None and batch.active_until is not None:
        hours = (batch.active_from, batch.active_until)
        moment = until if until is not None else now
        if not in_active_hours(moment, hours, None):
            until = next_opening(moment, hours, None)
    return until


def start_text(batch: BatchRecord, now: float) -> str | None:
    """``scheduled 01:00`` (today), ``scheduled 12-02 01:00`` (another day), or None."""
    until = held_until(batch, now)
    if until is None:
        return None
    moment = dt.datetime.fromtimestamp(until)
    same_day = moment.date() == dt.datetime.fromtimestamp(now).date()
    return "scheduled " + (moment.strftime("%H:%M") if same_day else moment.strftime("%m-%d %H:%M"))
