"""The task table's Workstation column (team mode): what each row says, a change that moves
only that cell, sorting by it, and the search box finding what ran on one workstation."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from media_assistant.gui.tasks.model import TASK_ID_ROLE, TaskTableModel
from media_assistant.gui.tasks.rows import COL_WORKSTATION, COLUMN_COUNT, TaskFilter
from media_assistant.gui.tasks.view import TaskTable
from tests.gui.test_task_model import NOW, row


def test_the_workstation_column_shows_where_each_task_was_claimed(qtbot: Any) -> None:
    model = TaskTableModel(now=lambda: NOW)
    model.load(
        [
            row(1, state="running", account_id="web-1", started_at=NOW, workstation="pc-03"),
            row(2, state="success", account_id="api-1", started_at=NOW, workstation="pc-01"),
            row(3),  # pending, never claimed: no workstation
        ]
    )
    assert COLUMN_COUNT == model.columnCount()
    header = model.headerData(COL_WORKSTATION, Qt.Orientation.Horizontal)
    assert header == "Workstation"
    cells = [model.data(model.index(r, COL_WORKSTATION)) for r in range(3)]
    assert cells == ["pc-03", "pc-01", ""]

    changed: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(
        lambda a, b, *_: changed.append((a.row(), a.column(), b.row(), b.column()))
    )
    # Taken back from a dead workstation and claimed again elsewhere: only its cell repaints.
    assert model.apply_changes({"t00003": {"workstation": "pc-02"}}) == set()
    assert model.data(model.index(2, COL_WORKSTATION)) == "pc-02"
    assert changed == [(2, COL_WORKSTATION, 2, COL_WORKSTATION)]

    model.sort(COL_WORKSTATION, Qt.SortOrder.AscendingOrder)
    order = [model.data(model.index(r, 0), TASK_ID_ROLE) for r in range(3)]
    assert order == ["t00002", "t00003", "t00001"]  # pc-01, pc-02, pc-03

    model.set_filter(TaskFilter(text="pc-03"))
    model.settle(force=True)
    assert model.rowCount() == 1
    assert model.data(model.index(0, 0), TASK_ID_ROLE) == "t00001"

    table = TaskTable(model)
    qtbot.addWidget(table)
    assert table.view.isColumnHidden(COL_WORKSTATION)  # a single PC: every task ran here
    table.show_workstation_column(True)
    assert not table.view.isColumnHidden(COL_WORKSTATION)
