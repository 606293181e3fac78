"""Account changes in the running window (issue 8 item 4, issue 9 item 10): *Reset* in the
accounts panel's context menu clears an account's problem and the scheduler rebuilds its
provider (a new key is used at once); the set-up window's edits and removals reach the running
scheduler. Real scheduler on the qasync loop, real SQLite, the API simulator over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtWidgets import QMessageBox

from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import AccountProblem, AccountState, ModelKind
from media_assistant.gui.accounts.setup_dialog import SetupDialog
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.window.log_panel import LogModel
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.services import Services
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec

# The offscreen platform cannot size windows by hints or grab the keyboard for a popup menu.
pytestmark = pytest.mark.qt_log_ignore(
    "This plugin does not support propagateSizeHints",
    "This plugin does not support grabbing the keyboard",
)

GOOD, BAD = "sk-good-gui-0123456789", "sk-bad-gui-9876543210"

CONFIG = """
# The team's accounts (a comment the set-up window must keep)
[[models]]
name = "api-model"
kind = "api"
upstream = "sim-chat"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "{url}"
api_key_env = "MA_RESET_TEST_KEY"   # set by the test
models = ["api-model"]
concurrency = 1

[[accounts]]
id = "api-2"
kind = "api"
base_url = "{url}"
api_key_env = "MA_RESET_TEST_KEY_2"
models = ["api-model"]
"""


@dataclass
class Env:
    window: MainWindow
    controller: AppController
    scheduler: Scheduler
    services: Services


async def until(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


@pytest.fixture
def api_sim() -> Any:
    sim = ApiSimulator(
        ApiSimConfig(latency_s=(8, 20), time_scale=0.02, seed=1, keys={GOOD: KeySpec()})
    )
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


App = Callable[[], AbstractAsyncContextManager[Env]]


@pytest.fixture
def app(tmp_path: Path, qtbot: Any, api_sim: Any, monkeypatch: pytest.MonkeyPatch) -> App:
    """The app with its scheduler, stopped inside the test: an async fixture's teardown runs
    after pytest-qt has processed Qt events outside the loop, which stepped an idle worker's
    timer with no loop running ("no running event loop", a worker crash at teardown)."""
    monkeypatch.setenv("MA_RESET_TEST_KEY", BAD)
    monkeypatch.setenv("MA_RESET_TEST_KEY_2", GOOD)
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG.format(url=api_sim.base_url), encoding="utf-8")

    @contextlib.asynccontextmanager
    async def running() -> AsyncIterator[Env]:
        services = Services.open(Paths.resolve(data))
        services.bind_loop()
        await services.async_accounts.set_enabled("api-2", False)  # only api-1 works at first
        scheduler = services.scheduler()
        controller = AppController(services, scheduler)
        window = MainWindow(controller, LogModel())
        qtbot.addWidget(window)
        await controller.follower.start(await window.load())
        await scheduler.start()
        window.show()
        try:
            yield Env(window, controller, scheduler, services)
        finally:
            await scheduler.stop()
            await controller.close()
            if shiboken6.isValid(window):
                window.close()
            services.close()

    return running


def state_of(env: Env, account_id: str) -> AccountState | None:
    status = env.controller.account_status(account_id)
    return status.state(env.controller.now()) if status else None


async def test_reset_in_the_accounts_panel_picks_up_a_new_key(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the account kept the provider holding the rejected key; the only way back was
    restarting the app (and with it every running task)."""
    async with app() as env:
        await env.controller.submit(
            [NewTask(f"t{i}", "api-model", ModelKind.API, f"prompt {i}", "b") for i in range(3)]
        )
        await until(lambda: state_of(env, "api-1") is AccountState.CREDENTIALS_REJECTED)
        monkeypatch.setenv("MA_RESET_TEST_KEY", GOOD)  # the operator fixed the key
        panel = env.window.accounts
        row = panel._rows["api-1"]
        rect = panel.table.visualItemRect(panel.table.item(row, 0))
        panel._on_table_context_menu(rect.center())
        assert panel.menu is not None
        [reset] = [a for a in panel.menu.actions() if a.text() == "Reset api-1"]
        reset.trigger()
        panel.menu.close()
        await until(lambda: state_of(env, "api-1") is AccountState.ENABLED)
        # ... and says so (issue 20: a Reset gave no word).
        await until(lambda: "api-1 reset" in env.window.statusBar().currentMessage())
        await env.controller.retry_failed()
        await until(lambda: {r.state for r in env.window.model.rows()} == {"success"}, 30)
        status = env.controller.account_status("api-1")
        assert status is not None and status.problem is AccountProblem.NONE


async def test_setup_edits_and_removals_reach_the_running_scheduler(app: App, qtbot: Any) -> None:
    """A new account works at once; a removed one takes no new work; the file keeps its
    comments; the panel shows the accounts the configuration has now."""
    async with app() as env:
        window = env.window
        setup = window.open_setup()
        assert isinstance(setup, SetupDialog)
        # api-1 gets the good key's variable; api-2 goes.
        editor = setup.edit_account(ModelKind.API, "api-1")
        editor.key_env.setText("MA_RESET_TEST_KEY_2")
        editor.concurrency.setValue(3)
        editor.save_button.click()
        await until(lambda: not shiboken6.isValid(editor) or not editor.isVisible())
        assert env.scheduler.lanes[ModelKind.API].account("api-1").concurrency == 3  # type: ignore[union-attr]
        setup.accounts.selectRow(1)
        setup._on_remove_account_clicked()
        box = setup.confirmation
        assert isinstance(box, QMessageBox)
        box.button(QMessageBox.StandardButton.Yes).click()
        await until(lambda: setup.accounts.rowCount() == 1)
        await until(lambda: "api-2" not in env.scheduler.providers)
        assert [a.id for a in env.controller.accounts] == ["api-1"]
        assert window.accounts.table.rowCount() == 1
        text = env.services.paths.config_file.read_text(encoding="utf-8")
        assert "# The team's accounts" in text and "api-2" not in text
        assert 'api_key_env = "MA_RESET_TEST_KEY_2"   # set by the test' in text
        await env.controller.submit(
            [NewTask(f"n{i}", "api-model", ModelKind.API, f"prompt {i}", "n") for i in range(4)]
        )
        await until(lambda: {r.state for r in window.model.rows()} == {"success"}, 30)
        assert {r.account_id for r in window.model.rows()} == {"api-1"}
        setup.close()


async def test_model_options_apply_live_and_the_last_model_of_an_account_stays(
    app: App,
) -> None:
    """A model's options reach the next attempt without a restart; a model an account cannot do
    without is not removed (the config would be refused), the operator is told why."""
    async with app() as env:
        setup = env.window.open_setup()
        assert isinstance(setup, SetupDialog)
        setup.tabs.setCurrentIndex(1)
        setup.models.selectRow(0)
        setup._on_edit_model_clicked()
        editor = setup.editor
        assert editor is not None
        editor.user_only.setChecked(True)
        editor.system.setPlainText("你是一名资深编辑。")
        editor._on_save_clicked()
        await until(lambda: not shiboken6.isValid(editor) or not editor.isVisible())
        model = env.scheduler.config.model("api-model")
        assert model is not None and model.need_empty_prompt and model.system_prompt
        assert env.scheduler.rt is not None and env.scheduler.rt.config.model("api-model") == model
        setup._on_remove_model_clicked()
        assert "only model of api-1, api-2" in setup.status.text()
        assert env.scheduler.config.model("api-model") is not None
        text = env.services.paths.config_file.read_text(encoding="utf-8")
        assert "need_empty_prompt = true" in text and 'upstream = "sim-chat"' in text
        setup.close()


async def test_a_removed_account_takes_its_key_out_of_the_keyring(
    app: App,
) -> None:
    """Before: a removed account's key stayed in the OS keyring, and a new account given the
    same name later worked with it, unasked."""
    async with app() as env:
        from media_assistant.providers import secrets
        from tests.support.keyrings import MemoryKeyring, use_keyring

        with use_keyring(MemoryKeyring()) as memory:
            assert isinstance(memory, MemoryKeyring)
            secrets.store_api_key("api-1", "sk-kept-0123456789")
            secrets.store_api_key("api-2", "sk-of-the-removed-one-0123")
            setup = env.window.open_setup()
            assert isinstance(setup, SetupDialog)
            setup.accounts.selectRow(1)
            setup._on_remove_account_clicked()
            box = setup.confirmation
            assert isinstance(box, QMessageBox)
            box.button(QMessageBox.StandardButton.Yes).click()
            await until(lambda: (secrets.API_KEY.service, "api-2") not in memory.entries)
            assert memory.entries == {(secrets.API_KEY.service, "api-1"): "sk-kept-0123456789"}
            assert secrets.lookup(secrets.API_KEY, "api-2").value is None
            setup.close()
