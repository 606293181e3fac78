"""The task table model: a valid Qt model, and updates that touch only what changed."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt

from media_assistant.gui.tasks.model import TASK_ID_ROLE, TaskTableModel
from media_assistant.gui.tasks.rows import COL_ATTEMPT, COL_HEARTBEAT, COL_STATE, TaskFilter

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


@pytest.mark.parametrize("setup", ["plain", "filtered", "sorted"])
def test_passes_qtmodeltester(qtmodeltester: Any, setup: str) -> None:
    m = TaskTableModel(now=lambda: NOW)
    m.load([row(i) for i in range(50)])
    qtmodeltester.check(m, force_py=True)  # watches every later signal, too
    if setup == "filtered":
        m.set_filter(TaskFilter(states=frozenset({"pending"}), text="number 1"))
        m.apply_changes({"t00010": {"state": "running"}, "t00003": {"state": "pending"}})
        m.settle()
    elif setup == "sorted":
        m.sort(COL_STATE, Qt.SortOrder.DescendingOrder)
        m.apply_changes({"t00010": {"state": "failed"}})
        m.settle()
    m.append([row(60), row(61)])


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


def test_history_goes_in_at_the_top_and_every_row_is_found_where_it_is(
    qtmodeltester: Any,
) -> None:
    m = TaskTableModel(now=lambda: NOW)
    m.load([row(i) for i in range(40, 50)])
    qtmodeltester.check(m, force_py=True)
    inserted: list[tuple[int, int]] = []
    m.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    m.append([row(i, state="success") for i in range(30, 40)])  # a page of older history
    m.append([row(i, state="success") for i in range(20, 30)])  # and an older one
    m.append([row(50), row(51)])  # a new submission, at the end
    assert inserted == [(0, 9), (0, 9), (30, 31)]
    for r in range(m.rowCount()):  # row_for agrees with the display order everywhere
        assert m.row_for(m.task_at(r).task_id) == r
    ranges: list[tuple[int, int]] = []
    m.dataChanged.connect(lambda a, b, _r=None: ranges.append((a.row(), b.row())))
    m.apply_changes({"t00025": {"state": "failed"}, "t00051": {"state": "running"}})
    assert ranges == [(5, 5), (31, 31)]
    m.sort(COL_STATE)  # a re-sort renumbers from scratch
    for r in range(m.rowCount()):
        assert m.row_for(m.task_at(r).task_id) == r


def test_sorting_keeps_the_selection_on_the_same_tasks(qtbot: Any, model: TaskTableModel) -> None:
    from PySide6.QtWidgets import QTableView

    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    selection = view.selectionModel()
    pick = model.index(7, 0)
    selection.select(
        pick, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
    )
    chosen = model.data(pick, TASK_ID_ROLE)
    model.apply_changes({chosen: {"state": "failed"}})
    model.sort(COL_STATE, Qt.SortOrder.AscendingOrder)
    rows = selection.selectedRows()
    assert [model.data(i, TASK_ID_ROLE) for i in rows] == [chosen]
    assert rows[0].row() != 7  # it moved, and the selection moved with it


def test_live_settle_skips_ticking_columns_and_costs_nothing_when_nothing_moved(
    model: TaskTableModel,
) -> None:
    layouts: list[int] = []
    model.layoutChanged.connect(lambda *_: layouts.append(1))
    model.sort(COL_HEARTBEAT, Qt.SortOrder.AscendingOrder)
    layouts.clear()
    model.apply_changes({"t00003": {"state": "running"}})
    assert model.settle() is False and layouts == []  # ticking column: on request only
    model.sort(COL_STATE, Qt.SortOrder.AscendingOrder)
    layouts.clear()
    model.apply_changes({"t00010": {"error_kind": "timeout"}})  # not a sort key
    assert model.settle() is False and layouts == []
    model.apply_changes({"t00010": {"state": "running"}})
    assert model.settle() is True and layouts == [1]
    assert model.data(model.index(0, 0), TASK_ID_ROLE) in ("t00003", "t00010")


def test_filters_settle_with_removals_and_insertions_not_a_reset(model: TaskTableModel) -> None:
    events: list[str] = []
    model.modelReset.connect(lambda: events.append("reset"))
    model.rowsRemoved.connect(lambda *_: events.append("removed"))
    model.rowsInserted.connect(lambda *_: events.append("inserted"))
    model.set_filter(TaskFilter(lane="api"))
    assert model.rowCount() == len([i for i in range(50) if i % 3 == 0])
    assert "reset" not in events
    model.set_filter(TaskFilter(states=frozenset({"failed"})))
    assert model.rowCount() == 0
    model.apply_changes({"t00001": {"state": "failed"}})
    model.settle()
    assert model.rowCount() == 1 and model.data(model.index(0, 0), TASK_ID_ROLE) == "t00001"
    model.set_filter(TaskFilter(text="number 4"))
    assert {model.data(model.index(r, 0), TASK_ID_ROLE) for r in range(model.rowCount())} == {
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
    assert model.index(0, 0).parent() == QModelIndex()
    assert "reset" not in events


def test_lane_and_batch_indexes_follow_changes(model: TaskTableModel) -> None:
    web = model.lanes["web"]
    assert web.counts["pending"] == len([i for i in range(50) if i % 3])
    model.apply_changes(
        {"t00001": {"state": "running", "started_at": NOW - 10, "account_id": "w1"}}
    )
    assert "t00001" in web.running and "t00001" not in web.pending
    model.apply_changes({"t00001": {"state": "success", "finished_at": NOW}})
    assert web.counts["success"] == 1 and list(web.finished)[-1][3] == NOW
    assert model.batches.of("b1") == (1, 25, 0)
    model.apply_changes({"t00001": {"state": "pending"}})  # an operator retry
    assert model.batches.of("b1") == (0, 25, 0) and web.counts["success"] == 0
