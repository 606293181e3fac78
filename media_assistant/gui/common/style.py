"""Colours and icons shared by the views: one place, so every view says "failed" the same way."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QIcon, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import QWidget

STATE_COLORS: dict[str, str] = {
    "pending": "#8a8f98",
    "running": "#1e88e5",
    "success": "#2e7d32",
    "failed": "#c62828",
    "canceled": "#6d6d6d",
}
ACCOUNT_COLORS: dict[str, str] = {
    "enabled": "#2e7d32",
    "disabled": "#8a8f98",
    "cooling_down": "#ef6c00",
    "needs_login": "#c62828",
    "credentials_rejected": "#c62828",
    "needs_attention": "#c62828",
}
LANE_COLORS: dict[str, str] = {"web": "#6a1b9a", "api": "#00838f"}
HEARTBEAT_AMBER_S = 30.0
HEARTBEAT_RED_S = 90.0
AMBER = "#ef8f00"
RED = "#c62828"


def color(state: str) -> QColor:
    return QColor(STATE_COLORS.get(state, ACCOUNT_COLORS.get(state, "#8a8f98")))


@cache
def state_icon(state: str, size: int = 16) -> QIcon:
    """A filled disc with a glyph: ▶ running, ✓ success, ✕ failed, – canceled, … pending."""
    pix = QPixmap(size * 2, size * 2)  # drawn at 2x for high-DPI screens
    pix.setDevicePixelRatio(2.0)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(color(state))
    r = QRectF(1, 1, size - 2, size - 2)
    p.drawEllipse(r)
    pen = QPen(QColor("white"), max(1.5, size / 9))
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    p.setPen(pen)
    c = r.center()
    u = size / 16
    if state == "running":
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor("white"))
        path = QPainterPath(QPointF(c.x() - 2.5 * u, c.y() - 4 * u))
        path.lineTo(c.x() + 4 * u, c.y())
        path.lineTo(c.x() - 2.5 * u, c.y() + 4 * u)
        path.closeSubpath()
        p.drawPath(path)
    elif state == "success":
        p.drawPolyline(
            [
                QPointF(c.x() - 3.5 * u, c.y()),
                QPointF(c.x() - 1 * u, c.y() + 3 * u),
                QPointF(c.x() + 4 * u, c.y() - 3 * u),
            ]
        )
    elif state == "failed":
        p.drawLine(QPointF(c.x() - 3 * u, c.y() - 3 * u), QPointF(c.x() + 3 * u, c.y() + 3 * u))
        p.drawLine(QPointF(c.x() + 3 * u, c.y() - 3 * u), QPointF(c.x() - 3 * u, c.y() + 3 * u))
    elif state == "canceled":
        p.drawLine(QPointF(c.x() - 3.5 * u, c.y()), QPointF(c.x() + 3.5 * u, c.y()))
    else:  # pending: three dots
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor("white"))
        for dx in (-3.5, 0, 3.5):
            p.drawEllipse(QPointF(c.x() + dx * u, c.y()), 1.2 * u, 1.2 * u)
    p.end()
    return QIcon(pix)


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def latin_width(metrics: QFontMetrics, chars: float) -> int:
    """The width of ``chars`` average Latin letters. Not ``averageCharWidth()``: a CJK font
    (the default under a Chinese locale) reports its full-width glyphs there, which doubles
    every size built on it."""
    return round(metrics.horizontalAdvance(_LETTERS) * chars / len(_LETTERS))


# Room a window manager's title bar and frame take around a window (the available area already
# leaves out the taskbar): a 1366×768 laptop with a taskbar has ~728 px, a dialog ~690 of them.
FRAME_ALLOWANCE = 40


def resize_within_screen(widget: QWidget, width: int, height: int) -> None:
    """A window's first size, kept inside its screen with its title bar (CJK fonts also have
    taller lines). Content that then does not fit must scroll inside: see :func:`fits_screen`."""
    width, height = (
        min(width, screen_room(widget).width()),
        min(height, screen_room(widget).height()),
    )
    widget.resize(width, height)


def screen_room(widget: QWidget) -> QSize:
    """The most a top-level window may take: its screen's available area (no taskbar) less
    its frame, and a little margin."""
    area = widget.screen().availableGeometry()
    return QSize(
        area.width() * 9 // 10, min(area.height() * 9 // 10, area.height() - 2 * FRAME_ALLOWANCE)
    )


def fits_screen(widget: QWidget) -> bool:
    """The window's smallest size fits the room its screen has (the dialogs' tests ask)."""
    room, least = screen_room(widget), widget.minimumSizeHint().expandedTo(widget.minimumSize())
    return least.width() <= room.width() and least.height() <= room.height()


def bold(font: QFont) -> QFont:
    f = QFont(font)
    f.setBold(True)
    return f


def format_duration(seconds: float | None) -> str:
    """12s · 3m05s · 1h02m: compact, for tables and panels (12秒 · 3分05秒 · 1小时02分)."""
    if seconds is None or seconds < 0:
        return ""
    s = int(round(seconds))
    if s < 60:
        return QCoreApplication.translate("Duration", "%1s", "seconds").replace("%1", str(s))
    m, s = divmod(s, 60)
    if m < 60:
        text = QCoreApplication.translate("Duration", "%1m%2s", "minutes, seconds")
        return text.replace("%1", str(m)).replace("%2", f"{s:02d}")
    h, m = divmod(m, 60)
    text = QCoreApplication.translate("Duration", "%1h%2m", "hours, minutes")
    return text.replace("%1", str(h)).replace("%2", f"{m:02d}")
