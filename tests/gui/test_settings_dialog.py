"""Settings: saved into the operator's config file, comments and other keys kept."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from media_assistant.gui.window.settings_dialog import SettingsDialog

CONFIG = """# my accounts
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-1"  # the team key
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_SETTINGS_TEST_KEY"
models = ["api-model"]
"""


def test_saving_writes_the_choices_and_keeps_the_rest(tmp_path: Path, qtbot: Any) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    dialog = SettingsDialog(path)
    qtbot.addWidget(dialog)
    dialog.browser.setText("/usr/lib/chromium/chromium")
    dialog.web_timeout.setValue(900)
    dialog.language.setCurrentIndex(dialog.language.findData("en"))
    dialog._save()
    assert dialog.result() == SettingsDialog.DialogCode.Accepted
    text = path.read_text(encoding="utf-8")
    assert "# my accounts" in text and "# the team key" in text
    data = tomllib.loads(text)
    assert data["browser"]["executable"] == "/usr/lib/chromium/chromium"
    assert data["lanes"]["web"]["task_timeout_s"] == 900
    assert data["ui"]["language"] == "en"
    assert data["accounts"][0]["id"] == "api-1"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temporary file left


def test_a_config_path_that_cannot_be_written_is_reported_not_raised(
    tmp_path: Path, qtbot: Any
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    dialog = SettingsDialog(path)
    qtbot.addWidget(dialog)
    path.unlink()
    path.mkdir()  # now a folder stands where the file was
    dialog._save()
    assert dialog.result() != SettingsDialog.DialogCode.Accepted
    assert not dialog.error.isHidden() and str(path) in dialog.error.text()
