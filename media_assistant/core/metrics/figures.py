"""The figures of the lanes over a window, as plain values (what ``stats``, the Metrics view,
the Prometheus endpoint and the alarms read).

Percentiles are exact over the window's tasks, never averages of averages: the values sorted,
then linear interpolation between the two nearest ranks (``numpy.percentile``'s default and
``statistics.quantiles(method="inclusive")``: p50 of 1, 2, 3, 4 is 2.5), written out here so
a list and a numpy array sorted by core/metrics/compute.py give the same bits (numpy's own
``percentile`` rounds its interpolation differently in the last place).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


def percentile(ordered: Sequence[float], q: float) -> float | None:
    """The ``q`` (0..1) percentile of values sorted ascending; None for no values."""
    if len(ordered) == 0:
        return None
    pos = (len(ordered) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(frozen=True)
class Quantiles:
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None

    @classmethod
    def of(cls, values: list[float]) -> Quantiles:
        values.sort()
        return cls(percentile(values, 0.5), percentile(values, 0.9), percentile(values, 0.99))

    def as_dict(self) -> dict[str, float | None]:
        return {"p50": _round(self.p50), "p90": _round(self.p90), "p99": _round(self.p99)}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


@dataclass
class GroupFigures:
    """One lane, model, account or workstation over the window.

    Times are of the tasks that *succeeded* in the window: ``wait`` from submission to the start
    of the attempt that answered, ``run`` that attempt's generation, ``total`` submission to
    answer. Rates are of the attempts that *ended* in the window: ``timeouts`` (error kind
    timeout), ``failures`` (every attempt that ended in an error: failed, retried, lost,
    quality-rejected — timeouts included), ``deferrals`` (rate-limited, site busy, captcha…: back
    in the queue, no attempt used)."""

    finished: int = 0  # succeeded + failed + canceled in the window
    succeeded: int = 0
    failed: int = 0
    canceled: int = 0
    per_minute: float = 0.0  # finished ÷ the window's minutes
    wait: Quantiles = field(default_factory=Quantiles)
    run: Quantiles = field(default_factory=Quantiles)
    total: Quantiles = field(default_factory=Quantiles)
    attempts: int = 0  # attempts that ended in the window
    timeouts: int = 0
    failures: int = 0
    deferrals: int = 0
    failures_by_kind: dict[str, int] = field(default_factory=dict)
    deferrals_by_kind: dict[str, int] = field(default_factory=dict)

    @property
    def timeout_rate(self) -> float:
        return self.timeouts / self.attempts if self.attempts else 0.0

    @property
    def failure_rate(self) -> float:
        return self.failures / self.attempts if self.attempts else 0.0

    @property
    def deferral_rate(self) -> float:
        return self.deferrals / self.attempts if self.attempts else 0.0


@dataclass
class LaneFigures(GroupFigures):
    backlog: int = 0  # submitted and not ended at the window's end
    backlog_at_start: int = 0
    # Backlog change per minute over the window (positive: it grows).
    backlog_trend: float = 0.0


@dataclass(frozen=True)
class Quota:
    """An API account's use of what was bought, each a share of its limit (1.0 = all of it):
    requests started and tokens answered in the window's last minute, requests in flight at its
    end. None where the account has no such limit."""

    rpm_use: float | None = None
    tpm_use: float | None = None
    in_flight_use: float | None = None
    rpm: int = 0
    tpm: int = 0
    in_flight: int = 0
    rpm_limit: int | None = None
    tpm_limit: int | None = None
    in_flight_limit: int | None = None


@dataclass
class AccountFigures(GroupFigures):
    account: str = ""
    lane: str = ""
    enabled: bool = True
    busy_s: float = 0.0  # generating, summed over its slots
    enabled_s: float = 0.0  # a scheduler ran while it was enabled, times its slots
    quota: Quota | None = None  # API accounts

    @property
    def busy_share(self) -> float | None:
        return min(1.0, self.busy_s / self.enabled_s) if self.enabled_s > 0 else None


@dataclass(frozen=True)
class Series:
    """Buckets over the window, for the charts: per lane the tasks that ended, the p90
    end-to-end time of the bucket's answers and the backlog at the bucket's end; per API account
    the use of its requests and tokens per minute (None: no such limit)."""

    starts: list[float]  # each bucket's start
    finished: dict[str, list[int]]
    p90_total: dict[str, list[float | None]]
    backlog: dict[str, list[int]]
    rpm_use: dict[str, list[float | None]]
    tpm_use: dict[str, list[float | None]]


@dataclass
class Figures:
    since: float
    until: float
    lanes: dict[str, LaneFigures]
    models: dict[str, GroupFigures]
    accounts: list[AccountFigures]
    workstations: dict[str, GroupFigures]
    series: Series | None = None

    @property
    def minutes(self) -> float:
        return max(self.until - self.since, 1e-9) / 60.0
