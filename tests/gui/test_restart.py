"""*Restart now* (the Team database page): the window closes the usual way, and once the app has
let go of its data folder the same command starts again, detached."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QDialog, QMainWindow

import media_assistant.app as app_module
from media_assistant.gui.bridge import restart


class Starts:
    """Stands in for QProcess: records what would have been started."""

    started: list[tuple[str, list[str], str]] = []

    @classmethod
    def startDetached(cls, program: str, args: list[str], cwd: str) -> tuple[bool, int]:  # noqa: N802
        cls.started.append((program, list(args), cwd))
        return True, 4242


@pytest.fixture(autouse=True)
def _app_settings_back(qapp: QApplication) -> Any:
    """``app.main`` sets the application's quit-on-last-window; later tests get it back."""
    quits = qapp.quitOnLastWindowClosed()
    yield
    qapp.setQuitOnLastWindowClosed(quits)


def test_restart_now_closes_the_window_then_starts_the_same_command_again(
    tmp_path: Path, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "config.toml").write_text("", encoding="utf-8")
    monkeypatch.setattr(restart._request, "asked", False)
    monkeypatch.setattr(restart, "QProcess", Starts)
    Starts.started = []
    seen: list[str] = []
    main = QMainWindow()
    page = QDialog(main)  # the set-up window, a child of the main window

    def run(*_a: Any, **_k: Any) -> int:
        main.show()
        restart.request(page)  # the operator pressed "Restart now"
        seen.append(f"closed={not main.isVisible()} started={len(Starts.started)}")
        return 0

    monkeypatch.setattr(app_module, "_run", run)
    assert app_module.main(data_dir=tmp_path) == 0
    # The window was closed first; nothing started while the app still held its data folder.
    assert seen == ["closed=True started=0"]
    assert Starts.started == [(sys.executable, sys.orig_argv[1:], str(Path.cwd()))]
    assert not restart.requested()  # once


def test_without_a_request_nothing_starts_again(
    tmp_path: Path, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "config.toml").write_text("", encoding="utf-8")
    monkeypatch.setattr(restart._request, "asked", False)
    monkeypatch.setattr(restart, "QProcess", Starts)
    Starts.started = []
    monkeypatch.setattr(app_module, "_run", lambda *_a, **_k: 0)
    assert app_module.main(data_dir=tmp_path) == 0
    assert Starts.started == []


def test_a_frozen_bundle_starts_its_own_executable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "C:/Program Files/Media Assistant/MediaAssistant.exe")
    monkeypatch.setattr(sys, "argv", ["MediaAssistant.exe", "--data-dir", "D:/data"])
    assert restart.command() == [
        "C:/Program Files/Media Assistant/MediaAssistant.exe",
        "--data-dir",
        "D:/data",
    ]
