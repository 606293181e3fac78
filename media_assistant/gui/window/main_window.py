"""The main window only assembles: lane panels on top, the task table with the accounts beside
it, the log and the timeline below; actions call the controller."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeySequence, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QSplitter,
    QStyle,
    QSystemTrayIcon,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from media_assistant.core.files.local_state import LocalState
from media_assistant.core.model.records import BatchInfo, NewTask, SubmitResult
from media_assistant.core.model.states import TaskState
from media_assistant.core.notices.center import Notice
from media_assistant.gui.accounts.panel import AccountsPanel
from media_assistant.gui.accounts.site_actions import SiteActions
from media_assistant.gui.batches.dialog import NewBatchDialog
from media_assistant.gui.batches.progress import progress
from media_assistant.gui.batches.submit_notice import SkippedIdsNotice
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.bridge.local_state import LocalStateKeeper, migrate_qsettings
from media_assistant.gui.common import labels
from media_assistant.gui.common.app_icon import app_icon
from media_assistant.gui.metrics.view import MetricsWindow
from media_assistant.gui.tasks.actions import TaskActions
from media_assistant.gui.tasks.details import TaskDetailsDialog
from media_assistant.gui.tasks.model import TaskTableModel
from media_assistant.gui.tasks.rows import TERMINAL
from media_assistant.gui.tasks.view import TaskTable
from media_assistant.gui.timeline.span import span_picker
from media_assistant.gui.timeline.view import TimelineBar, TimelineWidget
from media_assistant.gui.window.demo_banner import DemoBanner
from media_assistant.gui.window.details_windows import DetailsWindows
from media_assistant.gui.window.disk_banner import DiskFullBanner
from media_assistant.gui.window.help_actions import HelpActions
from media_assistant.gui.window.history import FINISHED, HistoryPages
from media_assistant.gui.window.lane_panel import LanePanel
from media_assistant.gui.window.log_panel import LogModel, LogPanel
from media_assistant.gui.window.notice_tab import NoticeTab
from media_assistant.gui.window.queue_controls import QueueControls
from media_assistant.gui.window.table_room import TableRoom
from media_assistant.gui.window.team_view import TeamView

log = logging.getLogger(__name__)

TICK_MS = 1000
FIRST_PAGE = 2_000  # newest finished tasks loaded before the window shows (then the history)
TIMELINE_HISTORY_S = 4 * 3600.0  # the timeline's widest span
FIRST_SIZE = (1400, 900)  # the first window, at most (later: where the operator left it)
FIRST_SCREEN_SHARE = 0.9  # ... and at most this share of the screen's available area


class MainWindow(QMainWindow):
    close_requested = Signal()  # the app shuts down gracefully, then quits

    def __init__(
        self,
        controller: AppController,
        log_model: LogModel,
        parent: QWidget | None = None,
        *,
        local_state: LocalState | None = None,
    ) -> None:
        """``local_state``: what this window remembers of its data folder (the app reads it
        on a worker thread; without it, it is read here)."""
        super().__init__(parent)
        self.controller = controller
        # Notices, their read marks, the batch shown last, the export folder: the data
        # folder's, never the user's (core/files/local_state.py).
        self.local_state = (
            LocalStateKeeper(local_state, self)
            if local_state is not None
            else LocalStateKeeper.open(controller.services.paths.local_state, self)
        )
        migrate_qsettings(self.local_state.state)
        self.setWindowTitle(self.tr("Media Assistant"))
        self.model = TaskTableModel(controller.now, self)
        self.table = TaskTable(self.model, self)
        self.lanes = {lane: LanePanel(lane, self) for lane in ("web", "api")}
        self.accounts = AccountsPanel(controller, self)
        self.timeline = TimelineWidget(self)
        self.timeline.set_accounts([(a.id, a.kind.value) for a in controller.accounts])
        self.log_panel = LogPanel(log_model, self)
        self.skipped_notice: SkippedIdsNotice | None = None
        self.history = HistoryPages(controller.store, self.model, self._loaded, self.isVisible)
        self._painted: asyncio.Future[None] | None = None

        lanes = QHBoxLayout()
        for panel in self.lanes.values():
            lanes.addWidget(panel, 1)
        self.task_actions = TaskActions(self, controller, self.table, self.model)
        self.task_actions.local_state = self.local_state
        self.details = DetailsWindows(self, controller, self.task_actions)
        self.queue = QueueControls(
            self, controller, self.model, self.table, self.lanes, self.accounts, self.task_actions
        )
        self.batch_list = self.queue.batch_list
        # Batches first: the list above the tasks it filters.
        tasks = QSplitter(Qt.Orientation.Vertical, self)
        tasks.addWidget(self.batch_list)
        tasks.addWidget(self.table)
        tasks.setStretchFactor(0, 1)
        tasks.setStretchFactor(1, 2)
        tasks.setCollapsible(0, False)
        rows = self.fontMetrics().height() + 8
        # The table gets the room: the batches list its heading, header and three batches.
        tasks.setSizes([rows * 5, rows * 14])
        middle = QSplitter(Qt.Orientation.Horizontal, self)
        middle.addWidget(tasks)
        middle.addWidget(self.accounts)
        middle.setStretchFactor(0, 4)
        middle.setStretchFactor(1, 1)
        em = self.fontMetrics().horizontalAdvance("M")
        self.accounts.setMinimumWidth(24 * em)
        middle.setSizes([80 * em, 30 * em])
        self.bottom = QTabWidget(self)
        self.bottom.addTab(self.timeline, self.tr("Timeline"))
        zoom, self.timeline_zoom = span_picker(self.timeline, self)
        self.bottom.setCornerWidget(zoom, Qt.Corner.TopRightCorner)
        self.bottom.currentChanged.connect(
            lambda i: zoom.setVisible(self.bottom.widget(i) is self.timeline)
        )
        self.bottom.addTab(self.log_panel, self.tr("Log"))
        # Notices (issue 12): the list, the tray, the webhooks (gui/window/notice_tab.py).
        self.notice_tab = NoticeTab(
            self, controller.services, self.bottom, self.table, self.accounts, self.local_state
        )
        self.notifications, self.notices = self.notice_tab.list, self.notice_tab.runtime
        vertical = QSplitter(Qt.Orientation.Vertical, self)
        vertical.addWidget(middle)
        vertical.addWidget(self.bottom)
        vertical.setStretchFactor(0, 4)
        vertical.setStretchFactor(1, 1)
        vertical.setSizes([rows * 20, rows * 5])
        # Its tab bar and three lines at least: the window fits a laptop at 150 % scaling.
        self.bottom.setMinimumHeight(rows * 4)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        self.disk_banner = DiskFullBanner(controller.services.bus, self)  # hidden until full
        layout.addWidget(self.disk_banner)
        # Team mode: the database's banner, the workstations online, the Workstation column.
        self.team_view = TeamView(self, controller, self.table, layout)
        layout.addLayout(lanes)
        layout.addWidget(vertical, 1)
        self.setCentralWidget(central)
        # A short window (125 %/150 % scaling on a laptop): the table keeps its rows in sight.
        self.table_room = TableRoom(self, vertical, tasks, self.table.view)
        self.status = QLabel(self)
        self.statusBar().addPermanentWidget(self.queue.pause_status)
        self.statusBar().addPermanentWidget(self.status)
        self._build_actions()
        self.setWindowIcon(app_icon())
        self.tray = (
            QSystemTrayIcon(app_icon(), self) if QSystemTrayIcon.isSystemTrayAvailable() else None
        )
        if self.tray is not None:
            self.tray.setToolTip(self.tr("Media Assistant"))
            self.tray.show()
        self.notice_tab.tray = self.tray

        bridge = controller.bridge
        bridge.tasks_added.connect(self._on_bridge_tasks_added)
        bridge.tasks_changed.connect(self._on_bridge_tasks_changed)
        bridge.heartbeats.connect(self.model.apply_heartbeats)
        bridge.task_logged.connect(lambda task_id, *_: self.details.logged(task_id))
        bridge.account_changed.connect(self._on_bridge_account_changed)
        self.table.task_activated.connect(self.open_details)
        self.table.cancel_requested.connect(self.task_actions.cancel_tasks)
        self.table.retry_requested.connect(self.task_actions.retry_tasks)
        self.table.export_requested.connect(self.task_actions.export_tasks)
        self.model.modelReset.connect(self.task_actions.update_enabled)
        self.accounts.login_requested.connect(self._on_accounts_login_requested)
        self.accounts.setup_requested.connect(self._on_setup_requested)
        self.site_actions = SiteActions(self, controller)  # the Sites menu, Check site
        self.accounts.check_requested.connect(self.site_actions.check)
        self.accounts.repair_requested.connect(self.site_actions.repair)
        self.accounts.install_requested.connect(self.site_actions.ask_install)
        self.accounts.attention_needed.connect(self._notify)
        self.accounts.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        controller.config_applied.connect(self._on_controller_config_applied)
        self.setup_dialog: QWidget | None = None
        self.demo_banner: DemoBanner | None = None  # demo mode only (offer_demo_batch)
        self.timeline.task_activated.connect(self.open_details)

        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self.refresh)
        self._tick.start()
        # Panels follow the table within a quarter second of a change (not only on the tick).
        self._soon = QTimer(self)
        self._soon.setSingleShot(True)
        self._soon.setInterval(250)
        self._soon.timeout.connect(self.refresh)
        self._restore_geometry()

    # ---------------------------------------------------------------- setup

    def _build_actions(self) -> None:
        bar = QToolBar(self.tr("Actions"), self)
        bar.setObjectName("actions")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addToolBar(bar)
        sp = QStyle.StandardPixmap
        self.act_new = self.task_actions.add(
            bar,
            self.tr("New batch…"),
            sp.SP_FileDialogNewFolder,
            self.new_batch,
            QKeySequence.StandardKey.New,
        )
        bar.addSeparator()
        self.task_actions.add_task_actions(bar)
        self.act_setup = self.task_actions.add(
            bar, self.tr("Accounts…"), sp.SP_DirHomeIcon, self._on_setup_requested
        )
        self.act_settings = self.task_actions.add(
            bar, self.tr("Settings…"), sp.SP_FileDialogDetailedView, self._open_settings
        )
        self.act_metrics = self.task_actions.add(
            bar, self.tr("Metrics"), sp.SP_FileDialogInfoView, self.open_metrics
        )
        self.metrics_window: MetricsWindow | None = None
        self.help_actions = HelpActions(self, self.controller.services)
        assert self.task_actions.cancel is not None and self.task_actions.retry is not None
        self.act_cancel, self.act_retry = self.task_actions.cancel, self.task_actions.retry

    async def load(self) -> int:
        """Unfinished tasks and the newest finished ones first, so the window shows at once;
        older history follows in pages while the operator already works. Returns the event
        cursor the rows reflect: the database follower starts there."""
        store = self.controller.store
        cursor = await store.last_event_id()  # before the rows: a change after it is re-read
        await self.controller.load_accounts()
        self.queue.load(await self.controller.batches(), await self.controller.pauses())
        rows = await store.view_rows(states=[TaskState.PENDING, TaskState.RUNNING])
        rows += await store.view_rows(states=FINISHED, limit=FIRST_PAGE, newest_first=True)
        self.model.load(rows)
        self._loaded(rows)
        self._show_last_batch()
        oldest = min((r["seq"] for r in rows if r["state"] in TERMINAL), default=None)
        self.history.before = oldest if oldest is not None and len(rows) >= FIRST_PAGE else None
        if self.isVisible():
            self.history.start()
        self.accounts.refresh()
        self.refresh()
        return cursor

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self.history.start()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        super().paintEvent(event)
        if self._painted is not None:
            QTimer.singleShot(0, self._resolve_paint)  # once this paint, children included, is over

    def _resolve_paint(self) -> None:
        painted, self._painted = self._painted, None
        if painted is not None and not painted.done():
            painted.set_result(None)

    def next_paint(self) -> asyncio.Future[None]:
        """Resolves once the window has next been drawn (it may never be, if minimised)."""
        if self._painted is None or self._painted.done():
            self._painted = asyncio.get_running_loop().create_future()
        return self._painted

    def hold_history(self) -> None:
        """Older history waits for :meth:`release_history` (gui/window/history.py)."""
        self.history.hold()

    def release_history(self) -> None:
        self.history.release()

    def _loaded(self, rows: Sequence[dict[str, Any]]) -> None:
        self._add_to_views(rows)
        # The loaded rows live as long as the window: move them out of the cyclic collector's
        # sight. Otherwise each full collection walks every row, and while history loads
        # (the heap grows by a quarter again and again) that is a 200-300 ms freeze every few
        # pages at 100k tasks (measured: page max 262 ms → 55 ms).
        gc.freeze()

    def _add_batches(self, rows: Sequence[dict[str, Any]]) -> None:
        for batch in dict.fromkeys(r["batch_id"] for r in rows):  # once per batch, not per row
            self.table.add_batch(batch, self.model.holds.label(batch))
        self.queue.note_rows(rows)

    def _add_to_views(self, rows: Sequence[dict[str, Any]]) -> None:
        self._add_batches(rows)
        # The timeline shows at most its widest span: older bars would only cost memory.
        horizon = self.controller.now() - TIMELINE_HISTORY_S
        self.timeline.upsert(
            self._bars(
                [
                    t
                    for r in rows
                    if (r["finished_at"] or horizon + 1) > horizon
                    and (t := self.model.task(r["task_id"])) is not None
                ]
            )
        )

    # ---------------------------------------------------------------- live updates

    def _on_bridge_tasks_added(self, rows: list[dict[str, Any]]) -> None:
        self.model.append(rows)
        self._add_batches(rows)
        self.table.rows_changed()
        if not self._soon.isActive():
            self._soon.start()

    def _on_bridge_tasks_changed(self, changes: dict[str, dict[str, Any]]) -> None:
        unknown = self.model.apply_changes(changes)
        # Added by another process: the follower brought whole rows. A partial change of a task
        # not in the model yet is followed by its whole row (its addition is another
        # process's event, past the follower's cursor).
        added = [values for tid in unknown if "seq" in (values := changes[tid])]
        if added:
            self._on_bridge_tasks_added(sorted(added, key=lambda r: r["seq"]))
        self.table.rows_changed()
        if not self._soon.isActive():
            self._soon.start()
        rows = [r for tid in changes if (r := self.model.task(tid)) is not None]
        self.timeline.upsert(self._bars(rows))
        # Back in the queue (a retry): its old bar would pretend it still runs.
        self.timeline.remove(
            [r.task_id for r in rows if r.started_at is None or r.account_id is None]
        )
        self.details.changed(changes)

    def _on_bridge_account_changed(self, account_id: str) -> None:
        """The accounts panel follows on its own; an account that needs the operator is
        announced by the notices (core/notices/center.py: the list, the tray, webhooks)."""

    def _bars(self, rows: Sequence[Any]) -> list[TimelineBar]:
        return [
            TimelineBar(
                task_id=r.task_id,
                account_id=r.account_id,
                lane=r.model_kind,
                state=r.state,
                started_at=r.started_at,
                finished_at=r.finished_at if r.state in TERMINAL else None,
                label=r.label,
            )
            for r in rows
            if r.account_id and r.started_at is not None
        ]

    def refresh(self) -> None:
        now = self.controller.now()
        self.queue.refresh(now)  # the batches list, the lane panels, pauses, actions
        self.timeline.set_now(now)
        self._update_title()
        if self.demo_banner is not None:
            self.demo_banner.follow(self.model.batches)

    def _update_title(self) -> None:
        """The progress of what the window shows: the chosen batch, else every batch that
        still has work."""
        batch = self.queue.chosen()
        done, total = progress(self.model.batches, batch)
        title = self.tr("Media Assistant")
        if total and batch:
            title = (
                self.tr("%1: %2/%3 done — Media Assistant", "batch: done/total")
                .replace("%1", self.model.holds.label(batch))
                .replace("%2", str(done))
                .replace("%3", str(total))
            )
        elif total:
            title = (
                self.tr("%1/%2 done — Media Assistant")
                .replace("%1", str(done))
                .replace("%2", str(total))
            )
        if title != self.windowTitle():
            self.setWindowTitle(title)

    # ---------------------------------------------------------------- the batch shown

    def _show_last_batch(self) -> None:
        """The batch shown when the window last closed, if this queue still has it."""
        batch = str(self.local_state.get("last_batch", "") or "")
        if batch and self.table.batch_filter.findData(batch) >= 0:
            self.table.set_batch(batch)
        self.table.batch_filter_changed.connect(
            lambda chosen: self.local_state.set("last_batch", chosen)
        )

    # ---------------------------------------------------------------- notices

    async def start_notices(self) -> None:
        await self.notices.start()

    async def stop_notices(self) -> None:
        await self.notices.stop()

    def _on_notice(self, notice: Notice) -> None:
        self.notice_tab.on_notice(notice)

    def _notify(self, title: str, text: str) -> None:
        self.notice_tab.notify(title, text)

    # ---------------------------------------------------------------- actions

    def new_batch(self) -> NewBatchDialog:
        """Non-modal: the window (and the scheduler on its loop) keeps going meanwhile."""
        dialog = NewBatchDialog(
            self.controller.models(),
            self,
            user_content_only=self.controller.user_content_only_models(),
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._submit(dialog))
        dialog.open()
        return dialog

    def _submit(self, dialog: NewBatchDialog) -> None:
        tasks = dialog.tasks()
        if tasks:
            spawn(self._submit_tasks(tasks, dialog.batch_info()), "submit")

    async def _submit_tasks(self, tasks: Sequence[NewTask], batch: BatchInfo | None = None) -> None:
        self._notify_submitted(await self.controller.submit(tasks, batch))

    def _notify_submitted(self, result: SubmitResult) -> None:
        text = self.tr("%n task(s) added", "", len(result.added))
        if result.skipped:  # supplied ids already present: say which, never in silence
            text += self.tr("; %n already present, not added again", "", len(result.skipped))
            self.skipped_notice = SkippedIdsNotice(result, self)
            self.skipped_notice.open()
        self._notify(self.tr("Batch %1 submitted").replace("%1", result.batch_id), text)

    def open_metrics(self) -> None:
        """The lanes' figures and charts (gui/metrics/), in a window of their own."""
        if self.metrics_window is None:
            self.metrics_window = MetricsWindow(self.controller.services, self)
        self.metrics_window.show()
        self.metrics_window.raise_()
        self.metrics_window.activateWindow()

    def _open_settings(self) -> None:
        from media_assistant.gui.window.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.controller.services.paths.config_file, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def open_setup(self, *, first_start: bool = False) -> QWidget | None:
        """The set-up window (accounts and models), non-modal: work goes on meanwhile."""
        from media_assistant.gui.accounts.setup_dialog import show_setup

        self.setup_dialog = show_setup(self, self.controller, self.setup_dialog, first_start)
        return self.setup_dialog

    def _on_setup_requested(self) -> None:
        self.open_setup()

    def _on_controller_config_applied(self) -> None:
        self.accounts.rebuild()
        self.timeline.set_accounts([(a.id, a.kind.value) for a in self.controller.accounts])
        self.refresh()

    def open_details(self, task_id: str) -> None:
        self.details.open_later(task_id)

    async def show_details(self, task_id: str) -> TaskDetailsDialog | None:
        return await self.details.show(task_id)

    @property
    def _details(self) -> dict[str, TaskDetailsDialog]:
        return self.details.open

    @asyncSlot(str)  # type: ignore[untyped-decorator]
    async def _on_accounts_login_requested(self, account_id: str) -> None:
        self.statusBar().showMessage(
            self.tr("Sign in to %1 in the browser window, then close it").replace("%1", account_id)
        )
        state = await self.controller.login(account_id)
        self.statusBar().showMessage(
            labels.sign_in_result(account_id, state.outcome.value, state.where, state.detail),
            15000,
        )

    def show_startup_findings(self, lines: Sequence[str]) -> None:
        if not lines:
            self.status.setText(self.tr("Self-check: all clear"))
            return
        self.status.setText(self.tr("Self-check: %n finding(s) — see the log", "", len(lines)))
        self.status.setToolTip("\n".join(lines))

    # ---------------------------------------------------------------- window state

    def _restore_geometry(self) -> None:
        """Where the operator left it (Qt moves it back onto a screen that still exists); the
        first time, sized from the screen's available area (a 1366×768 laptop gets ~1230×650,
        a large monitor at most 1400×900), centred."""
        geometry = QSettings().value("main/geometry")
        if geometry is not None and self.restoreGeometry(geometry):
            return
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            self.resize(*FIRST_SIZE)
            return
        area = screen.availableGeometry()
        width = min(FIRST_SIZE[0], int(area.width() * FIRST_SCREEN_SHARE))
        height = min(FIRST_SIZE[1], int(area.height() * FIRST_SCREEN_SHARE))
        self.resize(width, height)
        frame = self.frameGeometry()
        frame.moveCenter(area.center())
        self.move(frame.topLeft())

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        QSettings().setValue("main/geometry", self.saveGeometry())
        self.details.close_all()
        self.history.cancel()
        self.queue.close()
        self._tick.stop()
        self._soon.stop()
        event.accept()
        self.close_requested.emit()

    def offer_demo_batch(self) -> None:
        """Demo mode: a banner with the sample batch one click away; what it says follows
        the sample batches in the queue (see :meth:`refresh`)."""
        from media_assistant.demo import sample_batch, sample_batch_id

        banner = self.demo_banner = DemoBanner(self)
        central = self.centralWidget()
        layout = central.layout() if central is not None else None
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(0, banner)

        def submit() -> None:
            batch = sample_batch(sample_batch_id(self.controller.now()))
            spawn(self._submit_tasks(batch), "demo")

        banner.run_requested.connect(submit)
        banner.follow(self.model.batches)
        self.demo_button = banner.button
