"""An API key where the OS cannot keep it (issue 20 item 2): a Linux desktop without Secret
Service, a locked keyring. The set-up window says so at once, in the operator's words, offers
the environment variable instead, never hangs on "Saving…", and the account is saved once the
operator names a variable. Real keyring backends chosen as an app process chooses them
(PYTHON_KEYRING_BACKEND), the app composed as app.py composes it."""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from media_assistant.core.model.states import ModelKind
from media_assistant.gui.accounts import api_checks
from media_assistant.gui.accounts.account_editor import AccountEditor
from media_assistant.gui.accounts.setup_session import SetupSession
from media_assistant.providers import secrets
from tests.gui.app_env import Env, running_app
from tests.support.keyrings import HangingKeyring, keyring_from_environment, use_keyring

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

CONFIG = """
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_KEYRING_TEST_KEY"
models = ["api-model"]
"""


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    with keyring_from_environment():
        yield


def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    return data


async def new_api_account(env: Env, qtbot: Any) -> AccountEditor:
    editor = AccountEditor(SetupSession(env.controller), ModelKind.API, None)
    qtbot.addWidget(editor)
    editor.show()
    await editor.keyring_checked
    editor.id_edit.setText("ds-api")
    editor.id_edit.textEdited.emit("ds-api")  # as typing does
    editor.base_url.setText("https://api.deepseek.com/v1")
    editor.new_model.setText("deepseek-chat")
    editor._on_add_model_clicked()
    return editor


async def save(editor: AccountEditor) -> list[tuple[str, bool]]:
    """Press Save and wait until the editor is done with it; returns every note it showed
    meanwhile, each with whether it was still busy then (a spy on ``show_note``)."""
    notes: list[tuple[str, bool]] = []
    show = editor.show_note

    def spy(text: str, *, error: bool = False) -> None:
        notes.append((text, editor.busy))
        show(text, error=error)

    editor.show_note = spy  # type: ignore[method-assign]
    try:
        editor._save(login=False)
        await asyncio.sleep(0)
        while editor.busy:
            await asyncio.sleep(0.02)
    finally:
        del editor.show_note
    return notes


def waited_for_keyring(notes: list[tuple[str, bool]]) -> list[bool]:
    """For each "waiting for the keyring" note shown: whether the save was still running."""
    return [busy for text, busy in notes if "Waiting for the system keyring" in text]


def accounts_in(data: Path) -> list[str]:
    config = tomllib.loads((data / "config.toml").read_text(encoding="utf-8"))
    return [a["id"] for a in config["accounts"]]


async def test_no_keyring_is_said_before_a_key_is_typed_and_the_variable_is_offered(
    tmp_path: Path, qtbot: Any, no_keyring: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: "正在保存…" for 13 s with no word, then an English error pointing at the config
    file; the "saving" line stayed."""
    data = data_dir(tmp_path)
    async with running_app(data, qtbot, start_scheduler=False) as env:
        editor = await new_api_account(env, qtbot)
        hint = editor.problems.labels["key"]
        assert hint.isVisible() and "no system keyring" in hint.text()
        assert not editor.key.isEnabled() and editor.key_env.hasFocus()
        assert editor.key_env.placeholderText() == "e.g. DS_API_KEY"
        notes = await save(editor)  # no key can be kept, and no variable named: asked for one
        assert not waited_for_keyring(notes) and accounts_in(data) == ["api-1"]
        assert "variable that holds the key" in editor.problems.labels["api_key_env"].text()
        assert not editor.note.isVisible()  # no "Saving…" left behind
        monkeypatch.setenv("DS_API_KEY", "sk-from-the-environment-0123")
        editor.key_env.setText("DS_API_KEY")
        await save(editor)
        assert accounts_in(data) == ["api-1", "ds-api"]


async def test_a_keyring_that_refuses_at_save_is_said_next_to_the_key(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keyring looked usable when the editor opened, but the save meets none (the backend
    goes away, as a Secret Service that stops): said at once, next to the key, in words."""
    data = data_dir(tmp_path)
    async with running_app(data, qtbot, start_scheduler=False) as env:
        editor = await new_api_account(env, qtbot)
        editor.key.setText("sk-typed-0123456789")
        # However late a loaded machine runs the loop, the refusal comes before this patience.
        monkeypatch.setattr(api_checks, "KEYRING_PATIENCE_S", 600.0)
        monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
        with keyring_from_environment():
            notes = await save(editor)
        assert not waited_for_keyring(notes)  # said from the refusal, not after waiting
        hint = editor.problems.labels["key"]
        assert hint.isVisible() and "no system keyring" in hint.text()
        assert "config" not in hint.text() and "sk-typed" not in hint.text()
        assert not editor.note.isVisible() and accounts_in(data) == ["api-1"]


async def test_a_keyring_that_does_not_answer_is_waited_for_with_a_word_then_given_up(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A locked Secret Service waiting for its password: the window says what it waits for,
    gives up after the limit, and offers the variable; nothing hangs on "Saving…"."""
    monkeypatch.setattr(secrets, "KEYRING_TIMEOUT_S", 2.0)
    monkeypatch.setattr(api_checks, "KEYRING_PATIENCE_S", 0.0)  # the word at once
    data = data_dir(tmp_path)
    HangingKeyring.release.clear()
    try:
        with use_keyring(HangingKeyring()):
            async with running_app(data, qtbot, start_scheduler=False) as env:
                editor = await new_api_account(env, qtbot)
                editor.key.setText("sk-typed-0123456789")
                notes = await save(editor)
                # The word came while the save still waited, before it gave up (the keyring
                # hangs until released, so the order of the two does not depend on the clock).
                assert waited_for_keyring(notes) == [True]
                hint = editor.problems.labels["key"]
                assert hint.isVisible() and "did not answer" in hint.text()
                assert editor.key.isEnabled()  # it may be unlocked and tried again
                assert not editor.note.isVisible() and accounts_in(data) == ["api-1"]
    finally:
        HangingKeyring.release.set()
