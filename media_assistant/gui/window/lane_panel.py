"""Per lane, at a glance: what runs, what waits, how far along, how fast, when it will be done
— from that lane's own observed durations — and whether heartbeats went stale."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QDateTime, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QProgressBar,
    QStyle,
    QToolButton,
    QWidget,
)

from media_assistant.core.rules.eta import LaneEstimate, Slot
from media_assistant.core.rules.pacing import time_of_day
from media_assistant.gui.bridge.queue_holds import Hold
from media_assistant.gui.common import labels
from media_assistant.gui.common.pacing_labels import minutes
from media_assistant.gui.common.style import (
    AMBER,
    LANE_COLORS,
    RED,
    STATE_COLORS,
    bold,
    format_duration,
)
from media_assistant.gui.tasks.rows import LaneIndex


class LanePanel(QFrame):
    pause_toggled = Signal(str, bool)  # lane, pause (True) or resume (False)

    def __init__(self, lane: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lane = lane
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName(f"lane-{lane}")
        self.title = QLabel(labels.lane_title(lane), self)
        self.title.setFont(bold(self.font()))
        self.title.setStyleSheet(f"color: {LANE_COLORS.get(lane, '#444')}")
        self.subtitle = QLabel(self)
        self.subtitle.setStyleSheet("color: palette(mid)")
        self.progress = QProgressBar(self)
        self.progress.setTextVisible(True)
        self.counts = QLabel(self)
        self.counts.setTextFormat(Qt.TextFormat.RichText)
        self.eta = QLabel(self)
        self.eta.setFont(bold(self.font()))
        self.throughput = QLabel(self)
        self.warning = QLabel(self)
        self.warning.setWordWrap(True)
        self.pause_button = QToolButton(self)
        self.pause_button.setObjectName(f"pause-{lane}")
        self.pause_button.setAutoRaise(True)
        self.pause_button.clicked.connect(self._on_pause_button_clicked)
        self._paused = False
        self._show_paused(False)
        grid = QGridLayout(self)
        # Tight: on a 1366×768 laptop every pixel here is taken from the task table.
        grid.setContentsMargins(8, 4, 8, 4)
        grid.setVerticalSpacing(2)
        # The progress bar on the title's row: a row more for the task table.
        grid.addWidget(self.title, 0, 0)
        grid.addWidget(self.progress, 0, 1)
        grid.addWidget(self.subtitle, 0, 2, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.pause_button, 0, 3, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.counts, 1, 0, 1, 4)
        grid.addWidget(self.eta, 2, 0, 1, 3)
        grid.addWidget(self.throughput, 2, 3, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.warning, 3, 0, 1, 4)
        grid.setColumnStretch(1, 1)
        self.last_estimate: LaneEstimate | None = None  # the latest plan's (queue_controls.py)

    def _show_paused(self, paused: bool) -> None:
        self._paused = paused
        icon = QStyle.StandardPixmap.SP_MediaPlay if paused else QStyle.StandardPixmap.SP_MediaPause
        self.pause_button.setIcon(self.style().standardIcon(icon))
        self.pause_button.setToolTip(
            self.tr("Resume this lane")
            if paused
            else self.tr("Pause this lane: running tasks finish")
        )

    def _on_pause_button_clicked(self) -> None:
        self.pause_toggled.emit(self.lane, not self._paused)

    def refresh(
        self,
        index: LaneIndex,
        servers: Sequence[Slot],
        now: float,
        *,
        estimate: LaneEstimate | None = None,
        focus: LaneIndex | None = None,
        focus_finish: float | None = None,
        focus_start: float | None = None,
        focus_hold: Hold | None = None,
        paused: bool = False,
        elsewhere: Mapping[str, str] | None = None,
    ) -> None:
        """From the lane's index (kept up to date by the model): no walk over every task.

        ``estimate``: a new plan's estimate for the lane (gui/batches/eta.py; the queue controls
        decide when to make one), else the last one stays. ``focus``: the batch the operator
        picked — counts and progress are its own, the ETA its expected end (``focus_finish``)
        in the lane's real queue, from its first start (``focus_start``: later than now when a
        schedule holds it); ``focus_hold``: what holds its waiting tasks now, if anything.
        ``paused``: the lane (or the whole queue) is paused. Held work says what holds it
        ("Paused", "Scheduled 16:09", "After 16:09 + 4 min"), never an ETA of zero.
        ``elsewhere``: waiting models only another workstation's accounts serve → where
        (team mode: "web-model: served on pc-03")."""
        self._elsewhere = dict(elsewhere or {})
        if estimate is not None:
            self.last_estimate = estimate
        estimate = self.last_estimate
        if paused != self._paused:
            self._show_paused(paused)
        shown = focus if focus is not None else index
        n = shown.counts
        total = sum(n.values())
        ended = n["success"] + n["failed"] + n["canceled"]
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(ended)
        self.progress.setFormat(
            self.tr("%1 of %2 done").replace("%1", str(ended)).replace("%2", str(total))
        )
        cap = sum(s.slots for s in servers if s.available)
        self.subtitle.setText(
            self.tr("%1 · %2", "accounts · free slots")
            .replace("%1", self.tr("%n account(s)", "", len(servers)))
            .replace("%2", self.tr("%n slot(s) free", "", max(0, cap - n["running"])))
        )
        self.counts.setText(
            " · ".join(
                f"<span style='color:{STATE_COLORS[key]}'>{labels.task_state(key)} "
                f"<b>{n[key]}</b></span>"
                for key in ("running", "pending", "success", "failed", "canceled")
            )
        )
        if paused and index.counts["running"]:
            self.eta.setText(self.tr("Pausing after the current task"))
        elif paused:
            self.eta.setText(self.tr("Paused"))
        elif focus is not None:
            self.eta.setText(self._focus_text(focus_finish, focus_start, focus_hold, n, now))
        else:
            self.eta.setText(self._eta_text(estimate, n, now))
        tp = estimate.throughput_per_min if estimate is not None else None
        self.throughput.setText(self.tr("%1/min").replace("%1", f"{tp:.1f}") if tp else "")
        self._set_warning(estimate)

    def _focus_text(
        self,
        finish: float | None,
        start: float | None,
        hold: Hold | None,
        n: dict[str, int],
        now: float,
    ) -> str:
        if not n["pending"] and not n["running"]:
            return self.tr("Idle")
        if hold is not None and hold.kind == "paused":  # as the whole lane says it (below)
            if n["running"]:
                return self.tr("Pausing after the current task")
            return self.tr("Paused: %n task(s) wait", "", n["pending"])
        if start is not None and start > now + 1 and finish is not None:
            return self._after(start, finish, now)
        if hold is not None and hold.until is not None and not n["running"]:
            return self.tr("Scheduled %1").replace("%1", time_of_day(hold.until, now))
        if finish is None:
            return self.tr("ETA after the first task finishes")
        at = QDateTime.fromSecsSinceEpoch(int(finish)).toString("HH:mm")
        return (
            self.tr("This batch: ETA %1 (about %2)")
            .replace("%1", format_duration(max(0.0, finish - now)))
            .replace("%2", at)
        )

    def _after(self, start: float, finish: float, now: float) -> str:
        """Work a schedule holds: when it begins, and how long it should take from there."""
        return (
            self.tr("After %1 + %2", "a start time of day + how long it takes")
            .replace("%1", time_of_day(start, now))
            .replace("%2", minutes(max(0.0, finish - start)))
        )

    def _eta_text(self, e: LaneEstimate | None, n: dict[str, int], now: float) -> str:
        if not n["pending"] and not n["running"]:
            return self.tr("Idle")
        if e is None:  # the first plan is still being made
            return self.tr("ETA after the first task finishes")
        if e.basis == "paused":  # every waiting task is paused; the running ones finish
            return self.tr("Pausing after the current task")
        if e.basis == "idle":  # the plan left every waiting task out: their batches are paused
            return self.tr("Paused: %n task(s) wait", "", n["pending"])
        if e.starts_at is not None:  # nothing may start before a schedule's time
            if e.finish_at is not None:
                return self._after(e.starts_at, e.finish_at, now)
            return self.tr("Scheduled %1").replace("%1", time_of_day(e.starts_at, now))
        if e.eta_s is not None and e.finish_at is not None:
            at = QDateTime.fromSecsSinceEpoch(int(e.finish_at)).toString("HH:mm")
            return (
                self.tr("ETA %1 (about %2)")
                .replace("%1", format_duration(e.eta_s))
                .replace("%2", at)
            )
        if e.basis == "no_capacity":
            return self.tr("ETA: no account can take these tasks now")
        return self.tr("ETA after the first task finishes")

    def _set_warning(self, e: LaneEstimate | None) -> None:
        parts: list[str] = []
        if e is None:
            self.warning.setVisible(False)
            return
        if e.dead_running:
            parts.append(
                f"<span style='color:{RED}'>"
                + self.tr("%n task(s) without a heartbeat for 90 s", "", e.dead_running)
                + "</span>"
            )
        elif e.stale_running:
            parts.append(
                f"<span style='color:{AMBER}'>"
                + self.tr("%n task(s) without a heartbeat for 30 s", "", e.stale_running)
                + "</span>"
            )
        elsewhere = getattr(self, "_elsewhere", {})
        unserved = [m for m in e.unserved_models if m not in elsewhere]
        if unserved:
            parts.append(
                f"<span style='color:{AMBER}'>"
                + self.tr("no available account for: %1").replace("%1", ", ".join(unserved))
                + "</span>"
            )
        for model, where in sorted(elsewhere.items()):
            offline = model in e.unserved_models  # its workstation is off, or its account
            parts.append(
                f"<span style='color:{AMBER if offline else '#6d6d6d'}'>"
                + (
                    self.tr("%1: served on %2, which cannot take it now")
                    if offline
                    else self.tr("%1: served on %2")
                )
                .replace("%1", model)
                .replace("%2", where)
                + "</span>"
            )
        self.warning.setText("<br>".join(parts))
        self.warning.setVisible(bool(parts))
