"""The window's part in notices (issue 12): the Notifications tab with its unread count, the
status bar and the tray, opening what a notice is about. The notices themselves come from the
core (core/notices/center.py) through media_assistant/notices_runtime.py, which also starts the
webhooks; the list and its read marks are the data folder's (gui/bridge/local_state.py).

Its words keep the main window's translation context: they were the window's before it moved
here."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtWidgets import QMainWindow, QSystemTrayIcon, QTabWidget

from media_assistant.core.notices.center import Notice
from media_assistant.gui.accounts.panel import AccountsPanel
from media_assistant.gui.bridge.local_state import LocalStateKeeper
from media_assistant.gui.notices.notification_list import NotificationList
from media_assistant.gui.tasks.view import TaskTable
from media_assistant.notices_runtime import Notices
from media_assistant.services import Services


class NoticeTab(QObject):
    def __init__(
        self,
        window: QMainWindow,
        services: Services,
        tabs: QTabWidget,
        table: TaskTable,
        accounts: AccountsPanel,
        remembered: LocalStateKeeper,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.tabs = tabs
        self.table = table
        self.accounts = accounts
        self.tray: QSystemTrayIcon | None = None  # the window's, once it has one
        self.list = NotificationList(window)
        self.list.restore(remembered.get("notices", []))
        tabs.addTab(self.list, QCoreApplication.translate("MainWindow", "Notifications"))
        self.list.unread_changed.connect(self._on_list_unread_changed)
        self.list.batch_requested.connect(self._on_list_batch_requested)
        self.list.account_requested.connect(self._on_list_account_requested)
        self.list.changed.connect(lambda: remembered.set("notices", self.list.saved()))
        # Started by the app after the scheduler (start_notices), so the headless run and the
        # window announce the same.
        self.runtime = Notices(services)
        self.runtime.subscribe(self.on_notice)
        self._on_list_unread_changed(self.list.unread_count())

    def on_notice(self, notice: Notice) -> None:
        self.list.add(notice)
        words = self.list.words
        self.notify(words.title(notice), words.text(notice))

    def notify(self, title: str, text: str) -> None:
        message = (
            QCoreApplication.translate("MainWindow", "%1: %2", "notice title: text")
            .replace("%1", title)
            .replace("%2", text)
        )
        self.window.statusBar().showMessage(message, 15000)
        if self.tray is not None:
            self.tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, 8000)

    def _on_list_unread_changed(self, unread: int) -> None:
        text = (
            QCoreApplication.translate("MainWindow", "Notifications (%1)").replace(
                "%1", str(unread)
            )
            if unread
            else QCoreApplication.translate("MainWindow", "Notifications")
        )
        self.tabs.setTabText(self.tabs.indexOf(self.list), text)

    def _on_list_batch_requested(self, batch_id: str) -> None:
        if self.table.batch_filter.findData(batch_id) >= 0:
            self.table.set_batch(batch_id)
            self.table.view.setFocus()
            return
        # Its tasks are gone from this queue (a restored backup, another data folder's notice
        # from before issue 20): say so rather than do nothing.
        self.window.statusBar().showMessage(
            QCoreApplication.translate(
                "MainWindow", "Batch %1 is not in this queue any more"
            ).replace("%1", batch_id),
            15000,
        )

    def _on_list_account_requested(self, account_id: str) -> None:
        if not self.accounts.show_account(account_id):
            self.window.statusBar().showMessage(
                QCoreApplication.translate(
                    "MainWindow", "Account %1 is not set up in this queue any more"
                ).replace("%1", account_id),
                15000,
            )
