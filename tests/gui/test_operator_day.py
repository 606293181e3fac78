"""The operator's day in the window (issue 12), offscreen on the qasync loop with a real SQLite
file: the batches list (newest on top, filters the table and the lane panels, per-batch
actions with confirmations), pauses, priorities, schedules, the title column, and the polish —
actions disabled with a reason, Enter opens a task, Retry from the details window, cancel said
plainly, the attempt column after a retry, an account switched off while it works.

The scheduler is not started: the tests move tasks through the store (on a worker thread, as
another process would), so every state is exactly the one a test sets up."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QItemSelectionModel, Qt, QTranslator
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox

from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.records import BatchInfo, Claim, NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.batches.batch_list import COL_ETA, COL_FAILED, COL_NAME, COL_SOURCE
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.common.i18n import install_translators
from media_assistant.gui.tasks.model import TASK_ID_ROLE
from media_assistant.gui.tasks.rows import COL_ATTEMPT, COL_ERROR, COL_PRIORITY, COL_STATE
from media_assistant.gui.window.log_panel import LogModel
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.services import Services

CONFIG = """
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
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_DAY_TEST_KEY"
models = ["api-model"]
"""


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


def tasks(batch: str, n: int, kind: ModelKind = ModelKind.API) -> list[NewTask]:
    model = "api-model" if kind is ModelKind.API else "web-model"
    return [NewTask(f"{batch}-{i}", model, kind, f"{batch} prompt {i}", batch) for i in range(n)]


@pytest.fixture
def english(qapp: QApplication) -> Iterator[None]:
    """The English catalogue, as the app installs it (plurals read "1 task" / "2 tasks")."""
    before = set(qapp.findChildren(QTranslator))
    install_translators(qapp, "en")
    yield
    for translator in set(qapp.findChildren(QTranslator)) - before:
        qapp.removeTranslator(translator)
        translator.deleteLater()


@pytest.fixture
async def window(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch, english: None
) -> AsyncIterator[MainWindow]:
    monkeypatch.setenv("MA_DAY_TEST_KEY", "sk-day-test")
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    services = Services.open(Paths.resolve(data))
    clock = services.clock
    services.store.submit(
        tasks("old", 3), batch=BatchInfo("old", name="旧批次", source_file="/data/old.csv")
    )
    services.store.submit(tasks("new", 4) + tasks("new", 0), batch=BatchInfo("new"))
    services.bind_loop()
    controller = AppController(services, services.scheduler())
    win = MainWindow(controller, LogModel())
    qtbot.addWidget(win)
    await controller.follower.start(await win.load())
    win.show()
    win.refresh()
    assert clock is not None
    try:
        yield win
    finally:
        await controller.close()
        if shiboken6.isValid(win):
            win.close()
        services.close()


async def in_store(win: MainWindow, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """A store write as another process would make it: off the loop."""
    return await asyncio.to_thread(fn, *args, **kwargs)


def claim(win: MainWindow, account: str = "api-1", kind: ModelKind = ModelKind.API) -> Claim:
    models = ["api-model"] if kind is ModelKind.API else ["web-model"]
    got = win.controller.services.store.claim_next(
        kind=kind, account_id=account, models=models, owner_id="test", deadline_s=600
    )
    assert got is not None
    return got


async def fail_one(
    win: MainWindow, kind: ErrorKind = ErrorKind.SERVER_ERROR, code: EventCode = EventCode.FAILED
) -> str:
    """``code`` POISON_PILL: the task ends as the attempt runner ends a poison pill."""
    store = win.controller.services.store

    def run() -> str:
        c = claim(win)
        store.finish_failed(c, kind, "the server said no", code=code)
        return c.task_id

    task_id = await asyncio.to_thread(run)
    await until(lambda: getattr(win.model.task(task_id), "state", None) == "failed")
    return task_id


def select(win: MainWindow, task_ids: list[str]) -> None:
    view, model = win.table.view, win.model
    view.selectionModel().clearSelection()
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        if index.data(TASK_ID_ROLE) in task_ids:
            view.selectionModel().select(
                index,
                QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
            )
            view.setCurrentIndex(index)


def batch_cells(win: MainWindow, column: int) -> list[str]:
    m = win.batch_list.model
    return [str(m.data(m.index(r, column))) for r in range(m.rowCount())]


def model_cell(win: MainWindow, task_id: str, column: int, role: int = 0) -> Any:
    row = win.model.row_for(task_id)
    assert row is not None
    return win.model.data(win.model.index(row, column), role or Qt.ItemDataRole.DisplayRole)


# ------------------------------------------------------------------------------ batches list


async def test_the_batches_list_shows_new_batches_on_top_and_filters_table_and_lanes(
    window: MainWindow,
) -> None:
    names = batch_cells(window, COL_NAME)
    assert names == ["All batches", "new", "旧批次"]  # newest first, by name where given
    assert batch_cells(window, COL_SOURCE)[2] == "old.csv"
    window.batch_list.select("old")
    await until(lambda: window.table.current_batch() == "old")
    assert {r.batch_id for r in window.model.rows()} == {"old"}
    assert window.lanes["api"].counts.text().count("<b>3</b>") == 1  # its 3 pending tasks
    window.table.set_batch("")  # "All batches" in the filter: the list follows
    await until(lambda: window.batch_list.current() == "")
    assert window.model.rowCount() == 7


async def test_pausing_a_batch_holds_its_tasks_and_says_so(window: MainWindow) -> None:
    window.batch_list.select("new")
    window.batch_list.pause_button.click()
    await until(lambda: window.model.holds.paused("batch", "new"))
    window.refresh()
    assert batch_cells(window, COL_ETA)[1] == "Paused"
    assert model_cell(window, "new-0", COL_STATE) == "Paused"
    assert [p.target for p in await window.controller.pauses()] == ["new"]
    assert window.batch_list.pause_button.text() == "Resume"
    window.batch_list.pause_button.click()
    await until(lambda: not window.model.holds.paused("batch", "new"))
    assert model_cell(window, "new-0", COL_STATE) == "Pending"


async def test_pausing_with_a_running_task_says_it_pauses_after_the_current_task(
    window: MainWindow,
) -> None:
    await in_store(window, claim, window)  # old-0 runs on api-1
    await until(lambda: window.model.task("old-0").state == "running")  # type: ignore[union-attr]
    window.task_actions.set_paused("all", "", True)
    await until(lambda: window.model.holds.all_paused and bool(window.task_actions.last_message))
    window.refresh()
    assert window.task_actions.last_message == (
        "Pausing the whole queue after the current task (1 running)"
    )
    assert window.queue.pause_status.text() == "Queue paused: finishing 1 running task"
    assert window.lanes["api"].eta.text() == "Pausing after the current task"
    assert window.task_actions.pause_all is not None
    assert window.task_actions.pause_all.text() == "Resume all"


async def test_retry_failed_of_a_batch_asks_first_stating_the_count(window: MainWindow) -> None:
    # Both failures in "old": with "new" waiting too, the fair share would alternate them.
    await in_store(window, window.controller.services.store.pause, "batch", "new")
    first = await fail_one(window)
    await fail_one(window, ErrorKind.CONTENT_POLICY)
    pill = await fail_one(window, code=EventCode.POISON_PILL)
    await until(lambda: window.model.batches.tally("old").failed == 3)
    window.batch_list.select("old")
    window.refresh()
    assert batch_cells(window, COL_FAILED)[2] == "3"
    assert window.batch_list.retry_button.isEnabled()
    window.batch_list.retry_button.click()
    await until(lambda: bool(window.task_actions.boxes))
    box = window.task_actions.boxes[-1]
    assert isinstance(box, QMessageBox)
    assert box.text().startswith("Run the 1 failed task of batch 旧批次 again?")
    assert "1 task blocked by the content policy" in box.text()
    assert "1 task that failed the same way on every attempt is left out" in box.text()
    box.done(QMessageBox.StandardButton.Yes)
    await until(lambda: window.model.task(first).state == "pending")  # type: ignore[union-attr]
    assert window.model.batches.tally("old").failed == 2  # the content-policy one stays
    assert window.model.task(pill).state == "failed"  # type: ignore[union-attr]  # and the pill


# ------------------------------------------------------------------------------ actions


async def test_actions_apply_only_when_they_can_and_say_why_not(window: MainWindow) -> None:
    actions = window.task_actions
    assert actions.cancel is not None and actions.retry is not None
    window.refresh()
    assert not actions.cancel.isEnabled()
    assert actions.cancel.toolTip() == "Select tasks to cancel"
    assert not actions.retry.isEnabled()
    assert actions.retry_failed_action is not None
    assert not actions.retry_failed_action.isEnabled()
    assert actions.retry_failed_action.toolTip() == "No task has failed"
    select(window, ["new-1"])
    assert actions.cancel.isEnabled()
    assert actions.retry.toolTip() == "None of the selected tasks failed or was canceled"
    for button in (window.batch_list.pause_button, window.batch_list.cancel_button):
        window.batch_list.select("")
        assert not button.isEnabled()
        assert button.toolTip() == "Choose a batch in the list first"


async def test_cancel_reads_naturally_and_is_not_styled_as_an_error(window: MainWindow) -> None:
    await in_store(window, claim, window)  # old-0 running
    await until(lambda: window.model.task("old-0").state == "running")  # type: ignore[union-attr]
    select(window, ["old-0", "old-1"])
    window.task_actions.cancel_tasks(["old-0", "old-1"])
    await until(lambda: window.model.task("old-1").state == "canceled")  # type: ignore[union-attr]
    await until(lambda: "canceled" in window.task_actions.last_message)
    assert window.task_actions.last_message == (
        "1 task canceled; 1 running task will stop at the next checkpoint"
    )
    assert model_cell(window, "old-1", COL_ERROR) == ""  # not a red error
    assert model_cell(window, "old-1", COL_ERROR, Qt.ItemDataRole.ForegroundRole) is None
    window.task_actions.cancel_tasks(["old-1"])
    await until(lambda: window.task_actions.last_message.startswith("Nothing to cancel"))


async def test_enter_opens_the_selected_task(window: MainWindow) -> None:
    select(window, ["new-2"])
    window.table.view.setFocus()
    QTest.keyClick(window.table.view, Qt.Key.Key_Return)
    await until(lambda: "new-2" in window._details)
    dialog = window._details["new-2"]
    assert dialog.windowTitle() == "Task new-2"


async def test_retry_and_retry_with_an_edited_prompt_from_the_details(
    window: MainWindow,
) -> None:
    failed = await fail_one(window, ErrorKind.CONTENT_POLICY)
    dialog = await window.show_details(failed)
    assert dialog is not None
    await until(dialog.retry_button.isEnabled)
    dialog.edit_button.click()
    assert not dialog.prompt_view.isReadOnly()
    dialog.prompt_view.setPlainText("a gentler prompt")
    dialog.edit_button.click()
    await until(lambda: window.model.task(failed).state == "pending")  # type: ignore[union-attr]
    row = await window.controller.task(failed)
    assert row is not None and row.prompt == "a gentler prompt" and row.operator_retries == 1
    await until(lambda: not dialog.retry_button.isEnabled())
    assert dialog.retry_button.toolTip() == "It has not finished yet"
    # The attempt column counts this round: not "1/4" but the retry, then "1/3 · retry 1".
    assert model_cell(window, failed, COL_ATTEMPT) == "retry 1"
    # The next claim takes the retried task: "new" has had nothing yet, so its fair share
    # would go first; held, it leaves the account to "old".
    await in_store(window, window.controller.services.store.pause, "batch", "new")
    await in_store(window, claim, window)
    await until(lambda: model_cell(window, failed, COL_ATTEMPT) == "1/3 · retry 1")


# ------------------------------------------------------------------------------ priorities


async def test_move_to_top_and_set_priority_from_the_table(window: MainWindow) -> None:
    window.task_actions.set_priority(["new-3"], None, "top")
    # Moved to the top by hand: run first, past the fair share (priority 1000 and above).
    await until(lambda: model_cell(window, "new-3", COL_PRIORITY) == "1000")
    assert window.task_actions.last_message == "1 task now at priority 1000"
    window.task_actions.set_priority(None, "old", "set")
    await until(lambda: bool(window.task_actions.boxes))
    dialog = window.task_actions.boxes[-1]
    dialog.setIntValue(5)  # type: ignore[attr-defined]
    dialog.accept()  # type: ignore[attr-defined]
    await until(lambda: model_cell(window, "old-2", COL_PRIORITY) == "5")
    got = await asyncio.to_thread(claim, window)
    assert got.task_id == "new-3"  # moved to the top by hand: strictly next
    got = await asyncio.to_thread(claim, window)
    assert got.task_id == "old-0"  # then the urgent class (priority 5) before normal work


async def test_held_work_says_what_holds_it_never_an_eta_of_zero(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 20, item 7: a paused batch's lane says "Paused", a scheduled one "Scheduled 16:09"
    (no duration known yet) or "After 16:09 + 1 min" (known), and with every waiting task held
    the lane as a whole says so too — not "ETA after the first task finishes", not "ETA 0s"."""
    from media_assistant.core.rules.pacing import time_of_day
    from media_assistant.gui.window import queue_controls

    monkeypatch.setattr(queue_controls, "ETA_MIN_GAP_S", 0.0)  # a new plan at every refresh
    api = window.lanes["api"]
    now = window.controller.now()
    start = now + 2 * 3600
    await window.controller.submit(tasks("night", 2), BatchInfo("night", start_at=start))
    await until(lambda: window.model.task("night-1") is not None)
    for batch in ("old", "new"):
        window.task_actions.set_paused("batch", batch, True)
    await until(lambda: window.model.holds.paused("batch", "old"))
    await until(lambda: window.model.holds.paused("batch", "new"))
    window.refresh()
    when = time_of_day(start, now)
    assert api.eta.text() == f"Scheduled {when}"  # nothing ended yet: no duration to add
    window.batch_list.select("new")
    await until(lambda: window.table.current_batch() == "new")
    assert api.eta.text() == "Paused: 4 tasks wait"  # as the whole lane says it
    window.batch_list.select("night")
    await until(lambda: window.table.current_batch() == "night")
    assert api.eta.text() == f"Scheduled {when}"

    window.task_actions.set_paused("batch", "old", False)  # one old task runs and ends
    await until(lambda: not window.model.holds.paused("batch", "old"))
    store = window.controller.services.store

    def run_one() -> None:
        c = claim(window)
        store.finish_success(c, "答案")

    await in_store(window, run_one)
    await until(lambda: window.model.task("old-0").state == "success")  # type: ignore[union-attr]
    window.task_actions.set_paused("batch", "old", True)
    await until(lambda: window.model.holds.paused("batch", "old"))
    window.refresh()
    assert api.eta.text() == f"After {when} + 1 min"  # the night batch, from its start
    assert batch_cells(window, COL_ETA)[1] == f"After {when} + 1 min"
    window.table.set_batch("")
    await until(lambda: window.batch_list.current() == "")
    window.refresh()
    assert api.eta.text() == f"After {when} + 1 min"
    window.task_actions.set_paused("batch", "night", True)  # everything waiting is paused
    await until(lambda: window.model.holds.paused("batch", "night"))
    window.refresh()
    assert api.eta.text() == "Paused: 8 tasks wait"


# ------------------------------------------------------------------------------ new batch


async def test_a_scheduled_batch_from_the_dialog_shows_scheduled_in_the_table(
    window: MainWindow, tmp_path: Path
) -> None:
    source = tmp_path / "topics.csv"
    source.write_text("序号,主题\n1,秋季新品\n2,冬季清仓\n", encoding="utf-8")
    dialog = window.new_batch()
    dialog.open_file(source)
    await until(lambda: dialog.file_page.file is not None)
    assert dialog.file_page.title_column() == "主题"  # the first text column
    dialog.file_page.use_template.setChecked(True)
    dialog.file_page.template_edit.setPlainText("写一篇关于{主题}的文案")
    dialog.model_combo.setCurrentIndex(dialog.model_combo.findData("api-model"))
    dialog.options.start_check.setChecked(True)
    start = window.controller.now() + 3 * 3600
    dialog.options.start_edit.setDateTime(
        dialog.options.start_edit.dateTime().fromSecsSinceEpoch(int(start))
    )
    dialog.options.batch_edit.selectAll()
    QTest.keyClicks(dialog.options.batch_edit, "night")  # typed: the dialog keeps it
    assert dialog.ok_button.isEnabled(), dialog.ok_button.toolTip()
    dialog.ok_button.click()
    await until(lambda: window.model.task("night-00003") is not None)
    titles = [getattr(window.model.task(f"night-0000{n}"), "title", None) for n in (2, 3)]
    assert titles == ["秋季新品", "冬季清仓"]  # the file's rows 2 and 3, titled by 主题
    record = await window.controller.store.batch("night")
    assert record is not None and record.start_at == pytest.approx(start, abs=60)
    assert record.source_file == str(source) and record.title_column == "主题"
    await until(lambda: str(model_cell(window, "night-00002", COL_STATE)).startswith("Scheduled"))


# ------------------------------------------------------------------------------ accounts


async def test_an_account_switched_off_while_working_says_it_finishes_its_task(
    window: MainWindow,
) -> None:
    await in_store(window, claim, window)
    await until(lambda: window.model.task("old-0").state == "running")  # type: ignore[union-attr]
    await window.controller.set_account_enabled("api-1", False)
    window.accounts.refresh()
    text = window.accounts.table.item(1, 1).text()  # type: ignore[union-attr]
    assert text.startswith("Switched off") and text.endswith("finishing the current task")


async def test_a_paused_account_has_one_state_and_rows_keep_their_height(
    window: MainWindow,
) -> None:
    """Issue 20, item 8: "Paused" over "Working" read as two states; rows grew and shrank as
    a countdown wrapped. One state per account, every row the same fixed height."""
    table = window.accounts.table
    heights = [table.rowHeight(r) for r in range(table.rowCount())]
    assert len(set(heights)) == 1 and heights[0] >= 2 * table.fontMetrics().lineSpacing()
    window.task_actions.set_paused("account", "api-1", True)
    await until(lambda: window.model.holds.paused("account", "api-1"))
    window.accounts.refresh()
    item = table.item(1, 1)
    assert item is not None and item.text() == "Paused"  # not "Paused\nWorking"
    await window.controller.accounts_db.cool_down("web-1", 95, "rate_limited")
    await until(lambda: window.controller.account_status("web-1").cooldown_until is not None)  # type: ignore[union-attr]
    window.accounts.refresh()
    long_reason = table.item(0, 1)
    assert long_reason is not None and long_reason.text().startswith("Cooling down\n")
    assert [table.rowHeight(r) for r in range(table.rowCount())] == heights


async def test_an_account_problem_reads_as_words_with_the_selector_in_the_tooltip(
    window: MainWindow,
) -> None:
    from media_assistant.core.model.states import AccountProblem

    await window.controller.accounts_db.set_problem(
        "web-1",
        AccountProblem.NEEDS_ATTENTION,
        "a captcha/challenge needs a human (div.captcha-challenge)",
        "captcha",
    )
    await until(lambda: window.controller.account_status("web-1").problem_code == "captcha")  # type: ignore[union-attr]
    window.accounts.refresh()
    item = window.accounts.table.item(0, 1)
    assert item is not None
    assert "div.captcha" not in item.text()
    assert "A captcha or challenge needs a person" in item.text()
    assert "div.captcha-challenge" in item.toolTip()


def test_dataclass_replace_keeps_new_task_shape() -> None:
    """The screenshot script rebuilds demo tasks with new ids (a guard on its assumption)."""
    task = tasks("x", 1)[0]
    assert dataclasses.replace(task, task_id="y").task_id == "y"


# ------------------------------------------------------------------------------ Chinese


SAMPLE_PARAMS: dict[str, dict[str, Any]] = {
    "submitted": {"batch": "周末"},
    "retry_requested": {"round": 1, "edited": True},
    "priority_set": {"priority": 5},
    "started": {"attempt": 2, "max_attempts": 4, "base": 1, "retries": 1, "account": "一号"},
    "succeeded": {"chars": 300, "seconds": 12.5},
    "failed": {"error_kind": "captcha", "detail": "div.captcha-challenge"},
    "poison_pill": {"error_kind": "server_error", "detail": "boom", "accounts": 2, "attempts": 3},
    "retry_scheduled": {
        "attempt": 1,
        "max_attempts": 3,
        "base": 0,
        "error_kind": "server_error",
        "detail": "HTTP 502 Bad Gateway",
        "delay": 4.2,
    },
    "deferred": {"error_kind": "rate_limited", "detail": "429", "pause": 30},
    "returned_switched_off": {"account": "一号"},
    "lost": {"attempt": 1, "cause": "heartbeat", "seconds": 90, "state": "pending"},
    "quality_rejected": {"rule": "refusal", "then": "fallback", "model": "备用"},
    "browser_started": {"pid": 4242, "detail": "Chromium 131"},
    "new_chat_fallback": {"seconds": 8, "detail": "button.new-chat"},
    "accepted_without_done": {"adapter": "豆包"},
    "selfcheck": {"finding": "stale_lock_cleared", "account": "一号", "detail": "SingletonLock"},
    "api_request": {"model": "深度", "system": "left_out"},
    "api_answer": {"chars": 812, "truncated": True, "detail": "prompt_tokens 20"},
    "pacing_cooldown": {"risk": "captcha", "repeats": 1, "seconds": 2700},
    "risk_pause": {"count": 3, "until": 1_800_000_000.0, "seconds": 21600},
    "leftover_found": {"seconds": 95, "task": "00042", "attempt": 1},
    "leftover_unlocated": {"why": "no_indicator"},
    "leftover_settled": {"state": "stopped", "detail": "https://chat.example/c/7"},
    "leftover_unseen": {"detail": "https://chat.example/c/7: page load timed out"},
    "held_site_changed": {"step": "composer_found", "account": "一号", "detail": "div#composer"},
    "step_failed": {"step": "sent", "count": 1, "detail": 'button[aria-label="Send"]'},
    "diagnostics_saved": {"files": 2, "step": "answer_read", "detail": "/tmp/t1-attempt1.jpg"},
}


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    before = set(qapp.findChildren(QTranslator))
    install_translators(qapp, "zh_CN")
    yield
    for translator in set(qapp.findChildren(QTranslator)) - before:
        qapp.removeTranslator(translator)
        translator.deleteLater()


def test_every_event_kind_reads_in_chinese_with_the_raw_detail_in_the_tooltip(
    chinese: None,
) -> None:
    """No English in the zh UI's event log: every code the core writes has words here, and
    what came from a site (a selector, an HTTP line) stays in the tooltip."""
    import re

    from media_assistant.core.model.event_codes import EventCode
    from media_assistant.core.model.event_codes import params_json as to_json
    from media_assistant.core.model.records import TaskEventRecord
    from media_assistant.gui.common.event_text import event_text, event_tooltip

    english = re.compile(r"[A-Za-z]{3,}")
    for number, code in enumerate(EventCode):
        params = SAMPLE_PARAMS.get(code.value, {})
        event = TaskEventRecord(
            number,
            "t1",
            0.0,
            "state",
            None,
            None,
            1,
            f"english line {code}",
            None,
            code.value,
            to_json(params),
        )
        text = event_text(event)
        assert text != event.message, f"{code}: no words for it"
        # A format's name may stay as it is; no other English word.
        assert not english.search(text.replace("Markdown", "")), f"{code}: {text!r}"
        assert re.search(r"[\u4e00-\u9fff]", text), f"{code}: {text!r}"
        tip = event_tooltip(event)
        assert event.message in tip
        if "detail" in params:
            assert str(params["detail"]) in tip and str(params["detail"]) not in text


async def test_a_pause_that_ends_after_its_window_closed_says_nothing(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pause job reports in the status bar when the store has answered; a window closed
    and deleted meanwhile (a test's end, the operator's quit) must not make that an error."""
    gate = asyncio.Event()
    pause = window.controller.pause

    async def held_pause(scope: str, target: str) -> int:
        await gate.wait()
        return await pause(scope, target)

    monkeypatch.setattr(window.controller, "pause", held_pause)
    actions = window.task_actions
    closing = QMainWindow()  # the fixture's own window outlives the test: a stand-in is deleted
    monkeypatch.setattr(actions, "window", closing)
    # the toolbar's update goes with the real window's other widgets; here they stay alive
    monkeypatch.setattr(actions, "update_enabled", lambda *a: None)
    actions.set_paused("account", "api-1", True)
    job = next(t for t in asyncio.all_tasks() if t.get_name() == "pause:account:api-1")
    shiboken6.delete(closing)
    gate.set()
    await job  # raised "Internal C++ object already deleted" before
    assert actions.last_message.startswith("Paused account api-1")
