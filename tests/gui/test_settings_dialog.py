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


async def test_saving_writes_the_choices_and_keeps_the_rest(tmp_path: Path, qtbot: Any) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    dialog = SettingsDialog(path)
    qtbot.addWidget(dialog)
    dialog.browser.setText("/usr/lib/chromium/chromium")
    dialog.web_timeout.setValue(900)
    dialog.language.setCurrentIndex(dialog.language.findData("en"))
    assert await dialog.save()
    assert dialog.result() == SettingsDialog.DialogCode.Accepted
    text = path.read_text(encoding="utf-8")
    assert "# my accounts" in text and "# the team key" in text
    data = tomllib.loads(text)
    assert data["browser"]["executable"] == "/usr/lib/chromium/chromium"
    assert data["lanes"]["web"]["task_timeout_s"] == 900
    assert data["ui"]["language"] == "en"
    assert data["accounts"][0]["id"] == "api-1"
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temporary file left


async def test_a_config_path_that_cannot_be_written_is_reported_not_raised(
    tmp_path: Path, qtbot: Any
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    dialog = SettingsDialog(path)
    qtbot.addWidget(dialog)
    path.unlink()
    path.mkdir()  # now a folder stands where the file was
    assert not await dialog.save()
    assert dialog.result() != SettingsDialog.DialogCode.Accepted
    assert not dialog.error.isHidden() and str(path) in dialog.error.text()


async def test_a_hand_edit_made_while_the_dialog_is_open_is_kept(
    tmp_path: Path, qtbot: Any
) -> None:
    """Before: the dialog wrote back the file as it was when the dialog opened: an account
    added by hand meanwhile was gone."""
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    dialog = SettingsDialog(path)
    qtbot.addWidget(dialog)
    edited = CONFIG.replace('id = "api-1"  # the team key', 'id = "api-1"  # the team key, renewed')
    edited += "\n# added while the dialog was open\n"
    path.write_text(edited, encoding="utf-8")
    dialog.web_timeout.setValue(600)
    assert await dialog.save()
    text = path.read_text(encoding="utf-8")
    assert "the team key, renewed" in text and "# added while the dialog was open" in text
    assert tomllib.loads(text)["lanes"]["web"]["task_timeout_s"] == 600
