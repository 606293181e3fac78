"""*Check site* (an account's context menu) and *Install adapter file…* (the Sites menu and the
accounts' context menu), issue 21 items 1 and 3.

A check runs through the window's own scheduler (core/lanes/site_checks.py): after the
account's running task, when its pacing allows a prompt; the dialog says so while it waits,
then shows every adapter step with what it found. An install validates the file on a worker
thread (a refusal names the key and the reason), makes it the adapter of its site, asks the
schedulers serving that site's accounts for fresh providers (their next task uses it) and
offers the check at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.model.errors import ConfigError, InputError
from media_assistant.core.rules.site_breakage import SiteCheckReport, StepStatus
from media_assistant.gui.accounts.config_text import adapter_error_text
from media_assistant.gui.accounts.site_repair import SiteRepairDialog
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.common import labels
from media_assistant.gui.common.site_findings import finding_text
from media_assistant.providers.web.repair import keep_proposal


class SiteCheckDialog(QDialog):
    """One account's check: "waiting…" while the scheduler gets to it, then the steps."""

    def __init__(self, account_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.account_id = account_id
        self.report: SiteCheckReport | None = None
        self.setWindowTitle(self.tr("Check site: %1").replace("%1", account_id))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.header = QLabel(
            self.tr(
                "Checking %1: one short prompt through its chat page, after its current task "
                "and when its pacing allows a prompt…"
            ).replace("%1", account_id),
            self,
        )
        self.header.setWordWrap(True)
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(
            [self.tr("Step"), self.tr("Result"), self.tr("Took"), self.tr("What it found")]
        )
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        # Wrapped details take the height the final column width gives them (not the width
        # the table had before the dialog was laid out).
        header.sectionResized.connect(lambda *_: self.table.resizeRowsToContents())
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.close)
        self.reset_button: QPushButton | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.table)
        layout.addWidget(self.buttons)
        self.resize(860, 480)

    def show_report(self, report: SiteCheckReport) -> None:
        self.report = report
        seconds = sum(s.seconds for s in report.steps)
        if report.ok:
            text = self.tr("%1: every step passed (%2 s).")
        else:
            failed = report.failed
            where = labels.adapter_step(failed.step.value) if failed else ""
            text = self.tr("%1: the check failed at “%3” (%2 s).").replace("%3", where)
        self.header.setText(text.replace("%1", self.account_id).replace("%2", f"{seconds:.1f}"))
        self.table.setRowCount(len(report.steps))
        words = {
            StepStatus.OK: self.tr("ok"),
            StepStatus.FAILED: self.tr("failed"),
            StepStatus.SKIPPED: self.tr("skipped"),
        }
        for row, step in enumerate(report.steps):
            result = QTableWidgetItem(words[step.status])
            if step.status is StepStatus.FAILED:
                result.setForeground(Qt.GlobalColor.red)
            elif step.status is StepStatus.SKIPPED:
                result.setForeground(Qt.GlobalColor.gray)
            detail = QTableWidgetItem(finding_text(step.detail))
            detail.setToolTip(step.detail)  # the check's own words, as they came
            cells = (
                QTableWidgetItem(labels.adapter_step(step.step.value)),
                result,
                QTableWidgetItem(f"{step.seconds:.2f} s"),
                detail,
            )
            for column, cell in enumerate(cells):
                self.table.setItem(row, column, cell)
        self.table.resizeRowsToContents()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        QTimer.singleShot(0, self.table.resizeRowsToContents)

    def offer_reset(self, on_reset: Callable[[], object]) -> None:
        """The check passed and the account waits for the operator: one click to resume it."""
        button = self.buttons.addButton(
            self.tr("Reset %1").replace("%1", self.account_id),
            QDialogButtonBox.ButtonRole.ActionRole,
        )
        button.clicked.connect(on_reset)
        button.clicked.connect(lambda: button.setEnabled(False))
        self.reset_button = button


class SiteActions(QObject):
    def __init__(self, window: QMainWindow, controller: AppController) -> None:
        super().__init__(window)
        self.window = window
        self.controller = controller
        self.dialogs: dict[str, SiteCheckDialog] = {}
        self.repairs: dict[str, SiteRepairDialog] = {}
        self.result_box: QMessageBox | None = None
        menu = window.menuBar().addMenu(self.tr("&Sites"))
        self.act_install = QAction(self.tr("Install adapter file…"), window)
        self.act_install.setToolTip(
            self.tr(
                "A fixed site adapter (.toml): checked, then used by the accounts of its site "
                "from their next task; the one it replaces is kept"
            )
        )
        self.act_install.triggered.connect(self.ask_install)
        menu.addAction(self.act_install)

    # ---------------------------------------------------------------- check

    def check(self, account_id: str) -> SiteCheckDialog:
        dialog = self.dialogs.get(account_id)
        if dialog is not None:  # one check at a time per account: show the one under way
            dialog.raise_()
            return dialog
        dialog = SiteCheckDialog(account_id, self.window)
        self.dialogs[account_id] = dialog
        # Forgotten when it closes (not when Qt deletes it later): a check asked again at
        # once opens a new window instead of raising the closed one.
        dialog.finished.connect(lambda _=0, a=account_id, d=dialog: self._forget(a, d))
        dialog.destroyed.connect(lambda _=None, a=account_id, d=dialog: self._forget(a, d))
        dialog.show()
        spawn(self._run_check(account_id, dialog), f"site-check:{account_id}")
        return dialog

    def _forget(self, account_id: str, dialog: SiteCheckDialog) -> None:
        if self.dialogs.get(account_id) is dialog:
            del self.dialogs[account_id]

    async def _run_check(self, account_id: str, dialog: SiteCheckDialog) -> None:
        report = await self.controller.check_site(account_id)
        if self.dialogs.get(account_id) is not dialog:  # closed meanwhile: the check still ran
            return
        dialog.show_report(report)
        status = self.controller.account_status(account_id)
        if report.ok and status is not None and status.problem_code == "site_changed":
            dialog.offer_reset(
                lambda: spawn(self.controller.reset_account(account_id), f"reset:{account_id}")
            )

    # ---------------------------------------------------------------- repair

    def repair(self, account_id: str) -> SiteRepairDialog:
        dialog = self.repairs.get(account_id)
        if dialog is not None:
            dialog.raise_()
            return dialog
        dialog = SiteRepairDialog(account_id, self.window)
        self.repairs[account_id] = dialog
        dialog.destroyed.connect(lambda _=None, a=account_id: self.repairs.pop(a, None))
        dialog.show()
        spawn(self._run_repair(account_id, dialog), f"site-repair:{account_id}")
        return dialog

    async def _run_repair(self, account_id: str, dialog: SiteRepairDialog) -> None:
        result = await self.controller.repair_site(account_id)
        if account_id not in self.repairs:
            return
        dialog.show_result(
            result, lambda: spawn(self._install_repair(result), f"install-repair:{account_id}")
        )

    async def _install_repair(self, result: Any) -> None:
        sites = self.controller.services.paths.sites
        path = await asyncio.to_thread(keep_proposal, result, sites)
        await self.install(path)

    # ---------------------------------------------------------------- install

    def ask_install(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window,
            self.tr("Install adapter file"),
            str(Path.home()),
            self.tr("Site adapter (*.toml)"),
        )
        if path:
            spawn(self.install(Path(path)), "install-adapter")

    async def install(self, path: Path) -> list[str] | None:
        """Install ``path``; the accounts that use it, or None when it was refused."""
        try:
            installed, users = await self.controller.install_adapter(path)
        except (ConfigError, InputError) as exc:
            self._box(
                QMessageBox.Icon.Warning,
                self.tr("Adapter not installed"),
                self.tr("%1 was not installed:").replace("%1", path.name)
                + f"\n\n{adapter_error_text(exc)}",
            )
            return None
        text = (
            self.tr("Installed the adapter of site %1, version %2.")
            .replace("%1", installed.site)
            .replace("%2", installed.version)
        )
        if installed.replaced:
            text += " " + (
                self.tr(
                    "It replaces %1, which is kept: `media-assistant sites rollback %2` puts it "
                    "back."
                )
                .replace("%1", installed.replaced)
                .replace("%2", installed.site)
            )
        box = self._box(QMessageBox.Icon.Information, self.tr("Adapter installed"), text)
        if users:
            box.setInformativeText(
                self.tr("%1 use it from their next task. Check the site now?").replace(
                    "%1", ", ".join(users)
                )
            )
            check = box.addButton(self.tr("Check site now"), QMessageBox.ButtonRole.AcceptRole)
            check.clicked.connect(lambda: [self.check(a) for a in users])
            box.addButton(QMessageBox.StandardButton.Close)
        return users

    def _box(self, icon: QMessageBox.Icon, title: str, text: str) -> QMessageBox:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.NoButton, self.window)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if icon is QMessageBox.Icon.Warning:
            box.addButton(QMessageBox.StandardButton.Close)
        self.result_box = box
        QTimer.singleShot(0, box.show)
        return box
