"""The task table: filters above it, the table, a context menu; heartbeat ages tick by a
once-a-second repaint of the ticking columns of the visible rows (no model signals)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from media_assistant.gui import labels
from media_assistant.gui.task_model import TASK_ID_ROLE, TaskTableModel
from media_assistant.gui.task_rows import (
    COL_ATTEMPT,
    COL_DURATION,
    COL_HEARTBEAT,
    COL_LANE,
    COL_STARTED,
    COL_STATE,
    COL_TASK,
    TaskFilter,
)

TICK_MS = 1000


class TaskTable(QWidget):
    task_activated = Signal(str)  # double-click / Enter: open the task's details
    cancel_requested = Signal(list)
    retry_requested = Signal(list)
    export_requested = Signal(list)

    def __init__(self, model: TaskTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model

        self.search = QLineEdit(self)
        self.search.setPlaceholderText(self.tr("Filter by text, task id or error…"))
        self.search.setClearButtonEnabled(True)
        self.state_filter = QComboBox(self)
        for label, states in (
            (self.tr("All states"), ""),
            *(
                (labels.task_state(s), s)
                for s in ("running", "pending", "success", "failed", "canceled")
            ),
            (self.tr("Not finished"), "pending,running"),
            (self.tr("Needs a look"), "failed,canceled"),
        ):
            self.state_filter.addItem(label, states)
        self.lane_filter = QComboBox(self)
        for label, lane in (
            (self.tr("Both lanes"), ""),
            (labels.lane_title("web"), "web"),
            (labels.lane_title("api"), "api"),
        ):
            self.lane_filter.addItem(label, lane)
        self.batch_filter = QComboBox(self)
        self.batch_filter.addItem(self.tr("All batches"), "")
        self.batch_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)

        filters = QHBoxLayout()
        filters.addWidget(self.search, 3)
        for w in (self.state_filter, self.lane_filter, self.batch_filter):
            filters.addWidget(w, 1)

        self.view = QTableView(self)
        self.view.setModel(model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, self.view.horizontalHeader().sortIndicatorOrder())
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(COL_TASK, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        metrics = self.fontMetrics()
        em = metrics.horizontalAdvance("M")
        for col, width in (
            (COL_LANE, 5),
            (COL_STATE, 9),
            (COL_ATTEMPT, 5),
            (COL_HEARTBEAT, 6),
            (COL_STARTED, 7),
            (COL_DURATION, 6),
        ):
            # Room for the header in any language, with its sort arrow.
            title = str(model.headerData(col, Qt.Orientation.Horizontal))
            header.resizeSection(col, max(width * em, metrics.horizontalAdvance(title) + 3 * em))
        # and for what the state column says, after its icon.
        icon = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        words = max(metrics.horizontalAdvance(w) for w in model.state_texts())
        header.resizeSection(COL_STATE, max(header.sectionSize(COL_STATE), words + icon + 2 * em))
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._on_view_context_menu)
        self.view.doubleClicked.connect(self._on_view_double_clicked)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(filters)
        layout.addWidget(self.view)

        self.search.textChanged.connect(self._apply_filters)
        for combo in (self.state_filter, self.lane_filter, self.batch_filter):
            combo.currentIndexChanged.connect(self._apply_filters)

        # Ticking columns: repaint what is visible, once a second.
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._repaint_ticking_columns)
        self._tick.start()
        # Changes arrive in bursts: re-filter / re-sort at most every 500 ms.
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(500)
        self._settle.timeout.connect(self._on_settle_timeout)

    # ---------------------------------------------------------------- called by the window

    def rows_changed(self) -> None:
        if not self._settle.isActive():
            self._settle.start()

    def add_batch(self, batch_id: str) -> None:
        if self.batch_filter.findData(batch_id) < 0:
            self.batch_filter.addItem(batch_id, batch_id)

    def selected_ids(self) -> list[str]:
        rows = self.view.selectionModel().selectedRows()
        return [str(self.model.data(i, TASK_ID_ROLE)) for i in rows]

    def current_batch(self) -> str | None:
        return self.batch_filter.currentData() or None

    # ---------------------------------------------------------------- slots

    def _on_settle_timeout(self) -> None:
        self.model.settle()

    def _repaint_ticking_columns(self) -> None:
        """Heartbeat age and duration tick with the clock: repaint just those cells."""
        header = self.view.horizontalHeader()
        viewport = self.view.viewport()
        for col in (COL_HEARTBEAT, COL_DURATION):
            x = header.sectionViewportPosition(col)
            viewport.update(QRect(x, 0, header.sectionSize(col), viewport.height()))

    def _apply_filters(self) -> None:
        states = str(self.state_filter.currentData() or "")
        self.model.set_filter(
            TaskFilter(
                states=frozenset(s for s in states.split(",") if s),
                lane=self.lane_filter.currentData() or None,
                batch=self.batch_filter.currentData() or None,
                text=self.search.text().strip().lower(),
            )
        )

    def _on_view_double_clicked(self, index: QModelIndex) -> None:
        self.task_activated.emit(str(self.model.data(index, TASK_ID_ROLE)))

    def _on_view_context_menu(self, pos: QPoint) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        menu = QMenu(self)
        details = QAction(self.tr("Details…"), menu)
        details.triggered.connect(lambda: self.task_activated.emit(ids[0]))
        cancel = QAction(self.tr("Cancel %n task(s)", "", len(ids)), menu)
        cancel.triggered.connect(lambda: self.cancel_requested.emit(ids))
        retry = QAction(self.tr("Retry %n task(s)", "", len(ids)), menu)
        retry.triggered.connect(lambda: self.retry_requested.emit(ids))
        export = QAction(self.tr("Export selection…"), menu)
        export.triggered.connect(lambda: self.export_requested.emit(ids))
        for action in (details, cancel, retry, export):
            menu.addAction(action)
        menu.exec(self.view.viewport().mapToGlobal(pos))
