"""Screenshots of the first start and the set-up pages, in zh_CN and en, a whole 1366×768 screen:

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python scripts/setup_screenshots.py \
        docs/screenshots

For each language it starts the real app in a subprocess (that system locale, an empty data
dir, the API simulator and the simulated chat site on loopback), and saves, as an operator
meets them: the first-start offer (setup-welcome), an API account being added with the model
list fetched and *Test connection* answered (setup-api-account), a web account on a chat site
(setup-web-account), a field the schema refuses (setup-problem), the set-up window with both
accounts (setup-accounts), its models page (setup-models), and the main window with the
accounts panel's menu (setup-reset-menu). Look at them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import sys
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer, QPoint
from PySide6.QtWidgets import QApplication
import keyring
import media_assistant.app as app_module
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.window.first_start import FirstStartDialog
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.gui.accounts.setup_dialog import SetupDialog
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.support.file_keyring import FileKeyring

out, lang, home, suffix = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), sys.argv[4]
QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(home))
keyring.set_keyring(FileKeyring())
KEY = "sk-screenshot-0123456789"
api = ApiSimulator(ApiSimConfig(latency_s=(2, 3), time_scale=0.2, keys={KEY: KeySpec()},
                                models=("deepseek-chat", "deepseek-reasoner", "qwen-plus")))
api.start_in_thread()
chat = ChatSiteSimulator(ChatSiteConfig(time_scale=0.01))
chat.start_in_thread()
app = QApplication(sys.argv[:1])
state = {}

def shot(name):
    app.primaryScreen().grabWindow(0).save(str(out / f"{name}-{suffix}-{lang}.png"))

def top(kind):
    return next((w for w in QApplication.topLevelWidgets()
                 if isinstance(w, kind) and w.isVisible()), None)

def later(fn, ms=400):
    QTimer.singleShot(ms, fn)

def welcome():
    dialog = top(FirstStartDialog)
    handle = dialog.windowHandle() if dialog is not None else None
    if handle is None or not handle.isExposed():
        return later(welcome)
    if not state.get("welcome_exposed"):  # visible is not yet painted (a black shot once)
        state["welcome_exposed"] = True
        return later(welcome)
    shot("setup-welcome")
    dialog.setup_button.click()
    later(setup_open)

def setup_open():
    setup, window = top(SetupDialog), top(MainWindow)
    if setup is None or window is None:
        return later(setup_open)
    state["setup"], state["window"] = setup, window
    editor = setup.edit_account(ModelKind.API, None)
    state["editor"] = editor
    editor.id_edit.setText("deepseek-api")
    editor.base_url.setText(api.base_url)
    editor.key.setText(KEY)
    editor.fetch_button.click()
    later(fetched, 800)

def fetched():
    editor = state["editor"]
    if editor.busy or editor.models.count() < 3:
        return later(fetched)
    editor.models.item(0).setCheckState(editor.models.item(0).checkState().Checked)
    editor.test_button.click()
    later(tested, 800)

def tested():
    editor = state["editor"]
    if editor.busy or not editor.note.text():
        return later(tested)
    shot("setup-api-account")
    editor.save_button.click()
    later(api_saved, 800)

def api_saved():
    setup = state["setup"]
    if setup.accounts.rowCount() < 1:
        return later(api_saved)
    editor = setup.edit_account(ModelKind.WEB, None)
    state["editor"] = editor
    editor.id_edit.setText("deepseek-web-1")
    editor.site.setCurrentIndex(editor.site.findData("deepseek"))
    editor._on_site_activated(editor.site.currentIndex())
    later(web_typed, 600)

def web_typed():
    shot("setup-web-account")
    editor = state["editor"]
    editor.id_edit.setText("deepseek web 1")  # a space: the schema refuses it
    editor._changed("id")
    editor._save(login=False)
    later(problem_shown, 600)

def problem_shown():
    shot("setup-problem")
    editor = state["editor"]
    editor.id_edit.setText("deepseek-web-1")
    editor.save_button.click()
    later(web_saved, 800)

def web_saved():
    setup = state["setup"]
    if setup.accounts.rowCount() < 2:
        return later(web_saved)
    setup.accounts.selectRow(1)
    later(lambda: (shot("setup-accounts"), setup.tabs.setCurrentIndex(1),
                   setup.models.selectRow(0), later(models_page, 500)), 500)

def models_page():
    shot("setup-models")
    setup, window = state["setup"], state["window"]
    setup.close()
    panel = window.accounts
    rect = panel.table.visualItemRect(panel.table.item(0, 0))
    panel._on_table_context_menu(rect.center())
    later(menu_open, 600)

def menu_open():
    shot("setup-reset-menu")
    state["window"].accounts.menu.close()
    state["window"].close()

later(welcome, 500)
code = app_module.main(data_dir=home / "data")
chat.stop_in_thread()
api.stop_in_thread()
sys.exit(code)
"""


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots").resolve()
    suffix = sys.argv[2] if len(sys.argv) > 2 else "1366x768"
    out.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parents[1]
    for lang, locale in (("zh_CN", "zh_CN.UTF-8"), ("en", "en_US.UTF-8")):
        with tempfile.TemporaryDirectory(prefix="ma-setup-shot-") as tmp:
            env = {
                **os.environ,
                "LANG": locale,
                "LC_ALL": locale,
                "LANGUAGE": lang,
                "MEDIA_ASSISTANT_NO_ERROR_DIALOG": "1",
                "MA_TEST_KEYRING_FILE": str(Path(tmp) / "keyring.json"),
                "PYTHONPATH": str(root),
            }
            subprocess.run(
                [sys.executable, "-c", CHILD, str(out), lang, tmp, suffix],
                env=env,
                check=True,
                timeout=300,
                cwd=root,
            )
        print(f"{lang}: {out}/setup-*-{suffix}-{lang}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
