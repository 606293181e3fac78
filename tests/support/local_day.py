"""For tests that count "today" on the real clock in a process of their own (a CLI run), where
no clock can be injected: start them where the local day cannot end under them."""

from __future__ import annotations

import datetime as dt
import time


def seconds_to_midnight(now: float | None = None) -> float:
    """Seconds from ``now`` (default: the real now) to the next local midnight."""
    moment = dt.datetime.fromtimestamp(time.time() if now is None else now).astimezone()
    midnight = (moment + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight.timestamp() - moment.timestamp()


def clear_of_midnight(need_s: float) -> None:
    """Return once the local day has at least ``need_s`` seconds left: sleeps past midnight
    when it has fewer (at most ``need_s`` + 1 s, once a day)."""
    left = seconds_to_midnight()
    if left < need_s:
        time.sleep(left + 1.0)
