"""Per-account timeline: every task a bar over time, so both lanes are visibly at work.

The bars and their packing into tracks live in :mod:`timeline_tracks` (no Qt there), the drawing
in :mod:`timeline_paint`; this widget owns the view: the time window, following "now", panning,
scrolling, hover, tooltips and clicks.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence

from PySide6 import QtGui
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QScrollBar, QToolButton, QToolTip, QWidget

from media_assistant.gui.common import labels, style
from media_assistant.gui.timeline.paint import TimelineFrame, TimelinePainter, pill_size
from media_assistant.gui.timeline.tracks import TimelineBar, TimelineTracks

__all__ = ["TimelineBar", "TimelineWidget"]

_TICK_STEPS = (10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
_FOLLOW_PAD = 0.03  # share of the window kept right of "now" so growing bars stay in sight
_HIT_SLOP_PX = 3.0


class TimelineWidget(QWidget):
    """Bars per account over time; the right edge follows "now" unless the user panned back."""

    task_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # paintEvent fills every pixel
        self._tracks = TimelineTracks()
        self._now = self._end = time.time()  # _end: the right edge while panned back
        self._window, self._follow = 15 * 60.0, True
        self._hover: str | None = None
        self._press: tuple[float, float, str | None] | None = None  # x, view end, bar pressed
        self._dragging = self._now_pending = False
        self._hbar_base = 0
        self._now_timer = QTimer(self)
        self._now_timer.setSingleShot(True)
        self._now_timer.setInterval(1000)  # set_now repaints at most once a second
        self._now_timer.timeout.connect(self._on_now_timer_timeout)
        self._hbar = QScrollBar(Qt.Orientation.Horizontal, self)
        self._hbar.valueChanged.connect(self._on_hbar_value_changed)
        self._vbar = QScrollBar(Qt.Orientation.Vertical, self)
        self._vbar.valueChanged.connect(lambda _value: self.update())
        self._vbar.hide()
        self._follow_button = QToolButton(self)
        self._follow_button.setCheckable(True)
        self._follow_button.setChecked(True)
        self._follow_button.setAutoRaise(True)
        self._follow_button.toggled.connect(self.set_follow)
        self._retranslate()
        self._invalidate()

    # -- API -------------------------------------------------------------------------------------

    def set_accounts(self, accounts: Sequence[tuple[str, str]]) -> None:
        """Rows in this order; an account dropped from the list keeps its row while it has bars."""
        self._tracks.set_accounts(accounts)
        self._invalidate()

    def upsert(self, bars: Iterable[TimelineBar]) -> None:
        if self._tracks.upsert(bars):  # pending tasks have no bar: nothing to repaint then
            self._invalidate()

    def remove(self, task_ids: Iterable[str]) -> None:
        removed = self._tracks.remove(task_ids)
        if self._hover in removed:
            self._hover = None
        if removed:
            self._invalidate()

    def clear(self) -> None:
        """Drop every bar; the account rows stay."""
        self._tracks.clear()
        self._hover = None
        self._invalidate()

    def set_now(self, ts: float) -> None:
        self._now = ts
        if self._now_timer.isActive():
            self._now_pending = True
        else:
            self._refresh_now()
            self._now_timer.start()

    def set_window(self, seconds: float) -> None:
        self._window = min(max(float(seconds), 60.0), 7 * 86400.0)
        self._invalidate()

    def set_follow(self, on: bool) -> None:
        if self._follow and not on:
            self._end = self._view_end()
        self._follow = on
        self._follow_button.blockSignals(True)
        self._follow_button.setChecked(on)
        self._follow_button.blockSignals(False)
        self._invalidate()

    def is_following(self) -> bool:
        return self._follow

    def view_range(self) -> tuple[float, float]:
        end = self._view_end()
        return end - self._window, end

    def track_task_ids(self, account_id: str) -> list[list[str]]:
        """Task ids per track of one account, top track first."""
        self._ensure_layout()
        group = self._tracks.groups.get(account_id)
        return [[b.task_id for b in t.bars] for t in group.tracks] if group else []

    def bar_rect(self, task_id: str) -> QRectF | None:
        """The visible part of a bar in widget coordinates; None when it is out of view."""
        frame = self._frame()
        located = self._tracks.locate(task_id)
        if located is None:
            return None
        bar, group, track = located
        x0 = self._x(bar.started_at)
        x1 = self._x(track.end_of(bar, track.index(bar), self._now, group.single))
        y = frame.track_y(group, group.tracks.index(track))
        rect = QRectF(x0, y, max(x1 - x0, 2.0), self._bar_h).intersected(frame.chart)
        return None if rect.isEmpty() else rect

    def tooltip_text(self, task_id: str) -> str:
        bar = self._tracks.bars.get(task_id)
        if bar is None:
            return ""
        end = self._now if bar.finished_at is None else bar.finished_at
        duration = style.format_duration(max(0.0, end - bar.started_at))
        if bar.finished_at is None:
            duration = self.tr("%1 so far").replace("%1", duration)
        lines = [
            bar.label,
            self.tr("Task: %1").replace("%1", bar.task_id),
            self.tr("State: %1").replace("%1", labels.task_state(bar.state)),
            self.tr("Duration: %1").replace("%1", duration),
            self.tr("Started: %1").replace("%1", _clock(bar.started_at, seconds=True)),
        ]
        return "\n".join(line for line in lines if line)

    def axis_ticks(self) -> list[tuple[float, str]]:
        """(x, label) of the ticks in view, on whole local minutes or hours: HH:MM."""
        (t0, t1), fm = self.view_range(), self.fontMetrics()
        scale = self._chart_rect().width() / self._window
        step = next(
            (s for s in _TICK_STEPS if s * scale >= fm.horizontalAdvance("00:00:00") + fm.height()),
            _TICK_STEPS[-1],
        )
        offset = time.localtime(t0).tm_gmtoff  # align to local wall-clock time
        first = math.ceil((t0 + offset) / step) * step - offset
        count = max(0, int((t1 - first) // step) + 1)
        return [
            (self._x(t), _clock(t, seconds=step < 60))
            for t in (first + i * step for i in range(count))
        ]

    # -- geometry --------------------------------------------------------------------------------

    def _invalidate(self) -> None:
        self._layout_dirty = True
        self.update()

    def _ensure_layout(self) -> None:
        if not self._layout_dirty:
            return
        self._layout_dirty = False
        fm = self.fontMetrics()
        h = fm.height()
        self._pad = max(2, h // 5)
        self._bar_h = h + self._pad
        self._pitch = self._bar_h + self._pad
        self._axis_h = h + h // 2 + self._pad
        y, widest = 0.0, self._follow_button.sizeHint().width()
        self._tracks.repack_marked()
        for group in self._tracks.groups.values():
            group.top, group.height = y, max(1, len(group.tracks)) * self._pitch + self._pad
            y += group.height
            name_w = fm.horizontalAdvance(group.account_id) + self._pad
            widest = max(widest, name_w + pill_size(self.font(), self._lane_text(group.lane))[0])
        self._label_w = min(widest + 4 * self._pad, self.width() // 3)
        hbar_h, vbar_w = self._hbar.sizeHint().height(), self._vbar.sizeHint().width()
        rows_h = self.height() - self._axis_h - hbar_h
        self._vbar.setVisible(y > rows_h)
        right = self.width() - (vbar_w if y > rows_h else 0)
        self._hbar.setGeometry(self._label_w, self.height() - hbar_h, right - self._label_w, hbar_h)
        self._vbar.setGeometry(right, self._axis_h, vbar_w, max(0, rows_h))
        self._vbar.setRange(0, max(0, math.ceil(y - rows_h)))
        self._vbar.setPageStep(max(1, rows_h))
        self._vbar.setSingleStep(self._pitch)
        button_h = min(self._follow_button.sizeHint().height(), self._axis_h)
        self._follow_button.move(self._pad, (self._axis_h - button_h) // 2)
        self._follow_button.resize(self._follow_button.sizeHint().width(), button_h)
        self._sync_hbar()

    def _chart_rect(self) -> QRectF:
        self._ensure_layout()
        right = self._vbar.x() if self._vbar.isVisible() else self.width()
        return QRectF(
            self._label_w, self._axis_h, right - self._label_w, self._hbar.y() - self._axis_h
        )

    def _view_end(self) -> float:
        return self._now + self._window * _FOLLOW_PAD if self._follow else self._end

    def _x(self, t: float) -> float:
        chart = self._chart_rect()
        return chart.left() + (t - self._view_end() + self._window) * chart.width() / self._window

    def _frame(self) -> TimelineFrame:
        chart, (t0, t1) = self._chart_rect(), self.view_range()
        return TimelineFrame(
            chart=chart,
            label_w=self._label_w,
            axis_h=self._axis_h,
            pad=self._pad,
            bar_h=self._bar_h,
            pitch=self._pitch,
            scroll=self._vbar.value(),
            t0=t0,
            t1=t1,
            window=self._window,
            now=self._now,
        )

    def _sync_hbar(self) -> None:
        """The scrollbar spans from the first bar to now; its right end means "follow"."""
        follow_left = self._now + self._window * (_FOLLOW_PAD - 1)
        left = self._view_end() - self._window
        self._hbar_base = math.floor(min(self._tracks.t_min, left, follow_left))
        self._hbar.blockSignals(True)
        self._hbar.setRange(0, math.ceil(follow_left - self._hbar_base))
        self._hbar.setPageStep(max(1, int(self._window)))
        self._hbar.setSingleStep(max(1, int(self._window / 20)))
        self._hbar.setValue(self._hbar.maximum() if self._follow else round(left - self._hbar_base))
        self._hbar.blockSignals(False)

    def _pan_to(self, end: float) -> None:
        follow_end = self._now + self._window * _FOLLOW_PAD
        self._end = min(max(end, min(self._tracks.t_min, self._now) + self._window / 2), follow_end)
        self._follow = False  # so set_follow(False) keeps this edge instead of taking "now"
        self.set_follow(self._end >= follow_end)

    def _bar_at(self, pos: QPointF) -> TimelineBar | None:
        chart = self._chart_rect()
        if not chart.contains(pos):
            return None
        y = pos.y() - self._axis_h + self._vbar.value()
        groups = self._tracks.groups.values()
        group = next((g for g in groups if g.top <= y < g.top + g.height), None)
        if group is None:
            return None
        k, offset = divmod(y - group.top - self._pad, self._pitch)
        if not 0 <= k < len(group.tracks) or offset > self._bar_h:
            return None
        scale = chart.width() / self._window
        t = self._view_end() - self._window + (pos.x() - chart.left()) / scale
        found, best = None, math.inf
        slop = _HIT_SLOP_PX / scale
        for bar, s, e in group.tracks[int(k)].in_window(
            t - slop, t + slop, self._now, group.single
        ):
            distance = 0.0 if s <= t <= e else min(abs(t - s), abs(t - e))
            if distance <= best:
                found, best = bar, distance
        return found

    # -- painting --------------------------------------------------------------------------------

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        frame, ticks = self._frame(), self.axis_ticks()
        painter = TimelinePainter(self, frame, self._lane_text)
        painter.paint(self._tracks.groups.values(), self._hover, ticks, self._x(self._now))

    # -- events ----------------------------------------------------------------------------------

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ToolTip and isinstance(e, QtGui.QHelpEvent):
            bar = self._bar_at(QPointF(e.pos()))
            if bar is None:
                QToolTip.hideText()
                e.ignore()
            else:
                rect = self.bar_rect(bar.task_id) or QRectF()
                QToolTip.showText(
                    e.globalPos(), self.tooltip_text(bar.task_id), self, rect.toRect()
                )
            return True
        return super().event(e)

    def mousePressEvent(self, e: QtGui.QMouseEvent) -> None:
        if e.button() == Qt.MouseButton.LeftButton:
            bar = self._bar_at(e.position())
            self._press = (e.position().x(), self._view_end(), bar.task_id if bar else None)
            self._dragging = False

    def mouseMoveEvent(self, e: QtGui.QMouseEvent) -> None:
        if self._press is None:
            bar = self._bar_at(e.position())
            self._set_hover(bar.task_id if bar else None)
            return
        x, end, _task_id = self._press
        dx = e.position().x() - x
        if not self._dragging and abs(dx) >= QApplication.startDragDistance():
            self._dragging = True
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
        if self._dragging:
            self._pan_to(end - dx * self._window / max(1.0, self._chart_rect().width()))

    def mouseReleaseEvent(self, e: QtGui.QMouseEvent) -> None:
        press, dragging, self._press, self._dragging = self._press, self._dragging, None, False
        if dragging:
            self.unsetCursor()
        elif press and press[2] and (bar := self._bar_at(e.position())) and bar.task_id == press[2]:
            self.task_activated.emit(bar.task_id)

    def mouseDoubleClickEvent(self, e: QtGui.QMouseEvent) -> None:
        if self._bar_at(e.position()) is None:
            self.set_follow(True)

    def wheelEvent(self, e: QtGui.QWheelEvent) -> None:
        delta, shift = e.angleDelta(), bool(e.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        steps = (delta.x() or (delta.y() if shift or not self._vbar.isVisible() else 0)) / 120
        if steps:  # the wheel away from you goes back in time, like scrolling up a log
            self._pan_to(self._view_end() - steps * self._window / 10)
        else:
            self._vbar.setValue(self._vbar.value() - round(delta.y() / 40 * self._pitch))
        e.accept()

    def leaveEvent(self, e: QEvent) -> None:
        self._set_hover(None)
        super().leaveEvent(e)

    def resizeEvent(self, e: QtGui.QResizeEvent) -> None:
        self._invalidate()
        super().resizeEvent(e)

    def changeEvent(self, e: QEvent) -> None:
        if e.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        if e.type() in (QEvent.Type.FontChange, QEvent.Type.LanguageChange):
            self._invalidate()
        super().changeEvent(e)

    # -- slots and helpers -----------------------------------------------------------------------

    def _on_now_timer_timeout(self) -> None:
        if self._now_pending:
            self._now_pending = False
            self._refresh_now()
            self._now_timer.start()

    def _on_hbar_value_changed(self, value: int) -> None:
        self._pan_to(self._hbar_base + value + self._window)

    def _refresh_now(self) -> None:
        self._sync_hbar()
        t0, t1 = self.view_range()
        if self._follow:
            self.update()
        elif t0 - 1.0 <= self._now <= t1 + 1.0:  # only open bars and the now-line moved
            self.update(self._chart_rect().toAlignedRect())

    def _set_hover(self, task_id: str | None) -> None:
        if task_id == self._hover:
            return
        for rect in (self.bar_rect(t) for t in (self._hover, task_id) if t):
            if rect is not None:
                self.update(rect.adjusted(-2, -2, 2, 2).toAlignedRect())
        self._hover = task_id
        if task_id is None:
            self.unsetCursor()
        else:
            self.setCursor(Qt.CursorShape.PointingHandCursor)

    def _retranslate(self) -> None:
        self._follow_button.setText(self.tr("Follow"))
        self._follow_button.setToolTip(
            self.tr(
                "Keep now at the right edge. Drag or scroll to look back, double-click to return."
            )
        )
        self.setAccessibleName(self.tr("Task timeline"))

    def _lane_text(self, lane: str) -> str:
        return labels.lane(lane)


def _clock(ts: float, *, seconds: bool = False) -> str:
    return time.strftime("%H:%M:%S" if seconds else "%H:%M", time.localtime(ts))
