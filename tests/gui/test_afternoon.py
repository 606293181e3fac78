"""Issue 20's smaller things, each as an operator meets it on the real window (offscreen, a real
SQLite file): the title follows what the window shows, *Open folder* says when it cannot."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.tasks import actions
from tests.gui.app_env import running_app

CONFIG = """
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_AFTERNOON_KEY"
models = ["api-model"]
"""


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


def tasks(batch: str, n: int) -> list[NewTask]:
    return [
        NewTask(f"{batch}-{i}", "api-model", ModelKind.API, f"提示 {i}", batch) for i in range(n)
    ]


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MA_AFTERNOON_KEY", "sk-afternoon")
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "config.toml").write_text(CONFIG, encoding="utf-8")
    return folder


async def test_the_title_counts_every_unfinished_batch_or_the_chosen_one(
    data: Path, qtbot: Any
) -> None:
    from media_assistant.core.files.paths import Paths
    from media_assistant.services import Services

    earlier = Services.open(Paths.resolve(data))  # a batch from before this start
    earlier.store.submit(tasks("morning", 3))
    earlier.close()
    async with running_app(data, qtbot, start_scheduler=False) as env:
        w = env.window
        await env.controller.submit(tasks("evening", 2))
        await until(lambda: w.table.batch_filter.findData("evening") >= 0)
        w.refresh()
        assert w.windowTitle() == "0/5 done — Media Assistant"  # not the newest batch alone
        w.table.set_batch("morning")
        w.refresh()
        assert w.windowTitle() == "morning: 0/3 done — Media Assistant"


def test_open_folder_says_so_where_no_file_manager_can_be_started(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class NoFileManager:  # what QDesktopServices answers on a desktop without one
        @staticmethod
        def openUrl(_url: object) -> bool:  # noqa: N802
            return False

    monkeypatch.setattr(actions, "QDesktopServices", NoFileManager)
    parent = QWidget()
    qtbot.addWidget(parent)
    assert not actions.open_folder(parent, tmp_path)
    boxes = [b for b in parent.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1 and str(tmp_path) in boxes[0].text()


DEMO_CONFIG = """
[[models]]
name = "demo-chat-api"
kind = "api"

[[models]]
name = "demo-chat-web"
kind = "web"

[[accounts]]
id = "demo-api"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_AFTERNOON_KEY"
models = ["demo-chat-api"]

[[accounts]]
id = "demo-web-1"
kind = "web"
site = "fake"
models = ["demo-chat-web"]
"""


async def test_the_demo_banner_follows_the_sample_batch_not_the_button(
    data: Path, qtbot: Any
) -> None:
    """Issue 20, item 9: "running" long after the batch ended, "press Run" after a restart in
    the middle of one. The banner reads the demo's queue."""
    from media_assistant.core.files.paths import Paths
    from media_assistant.demo import sample_batch, sample_batch_id
    from media_assistant.services import Services

    (data / "config.toml").write_text(DEMO_CONFIG, encoding="utf-8")
    async with running_app(data, qtbot, start_scheduler=False) as env:
        env.window.offer_demo_batch()
        banner = env.window.demo_banner
        assert banner is not None and banner.state == "fresh"
        assert "Run the sample batch" in banner.button.text()
    earlier = Services.open(Paths.resolve(data))  # a start that ran the sample, then closed
    batch = sample_batch(sample_batch_id(1_764_483_900))
    earlier.store.submit(batch)
    earlier.close()
    async with running_app(data, qtbot, start_scheduler=False) as env:
        env.window.offer_demo_batch()
        banner = env.window.demo_banner
        assert banner is not None and banner.state == "running"  # after the restart too
        assert "running" in banner.text.text()
        await env.controller.cancel([t.task_id for t in batch])  # it ends
        await until(lambda: all(r.state == "canceled" for r in env.window.model.rows()))
        env.window.refresh()
        assert banner.state == "finished" and "finished" in banner.text.text()
        assert banner.button.text() == "Run it again"


async def test_after_fetch_the_focus_stays_on_the_button_not_the_name_field(
    data: Path, qtbot: Any
) -> None:
    """Issue 20, item 11: pressing *Fetch* disabled the button under the focus, Qt moved the
    focus on to the Name field and selected its text; a key typed next replaced the name."""
    from media_assistant.core.model.states import ModelKind
    from media_assistant.gui.accounts.setup_dialog import SetupDialog
    from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator
    from tests.support.keyrings import MemoryKeyring, use_keyring

    api = ApiSimulator(ApiSimConfig(latency_s=(0.1, 0.2), time_scale=0.01, seed=1))
    api.start_in_thread()
    # A computer with a keyring (without one the key field is closed: test_api_key_keyring).
    with use_keyring(MemoryKeyring()):
        try:
            async with running_app(data, qtbot, start_scheduler=False) as env:
                setup = env.window.open_setup()
                assert isinstance(setup, SetupDialog)
                editor = setup.edit_account(ModelKind.API, None)
                editor.activateWindow()
                await until(lambda: QApplication.activeWindow() is editor)
                editor.id_edit.setText("sim-api")
                editor.base_url.setText(api.base_url)
                editor.key.setText("sk-afternoon-test-key")
                editor.fetch_button.setFocus()
                await until(lambda: QApplication.focusWidget() is editor.fetch_button)
                editor.fetch_button.click()
                await asyncio.sleep(0)  # the click's task starts: the buttons are disabled
                assert editor.busy
                await until(lambda: editor.models.count() > 0 and not editor.busy)
                assert editor.focusWidget() is editor.fetch_button
                assert not editor.id_edit.hasSelectedText()
                editor.close()
                setup.close()
        finally:
            api.stop_in_thread()
