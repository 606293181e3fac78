"""The task store in the desktop app: the latest backup offered when the store cannot be opened
(before the main window exists), and the daily check and backup once the scheduler runs.

Both do their slow part (a restore, a full check and copy of the store) on a worker thread:
the restore behind a busy dialog with a local event loop (the app's loop does not run yet),
the daily upkeep through ``asyncio.to_thread`` on the running loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, QTimer
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from media_assistant.core.disk.backup_files import BackupInfo, latest_backup
from media_assistant.core.disk.backups import DailyOutcome, RestoreResult, restore_backup
from media_assistant.core.disk.upkeep import start_of_day
from media_assistant.core.files.locks import DataDirLock
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import SchedulerBusy, StoreDamaged
from media_assistant.services import Services

log = logging.getLogger(__name__)

POLL_MS = 50


class StoreRecovery(QObject):
    """Offers the latest backup for a store that cannot be opened."""

    def __init__(self, paths: Paths, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.paths = paths
        self.box: QMessageBox | None = None  # the open question (tests answer it)

    def offer(self, error: StoreDamaged) -> bool:
        """True when a backup was restored (open the store again); False: the app quits."""
        latest = latest_backup(self.paths.backups)
        text = self.tr("The task database cannot be opened:\n\n%1").replace("%1", str(error))
        if latest is None:
            self._ask(text + "\n\n" + self.tr("There is no backup to restore."), restore=False)
            return False
        question = self.tr(
            "Restore the latest backup, made %1? The damaged file is kept beside it."
        ).replace("%1", latest.made_label)
        if not self._ask(text + "\n\n" + question, restore=True):
            return False
        return self._restore(latest)

    def _ask(self, text: str, *, restore: bool) -> bool:
        box = QMessageBox(QMessageBox.Icon.Critical, self.tr("Media Assistant"), text)
        self.box = box
        accept = None
        if restore:
            accept = box.addButton(self.tr("Restore backup"), QMessageBox.ButtonRole.AcceptRole)
            box.addButton(self.tr("Quit"), QMessageBox.ButtonRole.RejectRole)
            box.setDefaultButton(accept)
        box.exec()
        self.box = None
        return accept is not None and box.clickedButton() is accept

    def _restore(self, backup: BackupInfo) -> bool:
        lock = DataDirLock(self.paths.data_dir)
        try:
            lock.acquire()
        except SchedulerBusy as exc:
            self._ask(str(exc), restore=False)
            return False
        try:
            result = self._in_thread(backup.path)
        finally:
            lock.release()
        if isinstance(result, BaseException):
            log.error("restoring %s failed", backup.path, exc_info=result)
            self._ask(
                self.tr("The backup could not be restored:\n\n%1").replace("%1", str(result)),
                restore=False,
            )
            return False
        log.warning(
            "restored %d tasks from %s; the damaged store was kept as %s",
            result.tasks,
            backup.path,
            result.kept_aside,
        )
        return True

    def _in_thread(self, source: Path) -> RestoreResult | BaseException:
        outcome: list[RestoreResult | BaseException] = []

        def work() -> None:
            try:
                outcome.append(restore_backup(self.paths.database, source))
            except Exception as exc:  # shown to the operator by the caller
                outcome.append(exc)

        worker = threading.Thread(target=work, name="restore-backup", daemon=True)
        progress = QProgressDialog(self.tr("Restoring the backup…"), "", 0, 0)
        progress.setCancelButton(None)
        progress.setMinimumDuration(0)
        progress.show()
        loop = QEventLoop()
        timer = QTimer(interval=POLL_MS)
        timer.timeout.connect(lambda: None if worker.is_alive() else loop.quit())
        worker.start()
        timer.start()
        loop.exec()
        timer.stop()
        progress.close()
        worker.join()
        return outcome[0]


class DailyUpkeep(QObject):
    """Once the scheduler runs: prune diagnostics, check the whole store and back it up (at
    most once a day). A store that fails its check is reported, not copied over a backup."""

    def __init__(self, services: Services, parent: QWidget) -> None:
        super().__init__(parent)
        self.services = services
        self.window = parent
        self.notice: QMessageBox | None = None

    async def run(self) -> DailyOutcome:
        try:
            outcome = await asyncio.to_thread(
                start_of_day, self.services.paths, self.services.config
            )
        except Exception as exc:  # a locked or vanished store, a full disk: logged, not fatal
            log.error("daily check and backup failed: %s", exc)
            return DailyOutcome()
        if outcome.damage is not None:
            latest = latest_backup(self.services.paths.backups)
            text = self.tr(
                "The daily check of the task database found damage:\n\n%1\n\nNo backup was "
                "made over the good ones. Close Media Assistant and restore the latest "
                "backup: media-assistant restore FILE"
            ).replace("%1", outcome.damage)
            if latest is not None:
                text += "\n\n" + str(latest.path)
            self.notice = QMessageBox(
                QMessageBox.Icon.Warning, self.tr("Media Assistant"), text, parent=self.window
            )
            self.notice.open()
        return outcome
