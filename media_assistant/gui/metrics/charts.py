"""The Metrics window's charts, drawn with pyqtgraph.

Why pyqtgraph: it is a maintained Qt plotting library that runs on PySide6 directly (its widgets
are QGraphicsView items: it follows the app's fonts, including Chinese ones, and its palette),
draws a day of per-minute points at once, and is pure Python (~3 MB). It needs numpy (~20 MB in
the one-folder bundle), which the app had not shipped before; the alternatives cost more or fit
worse — QtCharts/QtGraphs come only with PySide6-Addons (well over 100 MB unpacked, for two
modules), matplotlib is ~25 MB beside numpy with pillow and fonttools and draws to an image, not
to Qt items. Hand-drawing four charts with QPainter (as the timeline does) would mean writing
axes, ticks, legends and time labels ourselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QWidget

# One colour per series, readable on white, the same lane always the same colour.
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
LANE_COLOURS = {"web": COLOURS[0], "api": COLOURS[1]}

pg.setConfigOptions(antialias=True, background="w", foreground="#333333")


class Chart(pg.PlotWidget):  # type: ignore[misc]
    """A small titled chart with a legend; ``time_axis``: the x axis shows local times.

    Its items stay: a refresh gives a line, a limit or the bars their new values, and leaves
    what has not changed alone — removing and re-adding every item re-laid the legend, re-ran
    the autorange and repainted the axes, 60-100 ms of the window's thread per refresh of the
    four charts (BENCHMARKS.md B7 (f))."""

    def __init__(self, title: str, y_label: str, *, time_axis: bool, parent: QWidget) -> None:
        axes = {"bottom": pg.DateAxisItem(orientation="bottom")} if time_axis else {}
        super().__init__(parent=parent, axisItems=axes)
        font = QFont(parent.font())
        self.setTitle(title, size=f"{font.pointSizeF() + 1:.0f}pt")
        self.setLabel("left", y_label)
        self.showGrid(x=True, y=True, alpha=0.2)
        self.legend = self.addLegend(offset=(-8, 8), labelTextSize=f"{font.pointSizeF():.0f}pt")
        self.setMouseEnabled(x=False, y=False)
        self.setMenuEnabled(False)
        self.setMinimumHeight(150)
        self._lines: dict[tuple[str, str], tuple[pg.PlotDataItem, tuple[Any, ...]]] = {}
        self._limits: dict[str, tuple[pg.InfiniteLine, tuple[float, str, bool]]] = {}
        self._bars: tuple[pg.BarGraphItem, tuple[str, ...], tuple[float, ...]] | None = None

    def lines(
        self, series: Sequence[tuple[str, str, Sequence[float], Sequence[float | None]]]
    ) -> None:
        """The chart's lines, each (name, colour, xs, ys); a missing value (None) breaks a line.
        The same names and colours as before: each line takes its new points if they moved;
        others: the lines are drawn anew."""
        keys = [(name, colour) for name, colour, _, _ in series]
        if keys != list(self._lines):
            for item, _ in self._lines.values():
                self.removeItem(item)
            self._lines = {}
        for name, colour, xs, ys in series:
            data = (tuple(xs), tuple(ys))
            known = self._lines.get((name, colour))
            if known is not None and known[1] == data:
                continue
            points = (list(xs), [float("nan") if y is None else y for y in ys])
            if known is None:
                pen = pg.mkPen(QColor(colour), width=2)
                item = self.plot(*points, pen=pen, name=name, connect="finite")
            else:
                item = known[0]
                item.setData(*points, connect="finite")
            self._lines[name, colour] = (item, data)

    def limit(self, key: str, y: float, name: str, *, dashed: bool) -> None:
        """A horizontal line at ``y`` labelled ``name`` (one per ``key``), moved if it moved."""
        known = self._limits.get(key)
        if known is not None and known[1] == (y, name, dashed):
            return
        if known is not None:
            self.removeItem(known[0])
        style = Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine
        line = pg.InfiniteLine(
            pos=y, angle=0, pen=pg.mkPen("#555555", width=1.5, style=style),
            label=name, labelOpts={"position": 0.05, "color": "#555555"},
        )  # fmt: skip
        self.addItem(line)
        self._limits[key] = (line, (y, name, dashed))

    def bars(self, names: Sequence[str], values: Sequence[float]) -> None:
        key, heights = tuple(names), tuple(values)
        if self._bars is not None:
            item, known_names, known_heights = self._bars
            if (known_names, known_heights) == (key, heights):
                return
            if known_names == key:
                item.setOpts(height=list(heights))
                self._bars = (item, key, heights)
                return
            self.removeItem(item)
        xs = list(range(len(names)))
        item = pg.BarGraphItem(x=xs, height=list(values), width=0.6, brush=COLOURS[2])
        self.addItem(item)
        self._bars = (item, key, heights)
        # Every other name one line lower: a dozen accounts' names side by side do not overlap.
        labels = [name if i % 2 == 0 else f"\n{name}" for i, name in enumerate(names)]
        self.getAxis("bottom").setTicks([list(zip(xs, labels, strict=True))])
        self.getAxis("bottom").setHeight(2.6 * self.fontMetrics().height())
