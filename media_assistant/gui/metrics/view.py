"""The Metrics window: the lanes' figures over a span (tables) and over the day (charts), read
from the store on a database reader thread every 30 s while the window is shown. On a team
database they are the team's: every workstation's lanes and accounts."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.config.metrics import AlarmsConfig
from media_assistant.core.metrics.alarms import Alarm, evaluate
from media_assistant.core.metrics.compute import compute_figures
from media_assistant.core.metrics.figures import Figures, Quantiles
from media_assistant.core.metrics.span import since_of
from media_assistant.core.store.metrics_reads import MetricsReads
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.metrics.charts import COLOURS, LANE_COLOURS, Chart
from media_assistant.services import Services

REFRESH_MS = 30_000
DAY_BUCKET_S = 600.0  # the day's charts: one point per 10 minutes


@dataclass(frozen=True)
class Snapshot:
    span: Figures
    day: Figures
    alarms: list[Alarm]


def load(
    reads: MetricsReads, config: AlarmsConfig, since: float, day_start: float, now: float
) -> Snapshot:
    """Everything the window shows, in one trip to a reader thread."""
    return Snapshot(
        compute_figures(reads, since, now),
        compute_figures(reads, day_start, now, bucket_s=DAY_BUCKET_S),
        evaluate(reads, config, now),
    )


def _q(q: Quantiles) -> str:
    return " / ".join("–" if v is None else f"{v:.0f}" for v in (q.p50, q.p90, q.p99))


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.0f}%"


class MetricsWindow(QWidget):
    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.services = services
        self.reads = MetricsReads(services.engine)
        self.setWindowTitle(self.tr("Metrics"))
        self.spans = [("15m", self.tr("Last 15 minutes")), ("1h", self.tr("Last hour")),
                      ("today", self.tr("Today"))]  # fmt: skip
        self.span = QComboBox(self)
        for _key, text in self.spans:
            self.span.addItem(text)
        self.span.setCurrentIndex(1)
        self.span.currentIndexChanged.connect(lambda _i: self.refresh())
        team = services.store_url is not None
        self.scope = QLabel(
            self.tr("All workstations of the team") if team else self.tr("This workstation"), self
        )
        self.updated = QLabel(self)
        self.legend = QLabel(self.tr("Times: p50 / p90 / p99 in seconds"), self)
        self.alarms = QLabel(self)
        self.alarms.setWordWrap(True)
        self.lanes = self._table(
            [self.tr("Lane"), self.tr("Ended"), self.tr("Per minute"),
             self.tr("Wait (s)"), self.tr("Generation (s)"), self.tr("End to end (s)"),
             self.tr("Timeouts"),
             self.tr("Failures"), self.tr("Deferrals"), self.tr("Backlog")]
        )  # fmt: skip
        self.accounts = self._table(
            [self.tr("Account"), self.tr("Lane"), self.tr("Busy"), self.tr("Requests/min"),
             self.tr("Tokens/min"), self.tr("In flight")]
        )  # fmt: skip
        self.finished_chart = Chart(
            self.tr("Finished per minute, today"), self.tr("tasks/min"), time_axis=True,
            parent=self,
        )  # fmt: skip
        self.p90_chart = Chart(
            self.tr("p90 end to end, today"), self.tr("minutes"), time_axis=True, parent=self
        )
        self.busy_chart = Chart(
            self.tr("Busy share per account"), self.tr("%"), time_axis=False, parent=self
        )
        self.quota_chart = Chart(
            self.tr("API quota use, today"), self.tr("% of limit"), time_axis=True, parent=self
        )

        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Span:"), self))
        top.addWidget(self.span)
        top.addWidget(self.scope)
        top.addSpacing(24)
        top.addWidget(self.legend)
        top.addStretch(1)
        top.addWidget(self.updated)
        tables = QHBoxLayout()
        tables.addWidget(self.lanes, 3)
        tables.addWidget(self.accounts, 2)
        charts = QGridLayout()
        charts.addWidget(self.finished_chart, 0, 0)
        charts.addWidget(self.p90_chart, 0, 1)
        charts.addWidget(self.busy_chart, 1, 0)
        charts.addWidget(self.quota_chart, 1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(tables, 2)
        layout.addWidget(self.alarms)
        layout.addLayout(charts, 5)
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.resize(1280, 700)
        self._loading = False

    def _table(self, headers: list[str]) -> QTableWidget:
        table = QTableWidget(0, len(headers), self)
        table.setHorizontalHeaderLabels(headers)
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        return table

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.timer.start()
        self.refresh()

    def hideEvent(self, event: object) -> None:  # noqa: N802 - Qt's name
        self.timer.stop()

    def refresh(self) -> None:
        if not self._loading:
            self._loading = True
            spawn(self.reload(), "metrics")

    async def reload(self) -> Snapshot:
        try:
            now = self.services.clock.now()
            since = since_of(self.spans[self.span.currentIndex()][0], now)
            day_start = since_of("today", now)
            alarms = self.services.config.alarms
            snapshot = await self.services.db.read(load, self.reads, alarms, since, day_start, now)
        finally:
            self._loading = False
        self.show_snapshot(snapshot)
        return snapshot

    def lane_word(self, lane: str) -> str:
        return {"web": self.tr("Web"), "api": self.tr("API")}.get(lane, lane)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        span = snapshot.span
        self.updated.setText(
            self.tr("Updated %1").replace(
                "%1", dt.datetime.fromtimestamp(span.until).strftime("%H:%M:%S")
            )
        )
        self.lanes.setRowCount(len(span.lanes))
        for row, (lane, fig) in enumerate(span.lanes.items()):
            trend = f" ({fig.backlog_trend:+.1f}/min)" if abs(fig.backlog_trend) >= 0.05 else ""
            cells = [
                self.lane_word(lane), str(fig.finished), f"{fig.per_minute:.1f}", _q(fig.wait),
                _q(fig.run), _q(fig.total), _pct(fig.timeout_rate), _pct(fig.failure_rate),
                _pct(fig.deferral_rate), f"{fig.backlog}{trend}",
            ]  # fmt: skip
            self._fill(self.lanes, row, cells)
        self.accounts.setRowCount(len(span.accounts))
        for row, acc in enumerate(span.accounts):
            q = acc.quota
            cells = [acc.account, self.lane_word(acc.lane), _pct(acc.busy_share),
                     _pct(q.rpm_use if q else None), _pct(q.tpm_use if q else None),
                     _pct(q.in_flight_use if q else None)]  # fmt: skip
            self._fill(self.accounts, row, cells)
        self.alarms.setText(self.alarm_text(snapshot.alarms))
        self.draw(snapshot)

    def _fill(self, table: QTableWidget, row: int, cells: list[str]) -> None:
        for col, text in enumerate(cells):
            known = table.item(row, col)
            if known is not None and known.text() == text:
                continue  # a new item re-sizes its column: only what changed
            item = QTableWidgetItem(text)
            if col:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(row, col, item)

    def alarm_text(self, alarms: list[Alarm]) -> str:
        if not alarms:
            return self.tr("No alarm")
        names = {
            "timeout_rate": self.tr("timeouts"),
            "failure_rate": self.tr("failures and deferrals"),
            "quota_use": self.tr("quota use"),
            "backlog_growing": self.tr("backlog growing"),
            "p90_total": self.tr("p90 end to end"),
        }
        parts = [f"{names.get(a.kind, a.kind)} · {self.lane_word(a.subject)}" for a in alarms]
        return self.tr("Alarms: %1").replace("%1", "; ".join(parts))

    def draw(self, snapshot: Snapshot) -> None:
        """The day's charts; each chart changes only what moved (gui/metrics/charts.py)."""
        day = snapshot.day
        series = day.series
        if series is None:
            for chart in (self.finished_chart, self.p90_chart, self.busy_chart, self.quota_chart):
                chart.clear_all()
            return
        xs = [t + DAY_BUCKET_S / 2 for t in series.starts]
        per_min = DAY_BUCKET_S / 60.0
        finished, p90 = [], []
        for lane, counts in series.finished.items():
            colour = LANE_COLOURS.get(lane, COLOURS[2])
            name = self.lane_word(lane)
            finished.append((name, colour, xs, [c / per_min for c in counts]))
            p90.append(
                (
                    name,
                    colour,
                    xs,
                    [None if v is None else v / 60.0 for v in series.p90_total[lane]],
                )
            )
        self.finished_chart.lines(finished)
        self.p90_chart.lines(p90)
        accounts = [a for a in snapshot.span.accounts if a.busy_share is not None]
        self.busy_chart.bars(
            [a.account for a in accounts], [(a.busy_share or 0.0) * 100 for a in accounts]
        )
        self.busy_chart.setYRange(0, 100)
        quota = []
        for i, (account, uses) in enumerate(sorted(series.rpm_use.items())):
            tokens = series.tpm_use.get(account, [])
            most = [
                None if r is None and t is None else max(r or 0.0, t or 0.0) * 100
                for r, t in zip(uses, tokens, strict=True)
            ]
            quota.append((account, COLOURS[(i + 2) % len(COLOURS)], xs, most))
        self.quota_chart.lines(quota)
        self.quota_chart.limit("limit", 100.0, self.tr("limit"), dashed=False)
        alarm_at = self.services.config.alarms.quota_use * 100
        self.quota_chart.limit("alarm", alarm_at, self.tr("alarm"), dashed=True)
