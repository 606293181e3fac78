"""Render the Metrics window at 1366×768 in Chinese and English to /tmp/metrics_zh_CN.png and
/tmp/metrics_en.png, on a store seeded with today's work (3,000 tasks since midnight).

Run under a display: `xvfb-run -a .venv/bin/python tests/gui/metrics_screenshot.py`.
Not a test (no ``test_`` prefix): it is for looking at, not for asserting.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from benchmarks.bench_metrics import seed
from media_assistant.core.files.paths import Paths
from media_assistant.core.metrics.span import since_of
from media_assistant.core.store.db import sqlite_url
from media_assistant.gui.bridge.event_loop import AppEventLoop
from media_assistant.gui.common.i18n import install_translators
from media_assistant.gui.metrics.view import MetricsWindow
from media_assistant.services import Services


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    data = Path(tempfile.mkdtemp()) / "data"
    data.mkdir()
    now = time.time()
    start = since_of("today", now)
    seed(sqlite_url(data / "media-assistant.db"), 3000, start=start, day_s=now - start - 600)
    language = sys.argv[1] if len(sys.argv) > 1 else "zh_CN"
    install_translators(app, language)  # type: ignore[arg-type]
    services = Services.open(Paths.resolve(data, None), read_only=True, require_config=False)
    window = MetricsWindow(services)
    window.resize(1366, 768)
    window.span.setCurrentIndex(2)
    loop = AppEventLoop(app, already_running=False)
    asyncio.set_event_loop(loop)

    async def shoot() -> None:
        window.show()
        await window.reload()
        await asyncio.sleep(0.5)
        window.grab().save(f"/tmp/metrics_{language}.png")

    loop.run_until_complete(shoot())
    services.close()
    print(f"/tmp/metrics_{language}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
