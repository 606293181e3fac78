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

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QWidget

# One colour per series, readable on white, the same lane always the same colour.
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
LANE_COLOURS = {"web": COLOURS[0], "api": COLOURS[1]}

pg.setConfigOptions(antialias=True, background="w", foreground="#333333")


class Chart(pg.PlotWidget):  # type: ignore[misc]
    """A small titled chart with a legend; ``time_axis``: the x axis shows local times."""

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

    def clear_all(self) -> None:
        self.clear()
        self.legend.clear()

    def line(self, xs: Sequence[float], ys: Sequence[float | None], name: str, colour: str) -> None:
        """A line; a missing value (None) breaks it."""
        pen = pg.mkPen(QColor(colour), width=2)
        self.plot(
            list(xs),
            [float("nan") if y is None else y for y in ys],
            pen=pen,
            name=name,
            connect="finite",
        )

    def limit(self, y: float, name: str, *, dashed: bool) -> None:
        style = Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine
        line = pg.InfiniteLine(
            pos=y, angle=0, pen=pg.mkPen("#555555", width=1.5, style=style),
            label=name, labelOpts={"position": 0.05, "color": "#555555"},
        )  # fmt: skip
        self.addItem(line)

    def bars(self, names: Sequence[str], values: Sequence[float]) -> None:
        xs = list(range(len(names)))
        self.addItem(pg.BarGraphItem(x=xs, height=list(values), width=0.6, brush=COLOURS[2]))
        # Every other name one line lower: a dozen accounts' names side by side do not overlap.
        labels = [name if i % 2 == 0 else f"\n{name}" for i, name in enumerate(names)]
        self.getAxis("bottom").setTicks([list(zip(xs, labels, strict=True))])
        self.getAxis("bottom").setHeight(2.6 * self.fontMetrics().height())
