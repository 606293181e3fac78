"""Per-account timeline: every task a bar over time, so both lanes are visibly at work.

A web account is one track (one task at a time is the lane's rule); an API account gets as many
sub-tracks as its bars overlap. Tracks keep bars sorted by start, so painting and hit tests bisect
into the visible window instead of walking every bar of a big batch.
"""

from __future__ import annotations

import heapq
import math
import time
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from PySide6 import QtGui
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import QApplication, QScrollBar, QToolButton, QToolTip, QWidget

from media_assistant.gui import style

_INF = math.inf
_TICK_STEPS = (10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
_FOLLOW_PAD = 0.03  # share of the window kept right of "now" so growing bars stay in sight
_HIT_SLOP_PX = 3.0
_Role = QPalette.ColorRole


@dataclass(frozen=True)
class TimelineBar:
    task_id: str
    account_id: str
    lane: str  # "web" | "api"
    state: str  # pending | running | success | failed | canceled
    started_at: float  # epoch seconds
    finished_at: float | None  # None: still open, the bar grows to "now"
    label: str


def _start(bar: TimelineBar) -> float:
    return bar.started_at


def _stop(bar: TimelineBar) -> float:
    """End for packing: an open bar holds its track until it finishes."""
    return _INF if bar.finished_at is None else max(bar.finished_at, bar.started_at)


class _Track:
    """One row of bars sorted by start; within an API track they never overlap."""

    __slots__ = ("bars", "max_len", "open", "starts")

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.bars: list[TimelineBar] = []
        self.open: dict[str, TimelineBar] = {}  # unfinished bars, whose length grows with "now"
        self.max_len = 0.0  # longest finished bar: how far before the window a visible one starts

    def index(self, bar: TimelineBar) -> int:
        i = bisect_left(self.starts, bar.started_at)
        while self.bars[i].task_id != bar.task_id:
            i += 1
        return i

    def add(self, bar: TimelineBar) -> None:
        i = bisect_right(self.starts, bar.started_at)
        self.starts.insert(i, bar.started_at)
        self.bars.insert(i, bar)
        self._note(bar)

    def discard(self, bar: TimelineBar) -> None:
        i = self.index(bar)
        del self.starts[i], self.bars[i]
        self.open.pop(bar.task_id, None)

    def _note(self, bar: TimelineBar) -> None:
        if bar.finished_at is None:
            self.open[bar.task_id] = bar
        else:
            self.max_len = max(self.max_len, bar.finished_at - bar.started_at)

    def fits(self, bar: TimelineBar) -> bool:
        i = bisect_right(self.starts, bar.started_at)
        if i < len(self.bars) and self.starts[i] < _stop(bar):
            return False
        return i == 0 or _stop(self.bars[i - 1]) <= bar.started_at

    def end_of(self, bar: TimelineBar, i: int, now: float, single: bool) -> float:
        if bar.finished_at is not None:
            return max(bar.finished_at, bar.started_at)
        if single and i + 1 < len(self.starts):
            # One task at a time: a later start means this one ended; its update is on the way.
            now = min(now, self.starts[i + 1])
        return max(now, bar.started_at)

    def in_window(
        self, t0: float, t1: float, now: float, single: bool
    ) -> Iterator[tuple[TimelineBar, float, float]]:
        """Bars intersecting [t0, t1] in start order, with the end they are drawn to."""
        reach = t0 - self.max_len
        early = sorted((b for b in self.open.values() if b.started_at < reach), key=_start)
        spans = [(b, self.index(b)) for b in early]
        lo, hi = bisect_left(self.starts, reach), bisect_right(self.starts, t1)
        for bar, i in spans + [(self.bars[i], i) for i in range(lo, hi)]:
            end = self.end_of(bar, i, now, single)
            if end >= t0:
                yield bar, bar.started_at, end


@dataclass
class _Group:
    account_id: str
    lane: str
    tracks: list[_Track] = field(default_factory=list)
    needs_repack: bool = False
    last_start: float = -_INF
    top: float = 0.0  # layout, in content coordinates
    height: float = 0.0

    @property
    def single(self) -> bool:
        return self.lane == "web"

    def place(self, bar: TimelineBar) -> _Track:
        if self.single:
            track = self.tracks[0] if self.tracks else None
        else:
            track = next((t for t in self.tracks if t.fits(bar)), None)
            # First fit in start order is optimal; a new track for an out-of-order bar may not be.
            self.needs_repack |= track is None and bar.started_at < self.last_start
        if track is None:
            track = _Track()
            self.tracks.append(track)
        track.add(bar)
        self.last_start = max(self.last_start, bar.started_at)
        return track

    def repack(self) -> None:
        self.needs_repack = False
        bars = sorted((b for t in self.tracks for b in t.bars), key=_start)
        self.tracks = []
        busy: list[tuple[float, int]] = []  # (end, track) of bars still open at this start
        free: list[int] = []  # lowest free track first, so rows stay put
        for bar in bars:
            k = 0
            if not self.single:
                while busy and busy[0][0] <= bar.started_at:
                    heapq.heappush(free, heapq.heappop(busy)[1])
                k = heapq.heappop(free) if free else len(self.tracks)
                heapq.heappush(busy, (_stop(bar), k))
            if k == len(self.tracks):
                self.tracks.append(_Track())
            self.tracks[k].add(bar)


class TimelineWidget(QWidget):
    """Bars per account over time; the right edge follows "now" unless the user panned back."""

    task_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # paintEvent fills every pixel
        self._groups: dict[str, _Group] = {}  # insertion order is row order
        self._bars: dict[str, TimelineBar] = {}
        self._track_of: dict[str, _Track] = {}
        self._now = self._end = time.time()  # _end: the right edge while panned back
        self._window, self._follow, self._t_min = 15 * 60.0, True, _INF
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
        old, self._groups = self._groups, {}
        for account_id, lane in accounts:
            group = old.pop(account_id, None) or _Group(account_id, lane)
            group.needs_repack |= group.lane != lane
            group.lane = lane
            self._groups[account_id] = group
        self._groups.update((a, g) for a, g in old.items() if any(t.bars for t in g.tracks))
        self._invalidate()

    def upsert(self, bars: Iterable[TimelineBar]) -> None:
        fresh: dict[str, TimelineBar] = {}  # to place after the in-place updates
        for bar in bars:
            old = self._bars.get(bar.task_id)
            if old == bar:
                continue
            self._bars[bar.task_id] = bar
            if old is None or bar.task_id in fresh:
                fresh[bar.task_id] = bar
                continue
            track, group = self._track_of[bar.task_id], self._groups[old.account_id]
            in_place = old.account_id == bar.account_id and old.started_at == bar.started_at
            if in_place and (group.single or _stop(bar) <= _stop(old)):
                track.discard(old)  # a bar that only got shorter still fits its own track
                track.add(bar)
                # A finish arriving after a later start was placed elsewhere may free a track.
                group.needs_repack |= not group.single and any(
                    t is not track and t.starts and t.starts[-1] >= _stop(bar) for t in group.tracks
                )
            else:
                del self._track_of[bar.task_id]
                track.discard(old)
                group.needs_repack |= not group.single
                fresh[bar.task_id] = bar
        for bar in sorted(
            fresh.values(), key=_start
        ):  # placing in start order keeps first fit optimal
            if bar.account_id not in self._groups:
                self._groups[bar.account_id] = _Group(bar.account_id, bar.lane)
            self._track_of[bar.task_id] = self._groups[bar.account_id].place(bar)
            self._t_min = min(self._t_min, bar.started_at)
        self._invalidate()

    def remove(self, task_ids: Iterable[str]) -> None:
        for task_id in task_ids:
            bar = self._bars.pop(task_id, None)
            if bar is not None:
                self._track_of.pop(task_id).discard(bar)
                self._groups[bar.account_id].needs_repack = True  # drops emptied tracks
                self._hover = None if self._hover == task_id else self._hover
        self._invalidate()

    def clear(self) -> None:
        """Drop every bar; the account rows stay."""
        self._bars.clear()
        self._track_of.clear()
        for group in self._groups.values():
            group.tracks, group.needs_repack, group.last_start = [], False, -_INF
        self._t_min, self._hover = _INF, None
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
        group = self._groups.get(account_id)
        return [[b.task_id for b in t.bars] for t in group.tracks] if group else []

    def bar_rect(self, task_id: str) -> QRectF | None:
        """The visible part of a bar in widget coordinates; None when it is out of view."""
        chart = self._chart_rect()
        bar, track = self._bars.get(task_id), self._track_of.get(task_id)
        if bar is None or track is None:
            return None
        group = self._groups[bar.account_id]
        x0 = self._x(bar.started_at)
        x1 = self._x(track.end_of(bar, track.index(bar), self._now, group.single))
        y = self._track_y(group, group.tracks.index(track))
        rect = QRectF(x0, y, max(x1 - x0, 2.0), self._bar_h).intersected(chart)
        return None if rect.isEmpty() else rect

    def tooltip_text(self, task_id: str) -> str:
        bar = self._bars.get(task_id)
        if bar is None:
            return ""
        end = self._now if bar.finished_at is None else bar.finished_at
        duration = style.format_duration(max(0.0, end - bar.started_at))
        if bar.finished_at is None:
            duration = self.tr("{duration} so far").format(duration=duration)
        states = {
            "pending": self.tr("Pending"),
            "running": self.tr("Running"),
            "success": self.tr("Succeeded"),
            "failed": self.tr("Failed"),
            "canceled": self.tr("Canceled"),
        }
        lines = [
            bar.label,
            self.tr("Task: {task_id}").format(task_id=bar.task_id),
            self.tr("State: {state}").format(state=states.get(bar.state, bar.state)),
            self.tr("Duration: {duration}").format(duration=duration),
            self.tr("Started: {time}").format(time=_clock(bar.started_at, seconds=True)),
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
        for group in self._groups.values():
            if group.needs_repack:
                group.repack()
                self._track_of.update((b.task_id, t) for t in group.tracks for b in t.bars)
            group.top, group.height = y, max(1, len(group.tracks)) * self._pitch + self._pad
            y += group.height
            name_w = fm.horizontalAdvance(group.account_id) + self._pad
            widest = max(widest, name_w + self._pill_size(group.lane)[0])
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

    def _track_y(self, group: _Group, k: int) -> float:
        return self._axis_h + group.top - self._vbar.value() + self._pad + k * self._pitch

    def _sync_hbar(self) -> None:
        """The scrollbar spans from the first bar to now; its right end means "follow"."""
        follow_left = self._now + self._window * (_FOLLOW_PAD - 1)
        left = self._view_end() - self._window
        self._hbar_base = math.floor(min(self._t_min, left, follow_left))
        self._hbar.blockSignals(True)
        self._hbar.setRange(0, math.ceil(follow_left - self._hbar_base))
        self._hbar.setPageStep(max(1, int(self._window)))
        self._hbar.setSingleStep(max(1, int(self._window / 20)))
        self._hbar.setValue(self._hbar.maximum() if self._follow else round(left - self._hbar_base))
        self._hbar.blockSignals(False)

    def _pan_to(self, end: float) -> None:
        follow_end = self._now + self._window * _FOLLOW_PAD
        self._end = min(max(end, min(self._t_min, self._now) + self._window / 2), follow_end)
        self._follow = False  # so set_follow(False) keeps this edge instead of taking "now"
        self.set_follow(self._end >= follow_end)

    def _bar_at(self, pos: QPointF) -> TimelineBar | None:
        chart = self._chart_rect()
        if not chart.contains(pos):
            return None
        y = pos.y() - self._axis_h + self._vbar.value()
        group = next((g for g in self._groups.values() if g.top <= y < g.top + g.height), None)
        if group is None:
            return None
        k, offset = divmod(y - group.top - self._pad, self._pitch)
        if not 0 <= k < len(group.tracks) or offset > self._bar_h:
            return None
        scale = chart.width() / self._window
        t = self._view_end() - self._window + (pos.x() - chart.left()) / scale
        found, best = None, _INF
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
        chart, pal, fm = self._chart_rect(), self.palette(), self.fontMetrics()
        (t0, t1), scale = self.view_range(), chart.width() / self._window
        ticks, w = self.axis_ticks(), self.width()
        p = QPainter(self)
        p.fillRect(self.rect(), pal.base())
        grid = QColor(pal.color(_Role.Mid))
        grid.setAlpha(90)
        p.setPen(grid)
        p.setClipRect(QRectF(0, chart.top(), w, chart.height()))
        rows = []
        for i, group in enumerate(self._groups.values()):
            top = self._axis_h + group.top - self._vbar.value()
            if top < chart.bottom() and top + group.height > chart.top():
                rows.append((group, top))
                if i % 2:
                    p.fillRect(QRectF(0, top, w, group.height), pal.alternateBase())
                p.drawLine(
                    QPointF(0, top + group.height - 0.5), QPointF(w, top + group.height - 0.5)
                )
        for x, _text in ticks:
            p.drawLine(QPointF(x, chart.top()), QPointF(x, chart.bottom()))
        p.setClipRect(chart)
        colors = {s: style.color(s) for s in style.STATE_COLORS}
        hovered, text_min_w = None, 3 * fm.height()
        for group, _top in rows:
            for k, track in enumerate(group.tracks):
                y, last_px = self._track_y(group, k), -1
                for bar, s, e in track.in_window(t0, t1, self._now, group.single):
                    x0, bar_w = chart.left() + (s - t0) * scale, (e - s) * scale
                    if bar_w < 1.0:  # many tiny bars in one pixel column: draw it once
                        if int(x0) == last_px:
                            continue
                        last_px = int(x0)
                    bar_w = max(bar_w, 2.0) - (1.0 if bar_w > 4.0 else 0.0)  # hairline between
                    rect = QRectF(x0, y, bar_w, self._bar_h)
                    color = colors.get(bar.state) or style.color(bar.state)
                    if bar.task_id == self._hover:
                        hovered, color = rect, color.lighter(125)
                    p.fillRect(rect, color)
                    if bar_w > text_min_w:
                        left = max(x0, chart.left()) + self._pad
                        room = int(x0 + bar_w - left - self._pad)
                        text = fm.elidedText(bar.label, Qt.TextElideMode.ElideRight, room)
                        p.setPen(QColor("white"))
                        p.drawText(QRectF(left, y, room, self._bar_h), _VCENTER, text)
        if hovered is not None:
            p.setPen(QPen(pal.color(_Role.Highlight), 2))
            p.drawRect(hovered.adjusted(1, 1, -1, -1))
        now_x = self._x(self._now)
        p.setPen(QPen(pal.color(_Role.Text), 1.5))
        p.drawLine(QPointF(now_x, chart.top()), QPointF(now_x, chart.bottom()))
        p.setClipRect(QRectF(0, chart.top(), self._label_w, chart.height()))
        for group, top in rows:
            self._paint_label(p, group, top)
        p.setClipping(False)
        p.setPen(pal.color(_Role.Mid))
        p.drawLine(QPointF(self._label_w - 0.5, 0), QPointF(self._label_w - 0.5, chart.bottom()))
        self._paint_axis(p, ticks, now_x)

    def _paint_label(self, p: QPainter, group: _Group, top: float) -> None:
        fm, (pill_w, pill_h) = self.fontMetrics(), self._pill_size(group.lane)
        line = QRectF(self._pad, top + self._pad, self._label_w - 2 * self._pad, self._bar_h)
        name_w = int(line.width() - pill_w - self._pad)
        name = fm.elidedText(group.account_id, Qt.TextElideMode.ElideMiddle, name_w)
        p.setFont(self.font())
        p.setPen(self.palette().color(_Role.Text))
        p.drawText(line, _VCENTER, name)
        pill = QRectF(line.left() + fm.horizontalAdvance(name) + self._pad, 0, pill_w, pill_h)
        pill.moveTop(line.center().y() - pill_h / 2)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(style.LANE_COLORS.get(group.lane, "#8a8f98")))
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.drawRoundedRect(pill, pill_h / 2, pill_h / 2)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setFont(self._small_font())
        p.setPen(QColor("white"))
        p.drawText(pill, int(Qt.AlignmentFlag.AlignCenter), self._lane_text(group.lane))

    def _paint_axis(self, p: QPainter, ticks: list[tuple[float, str]], now_x: float) -> None:
        pal, fm, axis_h = self.palette(), self.fontMetrics(), self._axis_h
        chart = self._chart_rect()
        p.fillRect(QRectF(0, 0, self.width(), axis_h), pal.window())
        p.setPen(pal.color(_Role.Mid))
        p.drawLine(QPointF(0, axis_h - 0.5), QPointF(self.width(), axis_h - 0.5))
        p.setClipRect(QRectF(chart.left(), 0, chart.width(), axis_h))
        p.setFont(self.font())
        tick_h = fm.height() // 3
        for x, text in ticks:
            p.setPen(pal.color(_Role.Mid))
            p.drawLine(QPointF(x, axis_h - tick_h), QPointF(x, axis_h))
            half = fm.horizontalAdvance(text) / 2 + 1
            if chart.left() <= x - half and x + half <= chart.right():  # never cut a label
                p.setPen(pal.color(_Role.WindowText))
                p.drawText(QRectF(x - half, 0, 2 * half, axis_h - tick_h), _CENTER, text)
        p.setPen(Qt.PenStyle.NoPen)  # a small triangle over the now-line
        p.setBrush(pal.color(_Role.Text))
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        m = tick_h + 1
        p.drawPolygon(
            QPolygonF(
                [
                    QPointF(now_x - m, axis_h - m),
                    QPointF(now_x + m, axis_h - m),
                    QPointF(now_x, axis_h),
                ]
            )
        )

    def _pill_size(self, lane: str) -> tuple[int, int]:
        """The lane tag: its text plus half its height of rounded end on each side."""
        fm = QFontMetrics(self._small_font())
        return fm.horizontalAdvance(self._lane_text(lane)) + fm.height(), fm.height()

    def _small_font(self) -> QFont:
        font = QFont(self.font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * 0.85)
        else:
            font.setPixelSize(max(1, round(font.pixelSize() * 0.85)))
        return font

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
        return {"web": self.tr("web"), "api": self.tr("api")}.get(lane, lane)


_VCENTER = int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
_CENTER = int(Qt.AlignmentFlag.AlignCenter)


def _clock(ts: float, *, seconds: bool = False) -> str:
    return time.strftime("%H:%M:%S" if seconds else "%H:%M", time.localtime(ts))
