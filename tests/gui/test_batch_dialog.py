"""The "New batch" dialog, driven as an operator would: paste, pick a file, type, press OK."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QDialog
from pytestqt.qtbot import QtBot

from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.batches.dialog import NewBatchDialog

# The offscreen platform warns whenever a window's size hints change; that is not our bug.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

MODELS = [("deepseek-chat", "api"), ("deepseek-r1-web", "web"), ("kimi-web", "web")]


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    """As Excel's "CSV UTF-8" writes it: a BOM and CRLF line ends."""
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    path.write_bytes(buffer.getvalue().encode("utf-8-sig"))
    return path


@pytest.fixture
def dialog(qtbot: QtBot) -> Iterator[NewBatchDialog]:
    dlg = NewBatchDialog(MODELS, default_model="deepseek-chat", user_content_only={"kimi-web"})
    qtbot.addWidget(dlg)
    dlg.show()
    yield dlg


def open_and_wait(qtbot: QtBot, dialog: NewBatchDialog, path: Path) -> None:
    dialog.open_file(path)
    page = dialog.file_page
    qtbot.waitUntil(lambda: page.file_stack.currentIndex() == 1 and dialog._job is None)
    assert dialog.error_view.isHidden(), dialog.error_view.toPlainText()


def submit_and_wait(qtbot: QtBot, dialog: NewBatchDialog) -> list[NewTask]:
    assert dialog.ok_button.isEnabled(), dialog.ok_button.toolTip()
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted
    return dialog.tasks()


# -------------------------------------------------------------------------------------- paste


def test_pasted_lines_become_tasks_with_the_chosen_settings(
    qtbot: QtBot, dialog: NewBatchDialog
) -> None:
    dialog.model_combo.setCurrentIndex(dialog.model_combo.findData("deepseek-r1-web"))
    dialog.options.priority_spin.setValue(5)
    qtbot.keyClick(dialog.options.batch_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(dialog.options.batch_edit, "spring-2024")  # typed over the default
    dialog.paste_edit.setPlainText(
        "写一篇关于春季护肤的小红书笔记\n\n   \n为新款保温杯写五个电商标题\n"
        "介绍一款蓝牙耳机的卖点\n"
    )
    assert "3" in dialog.prompt_count.text()

    tasks = submit_and_wait(qtbot, dialog)

    assert [t.prompt for t in tasks] == [
        "写一篇关于春季护肤的小红书笔记",
        "为新款保温杯写五个电商标题",
        "介绍一款蓝牙耳机的卖点",
    ]
    assert {(t.model, t.model_kind, t.priority, t.batch_id) for t in tasks} == {
        ("deepseek-r1-web", ModelKind.WEB, 5, "spring-2024")
    }
    assert [t.task_id for t in tasks] == [f"spring-2024-0000{i}" for i in (1, 2, 3)]
    assert dialog.batch_id() == "spring-2024"


def test_ok_is_disabled_while_there_is_nothing_to_submit(
    qtbot: QtBot, dialog: NewBatchDialog
) -> None:
    assert not dialog.ok_button.isEnabled()
    dialog.paste_edit.setPlainText("  \n\n\t\n")
    assert not dialog.ok_button.isEnabled()
    assert "0" in dialog.prompt_count.text()
    qtbot.keyClick(dialog.paste_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert dialog.result() != QDialog.DialogCode.Accepted and dialog.isVisible()

    dialog.paste_edit.setPlainText("写一篇文章")
    assert dialog.ok_button.isEnabled()
    qtbot.keyClick(dialog.options.batch_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(dialog.options.batch_edit, Qt.Key.Key_Delete)  # a batch id is needed too
    assert not dialog.ok_button.isEnabled()


def test_ctrl_enter_submits_from_the_text_box(qtbot: QtBot, dialog: NewBatchDialog) -> None:
    dialog.paste_edit.setFocus()
    dialog.paste_edit.insertPlainText("写一篇关于秋天的散文")  # QTest types ASCII only
    with qtbot.waitSignal(dialog.accepted, timeout=1000):
        qtbot.keyClick(dialog.paste_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert [t.prompt for t in dialog.tasks()] == ["写一篇关于秋天的散文"]
    assert dialog.batch_id().startswith("paste-")


def test_system_prompt_note_depends_on_the_model(dialog: NewBatchDialog) -> None:
    dialog.options.system_toggle.setChecked(True)
    dialog.model_combo.setCurrentIndex(dialog.model_combo.findData("deepseek-chat"))
    assert dialog.options.system_note.isHidden()  # API: a real system message, nothing to explain
    dialog.model_combo.setCurrentIndex(dialog.model_combo.findData("deepseek-r1-web"))
    assert dialog.options.system_note.isVisibleTo(dialog)
    assert "page" in dialog.options.system_note.text()
    dialog.model_combo.setCurrentIndex(dialog.model_combo.findData("kimi-web"))
    assert "only the prompt" in dialog.options.system_note.text()


def test_system_prompt_goes_into_every_pasted_task(qtbot: QtBot, dialog: NewBatchDialog) -> None:
    dialog.options.system_toggle.setChecked(True)
    dialog.options.system_edit.setPlainText("你是一名资深小红书编辑")
    dialog.paste_edit.setPlainText("标题一\n标题二")
    tasks = submit_and_wait(qtbot, dialog)
    assert [t.system_prompt for t in tasks] == ["你是一名资深小红书编辑"] * 2


# --------------------------------------------------------------------------------------- file


def test_csv_with_a_prompt_column(qtbot: QtBot, dialog: NewBatchDialog, tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "春季选题.csv",
        [
            ["prompt", "title"],
            ["写一篇关于春季护肤的文章，800字", "春季护肤"],
            ["为新款保温杯写五个电商标题", "保温杯"],
        ],
    )
    open_and_wait(qtbot, dialog, path)
    page = dialog.file_page

    assert dialog.tabs.currentIndex() == 1
    assert page.use_column.isChecked() and page.use_column.isEnabled()
    assert page.preview.rowCount() == 2 and page.preview.columnCount() == 2
    assert page.preview.item(1, 0).text() == "为新款保温杯写五个电商标题"
    assert "写一篇关于春季护肤的文章，800字" in page.rendered.toPlainText()
    assert dialog.options.batch_edit.text().startswith("春季选题-")

    tasks = submit_and_wait(qtbot, dialog)

    assert [(t.prompt, t.title, t.model) for t in tasks] == [
        ("写一篇关于春季护肤的文章，800字", "春季护肤", "deepseek-chat"),
        ("为新款保温杯写五个电商标题", "保温杯", "deepseek-chat"),
    ]
    assert {t.batch_id for t in tasks} == {dialog.batch_id()}


def test_template_fills_placeholders_from_columns(
    qtbot: QtBot, dialog: NewBatchDialog, tmp_path: Path
) -> None:
    path = write_csv(
        tmp_path / "topics.csv", [["topic", "字数"], ["春季护肤", "800"], ["露营装备", "1200"]]
    )
    open_and_wait(qtbot, dialog, path)
    page = dialog.file_page
    # No prompt column: the template is the only way, and says so.
    assert page.use_template.isChecked() and not page.use_column.isEnabled()
    assert not dialog.ok_button.isEnabled()

    page.template_edit.setPlainText("写一篇关于{topic}的文章")
    assert page.template_problem.isHidden()
    assert page.rendered.toPlainText().splitlines() == [
        "1. 写一篇关于春季护肤的文章",
        "2. 写一篇关于露营装备的文章",
    ]
    dialog.options.priority_spin.setValue(3)

    tasks = submit_and_wait(qtbot, dialog)

    assert [t.prompt for t in tasks] == ["写一篇关于春季护肤的文章", "写一篇关于露营装备的文章"]
    assert {t.priority for t in tasks} == {3}


def test_column_chips_insert_placeholders(
    qtbot: QtBot, dialog: NewBatchDialog, tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "t.csv", [["topic", "字数"], ["春季护肤", "800"]])
    open_and_wait(qtbot, dialog, path)
    page = dialog.file_page
    chips = {b.text(): b for b in page.chip_bar.findChildren(type(dialog.options.system_toggle))}
    assert set(chips) == {"topic", "字数"}
    qtbot.mouseClick(chips["topic"], Qt.MouseButton.LeftButton)
    page.template_edit.insertPlainText("，约")  # QTest types ASCII only
    qtbot.mouseClick(chips["字数"], Qt.MouseButton.LeftButton)
    assert page.template_edit.toPlainText() == "{topic}，约{字数}"
    assert page.rendered.toPlainText() == "1. 春季护肤，约800"


def test_unknown_placeholder_is_flagged_and_ok_refuses(
    qtbot: QtBot, dialog: NewBatchDialog, tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "topics.csv", [["topic"], ["春季护肤"]])
    open_and_wait(qtbot, dialog, path)
    page = dialog.file_page

    page.template_edit.setPlainText("写一篇关于{topic}的文章，突出{卖点}")

    assert page.template_problem.isVisibleTo(dialog)
    assert "{卖点}" in page.template_problem.text()
    assert "{topic}" not in page.template_problem.text()
    assert not dialog.ok_button.isEnabled()
    qtbot.keyClick(page.template_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert dialog.result() != QDialog.DialogCode.Accepted and dialog.isVisible()

    page.template_edit.setPlainText("写一篇关于{topic}的文章")  # fixed: accepted again
    assert page.template_problem.isHidden() and dialog.ok_button.isEnabled()


def test_a_bad_row_is_reported_in_the_dialog_which_stays_open(
    qtbot: QtBot, dialog: NewBatchDialog, tmp_path: Path
) -> None:
    path = write_csv(
        tmp_path / "batch.csv",
        [
            ["提示词", "优先级"],
            ["写一篇关于春季护肤的文章", "1"],
            ["为新款保温杯写五个电商标题", "很高"],
        ],
    )
    open_and_wait(qtbot, dialog, path)
    options = dialog.options
    assert options.priority_note.isVisibleTo(dialog)  # the file's column wins over the spin box
    assert not options.priority_spin.isEnabled()

    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dialog.error_view.isVisible)

    message = dialog.error_view.toPlainText()
    assert "row 3" in message and "很高" in message
    assert "batch.csv: row 3" in message and str(tmp_path) not in message
    assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
    assert dialog.tasks() == []
    assert dialog.ok_button.isEnabled() and dialog.inputs.isEnabled()  # fix the file, retry


def test_model_column_wins_and_the_dialog_says_so(
    qtbot: QtBot, dialog: NewBatchDialog, tmp_path: Path
) -> None:
    path = write_csv(
        tmp_path / "m.csv",
        [["prompt", "模型"], ["写标题", "kimi-web"], ["写文章", ""]],
    )
    open_and_wait(qtbot, dialog, path)
    assert dialog.options.model_note.isVisibleTo(dialog)
    tasks = submit_and_wait(qtbot, dialog)
    assert [(t.model, t.model_kind) for t in tasks] == [
        ("kimi-web", ModelKind.WEB),
        ("deepseek-chat", ModelKind.API),
    ]


def test_a_file_that_cannot_be_read_is_reported(
    qtbot: QtBot, dialog: NewBatchDialog, tmp_path: Path
) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_bytes(b"\xff\xfe not utf-8")
    dialog.open_file(path)
    qtbot.waitUntil(dialog.error_view.isVisible)
    assert "notes.jsonl" in dialog.error_view.toPlainText()
    assert dialog.file_page.file_stack.currentIndex() == 0 and not dialog.ok_button.isEnabled()


def test_dropping_a_file_on_the_text_box_opens_it(
    qtbot: QtBot, dialog: NewBatchDialog, tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "drop.csv", [["prompt"], ["写一篇关于春季护肤的文章"]])
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    target = dialog.paste_edit.viewport()
    action, button, no_modifier = (
        Qt.DropAction.CopyAction,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    enter = QDragEnterEvent(QPoint(10, 10), action, mime, button, no_modifier)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(target, QDropEvent(QPointF(10, 10), action, mime, button, no_modifier))
    qtbot.waitUntil(
        lambda: dialog.file_page.file_label.text() == "drop.csv" and dialog._job is None
    )
    assert dialog.tabs.currentIndex() == 1
    assert dialog.paste_edit.toPlainText() == ""  # not typed in as a path
