"""Filtering the task table by state, lane, batch and text. Sorting is the source model's (fast,
on Python keys); this proxy passes sort requests through and never re-sorts by itself."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel, Qt

from media_assistant.gui.task_model import (
    BATCH_ROLE,
    LANE_ROLE,
    SEARCH_ROLE,
    STATE_ROLE,
    TaskTableModel,
)


class TaskFilterProxy(QSortFilterProxyModel):
    def __init__(self, source: TaskTableModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setSourceModel(source)
        # Re-filtering on every dataChanged would cost O(rows) per heartbeat burst; the window
        # calls refilter() on a coalescing timer instead, and only when a filter is active.
        self.setDynamicSortFilter(False)
        self._states: frozenset[str] = frozenset()
        self._lane: str | None = None
        self._batch: str | None = None
        self._text = ""

    @property
    def source(self) -> TaskTableModel:
        model = self.sourceModel()
        assert isinstance(model, TaskTableModel)
        return model

    @property
    def active(self) -> bool:
        return bool(self._states or self._lane or self._batch or self._text)

    def set_filter(
        self,
        *,
        states: frozenset[str] | None = None,
        lane: str | None = None,
        batch: str | None = None,
        text: str | None = None,
    ) -> None:
        if states is not None:
            self._states = states
        self._lane = lane
        self._batch = batch
        if text is not None:
            self._text = text.strip().lower()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def refilter(self) -> None:
        """Source rows changed state: re-evaluate them (only when a filter is active)."""
        if self.active:
            self.beginFilterChange()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(
        self,
        source_row: int,  # noqa: N802
        source_parent: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        src = self.source
        index = src.index(source_row, 0, source_parent)
        if self._states and src.data(index, STATE_ROLE) not in self._states:
            return False
        if self._lane and src.data(index, LANE_ROLE) != self._lane:
            return False
        if self._batch and src.data(index, BATCH_ROLE) != self._batch:
            return False
        if self._text and self._text not in str(src.data(index, SEARCH_ROLE)).lower():
            return False
        return True

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.source.sort(column, order)
