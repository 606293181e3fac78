"""The Help menu: *Create support bundle…* (media_assistant/commands/support_bundle.py, as a
background job: logs, task events, redacted config, versions, self-check findings) and *About*."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from media_assistant import __version__
from media_assistant.gui.bridge.jobs import JobCanceled, JobControl, JobRunner, spawn
from media_assistant.gui.tasks.actions import open_folder_box
from media_assistant.services import Services


class HelpActions(QObject):
    def __init__(self, window: QMainWindow, services: Services) -> None:
        super().__init__(window)
        self.window = window
        self.services = services
        self.jobs = JobRunner(window)
        self.result_box: QMessageBox | None = None
        menu = window.menuBar().addMenu(self.tr("&Help"))
        self.act_bundle = QAction(self.tr("Create support bundle…"), window)
        self.act_bundle.triggered.connect(self.ask_bundle)
        menu.addAction(self.act_bundle)
        self.act_about = QAction(self.tr("About Media Assistant"), window)
        self.act_about.triggered.connect(self._about)
        menu.addAction(self.act_about)

    def default_path(self) -> Path:
        docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        folder = Path(docs) if docs and Path(docs).is_dir() else Path.home()
        return folder / f"media-assistant-support-{dt.datetime.now():%Y%m%d-%H%M}.zip"

    def ask_bundle(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window,
            self.tr("Create support bundle"),
            str(self.default_path()),
            self.tr("Zip archive (*.zip)"),
        )
        if path:
            spawn(self.create_bundle(Path(path)), "support-bundle")

    async def create_bundle(self, path: Path) -> list[str] | None:
        """The bundle as a job on a worker thread (it reads the store and the logs)."""
        from media_assistant.commands.support_bundle import make_bundle

        services = self.services

        def work(_control: JobControl) -> list[str]:
            # The window runs the scheduler: the bundle holds its logged self-check findings.
            return make_bundle(services, path, scheduler_running=True)

        try:
            names = await self.jobs.run(self.tr("Creating the support bundle…"), work)
        except JobCanceled:
            return None
        except Exception as exc:
            box = QMessageBox(
                QMessageBox.Icon.Warning,
                self.tr("Support bundle failed"),
                str(exc),
                parent=self.window,
            )
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()
            self.result_box = box
            return None
        text = self.tr(
            "Support bundle written to %1. Secrets (API keys, webhook addresses) were removed; "
            "send it to whoever helps you."
        ).replace("%1", str(path))
        self.result_box = open_folder_box(
            self.window, self.tr("Support bundle created"), text, path
        )
        return names

    def _about(self) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Information,
            self.tr("About Media Assistant"),
            self.tr("Media Assistant %1").replace("%1", __version__),
            parent=self.window,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
