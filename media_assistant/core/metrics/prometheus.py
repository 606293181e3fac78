"""The lanes' figures for Prometheus (issue 31 item 5), with the official client library
(``prometheus-client``, pinned): it writes the text and OpenMetrics formats, negotiates which
one a scraper asks for and serves them from a thread of its own — the exposition format's
escaping and the histogram conventions (``_bucket``/``_count``/``_sum``, ``le="+Inf"``) are its
job, not hand-written here. It is pure Python, ~100 kB: nothing for the bundle's size.

What is exposed (no prompts, no answers, no keys, no texts from a site — counts, seconds and
ratios labelled with lanes, models and account ids):

- histograms ``media_assistant_task_wait_seconds``, ``…_run_seconds``, ``…_total_seconds``
  (``lane``, ``model``, ``account``): every answered task in the store, submission → start of
  the answering attempt, that attempt's generation, submission → answer;
- counter ``media_assistant_tasks_finished_total`` (``lane``, ``state``, ``kind``: the error
  kind of a failed or canceled task, "" for an answer);
- gauges ``media_assistant_backlog`` (``lane``: submitted, not ended),
  ``media_assistant_account_busy`` (``account``: the share of the last 5 minutes it generated,
  over its slots), ``media_assistant_quota_use_ratio`` (``account``, ``limit``: rpm, tpm or
  in_flight — the last minute's use ÷ the limit).

The histograms and the counter are the store's, not this process's: they count every task the
store holds (so a restart, or another workstation of a team, serves the same numbers), read in
full at the first scrape and then only the tasks that ended since (``SETTLE_S`` behind the
clock, so an answer committed a moment late is not skipped).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from prometheus_client import start_http_server
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector, CollectorRegistry

from media_assistant.core.metrics.compute import compute_figures
from media_assistant.core.model.clock import Clock
from media_assistant.core.store.metrics_reads import MetricsReads

R = TypeVar("R")
Reader = Callable[..., Any]
"""How the collector reaches the database: ``reader(fn, *args)`` runs ``fn(*args)`` on a database
thread and returns its result (``DbThreads.submit_read(...).result``), or calls it in place."""

# Buckets from 1 s to 10 min (a chat answer takes seconds to minutes; waits can be long).
BUCKETS: tuple[float, ...] = (1, 2, 5, 10, 15, 30, 45, 60, 90, 120, 180, 240, 300, 450, 600)
SETTLE_S = 5.0
BUSY_WINDOW_S = 300.0
HISTOGRAMS = (
    ("media_assistant_task_wait_seconds", "Submission to the start of the answering attempt."),
    ("media_assistant_task_run_seconds", "Generation time of the answering attempt."),
    ("media_assistant_task_total_seconds", "Submission to answer (end to end)."),
)


class _Histogram:
    __slots__ = ("buckets", "count", "total")

    def __init__(self) -> None:
        self.buckets = [0] * (len(BUCKETS) + 1)  # the last one: +Inf
        self.count = 0
        self.total = 0.0

    def observe(self, value: float) -> None:
        self.count += 1
        self.total += value
        for i, bound in enumerate(BUCKETS):
            if value <= bound:
                self.buckets[i] += 1
                return
        self.buckets[-1] += 1

    def cumulative(self) -> list[tuple[str, float]]:
        out, running = [], 0
        bounds = (*[str(float(b)) for b in BUCKETS], "+Inf")  # as the library writes le
        for bound, n in zip(bounds, self.buckets, strict=True):
            running += n
            out.append((bound, float(running)))
        return out


class StoreCollector(Collector):
    """Collects the figures from the store at each scrape (see the module docstring)."""

    def __init__(self, reads: MetricsReads, clock: Clock, reader: Reader | None = None) -> None:
        self.reads = reads
        self.clock = clock
        self.reader: Reader = reader or (lambda fn, *args: fn(*args))
        self._lock = threading.Lock()
        self._read_to: float | None = None
        self._hist: dict[int, dict[tuple[str, str, str], _Histogram]] = {0: {}, 1: {}, 2: {}}
        self._finished: dict[tuple[str, str, str], int] = {}

    def _catch_up(self, until: float) -> None:
        since = self._read_to if self._read_to is not None else float("-inf")
        if since == float("-inf"):
            since = -1e18
        rows = self.reader(self.reads.ended, since, until)
        for lane, model, account, state, kind, *times in rows:
            labels = (str(lane), str(model), str(account or ""))
            key = (str(lane), str(state), "" if state == "success" else str(kind or ""))
            self._finished[key] = self._finished.get(key, 0) + 1
            if state == "success":
                for i, value in enumerate(times):
                    hist = self._hist[i].get(labels)
                    if hist is None:
                        hist = self._hist[i][labels] = _Histogram()
                    hist.observe(max(0.0, float(value)))
        self._read_to = until

    def collect(self) -> Iterator[Metric]:
        now = self.clock.now()
        with self._lock:
            self._catch_up(now - SETTLE_S)
            families: list[Metric] = []
            for i, (name, doc) in enumerate(HISTOGRAMS):
                family = HistogramMetricFamily(
                    name, doc, labels=["lane", "model", "account"], unit="seconds"
                )
                for labels, hist in sorted(self._hist[i].items()):
                    family.add_metric(list(labels), hist.cumulative(), hist.total)
                families.append(family)
            finished = CounterMetricFamily(
                "media_assistant_tasks_finished",
                "Tasks that ended, by lane, state and error kind.",
                labels=["lane", "state", "kind"],
            )
            for key, n in sorted(self._finished.items()):
                finished.add_metric(list(key), float(n))
            families.append(finished)
        figures = self.reader(compute_figures, self.reads, now - BUSY_WINDOW_S, now)
        backlog = GaugeMetricFamily(
            "media_assistant_backlog", "Tasks submitted and not ended.", labels=["lane"]
        )
        for lane, fig in sorted(figures.lanes.items()):
            backlog.add_metric([lane], float(fig.backlog))
        busy = GaugeMetricFamily(
            "media_assistant_account_busy",
            "Share of the last 5 minutes an account generated, over its slots (0..1).",
            labels=["account"],
        )
        quota = GaugeMetricFamily(
            "media_assistant_quota_use_ratio",
            "An API account's use of a limit in the last minute (1 = all of it).",
            labels=["account", "limit"],
        )
        for account in figures.accounts:
            share = account.busy_share
            if share is not None:
                busy.add_metric([account.account], share)
            q = account.quota
            if q is None:
                continue
            for limit, value in (
                ("rpm", q.rpm_use),
                ("tpm", q.tpm_use),
                ("in_flight", q.in_flight_use),
            ):
                if value is not None:
                    quota.add_metric([account.account, limit], value)
        yield from families
        yield backlog
        yield busy
        yield quota


def serve(
    host: str, port: int, reads: MetricsReads, clock: Clock, reader: Reader | None = None
) -> tuple[Any, threading.Thread]:
    """Serve the figures at http://host:port/metrics (any path) from a thread of the library's;
    ``server.shutdown()`` stops it. OSError when the address is taken or not ours."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(reads, clock, reader))
    return start_http_server(port, addr=host, registry=registry)
