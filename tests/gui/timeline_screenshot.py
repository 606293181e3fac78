"""Render a realistic timeline to /tmp/timeline.png (light) and /tmp/timeline_dark.png.

Run under a display: `xvfb-run -a .venv/bin/python tests/gui/timeline_screenshot.py`.
Not a test (no ``test_`` prefix): it is for looking at, not for asserting.
"""

from __future__ import annotations

import random
import sys
import time

from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from media_assistant.gui.timeline.view import TimelineBar, TimelineWidget

NOW = time.mktime((2025, 6, 3, 14, 37, 20, 0, 0, -1))  # fixed, so every run looks the same


def scene() -> list[TimelineBar]:
    rng, bars = random.Random(11), []

    def web(account: str, plan: list[tuple[float, str]], gap: float) -> None:
        t = NOW - sum(d for d, _s in plan) - gap * len(plan)
        for i, (length, state) in enumerate(plan):
            t += gap
            done = None if state == "running" else t + length
            label = f"Article {account[-1]}-{i + 1:02d}"
            bars.append(TimelineBar(f"{account}-{i}", account, "web", state, t, done, label))
            t += length

    web(
        "ds-web-1",
        [(130, "success"), (270, "success"), (65, "failed"), (180, "success"), (100, "running")],
        gap=4,
    )
    web(
        "kimi-web-2",
        [
            (350, "success"),
            (45, "success"),
            (20, "canceled"),
            (240, "success"),
            (120, "success"),
            (55, "running"),
        ],
        gap=6,
    )
    for slot in range(3):  # an API account at concurrency 3: each slot runs back to back
        t = NOW - 16 * 60 + rng.uniform(0, 8)
        while t < NOW:
            length = rng.uniform(8, 20)
            running = t + length > NOW
            state = "running" if running else rng.choice(["success"] * 12 + ["failed"])
            task_id = f"ds-api-{slot}-{int(t)}"
            done = None if running else t + length
            bars.append(TimelineBar(task_id, "ds-api", "api", state, t, done, f"Title {task_id}"))
            t += length + rng.uniform(0.5, 3)
    return bars


def dark_palette() -> QPalette:
    pal = QPalette()
    for role, color in {
        QPalette.ColorRole.Window: "#2b2d30",
        QPalette.ColorRole.WindowText: "#dfe1e5",
        QPalette.ColorRole.Base: "#1e1f22",
        QPalette.ColorRole.AlternateBase: "#26282b",
        QPalette.ColorRole.Text: "#dfe1e5",
        QPalette.ColorRole.Button: "#2b2d30",
        QPalette.ColorRole.ButtonText: "#dfe1e5",
        QPalette.ColorRole.Mid: "#4e5157",
        QPalette.ColorRole.Highlight: "#3574f0",
    }.items():
        pal.setColor(role, QColor(color))
    return pal


def main() -> None:
    app = QApplication(sys.argv)
    app.setStyle("Fusion")
    for path, palette in (("/tmp/timeline.png", None), ("/tmp/timeline_dark.png", dark_palette())):
        app.setPalette(palette or app.style().standardPalette())
        widget = TimelineWidget()
        widget.resize(1000, 230)
        widget.set_now(NOW)
        widget.set_accounts([("ds-web-1", "web"), ("kimi-web-2", "web"), ("ds-api", "api")])
        widget.upsert(scene())
        widget.show()
        QTest.qWaitForWindowExposed(widget)
        failed = next(
            b for b in widget._tracks.bars.values() if b.state == "failed" and b.lane == "web"
        )
        rect = widget.bar_rect(failed.task_id)
        QTest.mouseMove(widget, QPoint(1, 1))
        if rect is not None:  # show the hover highlight on the failed web task
            QTest.mouseMove(widget, QPoint(int(rect.center().x()), int(rect.center().y())))
            QTest.qWait(200)  # under X the move arrives through the event loop
        widget.grab().save(path)
        print(
            path,
            widget.track_task_ids("ds-api") and len(widget.track_task_ids("ds-api")),
            "api tracks",
        )
        widget.close()


if __name__ == "__main__":
    main()
