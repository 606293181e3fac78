"""Painting the timeline: row stripes and grid, the bars, the now-line, account labels, the axis.

The widget lays out and hands over a :class:`TimelineFrame`; the painter only draws from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

from media_assistant.gui.common import style
from media_assistant.gui.timeline.tracks import AccountTracks

_Role = QPalette.ColorRole
_VCENTER = int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
_CENTER = int(Qt.AlignmentFlag.AlignCenter)


@dataclass(frozen=True)
class TimelineFrame:
    """The widget's layout and view at one moment, in widget coordinates."""

    chart: QRectF  # where the bars go
    label_w: int
    axis_h: int
    pad: int
    bar_h: int
    pitch: int  # from one track to the next
    scroll: int  # how far the rows are scrolled up
    t0: float  # the time at the chart's left edge
    t1: float
    window: float  # seconds across the chart
    now: float

    def row_top(self, group: AccountTracks) -> float:
        return self.axis_h + group.top - self.scroll

    def track_y(self, group: AccountTracks, k: int) -> float:
        return self.row_top(group) + self.pad + k * self.pitch


def small_font(font: QFont) -> QFont:
    small = QFont(font)
    if small.pointSizeF() > 0:
        small.setPointSizeF(small.pointSizeF() * 0.85)
    else:
        small.setPixelSize(max(1, round(small.pixelSize() * 0.85)))
    return small


def pill_size(font: QFont, text: str) -> tuple[int, int]:
    """The lane tag: its text plus half its height of rounded end on each side."""
    fm = QFontMetrics(small_font(font))
    return fm.horizontalAdvance(text) + fm.height(), fm.height()


class TimelinePainter:
    """Draws one frame onto the widget; ``lane_text`` gives the translated lane tag."""

    def __init__(
        self, widget: QWidget, frame: TimelineFrame, lane_text: Callable[[str], str]
    ) -> None:
        self._widget, self._frame, self._lane_text = widget, frame, lane_text

    def paint(
        self,
        groups: Iterable[AccountTracks],
        hover: str | None,
        ticks: list[tuple[float, str]],
        now_x: float,
    ) -> None:
        f, widget = self._frame, self._widget
        chart, pal, fm = f.chart, widget.palette(), widget.fontMetrics()
        t0, t1, scale = f.t0, f.t1, chart.width() / f.window
        w = widget.width()
        p = QPainter(widget)
        p.fillRect(widget.rect(), pal.base())
        grid = QColor(pal.color(_Role.Mid))
        grid.setAlpha(90)
        p.setPen(grid)
        p.setClipRect(QRectF(0, chart.top(), w, chart.height()))
        rows = []
        for i, group in enumerate(groups):
            top = f.row_top(group)
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
                y, last_px = f.track_y(group, k), -1
                for bar, s, e in track.in_window(t0, t1, f.now, group.single):
                    x0, bar_w = chart.left() + (s - t0) * scale, (e - s) * scale
                    if bar_w < 1.0:  # many tiny bars in one pixel column: draw it once
                        if int(x0) == last_px:
                            continue
                        last_px = int(x0)
                    bar_w = max(bar_w, 2.0) - (1.0 if bar_w > 4.0 else 0.0)  # hairline between
                    rect = QRectF(x0, y, bar_w, f.bar_h)
                    color = colors.get(bar.state) or style.color(bar.state)
                    if bar.task_id == hover:
                        hovered, color = rect, color.lighter(125)
                    p.fillRect(rect, color)
                    if bar_w > text_min_w:
                        left = max(x0, chart.left()) + f.pad
                        room = int(x0 + bar_w - left - f.pad)
                        text = fm.elidedText(bar.label, Qt.TextElideMode.ElideRight, room)
                        p.setPen(QColor("white"))
                        p.drawText(QRectF(left, y, room, f.bar_h), _VCENTER, text)
        if hovered is not None:
            p.setPen(QPen(pal.color(_Role.Highlight), 2))
            p.drawRect(hovered.adjusted(1, 1, -1, -1))
        p.setPen(QPen(pal.color(_Role.Text), 1.5))
        p.drawLine(QPointF(now_x, chart.top()), QPointF(now_x, chart.bottom()))
        p.setClipRect(QRectF(0, chart.top(), f.label_w, chart.height()))
        for group, top in rows:
            self._paint_label(p, group, top)
        p.setClipping(False)
        p.setPen(pal.color(_Role.Mid))
        p.drawLine(QPointF(f.label_w - 0.5, 0), QPointF(f.label_w - 0.5, chart.bottom()))
        self._paint_axis(p, ticks, now_x)

    def _paint_label(self, p: QPainter, group: AccountTracks, top: float) -> None:
        f, widget = self._frame, self._widget
        lane = self._lane_text(group.lane)
        fm, (pill_w, pill_h) = widget.fontMetrics(), pill_size(widget.font(), lane)
        line = QRectF(f.pad, top + f.pad, f.label_w - 2 * f.pad, f.bar_h)
        name_w = int(line.width() - pill_w - f.pad)
        name = fm.elidedText(group.account_id, Qt.TextElideMode.ElideMiddle, name_w)
        p.setFont(widget.font())
        p.setPen(widget.palette().color(_Role.Text))
        p.drawText(line, _VCENTER, name)
        pill = QRectF(line.left() + fm.horizontalAdvance(name) + f.pad, 0, pill_w, pill_h)
        pill.moveTop(line.center().y() - pill_h / 2)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(style.LANE_COLORS.get(group.lane, "#8a8f98")))
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.drawRoundedRect(pill, pill_h / 2, pill_h / 2)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setFont(small_font(widget.font()))
        p.setPen(QColor("white"))
        p.drawText(pill, _CENTER, lane)

    def _paint_axis(self, p: QPainter, ticks: list[tuple[float, str]], now_x: float) -> None:
        widget, chart, axis_h = self._widget, self._frame.chart, self._frame.axis_h
        pal, fm = widget.palette(), widget.fontMetrics()
        p.fillRect(QRectF(0, 0, widget.width(), axis_h), pal.window())
        p.setPen(pal.color(_Role.Mid))
        p.drawLine(QPointF(0, axis_h - 0.5), QPointF(widget.width(), axis_h - 0.5))
        p.setClipRect(QRectF(chart.left(), 0, chart.width(), axis_h))
        p.setFont(widget.font())
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
