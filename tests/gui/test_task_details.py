"""The task details dialog: the answer as Markdown, copy, reasoning, the event log, live updates."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QFont, QGuiApplication, QTextCursor
from pytestqt.qtbot import QtBot

from media_assistant.core.model.records import TaskEventRecord, TaskRecord
from media_assistant.gui.tasks.details import TaskDetailsDialog
from media_assistant.gui.tasks.event_log import EventLogModel

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

T0 = 1_717_000_000.0
ANSWER = "# 春季护肤指南\n\n春天气候多变，皮肤容易**干燥敏感**。\n\n- 温和清洁\n- 加强保湿\n"


def make_record(**changes: Any) -> TaskRecord:
    values: dict[str, Any] = {
        "task_id": "spring-00001",
        "seq": 1,
        "batch_id": "spring",
        "title": None,
        "model": "deepseek-r1-web",
        "model_kind": "web",
        "account_id": "ds-web-1",
        "prompt": "写一篇关于春季护肤的小红书笔记，800字左右",
        "system_prompt": "你是一名资深美妆编辑",
        "priority": 0,
        "state": "success",
        "attempt": 1,
        "max_attempts": 3,
        "keep_attempt": False,
        "lease": 1,
        "lost_count": 0,
        "created_at": T0,
        "started_at": T0 + 2,
        "heartbeat_at": T0 + 60,
        "finished_at": T0 + 95,
        "not_before": None,
        "deadline_at": None,
        "cancel_requested": False,
        "owner_id": "s1",
        "progress_chars": len(ANSWER),
        "result_text": ANSWER,
        "reasoning_text": None,
        "usage_json": None,
        "error_kind": None,
        "error_message": None,
    }
    values.update(changes)
    return TaskRecord(**values)


def make_events(n: int) -> list[TaskEventRecord]:
    kinds = ["state", "selfcheck", "log", "retry", "error", "cancel"]
    return [
        TaskEventRecord(
            id=i + 1,
            task_id="spring-00001",
            at=T0 + i,
            kind=kinds[i % len(kinds)],
            lane="web",
            account_id="ds-web-1",
            attempt=1 + i // 4,
            message=f"[web ds-web-1] 事件 {i + 1}",
        )
        for i in range(n)
    ]


@pytest.fixture
def open_dialog(qtbot: QtBot) -> Iterator[Any]:
    def open_(record: TaskRecord, events: list[TaskEventRecord] | None = None) -> TaskDetailsDialog:
        dialog = TaskDetailsDialog(record, events or [], now=lambda: T0 + 65)
        qtbot.addWidget(dialog)
        dialog.show()
        return dialog

    yield open_


def test_result_is_rendered_as_markdown(open_dialog: Any) -> None:
    dialog = open_dialog(make_record())
    assert not dialog.isModal()
    page = dialog.result_page
    document = page.result_view.document()
    heading = document.firstBlock()
    assert heading.text() == "春季护肤指南"
    assert heading.blockFormat().headingLevel() == 1
    heading_font = heading.begin().fragment().charFormat().font()
    body_font = heading.next().begin().fragment().charFormat().font()
    assert heading_font.weight() >= QFont.Weight.Bold
    assert heading_font.pointSizeF() > body_font.pointSizeF()
    assert "#" not in document.toPlainText()  # rendered, not shown as source

    page.raw_toggle.setChecked(True)  # the raw text, as the model wrote it
    assert page.answer_stack.currentWidget() is page.raw_view
    assert page.raw_view.toPlainText() == ANSWER


def test_copy_puts_the_raw_text_on_the_clipboard(qtbot: QtBot, open_dialog: Any) -> None:
    QGuiApplication.clipboard().clear()
    dialog = open_dialog(make_record())
    qtbot.mouseClick(dialog.result_page.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == ANSWER


def test_a_web_answers_tables_code_and_plain_text(qtbot: QtBot, open_dialog: Any) -> None:
    """What the web provider rebuilds from a page: the viewer renders its table and code
    block, and the page's plain text can be copied beside the Markdown."""
    import random

    from media_assistant.sim.chat_markdown import compose_markdown

    markdown = compose_markdown("写一篇文章", random.Random(5), 400)
    plain = "plain text as the page showed it"
    dialog = open_dialog(make_record(result_text=markdown, result_plain=plain))
    page = dialog.result_page
    html = page.result_view.document().toHtml()
    assert "<table" in html and "<li" in html and "https://example.com/guide/" in html
    assert "```" not in page.result_view.document().toPlainText()  # a code block, not fences
    assert page.copy_plain_button.isVisible()
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(page.copy_plain_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == plain
    api = open_dialog(make_record(model_kind="api", result_plain=None))
    assert not api.result_page.copy_plain_button.isVisible()


def test_reasoning_section_only_when_there_is_reasoning(qtbot: QtBot, open_dialog: Any) -> None:
    plain = open_dialog(make_record())
    plain_page = plain.result_page
    assert plain_page.reasoning_toggle.isHidden() and plain_page.reasoning_view.isHidden()

    dialog = open_dialog(make_record(reasoning_text="用户想要一篇小红书笔记，先列提纲……"))
    page = dialog.result_page
    assert page.reasoning_toggle.isVisibleTo(dialog)
    assert page.reasoning_view.isHidden()  # collapsed until asked for
    qtbot.mouseClick(page.reasoning_toggle, Qt.MouseButton.LeftButton)
    assert page.reasoning_view.isVisibleTo(dialog)
    assert page.reasoning_view.toPlainText().startswith("用户想要")


def test_header_shows_the_task_at_a_glance(open_dialog: Any) -> None:
    dialog = open_dialog(make_record(attempt=2))
    assert dialog.title_label.text().startswith("写一篇关于春季护肤")
    assert dialog.fields["model"].text() == "deepseek-r1-web"
    assert dialog.fields["lane"].text() == "Web"
    assert dialog.fields["account"].text() == "ds-web-1"
    assert dialog.fields["attempt"].text() == "2 of 3"
    assert dialog.fields["duration"].text() == "1m33s"
    assert dialog.error_label.isHidden()
    assert dialog.prompt_view.toPlainText() == make_record().prompt
    assert dialog.system_view.toPlainText() == "你是一名资深美妆编辑"


def test_failed_task_shows_its_error(open_dialog: Any) -> None:
    record = make_record(
        state="failed",
        result_text=None,
        error_kind="login_required",
        error_message="the chat page shows the login form",
    )
    dialog = open_dialog(record)
    assert dialog.error_label.isVisibleTo(dialog)
    assert "Login required" in dialog.error_label.text()
    assert "login form" in dialog.error_label.text()
    assert dialog.result_page.progress_label.isVisibleTo(dialog)
    assert not dialog.result_page.copy_button.isEnabled()


def test_event_log_has_one_row_per_event_and_grows_in_place(open_dialog: Any) -> None:
    events = make_events(6)
    dialog = open_dialog(make_record(), events)
    model = dialog.log_view.model()
    assert isinstance(model, EventLogModel)
    assert model.rowCount() == 6
    assert model.index(5, EventLogModel.MESSAGE).data() == "[web ds-web-1] 事件 6"  # newest last
    kind_colour = model.index(1, EventLogModel.KIND).data(Qt.ItemDataRole.ForegroundRole)
    log_colour = model.index(2, EventLogModel.KIND).data(Qt.ItemDataRole.ForegroundRole)
    assert kind_colour != log_colour  # a self-check finding stands out from a log line
    assert model.index(3, EventLogModel.KIND).data() == "Retry"

    selection = dialog.log_view.selectionModel()
    selection.select(
        model.index(2, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    dialog.update_events(make_events(9))
    assert model.rowCount() == 9
    assert resets == []
    assert [i.row() for i in selection.selectedRows()] == [2]


def test_running_task_shows_progress_then_the_result(open_dialog: Any) -> None:
    running = make_record(state="running", finished_at=None, result_text=None, progress_chars=1234)
    dialog = open_dialog(running)
    page = dialog.result_page
    assert page.progress_label.isVisibleTo(dialog)
    assert "1234" in page.progress_label.text().replace(",", "")
    assert dialog.fields["duration"].text().startswith("1m03s")  # from the injected clock

    dialog.update_record(dataclasses.replace(running, progress_chars=2048))
    assert "2048" in page.progress_label.text().replace(",", "")

    dialog.update_record(make_record())
    assert not page.progress_label.isVisibleTo(dialog)
    assert page.result_view.document().firstBlock().text() == "春季护肤指南"
    assert page.copy_button.isEnabled()


def test_an_unchanged_result_keeps_the_readers_place(open_dialog: Any) -> None:
    long_answer = "\n\n".join(f"## 第{i}段\n\n正文内容" for i in range(80))
    dialog = open_dialog(make_record(result_text=long_answer))
    view = dialog.result_page.result_view
    cursor = view.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.Down, QTextCursor.MoveMode.KeepAnchor, 3)
    view.setTextCursor(cursor)
    selected = cursor.selectedText()
    assert selected
    bar = view.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum() // 2)

    dialog.update_record(make_record(result_text=long_answer, heartbeat_at=T0 + 99))

    assert bar.value() == bar.maximum() // 2
    assert view.textCursor().selectedText() == selected
