"""``--since SPAN``: how far back the figures look."""

from __future__ import annotations

import datetime as dt
import re

from media_assistant.core.model.errors import InputError

_PART = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
_UNIT = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
SPAN_HELP = "15m, 1h, 2h30m, 1d, today, or a local time YYYY-MM-DDTHH:MM"


def since_of(span: str, now: float) -> float:
    """The window's start for ``span`` ending at ``now``; InputError names what is wrong."""
    text = span.strip().lower()
    if text == "today":
        local = dt.datetime.fromtimestamp(now).astimezone()
        return local.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    if _PART.fullmatch(text) or re.fullmatch(r"(?:\d+(?:\.\d+)?[smhd])+", text):
        seconds = sum(float(n) * _UNIT[u] for n, u in _PART.findall(text))
        if seconds > 0:
            return now - seconds
    else:
        try:
            moment = dt.datetime.fromisoformat(span.strip())
        except ValueError:
            pass
        else:
            start = (moment if moment.tzinfo else moment.astimezone()).timestamp()
            if start < now:
                return start
            raise InputError(f"--since {span}: that is not in the past")
    raise InputError(f"--since {span}: not a span ({SPAN_HELP})")


def moment_text(at: float) -> str:
    """A moment as ISO 8601 with the local offset, to the second."""
    return dt.datetime.fromtimestamp(at).astimezone().isoformat(timespec="seconds")
