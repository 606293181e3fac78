"""Set-up without TOML (issue 8 item 4), end to end in the real app shell: an empty data dir, the
first-start offer, the set-up window (an API account on the API simulator: models fetched from
``/models``, the key into the keyring, *Test connection*; a web account on the simulated chat
site with real Chromium), then a batch on both that finishes. Nobody writes TOML by hand."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWidget

import media_assistant.app as app_module
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.accounts.account_editor import AccountEditor
from media_assistant.gui.accounts.setup_dialog import SetupDialog
from media_assistant.gui.batches.dialog import NewBatchDialog
from media_assistant.gui.window.first_start import FirstStartDialog
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.gui.window.settings_dialog import SettingsDialog
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.signin import visit
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.support.file_keyring import FileKeyring

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.timeout(240),
    pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints"),
]

KEY = "sk-setup-0123456789abcdef"


@pytest.fixture
def simulators() -> Iterator[tuple[ApiSimulator, ChatSiteSimulator]]:
    api = ApiSimulator(
        ApiSimConfig(latency_s=(2, 4), time_scale=0.1, keys={KEY: KeySpec()}, seed=3)
    )
    chat = ChatSiteSimulator(ChatSiteConfig(latency_s=(31, 90), time_scale=0.01, seed=3))
    api.start_in_thread()
    chat.start_in_thread()
    yield api, chat
    chat.stop_in_thread()
    api.stop_in_thread()


@pytest.fixture
def file_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "keyring.json"
    monkeypatch.setenv("MA_TEST_KEYRING_FILE", str(path))
    before: KeyringBackend = keyring.get_keyring()
    keyring.set_keyring(FileKeyring())
    yield path
    keyring.set_keyring(before)


def top(kind: type[QWidget]) -> Any:
    return next(
        (w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()),
        None,
    )


def sign_in(profile: Path, url: str) -> None:
    """What the operator does in the *Log in* window, done by the test: the simulated site's
    sign-in link, in the account's own profile."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(visit(profile, resolve_browser(None), url))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


class Script:
    """Steps run one after another on Qt timers, each waiting for its condition."""

    def __init__(self, steps: list[tuple[str, Callable[[], bool]]]) -> None:
        self.steps = steps
        self.done: list[str] = []
        self.failed: str | None = None

    def start(self) -> None:
        QTimer.singleShot(100, self._tick)

    def _tick(self) -> None:
        if not self.steps:
            return
        name, step = self.steps[0]
        try:
            finished = step()
        except Exception as exc:  # reported by the test, after the app quit
            self.failed = f"{name}: {type(exc).__name__}: {exc}"
            window = top(MainWindow)
            if window is not None:
                window.close()
            return
        if finished:
            print(f"step done: {name}", flush=True)
            self.done.append(name)
            self.steps.pop(0)
        QTimer.singleShot(100, self._tick)


def test_from_an_empty_data_dir_through_setup_to_a_finished_batch(
    tmp_path: Path,
    qapp: QApplication,
    monkeypatch: pytest.MonkeyPatch,
    simulators: tuple[ApiSimulator, ChatSiteSimulator],
    file_keyring: Path,
) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # the app installs its own
    api, chat = simulators
    data = tmp_path / "data"
    sign_in(data / "profiles" / "web-1", f"{chat.base_url}/_sim/autologin?user=web-1")
    seen: dict[str, Any] = {}

    def first_start() -> bool:
        dialog = top(FirstStartDialog)
        if dialog is None:
            return False
        seen["first_start"] = True
        dialog.setup_button.click()
        return True

    def setup_opened() -> bool:
        window, setup = top(MainWindow), top(SetupDialog)
        if window is None or setup is None:
            return False
        seen["window"], seen["setup"] = window, setup
        window._open_settings()  # the browsers work without windows (no display here)
        return True

    def settings_saved() -> bool:
        dialog = top(SettingsDialog)
        if dialog is None:
            return False
        dialog.show_browsers.setChecked(False)
        dialog._save()  # written off the GUI thread; the dialog closes once it is
        return True

    def settings_written() -> bool:
        # A change begun before the settings landed would be refused as made to an older file
        # (ConfigChanged): the operator saves again. Here the next change waits for them.
        return top(SettingsDialog) is None

    def api_account_typed() -> bool:
        editor = seen["setup"].edit_account(ModelKind.API, None)
        editor.id_edit.setText("sim-api")
        editor.base_url.setText("ftp://wrong")
        editor.key.setText(KEY)
        editor._save(login=False)  # refused: the schema's words, next to the field
        assert "at least one model" in editor.problems.labels["models"].text()
        editor.new_model.setText("sim-chat")
        editor._on_add_model_clicked()
        editor._save(login=False)
        problem = editor.problems.labels["base_url"]
        assert problem.isVisible() and "must start with http" in problem.text(), problem.text()
        assert not editor.problems.labels["models"].isVisible()
        editor.base_url.setText(api.base_url)  # http://127.0.0.1:<port>/v1
        editor.fetch_button.click()
        seen["api_editor"] = editor
        return True

    def models_fetched() -> bool:
        editor: AccountEditor = seen["api_editor"]
        assert not editor.note_is_error, editor.note.text()
        names = [editor.models.item(i).text() for i in range(editor.models.count())]
        if "sim-reasoner" not in names:  # the endpoint's list came in
            return False
        assert editor.checked_models() == ["sim-chat"]  # still ticked; the list grew around it
        editor.test_button.click()
        return True

    def connection_tested() -> bool:
        editor: AccountEditor = seen["api_editor"]
        assert not editor.note_is_error, editor.note.text()
        if editor.busy or "Connected" not in editor.note.text():
            return False
        seen["test_note"] = editor.note.text()
        editor.save_button.click()
        return True

    def api_saved() -> bool:
        if seen["setup"].accounts.rowCount() < 1:
            return False
        editor = seen["setup"].edit_account(ModelKind.WEB, None)
        editor.id_edit.setText("web-1")
        editor.site.setCurrentIndex(editor.site.findData("sim"))
        editor._on_site_activated(editor.site.currentIndex())
        editor.origin.setText(chat.base_url)
        assert editor.checked_models() == ["sim-web"]  # suggested from the site
        editor.save_button.click()
        return True

    def web_saved() -> bool:
        setup: SetupDialog = seen["setup"]
        if setup.accounts.rowCount() < 2:
            return False
        window: MainWindow = seen["window"]
        assert window.accounts.table.rowCount() == 2  # the panel followed
        setup.close()
        for model, prompts in (
            ("sim-chat", ["写一段春季新品文案", "为保温杯写三个标题"]),
            ("sim-web", ["介绍一款蓝牙耳机", "露营装备清单"]),
        ):
            dialog: NewBatchDialog = window.new_batch()
            dialog.model_combo.setCurrentIndex(dialog.model_combo.findData(model))
            dialog.paste_edit.setPlainText("\n".join(prompts))
            dialog.ok_button.click()
        return True

    def batch_finished() -> bool:
        window: MainWindow = seen["window"]
        rows = window.model.rows()
        if len(rows) < 4 or any(r.state in ("pending", "running") for r in rows):
            return False
        seen["states"] = {r.task_id: (r.model, r.state) for r in rows}
        window.close()
        return True

    script = Script(
        [
            ("first start", first_start),
            ("set-up opened", setup_opened),
            ("settings saved", settings_saved),
            ("settings written", settings_written),
            ("API account typed", api_account_typed),
            ("models fetched", models_fetched),
            ("connection tested", connection_tested),
            ("API account saved", api_saved),
            ("web account saved", web_saved),
            ("batch finished", batch_finished),
        ]
    )
    script.start()
    QTimer.singleShot(180_000, lambda: top(MainWindow) and top(MainWindow).close())
    try:
        assert app_module.main(data_dir=data) == 0
    finally:
        qapp.setQuitOnLastWindowClosed(True)
    assert script.failed is None, (script.failed, script.done)
    assert not script.steps, script.done
    assert set(seen["states"].values()) == {("sim-chat", "success"), ("sim-web", "success")}
    config = tomllib.loads((data / "config.toml").read_text(encoding="utf-8"))
    assert [(a["id"], a["kind"]) for a in config["accounts"]] == [
        ("sim-api", "api"),
        ("web-1", "web"),
    ]
    assert config["browser"]["headless"] is True
    assert {m["name"] for m in config["models"]} == {"sim-chat", "sim-web"}
    assert KEY in file_keyring.read_text(encoding="utf-8")  # the key lives in the keyring
    for path in data.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    con = sqlite3.connect(data / "media-assistant.db")
    states = con.execute("SELECT model, account_id, state FROM tasks").fetchall()
    con.close()
    assert sorted(states) == [
        ("sim-chat", "sim-api", "success"),
        ("sim-chat", "sim-api", "success"),
        ("sim-web", "web-1", "success"),
        ("sim-web", "web-1", "success"),
    ]
    assert chat.user_stats("web-1")["conflicts"] == 0
