"""The task table model: a valid Qt model, and updates that touch only what changed."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt

from media_assistant.gui.task_filter import TaskFilterProxy
from media_assistant.gui.task_model import (
    COL_ATTEMPT,
    COL_HEARTBEAT,
    COL_STATE,
    TASK_ID_ROLE,
    TaskTableModel,
)

NOW = 1_800_000_000.0


def row(i: int, **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "task_id": f"t{i:05d}",
        "seq": i,
        "batch_id": "b1" if i % 2 else "b2",
        "title": None,
        "prompt_head": f"prompt number {i}",
        "model": "m-web" if i % 3 else "m-api",
        "model_kind": "web" if i % 3 else "api",
        "account_id": None,
        "state": "pending",
        "attempt": 0,
        "max_attempts": 3,
        "started_at": None,
        "heartbeat_at": None,
        "finished_at": None,
        "not_before": None,
        "cancel_requested": False,
        "progress_chars": 0,
        "error_kind": None,
        "error_message": None,
        "created_at": NOW,
        "priority": 0,
    }
    base.update(kw)
    return base


@pytest.fixture
def model() -> TaskTableModel:
    m = TaskTableModel(now=lambda: NOW)
    m.load([row(i) for i in range(50)])
    return m


def test_passes_qtmodeltester(qtmodeltester: Any, model: TaskTableModel) -> None:
    qtmodeltester.check(model, force_py=True)
    proxy = TaskFilterProxy(model)
    proxy.set_filter(states=frozenset({"pending"}), text="number 1")
    qtmodeltester.check(proxy, force_py=True)


def test_changes_touch_only_their_rows(model: TaskTableModel) -> None:
    ranges: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(
        lambda a, b, _r=None: ranges.append((a.row(), b.row(), a.column(), b.column()))
    )
    model.apply_changes(
        {
            "t00003": {"state": "running", "attempt": 1, "account_id": "w1", "started_at": NOW},
            "t00004": {"state": "running", "attempt": 1, "account_id": "w2", "started_at": NOW},
            "t00040": {"attempt": 0},  # no actual change: no signal
            "t00020": {"error_kind": "timeout", "error_message": "x"},
        }
    )
    touched = {r for top, bottom, _, _ in ranges for r in range(top, bottom + 1)}
    assert touched == {3, 4, 20}
    assert all(bottom - top <= 1 for top, bottom, _, _ in ranges)  # never one big range
    assert model.data(model.index(3, COL_ATTEMPT)) == "1/3"


def test_heartbeats_emit_nothing_but_ages_tick_at_paint_time() -> None:
    clock = [NOW]
    m = TaskTableModel(now=lambda: clock[0])
    m.load([row(0, state="running", attempt=1, started_at=NOW - 40, heartbeat_at=NOW - 40)])
    emitted: list[Any] = []
    m.dataChanged.connect(lambda *a: emitted.append(a))
    assert m.data(m.index(0, COL_HEARTBEAT)) == "40s"
    assert m.data(m.index(0, COL_HEARTBEAT), Qt.ItemDataRole.ForegroundRole) is not None  # amber
    m.apply_heartbeats({"t00000": {"heartbeat_at": NOW, "progress_chars": 120}})
    assert emitted == []
    clock[0] = NOW + 5
    assert m.data(m.index(0, COL_HEARTBEAT)) == "5s"


def test_inserts_append_rows(model: TaskTableModel) -> None:
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    model.append([row(100), row(101), row(3)])  # t00003 exists already: ignored
    assert inserted == [(50, 51)]
    assert model.row_for("t00101") == 51


def test_sorting_keeps_the_selection_on_the_same_tasks(qtbot: Any, model: TaskTableModel) -> None:
    from PySide6.QtWidgets import QTableView

    proxy = TaskFilterProxy(model)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(proxy)
    selection = view.selectionModel()
    pick = proxy.index(7, 0)
    selection.select(
        pick, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    )
    chosen = proxy.data(pick, TASK_ID_ROLE)
    model.apply_changes({chosen: {"state": "failed"}})
    proxy.sort(COL_STATE, Qt.SortOrder.AscendingOrder)
    rows = selection.selectedRows()
    assert [proxy.data(i, TASK_ID_ROLE) for i in rows] == [chosen]
    assert rows[0].row() != 7  # it moved, and the selection moved with it


def test_live_resort_skips_ticking_columns(model: TaskTableModel) -> None:
    model.sort(COL_HEARTBEAT, Qt.SortOrder.AscendingOrder)
    assert model.resort_if_live() is False
    model.sort(COL_STATE, Qt.SortOrder.AscendingOrder)
    assert model.resort_if_live() is True


def test_filters(model: TaskTableModel) -> None:
    proxy = TaskFilterProxy(model)
    proxy.set_filter(lane="api")
    assert proxy.rowCount() == len([i for i in range(50) if i % 3 == 0])
    proxy.set_filter(states=frozenset({"failed"}))
    assert proxy.rowCount() == 0
    model.apply_changes({"t00001": {"state": "failed"}})
    proxy.refilter()
    assert proxy.rowCount() == 1
    proxy.set_filter(states=frozenset(), text="NUMBER 4")
    assert {proxy.data(proxy.index(r, 0), TASK_ID_ROLE) for r in range(proxy.rowCount())} == {
        "t00004",
        "t00040",
        "t00041",
        "t00042",
        "t00043",
        "t00044",
        "t00045",
        "t00046",
        "t00047",
        "t00048",
        "t00049",
    }
    assert proxy.index(0, 0).parent() == QModelIndex()
