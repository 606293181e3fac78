"""``media-assistant --demo`` end to end, in-process: the real app shell on its demo, both lanes
working (web accounts drive real Chromium against the simulated chat site), then a close of
the window that shuts everything down and leaves no process behind."""

from __future__ import annotations

import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

import psutil
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

import media_assistant.app as app_module
from media_assistant.gui.window.main_window import MainWindow

pytestmark = pytest.mark.chromium


def processes_using(root: Path) -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            if proc.info["status"] != psutil.STATUS_ZOMBIE and any(
                str(root) in arg for arg in proc.info["cmdline"] or []
            ):
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found


def test_demo_runs_both_lanes_and_shuts_down_cleanly(
    tmp_path: Path, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDIA_ASSISTANT_DEMO_SPEED", "6")  # web 5-60 s → 1-10 s
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # the app installs its own
    home = tmp_path / "home"
    data = home / "demo"  # the demo's own folder under --data-dir
    seen: dict[str, Any] = {"lanes": set()}
    threads_before = {t.ident for t in threading.enumerate()}

    def window() -> MainWindow | None:
        for w in QApplication.topLevelWidgets():
            if isinstance(w, MainWindow) and w.isVisible():
                return w
        return None

    def drive() -> None:
        w = window()
        if w is None:
            QTimer.singleShot(200, drive)
            return
        if not seen.get("clicked"):
            w.demo_button.click()
            seen["clicked"] = True
        seen["lanes"] |= {r.model_kind for r in w.model.rows() if r.state == "success"}
        if seen["lanes"] == {"web", "api"}:
            seen["running_web_at_close"] = {
                r.task_id for r in w.model.rows() if r.state == "running" and r.model_kind == "web"
            }
            w.close()
            return
        QTimer.singleShot(200, drive)

    QTimer.singleShot(200, drive)
    QTimer.singleShot(120_000, lambda: window() and window().close())  # type: ignore[union-attr]
    try:
        assert app_module.main(data_dir=home, demo=True) == 0
    finally:
        qapp.setQuitOnLastWindowClosed(True)
    assert seen["lanes"] == {"web", "api"}, seen
    con = sqlite3.connect(data / "media-assistant.db")
    rows = con.execute("SELECT task_id, model_kind, state, keep_attempt FROM tasks").fetchall()
    con.close()
    assert not [r for r in rows if r[2] == "running"]  # graceful: back to pending
    # ... without using up an attempt: every web task running at close waits with keep_attempt,
    # unless it finished within the shutdown's grace period (a loaded machine: it may).
    at_close = {task_id: (state, keep) for task_id, _, state, keep in rows}
    for task_id in seen["running_web_at_close"]:
        state, keep = at_close[task_id]
        assert (state == "pending" and keep) or state == "success", (task_id, state, keep)
    assert {k for _, k, s, _ in rows if s == "success"} == {"web", "api"}
    # The web accounts never ran two tasks at once (the simulated site would have broken both).
    assert not [r for r in rows if r[2] == "failed"]
    assert processes_using(data) == []  # no browser left
    leftover = [
        t
        for t in threading.enumerate()
        if t.ident not in threads_before and t.is_alive() and not t.daemon
    ]
    assert leftover == []
