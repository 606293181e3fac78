"""Alarms on the lanes' figures (issue 31 item 3), at the incident accounts' thresholds
(``[alarms]``, core/config/metrics.py). Stateless: what holds at a moment, judged from the store
(so every workstation of a team judges alike); core/metrics/watch.py turns it into episodes.

=====================  ===============================================================  =========
kind                   holds when                                                       subject
=====================  ===============================================================  =========
``timeout_rate``       the lane's timeouts ÷ attempts over ``window_min`` > the bound    lane
``failure_rate``       (failures + deferrals) ÷ attempts over ``window_min`` > the bound lane
``quota_use``          requests or tokens per minute ÷ the limit ≥ the bound in each    account
                       of the last ``quota_min`` minutes
``backlog_growing``    the backlog never fell in any minute of ``window_min`` and ended  lane
                       higher, while an enabled account of the lane generated nothing
``p90_total``          the p90 end-to-end time over ``window_min`` > ``p90_total_s``    lane
=====================  ===============================================================  =========

Rates are judged from ``min_attempts`` attempts on: two timeouts of three attempts are no trend.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from media_assistant.core.config.metrics import AlarmsConfig
from media_assistant.core.metrics.compute import compute_figures
from media_assistant.core.store.metrics_reads import MetricsReads

MINUTE = 60.0


@dataclass(frozen=True)
class Alarm:
    kind: str
    subject: str  # a lane or an account
    since: float  # the start of the span it was judged over
    value: float
    threshold: float

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.subject)


def evaluate(reads: MetricsReads, config: AlarmsConfig, at: float) -> list[Alarm]:
    """The alarms that hold at ``at`` (on a database reader thread)."""
    if not config.enabled:
        return []
    window = config.window_min * MINUTE
    since = at - window
    figures = compute_figures(reads, since, at, bucket_s=MINUTE)
    out: list[Alarm] = []
    for lane, fig in figures.lanes.items():
        if fig.attempts >= config.min_attempts:
            if fig.timeout_rate > config.timeout_rate:
                out.append(
                    Alarm("timeout_rate", lane, since, fig.timeout_rate, config.timeout_rate)
                )
            rate = (fig.failures + fig.deferrals) / fig.attempts
            if rate > config.failure_rate:
                out.append(Alarm("failure_rate", lane, since, rate, config.failure_rate))
        if config.p90_total_s and fig.total.p90 is not None and fig.total.p90 > config.p90_total_s:
            out.append(Alarm("p90_total", lane, since, fig.total.p90, config.p90_total_s))
        if config.backlog_growth and figures.series is not None:
            levels = [fig.backlog_at_start, *figures.series.backlog[lane]]
            grew = levels[-1] > levels[0] and all(b >= a for a, b in itertools.pairwise(levels))
            idle = any(
                a.lane == lane and a.enabled and a.busy_s == 0 and a.enabled_s > 0
                for a in figures.accounts
            )
            if grew and idle:
                out.append(
                    Alarm("backlog_growing", lane, since, float(levels[-1]), float(levels[0]))
                )
    quota_since = at - config.quota_min * MINUTE
    quota = compute_figures(reads, quota_since, at, bucket_s=MINUTE)
    assert quota.series is not None
    for account in quota.accounts:
        if account.lane != "api":
            continue
        uses = [
            max(r or 0.0, t or 0.0)
            for r, t in zip(
                quota.series.rpm_use.get(account.account, []),
                quota.series.tpm_use.get(account.account, []),
                strict=True,
            )
        ]
        if uses and min(uses) >= config.quota_use:
            out.append(
                Alarm("quota_use", account.account, quota_since, min(uses), config.quota_use)
            )
    return out
