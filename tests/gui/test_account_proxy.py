"""The account editor's proxy fields and the accounts panel's view of shared proxies (issue 32,
item 2), the app composed as app.py composes it, against a real tinyproxy with a password:
*Test proxy* says what happened in the operator's words; Save keeps the password in the keyring
(never in config.toml); the panel lists accounts sharing one proxy and warns when two web
accounts of one site do."""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from media_assistant.core.model.states import ModelKind
from media_assistant.gui.accounts.account_editor import AccountEditor
from media_assistant.gui.accounts.setup_session import SetupSession
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator
from tests.gui.app_env import running_app
from tests.support.file_keyring import FileKeyring
from tests.support.keyrings import use_keyring
from tests.support.proxies import TinyProxy, logged

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def api_sim() -> Iterator[ApiSimulator]:
    sim = ApiSimulator(ApiSimConfig(latency_s=(2, 4), time_scale=0.01, seed=3))
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


@pytest.fixture
def http_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TinyProxy]:
    proxy = TinyProxy(tmp_path_factory.mktemp("tinyproxy"), "alice", "proxy-pw-7")
    proxy.start()
    yield proxy
    proxy.stop()


@pytest.fixture
def file_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "keyring.json"
    monkeypatch.setenv("MA_TEST_KEYRING_FILE", str(path))
    with use_keyring(FileKeyring()):
        yield path


def data_dir(tmp_path: Path, base_url: str, proxy: str) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(
        f"""
[[models]]
name = "api-model"
kind = "api"

[[models]]
name = "sim-web"
kind = "web"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "{base_url}"
api_key_env = "MA_PROXY_TEST_KEY"
models = ["api-model"]

[[accounts]]
id = "web-1"
kind = "web"
site = "sim"
origin = "http://127.0.0.1:9"
models = ["sim-web"]
proxy = "{proxy}"

[[accounts]]
id = "web-2"
kind = "web"
site = "sim"
origin = "http://127.0.0.1:9"
models = ["sim-web"]
proxy = "{proxy}"
""",
        encoding="utf-8",
    )
    return data


async def test_test_proxy_speaks_plainly_and_save_keeps_the_password_in_the_keyring(
    tmp_path: Path,
    qtbot: Any,
    api_sim: ApiSimulator,
    http_proxy: TinyProxy,
    file_keyring: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MA_PROXY_TEST_KEY", "sk-proxy-test-key-0")
    user_proxy = http_proxy.url.replace("http://", "http://alice@")
    data = data_dir(tmp_path, api_sim.base_url, user_proxy)
    async with running_app(data, qtbot, start_scheduler=False) as env:
        panel = env.window.accounts
        note = panel.proxies_note.text()
        assert "web-1, web-2" in note and "ban them together" in note
        editor = AccountEditor(SetupSession(env.controller), ModelKind.API, "api-1")
        qtbot.addWidget(editor)
        editor.show()
        fields = editor.proxy_fields
        assert "No proxy" in await fields.test()
        fields.proxy.setText(user_proxy)
        fields.password.setText("wrong")
        words = await fields.test()
        assert words.startswith("The proxy refused the user name or password (407)")
        assert editor.note_is_error
        fields.password.setText("proxy-pw-7")
        words = await fields.test()
        assert words.startswith("Connected to 127.0.0.1:") and " ms" in words
        assert not editor.note_is_error
        editor._save(login=False)
        await asyncio.sleep(0)
        while editor.busy:
            await asyncio.sleep(0.02)
        text = (data / "config.toml").read_text(encoding="utf-8")
        api = next(a for a in tomllib.loads(text)["accounts"] if a["id"] == "api-1")
        assert api["proxy"] == user_proxy
        assert "proxy-pw-7" not in text
        assert "proxy-pw-7" in file_keyring.read_text(encoding="utf-8")
        panel.rebuild()
        assert "api-1, web-1, web-2" in panel.proxies_note.text()
        http_proxy.stop()
        reopened = AccountEditor(SetupSession(env.controller), ModelKind.API, "api-1")
        qtbot.addWidget(reopened)
        assert (await reopened.proxy_fields.test()).startswith("Cannot reach the proxy")


async def test_fetch_the_model_list_and_test_connection_go_through_the_proxy(
    tmp_path: Path,
    qtbot: Any,
    api_sim: ApiSimulator,
    http_proxy: TinyProxy,
    file_keyring: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The API set-up's questions leave the way the account's tasks will (issue 32): through
    the proxy typed in the form, with its password — counted at the proxy, seen at the
    simulator — and a refused password is said as the proxy's."""
    monkeypatch.setenv("MA_PROXY_TEST_KEY", "sk-proxy-test-key-0")
    port = int(api_sim.base_url.rsplit(":", 1)[1].split("/")[0])
    user_proxy = http_proxy.url.replace("http://", "http://alice@")
    data = data_dir(tmp_path, api_sim.base_url, user_proxy)
    async with running_app(data, qtbot, start_scheduler=False) as env:
        editor = AccountEditor(SetupSession(env.controller), ModelKind.API, "api-1")
        qtbot.addWidget(editor)
        editor.show()
        editor.proxy_fields.proxy.setText(user_proxy)
        editor.proxy_fields.password.setText("proxy-pw-7")
        await editor.api.probe(editor.api.fetch)
        offered = [editor.models.item(i).text() for i in range(editor.models.count())]
        assert "sim-chat" in offered, editor.note.text()
        editor.models.item(offered.index("sim-chat")).setCheckState(Qt.CheckState.Checked)
        for i, name in enumerate(offered):
            if name != "sim-chat":
                editor.models.item(i).setCheckState(Qt.CheckState.Unchecked)
        await editor.api.probe(editor.api.test)
        assert editor.note.text().startswith("Connected: sim-chat"), editor.note.text()
        assert not editor.note_is_error
        await logged(
            lambda: http_proxy.requests_to(port), 2, http_proxy.log_text
        )  # tinyproxy logs after relaying
        via = [r.get("via", "") for r in api_sim.stats()["requests"]]
        assert len(via) == 1 and "tinyproxy" in via[0]
        editor.proxy_fields.password.setText("wrong")
        await editor.api.probe(editor.api.fetch)
        assert editor.note_is_error
        assert editor.note.text() == "Proxy refused the password"
