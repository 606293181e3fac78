"""The main window with the real scheduler on the qasync loop, a real SQLite file, the API
simulator over HTTP and the in-process simulated web chat: what an operator clicks does what
it says."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QCheckBox

from media_assistant.core.files.paths import Paths
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.batches import eta as batch_eta
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.common import labels
from media_assistant.gui.tasks.model import TASK_ID_ROLE
from media_assistant.gui.window import queue_controls
from media_assistant.gui.window.log_panel import LogModel
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.services import Services
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator
from tests.gui.app_env import Env, running_app
from tests.support.lane_watch import LaneWatch

CONFIG = """
[simulation]
web_latency_s = [{web_lo}, {web_hi}]
seed = 3

[[models]]
name = "web-model"
kind = "web"

[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "web-1"
kind = "web"
site = "fake"
models = ["web-model"]

[[accounts]]
id = "api-1"
kind = "api"
base_url = "{api_url}"
api_key_env = "MA_GUI_TEST_KEY"
models = ["api-model"]
concurrency = 2
"""


async def until(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait on the running loop (never a nested Qt loop inside a coroutine)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


@pytest.fixture
def api_sim() -> Any:
    sim = ApiSimulator(ApiSimConfig(latency_s=(8, 20), time_scale=0.02, seed=1))
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


App = Callable[..., AbstractAsyncContextManager[Env]]


@pytest.fixture
def app(tmp_path: Path, qtbot: Any, api_sim: Any, monkeypatch: pytest.MonkeyPatch) -> App:
    """``async with app(web=(lo, hi)) as env``: the app with its scheduler (web answers take
    lo..hi s), stopped inside the test — an async fixture's teardown runs after pytest-qt has
    processed Qt events outside the loop, which stepped an idle worker with no loop running."""
    monkeypatch.setenv("MA_GUI_TEST_KEY", "sk-gui-test")

    def make(web: tuple[float, float] = (0.3, 0.8)) -> AbstractAsyncContextManager[Env]:
        data = tmp_path / "data"
        data.mkdir()
        (data / "config.toml").write_text(
            CONFIG.format(api_url=api_sim.base_url, web_lo=web[0], web_hi=web[1]),
            encoding="utf-8",
        )
        return running_app(data, qtbot)

    return make


def states(env: Env) -> dict[str, str]:
    return {r.task_id: r.state for r in env.window.model.rows()}


def select(env: Env, task_ids: list[str]) -> None:
    view, proxy = env.window.table.view, env.window.model
    selection = view.selectionModel()
    selection.clearSelection()
    for row in range(proxy.rowCount()):
        if proxy.index(row, 0).data(TASK_ID_ROLE) in task_ids:
            selection.select(
                proxy.index(row, 0),
                QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
            )


async def test_a_batch_submitted_through_the_dialog_appears_and_runs(app: App, qtbot: Any) -> None:
    async with app() as env:
        dialog = env.window.new_batch()
        dialog.model_combo.setCurrentIndex(dialog.model_combo.findData("api-model"))
        dialog.paste_edit.setPlainText("第一条提示\n第二条提示\n\n第三条提示\n")
        assert dialog.ok_button.isEnabled()
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        await until(lambda: env.window.model.rowCount() == 3)
        assert {r.model for r in env.window.model.rows()} == {"api-model"}
        await until(lambda: set(states(env).values()) == {"success"})
        # The table shows the result of the store's events, not a reload.
        assert all(r.attempt == 1 for r in env.window.model.rows())


async def test_cancel_and_retry_buttons(app: App) -> None:
    async with app(web=(4.0, 6.0)) as env:
        ids = list((await env.controller.submit(_web_tasks(3))).added)
        await until(lambda: "running" in states(env).values())
        running = next(t for t, s in states(env).items() if s == "running")
        pending = [t for t in ids if t != running]
        select(env, [*pending, running])
        env.window.act_cancel.trigger()
        await until(lambda: all(states(env)[t] == "canceled" for t in ids), timeout=10)
        row = env.window.model.task(running)
        assert row is not None and row.error_kind == "canceled"
        select(env, [pending[0]])
        env.window.act_retry.trigger()
        await until(lambda: states(env)[pending[0]] in ("pending", "running"))
        await until(lambda: states(env)[pending[0]] == "success", timeout=20)
        assert states(env)[pending[1]] == "canceled"


async def test_disabling_an_account_stops_its_new_work(app: App) -> None:
    async with app() as env:
        toggle = env.window.accounts._toggles["api-1"]
        assert isinstance(toggle, QCheckBox) and toggle.isChecked()
        watch = LaneWatch(env.scheduler.lanes[ModelKind.API])
        toggle.setChecked(False)
        await until(lambda: not env.scheduler.rt.accounts.available("api-1"))  # type: ignore[union-attr]
        await env.controller.submit(_api_tasks(4))
        await watch.idle_turn("api-1")  # its worker looked at the new work with the account off
        assert watch.claims["api-1"] == 0
        await until(lambda: len(states(env)) == 4)  # the table has them
        assert set(states(env).values()) == {"pending"}
        assert env.window.accounts.table.item(1, 1).text() == labels.account_state("disabled")
        toggle.setChecked(True)
        await until(lambda: set(states(env).values()) == {"success"})


@pytest.mark.parametrize("inline_pending", [2_000, 0], ids=["at-once", "worker-thread"])
async def test_the_eta_appears_once_a_lane_has_finished_a_task(
    app: App, inline_pending: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A short queue is planned at once; a long one (here: any) on a worker thread, and the
    panel shows the plan when it is done."""
    async with app(web=(2.0, 3.0)) as env:
        monkeypatch.setattr(queue_controls, "INLINE_PENDING", inline_pending)
        planned_on: set[str] = set()

        def plan_lanes(*args: Any) -> Any:
            planned_on.add(threading.current_thread().name)
            return batch_eta.plan_lanes(*args)

        monkeypatch.setattr(queue_controls, "plan_lanes", plan_lanes)
        panel = env.window.lanes["web"]
        await env.controller.submit(_web_tasks(4))
        await until(lambda: env.window.model.rowCount() == 4)
        env.window.refresh()
        if inline_pending:
            assert panel.last_estimate is not None
        await until(lambda: getattr(panel.last_estimate, "basis", None) == "no_samples")
        assert panel.eta.text() == "ETA after the first task finishes"
        await until(lambda: "success" in states(env).values())
        env.window.refresh()
        await until(lambda: getattr(panel.last_estimate, "basis", None) == "observed")
        assert panel.last_estimate is not None
        assert panel.last_estimate.eta_s is not None and panel.last_estimate.eta_s > 0
        assert panel.eta.text().startswith("ETA ") and "about" in panel.eta.text()
        main = threading.main_thread().name
        assert planned_on == ({main} if inline_pending else planned_on - {main}) and planned_on


def _web_tasks(n: int) -> list[Any]:
    from media_assistant.core.model.records import NewTask

    return [
        NewTask(f"w{i}", "web-model", ModelKind.WEB, f"web prompt {i}", "gui") for i in range(n)
    ]


def _api_tasks(n: int) -> list[Any]:
    from media_assistant.core.model.records import NewTask

    return [
        NewTask(f"a{i}", "api-model", ModelKind.API, f"api prompt {i}", "gui") for i in range(n)
    ]


async def test_history_loads_behind_the_first_page_in_order(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import media_assistant.gui.window.history as history
    import media_assistant.gui.window.main_window as mw
    from media_assistant.core.model.records import NewTask

    monkeypatch.setattr(mw, "FIRST_PAGE", 300)
    monkeypatch.setattr(history, "HISTORY_PAGE", 400)
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(
        CONFIG.format(api_url="http://127.0.0.1:9/v1", web_lo=1, web_hi=2), encoding="utf-8"
    )
    services = Services.open(Paths.resolve(data))
    services.store.submit(
        [NewTask(f"h{i:05d}", "api-model", ModelKind.API, f"old {i}", "hist") for i in range(1500)]
    )
    with services.engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE tasks SET state='success', started_at=1, finished_at=2 WHERE seq <= 1490"
        )
    services.bind_loop()
    controller = AppController(services, services.scheduler())
    window = MainWindow(controller, LogModel())
    qtbot.addWidget(window)
    await window.load()
    assert window.model.rowCount() == 300 + 10  # the newest finished + everything unfinished
    assert window.history.task is None  # history waits for the window to be on screen
    painted = window.next_paint()
    window.hold_history()  # as the app does: until the scheduler has started
    window.show()
    await asyncio.wait_for(painted, 5)  # what the app waits for before starting the scheduler
    assert window.history.task is None  # held: the scheduler's start goes first
    assert window.model.rowCount() == 310
    window.release_history()
    await until(lambda: window.model.rowCount() == 1500)
    seqs = [r.seq for r in window.model.rows()]
    assert seqs == sorted(seqs)  # history went in at the top, in order
    assert window.model.lanes["api"].counts["success"] == 1490
    await controller.close()
    window.close()
    services.close()


def test_a_refresh_qt_runs_outside_the_event_loop_plans_nothing_and_leaves_nothing(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qt may run a window timer while no asyncio loop runs (a test's teardown, the app's
    shutdown): a long queue's plan is then left for the next refresh — no error, no coroutine
    created and never awaited (both were seen in CI)."""
    from media_assistant.core.model.records import NewTask

    monkeypatch.setattr(queue_controls, "INLINE_PENDING", 0)  # any queue is "long"
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(
        CONFIG.format(api_url="http://127.0.0.1:9/v1", web_lo=1, web_hi=2), encoding="utf-8"
    )
    services = Services.open(Paths.resolve(data))
    services.store.submit([NewTask("p1", "api-model", ModelKind.API, "pending", "b")])
    controller = AppController(services, services.scheduler())
    window = MainWindow(controller, LogModel())
    qtbot.addWidget(window)
    window.model.load(services.store.view_rows())
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()  # what a timer outside the loop meets
    window.refresh()
    assert window.queue._planning is None  # nothing started; the next refresh plans
    window.close()
    services.close()
