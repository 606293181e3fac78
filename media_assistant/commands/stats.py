"""``stats [--since SPAN] [--lane L] [--json]``: the lanes' figures over a window, from the store
(core/metrics/): percentiles of wait, generation and end-to-end time, finished per minute, rates
of timeouts, failures and deferrals, backlog, each account's busy share and quota use, and the
alarms that hold now. Reads only; on a team database the team's figures."""

from __future__ import annotations

import argparse
from typing import Any

from media_assistant.commands.common import open_services, print_json
from media_assistant.core.files.paths import Paths
from media_assistant.core.metrics.alarms import Alarm, evaluate
from media_assistant.core.metrics.compute import compute_figures
from media_assistant.core.metrics.figures import AccountFigures, Figures, LaneFigures, Quantiles
from media_assistant.core.metrics.span import moment_text, since_of
from media_assistant.core.store.metrics_reads import MetricsReads

EXIT_OK = 0
DEFAULT_SPAN = "1h"


def cmd_stats(paths: Paths, args: argparse.Namespace) -> int:
    services = open_services(paths, args, read_only=True, require_config=False)
    try:
        until = services.clock.now()
        since = since_of(args.since, until)
        reads = MetricsReads(services.engine)
        figures = compute_figures(reads, since, until)
        alarms = evaluate(reads, services.config.alarms, until)
    finally:
        services.close()
    data = stats_data(figures, alarms, lane=args.lane)
    if args.json:
        print_json(data)
    else:
        print_text(figures, alarms, lane=args.lane)
    return EXIT_OK


def stats_data(figures: Figures, alarms: list[Alarm], *, lane: str | None = None) -> dict[str, Any]:
    """The JSON of ``stats --json`` (its keys are a contract: README, issue 31)."""
    return {
        "since": moment_text(figures.since),
        "until": moment_text(figures.until),
        "lanes": {name: _lane(fig) for name, fig in figures.lanes.items() if lane in (None, name)},
        "accounts": [_account(a) for a in figures.accounts if lane in (None, a.lane)],
        "alarms": [
            {
                "kind": a.kind,
                "subject": a.subject,
                "since": moment_text(a.since),
                "value": round(a.value, 4),
                "threshold": a.threshold,
            }
            for a in alarms
            if lane is None or a.subject == lane or _lane_of(a.subject, figures) == lane
        ],
    }


def _lane_of(subject: str, figures: Figures) -> str | None:
    return next((a.lane for a in figures.accounts if a.account == subject), None)


def _lane(fig: LaneFigures) -> dict[str, Any]:
    return {
        "finished": fig.finished,
        "per_minute": round(fig.per_minute, 3),
        "wait_s": fig.wait.as_dict(),
        "run_s": fig.run.as_dict(),
        "total_s": fig.total.as_dict(),
        "timeout_rate": round(fig.timeout_rate, 4),
        "failure_rate": round(fig.failure_rate, 4),
        "deferral_rate": round(fig.deferral_rate, 4),
        "backlog": fig.backlog,
    }


def _share(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _account(fig: AccountFigures) -> dict[str, Any]:
    quota = fig.quota
    return {
        "account": fig.account,
        "lane": fig.lane,
        "busy_share": _share(fig.busy_share),
        "quota": None
        if quota is None
        else {
            "rpm_use": _share(quota.rpm_use),
            "tpm_use": _share(quota.tpm_use),
            "in_flight_use": _share(quota.in_flight_use),
        },
    }


def _q(q: Quantiles) -> str:
    return " / ".join("-" if v is None else f"{v:.1f}" for v in (q.p50, q.p90, q.p99))


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def print_text(figures: Figures, alarms: list[Alarm], *, lane: str | None) -> None:
    print(f"from {moment_text(figures.since)} to {moment_text(figures.until)}")
    print(
        f"{'lane':<5}{'finished':>9}{'/min':>7}  {'wait s p50/p90/p99':<20}"
        f"{'run s p50/p90/p99':<20}{'total s p50/p90/p99':<21}"
        f"{'timeouts':>9}{'failures':>9}{'deferred':>9}{'backlog':>8}"
    )
    for name, fig in figures.lanes.items():
        if lane not in (None, name):
            continue
        trend = f"{fig.backlog_trend:+.1f}/min" if fig.backlog_trend else ""
        print(
            f"{name:<5}{fig.finished:>9}{fig.per_minute:>7.1f}  {_q(fig.wait):<20}"
            f"{_q(fig.run):<20}{_q(fig.total):<21}{_pct(fig.timeout_rate):>9}"
            f"{_pct(fig.failure_rate):>9}{_pct(fig.deferral_rate):>9}{fig.backlog:>8} {trend}"
        )
        kinds = {**fig.failures_by_kind, **fig.deferrals_by_kind}
        if kinds:
            print("      " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print(f"{'account':<24}{'lane':<6}{'busy':>6}{'rpm':>7}{'tpm':>7}{'in flight':>11}")
    for a in figures.accounts:
        if lane not in (None, a.lane):
            continue
        q = a.quota
        print(
            f"{a.account:<24}{a.lane:<6}{_pct(a.busy_share):>6}"
            f"{_pct(q.rpm_use if q else None):>7}{_pct(q.tpm_use if q else None):>7}"
            f"{_pct(q.in_flight_use if q else None):>11}"
        )
    if not alarms:
        print("alarms: none")
    for alarm in alarms:
        print(
            f"ALARM {alarm.kind} {alarm.subject}: {alarm.value:.3g} (threshold "
            f"{alarm.threshold:g}) since {moment_text(alarm.since)}"
        )
