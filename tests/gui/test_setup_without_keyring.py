"""Set-up on a PC without an OS keyring reaches the end, in the window (issue 26 item 2).

The API key: the key field is closed and a variable offered; *Fetch the model list* then uses
the named variable from the app's environment — or says that it is not set there, and how to
set it on Windows and Linux — and an account saved with a variable that is not set says so, in
the set-up window and in the accounts panel (never "no API key … or the name of the variable"
about a name that was given). Real keyring backend chosen as the app chooses it (the ``fail``
backend: no keyring), the real API simulator on the loopback."""

from __future__ import annotations

import asyncio
import re
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from media_assistant.gui.accounts.account_editor import AccountEditor
from media_assistant.gui.accounts.setup_dialog import SetupDialog
from media_assistant.gui.common import labels
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec
from tests.gui.app_env import Env, running_app
from tests.support.keyrings import keyring_from_environment

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

KEY = "sk-from-the-environment-0123456789"
CONFIG = """
[[models]]
name = "web-model"
kind = "web"

[[accounts]]
id = "web-1"
kind = "web"
site = "fake"
models = ["web-model"]
"""


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    with keyring_from_environment():
        yield


@pytest.fixture
def api() -> Iterator[ApiSimulator]:
    sim = ApiSimulator(ApiSimConfig(latency_s=(1, 2), time_scale=0.05, keys={KEY: KeySpec()}))
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    return data


async def until(predicate: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, what
        await asyncio.sleep(0.02)


async def new_api_account(env: Env, api: ApiSimulator) -> tuple[SetupDialog, AccountEditor]:
    setup = env.window.open_setup()
    assert isinstance(setup, SetupDialog)
    setup.add_api.click()
    editor = setup.editor
    assert isinstance(editor, AccountEditor)
    await editor.keyring_checked
    assert not editor.key.isEnabled()  # no keyring: the key field is closed
    editor.id_edit.setText("ds-api")
    editor.id_edit.textEdited.emit("ds-api")
    editor.base_url.setText(api.base_url)
    return setup, editor


def problem(editor: AccountEditor, field: str) -> str:
    label = editor.problems.labels.get(field)
    return label.text() if label is not None and label.isVisible() else ""


async def test_the_key_variable_fetches_the_models_or_says_it_is_not_set_and_how(
    tmp_path: Path, qtbot: Any, no_keyring: None, api: ApiSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DS_API_KEY", raising=False)
    async with running_app(data_dir(tmp_path), qtbot, start_scheduler=False) as env:
        await fetch_then_save(env, api, monkeypatch)


async def fetch_then_save(env: Env, api: ApiSimulator, monkeypatch: pytest.MonkeyPatch) -> None:
    setup, editor = await new_api_account(env, api)
    editor.fetch_button.click()  # no name yet: asked for the variable's name, not the key
    await until(lambda: bool(problem(editor, "api_key_env")), "the variable was asked for")
    assert "name of the variable" in problem(editor, "api_key_env")
    assert "Paste the API key" not in problem(editor, "key")

    editor.key_env.setText("DS_API_KEY")
    editor.key_env.textEdited.emit("DS_API_KEY")
    editor.fetch_button.click()  # named, but this app's environment does not have it
    await until(lambda: "not set" in problem(editor, "api_key_env"), "unset variable said")
    words = problem(editor, "api_key_env")
    assert "DS_API_KEY" in words and "`setx DS_API_KEY your-key`" in words  # Windows
    assert "`export DS_API_KEY=your-key`" in words and "~/.profile" in words  # Linux

    monkeypatch.setenv("DS_API_KEY", KEY)
    editor.fetch_button.click()
    await until(lambda: editor.models.count() > 0, "the model list was fetched")
    # "%n model(s)": "models" once an English catalogue is installed, else the source's words
    assert re.search(r"\b2 model(s|\(s\)) offered", editor.note.text()), editor.note.text()
    editor.models.item(0).setCheckState(editor.models.item(0).checkState().Checked)
    model = editor.models.item(0).text()
    editor.save_button.click()
    await until(lambda: "ds-api saved" in setup.status.text(), "saved")
    assert "already works with it" in setup.status.text()
    config = tomllib.loads(env.services.paths.config_file.read_text(encoding="utf-8"))
    saved = next(a for a in config["accounts"] if a["id"] == "ds-api")
    assert saved["api_key_env"] == "DS_API_KEY" and saved["models"] == [model]
    setup.close()


@pytest.mark.expect_errors(r"no API key for account .ds-api.")
async def test_an_account_saved_with_a_variable_not_set_says_exactly_that(
    tmp_path: Path, qtbot: Any, no_keyring: None, api: ApiSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DS_API_KEY", raising=False)
    async with running_app(data_dir(tmp_path), qtbot) as env:
        await save_unset(env, api)


async def save_unset(env: Env, api: ApiSimulator) -> None:
    setup, editor = await new_api_account(env, api)
    editor.key_env.setText("DS_API_KEY")
    editor.key_env.textEdited.emit("DS_API_KEY")
    editor.new_model.setText("deepseek-chat")
    editor._on_add_model_clicked()
    editor.save_button.click()
    await until(lambda: "ds-api saved" in setup.status.text(), "saved")
    said = setup.status.text()
    assert "DS_API_KEY is not set in this app's environment" in said and "setx" in said
    assert "already works" not in said

    def status_words() -> str:
        status = env.controller.account_status("ds-api")
        return labels.problem_text(status) if status is not None and status.problem_code else ""

    await until(lambda: bool(status_words()), "the account's problem reached the window")
    assert "DS_API_KEY" in status_words() and "not set in this app's environment" in (
        status_words()
    )
    assert "No API key" not in status_words()
    setup.close()
