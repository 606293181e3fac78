"""The task table: filters above it, the table, a context menu; heartbeat ages tick by a
once-a-second repaint of the ticking columns of the visible rows (no model signals)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
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

from media_assistant.gui.common import labels
from media_assistant.gui.tasks.model import TASK_ID_ROLE, TaskTableModel
from media_assistant.gui.tasks.rows import (
    COL_ACCOUNT,
    COL_ATTEMPT,
    COL_DURATION,
    COL_ERROR,
    COL_HEARTBEAT,
    COL_LANE,
    COL_MODEL,
    COL_PRIORITY,
    COL_STARTED,
    COL_STATE,
    COL_TASK,
    COL_WORKSTATION,
    TaskFilter,
)

TICK_MS = 1000


class TaskTable(QWidget):
    task_activated = Signal(str)  # double-click / Enter: open the task's details
    cancel_requested = Signal(list)
    retry_requested = Signal(list)
    export_requested = Signal(list)
    priority_requested = Signal(list, str)  # task ids, "top" | "bottom" | "set"
    selection_changed = Signal()  # the window re-checks which actions apply
    batch_filter_changed = Signal(str)  # "" = all batches

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
        # The column that tells tasks apart keeps room for a title (issue 26: two characters
        # at 1366×768): it stretches while the others leave it this much, else it keeps this
        # width and the table scrolls sideways.
        self.task_min_width = max(12 * em, metrics.horizontalAdvance("春季新品连衣裙文案一二") + em)
        self.view.viewport().installEventFilter(self)
        for col, width in (
            (COL_LANE, 5),
            (COL_STATE, 9),
            (COL_ATTEMPT, 5),
            (COL_HEARTBEAT, 6),
            (COL_STARTED, 7),
            (COL_DURATION, 6),
            (COL_PRIORITY, 4),
            (COL_WORKSTATION, 7),
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
        self.show_priority_column()
        self.show_workstation_column(False)  # a team database's window shows it (team_view.py)
        self.view.selectionModel().selectionChanged.connect(self.selection_changed)
        # Enter / Return opens the current task, like a double-click (the table's own
        # shortcut, so it does not take Enter from the filter fields).
        self.open_action = QAction(self.tr("Open details"), self.view)
        self.open_action.setShortcuts(
            [QKeySequence(Qt.Key.Key_Return), QKeySequence(Qt.Key.Key_Enter)]
        )
        self.open_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.open_action.triggered.connect(self._on_open_action_triggered)
        self.view.addAction(self.open_action)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(filters)
        layout.addWidget(self.view)

        self.search.textChanged.connect(self._apply_filters)
        for combo in (self.state_filter, self.lane_filter, self.batch_filter):
            combo.currentIndexChanged.connect(self._apply_filters)
        self.batch_filter.currentIndexChanged.connect(
            lambda _i: self.batch_filter_changed.emit(self.current_batch() or "")
        )

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

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.view.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_task_column()
        return False

    def fit_task_column(self) -> None:
        """Stretch the Task column over what the other columns leave, never below
        :attr:`task_min_width`: short of room, the other columns give up their spare width
        first (down to their header), and only then does the table scroll sideways."""
        header = self.view.horizontalHeader()
        if not hasattr(self, "_preferred"):  # the widths set up in __init__, once
            self._preferred = {
                c: header.sectionSize(c) for c in range(header.count()) if c != COL_TASK
            }
        shown = [c for c in self._preferred if not header.isSectionHidden(c)]
        widths = dict(self._preferred)
        short = self.task_min_width - (self.view.viewport().width() - sum(widths[c] for c in shown))
        metrics = self.fontMetrics()
        em = metrics.horizontalAdvance("M")
        for c in (COL_ERROR, COL_MODEL, COL_ACCOUNT, COL_STARTED, COL_HEARTBEAT, COL_DURATION):
            if short <= 0:
                break
            if c not in shown:
                continue
            title = str(self.model.headerData(c, Qt.Orientation.Horizontal))
            floor = metrics.horizontalAdvance(title) + 2 * em
            give = max(0, min(short, widths[c] - floor))
            widths[c] -= give
            short -= give
        for c in shown:
            if header.sectionSize(c) != widths[c]:
                header.resizeSection(c, widths[c])
        stretch = QHeaderView.ResizeMode.Stretch
        if short <= 0:
            if header.sectionResizeMode(COL_TASK) != stretch:
                header.setSectionResizeMode(COL_TASK, stretch)
        else:
            if header.sectionResizeMode(COL_TASK) == stretch:
                header.setSectionResizeMode(COL_TASK, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(COL_TASK, self.task_min_width)

    def show_priority_column(self) -> None:
        """The Priority column only while some task has one: room for the task's name."""
        hidden = not self.model.prioritized
        if self.view.isColumnHidden(COL_PRIORITY) != hidden:
            self.view.setColumnHidden(COL_PRIORITY, hidden)
            self.fit_task_column()

    def show_workstation_column(self, shown: bool) -> None:
        """Where each task ran: only on a team database (a single PC's tasks all ran here)."""
        self.view.setColumnHidden(COL_WORKSTATION, not shown)
        self.fit_task_column()

    def add_batch(self, batch_id: str, label: str | None = None) -> None:
        at = self.batch_filter.findData(batch_id)
        if at < 0:
            self.batch_filter.addItem(label or batch_id, batch_id)
        elif label and self.batch_filter.itemText(at) != label:
            self.batch_filter.setItemText(at, label)

    def set_batches(self, batches: list[tuple[str, str]]) -> None:
        """The batches the filter offers, in the batches list's order (newest first), by name;
        the current choice stays."""
        current = self.current_batch() or ""
        known = [
            (str(self.batch_filter.itemData(i)), self.batch_filter.itemText(i))
            for i in range(1, self.batch_filter.count())
        ]
        if known == batches:
            return
        self.batch_filter.blockSignals(True)
        try:
            while self.batch_filter.count() > 1:
                self.batch_filter.removeItem(1)
            for batch_id, label in batches:
                self.batch_filter.addItem(label, batch_id)
            at = self.batch_filter.findData(current) if current else 0
            self.batch_filter.setCurrentIndex(max(at, 0))
        finally:
            self.batch_filter.blockSignals(False)

    def set_batch(self, batch_id: str) -> None:
        """Show one batch ("" = all), as the batches list asks."""
        at = self.batch_filter.findData(batch_id) if batch_id else 0
        if at >= 0 and at != self.batch_filter.currentIndex():
            self.batch_filter.setCurrentIndex(at)

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
        # The state column too: "Retry in 0:42" and "Scheduled 01:00" move with the clock.
        for col in (COL_HEARTBEAT, COL_DURATION, COL_STATE):
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

    def _on_open_action_triggered(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self.task_activated.emit(str(self.model.data(index, TASK_ID_ROLE)))

    def selected_states(self) -> list[str]:
        return [row.state for tid in self.selected_ids() if (row := self.model.task(tid))]

    def _on_view_context_menu(self, pos: QPoint) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        states = self.selected_states()
        unfinished = [s for s in states if s in ("pending", "running")]
        retryable = [s for s in states if s in ("failed", "canceled")]
        menu = QMenu(self)
        details = QAction(self.tr("Details…"), menu)
        details.triggered.connect(lambda: self.task_activated.emit(ids[0]))
        cancel = QAction(self.tr("Cancel %n task(s)", "", len(unfinished)), menu)
        cancel.setEnabled(bool(unfinished))
        cancel.triggered.connect(lambda: self.cancel_requested.emit(ids))
        retry = QAction(self.tr("Retry %n task(s)", "", len(retryable)), menu)
        retry.setEnabled(bool(retryable))
        retry.triggered.connect(lambda: self.retry_requested.emit(ids))
        export = QAction(self.tr("Export selection…"), menu)
        export.triggered.connect(lambda: self.export_requested.emit(ids))
        for action in (details, cancel, retry):
            menu.addAction(action)
        priority = menu.addMenu(self.tr("Priority"))
        priority.setEnabled(bool(unfinished))
        for text, where in (
            (self.tr("Move to the top"), "top"),
            (self.tr("Move to the bottom"), "bottom"),
            (self.tr("Set priority…"), "set"),
        ):
            priority.addAction(text).triggered.connect(
                lambda _=False, w=where: self.priority_requested.emit(ids, w)
            )
        menu.addAction(export)
        menu.exec(self.view.viewport().mapToGlobal(pos))
