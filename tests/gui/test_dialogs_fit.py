"""Nothing off screen on a 1366×768 laptop (issue 20, item 4): the New batch dialog with its
system prompt open was 767 px tall, its Submit and Cancel below the screen. Every dialog, in its
tallest state and in Chinese (taller lines), fits what such a laptop has for a window — 728 px
above the taskbar less a title bar — scrolling inside where it must, with its buttons in
sight. The main window gives the task table the room and keeps *All batches* in sight."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale, QSize, QTranslator
from PySide6.QtWidgets import QAbstractButton, QApplication, QDialog, QDialogButtonBox, QWidget

from media_assistant.core.model.records import (
    TASK_COLUMNS,
    NewTask,
    SubmitResult,
    TaskEventRecord,
    TaskRecord,
)
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.common.i18n import install_translators
from media_assistant.gui.common.style import FRAME_ALLOWANCE
from tests.gui.app_env import Env, two_accounts_app

# What a 1366×768 screen with a 40 px taskbar leaves a window: the app's dialogs take at most
# this (style.screen_room on that screen).
# At 125 % and 150 % display scaling the same laptop has fewer logical pixels; the suite runs
# this file again at QT_SCALE_FACTOR 1.25 and 1.5 (tests/gui/test_scaling.py).
SCALE = float(os.environ.get("QT_SCALE_FACTOR") or 1)
LAPTOP = QSize(int(1366 / SCALE) * 9 // 10, int(728 / SCALE) - 2 * FRAME_ALLOWANCE)


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    before = set(qapp.findChildren(QTranslator))
    locale = QLocale()
    install_translators(qapp, "zh_CN")
    yield
    for translator in set(qapp.findChildren(QTranslator)) - before:
        qapp.removeTranslator(translator)
        translator.deleteLater()
    QLocale.setDefault(locale)


@pytest.fixture
async def env(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch, chinese: None
) -> AsyncIterator[Env]:
    async with two_accounts_app(tmp_path, qtbot, monkeypatch) as env:
        yield env


async def settle() -> None:
    """Let Qt lay things out (never processEvents() inside a coroutine: see conftest.py)."""
    await asyncio.sleep(0.05)


async def fits(dialog: QWidget, name: str) -> None:
    """Its least size fits the laptop; at that size (or less) its buttons are inside it."""
    await settle()
    least = dialog.minimumSizeHint().expandedTo(dialog.minimumSize())
    assert least.height() <= LAPTOP.height(), f"{name}: needs {least.height()} px of height"
    assert least.width() <= LAPTOP.width(), f"{name}: needs {least.width()} px of width"
    dialog.resize(dialog.size().boundedTo(LAPTOP))
    await settle()
    assert dialog.height() <= LAPTOP.height(), f"{name}: {dialog.height()} px tall"
    if shots := os.environ.get("MA_FIT_SHOTS"):  # for a person to look at (test_scaling.py)
        slug = name.replace(" ", "-").replace(",", "")
        dialog.grab().save(str(Path(shots) / f"fit-{SCALE}-{slug}.png"))
    for box in dialog.findChildren(QDialogButtonBox):
        for button in box.findChildren(QAbstractButton):
            if not button.isVisible():
                continue
            bottom = button.mapTo(dialog, button.rect().bottomLeft()).y()
            assert bottom <= dialog.height(), f"{name}: {button.text()!r} below the dialog"


async def test_every_dialog_fits_a_laptop_screen_in_its_tallest_state(
    env: Env, tmp_path: Path, qtbot: Any
) -> None:
    from media_assistant.gui.accounts import team_words
    from media_assistant.gui.accounts.model_editor import ModelEditor
    from media_assistant.gui.accounts.setup_dialog import SetupDialog
    from media_assistant.gui.batches.file_page import FilePreview
    from media_assistant.gui.batches.submit_notice import SkippedIdsNotice
    from media_assistant.gui.tasks.details import TaskDetailsDialog
    from media_assistant.gui.window.first_start import FirstStartDialog
    from media_assistant.gui.window.settings_dialog import SettingsDialog

    window = env.window
    batch = window.new_batch()  # the case: system prompt open
    batch.options.system_toggle.setChecked(True)
    batch.options.system_edit.setPlainText("你是一名资深的小红书文案编辑。\n" * 8)
    await fits(batch, "new batch, system prompt")
    source = tmp_path / "topics.csv"
    source.write_text(
        "序号,主题,受众\n" + "".join(f"{i},主题{i},学生\n" for i in range(40)), encoding="utf-8"
    )
    batch.file_page.show_file(FilePreview.read(source))  # a file with its preview and template
    batch.tabs.setCurrentIndex(1)
    batch.file_page.use_template.setChecked(True)
    batch._set_error("第 3 行：提示词为空\n" * 12)
    await fits(batch, "new batch, file, problems")
    batch.reject()

    export = window.task_actions.export_tasks()
    await fits(export, "export")
    export.reject()

    now = time.time()
    record = TaskRecord.from_mapping(
        dict.fromkeys(TASK_COLUMNS)
        | {
            "task_id": "t-1",
            "seq": 1,
            "batch_id": "周报-1",
            "title": "春天",
            "model": "api-model",
            "model_kind": ModelKind.API.value,
            "account_id": "api-1",
            "prompt": "写一篇关于春天的文章。\n" * 30,
            "system_prompt": "你是编辑。\n" * 10,
            "priority": 0,
            "state": "failed",
            "attempt": 3,
            "max_attempts": 3,
            "keep_attempt": False,
            "lease": 3,
            "lost_count": 0,
            "attempt_base": 0,
            "operator_retries": 0,
            "created_at": now - 60,
            "started_at": now - 30,
            "finished_at": now,
            "cancel_requested": False,
            "progress_chars": 0,
            "result_text": "## 标题\n\n" + "正文。" * 800,
            "error_kind": "server_error",
            "error_message": "服务器错误 " * 40,
        }
    )
    events = [
        TaskEventRecord(i, "t-1", now - 60 + i, "log", "api", "api-1", 1, f"事件 {i}")
        for i in range(40)
    ]
    details = TaskDetailsDialog(record, events, window, now=time.time)
    qtbot.addWidget(details)
    details.show()
    await fits(details, "task details")
    details.close()

    setup = window.open_setup()
    assert isinstance(setup, SetupDialog)
    await fits(setup, "set-up")
    for kind in (ModelKind.API, ModelKind.WEB):
        editor = setup.edit_account(kind, None)
        await fits(editor, f"{kind.value} account editor")
        editor.reject()
    setup.tabs.setCurrentIndex(1)
    await fits(setup, "set-up, models")
    model_editor = ModelEditor(setup.session, "web-model", setup)
    qtbot.addWidget(model_editor)
    model_editor.show()
    await fits(model_editor, "model editor")
    model_editor.reject()
    team = setup.team_page  # its tallest: a refused address, no keyring, a failed test
    setup.tabs.setCurrentIndex(2)
    team.problems.show(
        [
            ("url", "地址格式不对：应为 postgresql://用户@主机:5432/数据库"),
            ("workstation", "工作站名称只能包含字母、数字、- 和 _"),
            (None, "团队数据库没有保存：请先修正上面的问题。"),
        ]
    )
    team.keyring_note.setText(team_words.keyring_text("no_keyring"))
    team._say("无法连接团队数据库：" + "连接被拒绝，服务器没有响应。" * 6, error=True)
    await fits(setup, "set-up, team database")
    setup.close()

    settings = SettingsDialog(env.services.paths.config_file, window)
    qtbot.addWidget(settings)
    settings.show()
    await fits(settings, "settings")
    settings.reject()

    first = FirstStartDialog(tmp_path)
    qtbot.addWidget(first)
    first.show()
    await fits(first, "first start")
    first.reject()

    from media_assistant.core.rules.site_breakage import (
        AdapterStep,
        SiteCheckReport,
        StepResult,
        StepStatus,
    )
    from media_assistant.gui.accounts.site_actions import SiteCheckDialog

    check = SiteCheckDialog("web-1", window)  # every step, the last one failed at length
    qtbot.addWidget(check)
    steps = list(AdapterStep)
    check.show()
    check.show_report(
        SiteCheckReport(
            "web-1",
            "fake",
            tuple(
                StepResult(
                    step,
                    StepStatus.FAILED if step is steps[-1] else StepStatus.OK,
                    "button[data-testid='send'] 没有匹配到任何元素，页面可能已改版。" * 3,
                    1.5,
                )
                for step in steps
            ),
        )
    )
    await fits(check, "site check")
    check.close()

    skipped = SkippedIdsNotice(
        SubmitResult((), tuple(f"已有任务-{i:04d}" for i in range(500)), "b1"), window
    )
    skipped.show()
    await fits(skipped, "skipped ids")
    skipped.close()
    assert all(isinstance(d, QDialog) for d in (batch, export, details, setup, settings, first))


async def test_the_task_table_gets_the_room_and_all_batches_stays_in_sight(
    env: Env,
) -> None:
    window = env.window
    window.resize(LAPTOP.width(), int(655 / SCALE))  # the first window: 90 % of 728
    window.show()
    for n in range(12):  # more batches than the list shows
        await env.controller.submit(
            [NewTask(f"b{n}-1", "api-model", ModelKind.API, "提示", f"批次{n}")]
        )
    await settle()
    window.refresh()
    await settle()
    view = window.table.view
    # 8 rows on the laptop; at 125 % and 150 % scaling fewer logical pixels hold fewer, once
    # the tabs below and the batches list have given what they can (gui/window/table_room.py).
    least_rows = {1.0: 8, 1.25: 7.5, 1.5: 5}.get(SCALE, 8)
    assert view.viewport().height() / view.verticalHeader().defaultSectionSize() >= least_rows
    batches = window.batch_list
    assert batches.all_button.isVisible() and batches.all_button.isChecked()
    assert "全部批次" in batches.all_button.text()
    batches.view.scrollToBottom()  # however far the list scrolls, "all batches" is in sight
    assert batches.all_button.isVisible()


async def test_the_task_column_keeps_room_for_a_title_on_a_laptop(env: Env) -> None:
    """Issue 26 item 7: at 1366×768, in Chinese, on a team database (its Workstation column),
    the Task column showed two characters: the column that tells tasks apart gets the room,
    the others scroll sideways if they must."""
    from media_assistant.gui.tasks.rows import COL_TASK

    window = env.window
    window.resize(1366 * 9 // 10, 728 - 2 * FRAME_ALLOWANCE)
    window.table.show_workstation_column(True)
    await settle()
    view = window.table.view
    width = view.horizontalHeader().sectionSize(COL_TASK)
    title = view.fontMetrics().horizontalAdvance("春季新品连衣裙文案一二")
    assert width >= title, (width, title, view.viewport().width())
    window.resize(1900, 1000)  # room enough: it stretches over what is left
    await settle()
    header = view.horizontalHeader()
    others = sum(
        header.sectionSize(c)
        for c in range(header.count())
        if c != COL_TASK and not header.isSectionHidden(c)
    )
    assert header.sectionSize(COL_TASK) + others >= view.viewport().width() - 2
