"""The export dialog (scope, format, header language, a proposed name) and the notification
list (stays until read, survives a restart, opens a batch), offscreen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QLocale

from media_assistant.core.exports.write import ExportScope
from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice
from media_assistant.gui.notices.notification_list import NotificationList
from media_assistant.gui.tasks.export_dialog import ExportDialog


def dialog(qtbot: Any, **kwargs: Any) -> ExportDialog:
    args: dict[str, Any] = {
        "shown": lambda: ["a", "b"],
        "shown_count": 2,
        "selected": [],
        "batches": ["周报-1", "night"],
    }
    args.update(kwargs)
    d = ExportDialog(None, **args)
    qtbot.addWidget(d)
    return d


def test_a_batch_preset_proposes_the_batch_name_and_the_format_suffix(qtbot: Any) -> None:
    d = dialog(qtbot, preset=ExportScope(batch_id="night"))
    assert d.scope_batch.isChecked() and d.scope() == ExportScope(batch_id="night")
    name = Path(d.path.text()).name
    assert name.startswith("night-") and name.endswith(".xlsx")
    d.format.setCurrentIndex(d.format.findData("docx"))
    assert Path(d.path.text()).name.endswith(".docx")
    d.format.setCurrentIndex(d.format.findData("md-folder"))
    assert "." not in Path(d.path.text()).name.removeprefix("night-")
    d.batch.setCurrentIndex(d.batch.findData("周报-1"))
    assert Path(d.path.text()).name.startswith("周报-1-")


def test_without_a_selection_the_selection_scope_is_off_and_the_filter_gives_the_shown_rows(
    qtbot: Any,
) -> None:
    d = dialog(qtbot)
    assert not d.scope_selection.isEnabled() and d.scope_filter.isChecked()
    assert d.scope() == ExportScope(task_ids=("a", "b"))
    assert Path(d.path.text()).name.startswith("tasks-")
    d.scope_all.setChecked(True)
    assert d.scope() == ExportScope() and Path(d.path.text()).name.startswith("all-tasks-")


def test_a_selection_preset_and_an_edited_name_kept_when_the_format_changes(
    qtbot: Any, tmp_path: Path
) -> None:
    d = dialog(qtbot, selected=["x", "y"], preset=ExportScope(task_ids=("x", "y")))
    assert d.scope() == ExportScope(task_ids=("x", "y"))
    d.path.setText(str(tmp_path / "mine.xlsx"))
    d.path.textEdited.emit(d.path.text())
    d.format.setCurrentIndex(d.format.findData("csv"))
    assert d.path.text() == str(tmp_path / "mine.csv")
    request = d.request()
    assert request.fmt == "csv" and request.path == tmp_path / "mine.csv"


def test_headers_follow_the_ui_language(qtbot: Any) -> None:
    before = QLocale()
    try:
        QLocale.setDefault(QLocale("zh_CN"))
        assert dialog(qtbot).request().headers == "zh"
        QLocale.setDefault(QLocale("en_US"))
        assert dialog(qtbot).request().headers == "en"
    finally:
        QLocale.setDefault(before)


def notice(kind: NoticeKind, subject: str, at: float) -> Notice:
    params = {"total": 3, "succeeded": 2, "failed": 1, "canceled": 0}
    return Notice(
        kind, subject, at, params if kind.value.startswith("batch") else {"state": "needs_login"}
    )


def test_notices_stay_until_read_and_survive_a_restart_with_their_read_marks(qtbot: Any) -> None:
    first = NotificationList()
    qtbot.addWidget(first)
    counts: list[int] = []
    first.unread_changed.connect(counts.append)
    first.add(notice(NoticeKind.BATCH_FAILED, "night", 1_764_483_900.0))
    first.add(notice(NoticeKind.ACCOUNT_ATTENTION, "web-1", 1_764_483_960.0))
    assert first.unread_count() == 2 and counts[-1] == 2
    assert "night" in first.list.item(1).text() and "web-1" in first.list.item(0).text()
    with qtbot.waitSignal(first.account_requested) as opened:  # one click opens it
        first.list.itemClicked.emit(first.list.item(0))
    assert opened.args == ["web-1"] and first.unread_count() == 1

    again = NotificationList()  # the next start: both back, the read one still read
    qtbot.addWidget(again)
    again.restore(first.saved())
    assert again.list.count() == 2 and again.unread_count() == 1
    assert "night" in again.list.item(1).text()
    with qtbot.waitSignal(again.batch_requested) as opened:
        again.list.itemClicked.emit(again.list.item(1))
    assert opened.args == ["night"] and again.unread_count() == 0
    again.clear_read.click()
    assert again.list.count() == 0 and again.empty.isVisibleTo(again)


def test_a_damaged_saved_list_is_left_out_entry_by_entry(qtbot: Any) -> None:
    good = NotificationList()
    qtbot.addWidget(good)
    good.add(notice(NoticeKind.BATCH_DONE, "night", 1_764_483_900.0))
    saved = [*good.saved(), {"kind": "no-such-kind"}, "nonsense"]
    again = NotificationList()
    qtbot.addWidget(again)
    again.restore(saved)
    again.restore({"not": "a list"})
    assert again.list.count() == 1 and again.unread_count() == 1
