"""*Restart now* (the Team database page): the window closes the usual way, and once the app has
let go of its data folder the same command starts again, detached."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QDialog, QMainWindow

import media_assistant.app as app_module
from media_assistant.gui.bridge import restart


class Starts:
    """Stands in for QProcess where nothing may really start (the app's own command would
    open a second window): records what would have been started."""

    started: list[tuple[str, list[str], str]] = []

    def setProgram(self, program: str) -> None:  # noqa: N802
        self.program = program

    def setArguments(self, args: list[str]) -> None:  # noqa: N802
        self.args = list(args)

    def setWorkingDirectory(self, cwd: str) -> None:  # noqa: N802
        self.cwd = cwd

    def setProcessEnvironment(self, env: Any) -> None:  # noqa: N802
        self.env = env

    def startDetached(self) -> tuple[bool, int]:  # noqa: N802
        type(self).started.append((self.program, self.args, self.cwd))
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


def test_a_restart_has_the_environment_and_folder_the_app_was_started_with(
    tmp_path: Path, qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26 item 2: a real child process started by *Restart now* sees the variables the
    app was started with (the API key's, PGPASSWORD), not what the app set itself since."""
    out = tmp_path / "seen.json"
    started_in = tmp_path / "started-in"
    started_in.mkdir()
    monkeypatch.chdir(started_in)
    monkeypatch.setenv("DS_API_KEY", "sk-from-the-start")
    monkeypatch.delenv("MA_SET_LATER", raising=False)
    monkeypatch.setattr(restart._request, "environment", None)
    monkeypatch.setattr(restart._request, "folder", None)
    restart.remember_start()
    monkeypatch.setenv("MA_SET_LATER", "the app's own")  # as the demo sets its key
    monkeypatch.chdir(tmp_path)
    script = (
        "import json, os, sys; "
        "json.dump({'env': dict(os.environ), 'cwd': os.getcwd()}, open(sys.argv[1], 'w'))"
    )
    monkeypatch.setattr(restart, "command", lambda: [sys.executable, "-c", script, str(out)])
    restart._request.asked = True
    assert restart.start_again()
    deadline = time.monotonic() + 30
    while not (out.exists() and out.read_text(encoding="utf-8").endswith("}")):
        assert time.monotonic() < deadline, "the new process did not start"
        time.sleep(0.05)
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["env"].get("DS_API_KEY") == "sk-from-the-start"
    assert "MA_SET_LATER" not in seen["env"]
    assert Path(seen["cwd"]) == started_in


def test_a_frozen_bundle_starts_again_with_its_loaders_variables_reset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(
        restart._request,
        "environment",
        {"LD_LIBRARY_PATH": "/opt/ma/_internal:/usr/lib/x", "LD_LIBRARY_PATH_ORIG": "/usr/lib/x"},
    )
    env = restart.start_environment()
    assert env["LD_LIBRARY_PATH"] == "/usr/lib/x" and "LD_LIBRARY_PATH_ORIG" not in env
    assert env["PYINSTALLER_RESET_ENVIRONMENT"] == "1"
