"""When the PC has no browser for web models (a frozen app ships none): offer to download
Chromium, then show the download's progress in a dialog the operator can cancel. Offered after
the window is on screen, never on the start-up path; the download runs in Playwright's own
installer process (providers/web/download.py), driven from a loop on a thread of its own (as
the browser driver is: qasync's loop cannot run subprocesses on Windows), so the window stays
responsive; progress comes back as a queued Qt signal."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from media_assistant.providers.web.download import (
    DownloadFailed,
    DownloadProgress,
    download_chromium,
)
from media_assistant.providers.web.service import BrowserService

log = logging.getLogger(__name__)


class BrowserDownloadDialog(QProgressDialog):
    """Progress of one download; Cancel stops the installer. Emits ``downloaded`` with the
    folder on success, ``failed`` with the installer's own words otherwise."""

    downloaded = Signal(str)
    failed = Signal(str)
    _progressed = Signal(object)  # DownloadProgress, emitted on the download thread

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        browsers_dir: Path | None = None,
        command: tuple[str, ...] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Downloading a browser"))
        self.setLabelText(self.tr("Starting the download…"))
        self.setCancelButtonText(self.tr("Cancel"))
        self.setRange(0, 100)
        self.setValue(0)
        self.setMinimumDuration(0)
        self.setAutoClose(False)
        self.setAutoReset(False)
        self.setWindowModality(Qt.WindowModality.NonModal)
        self._browsers_dir = browsers_dir
        self._command = command
        self._task: asyncio.Task[Path | None] | None = None  # a strong reference while it runs
        self._done = False
        self.canceled.connect(self._on_self_canceled)
        self._progressed.connect(self._on_progress)  # queued: it comes from another thread

    def start(self) -> None:
        self.show()
        self._task = asyncio.ensure_future(self._run())

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def _run(self) -> Path | None:
        service = BrowserService("browser-download")
        service.start()
        try:
            return await self._download(service)
        finally:
            await asyncio.to_thread(service.stop)

    async def _download(self, service: BrowserService) -> Path | None:
        spawning = asyncio.ensure_future(
            service.call(
                _spawn(
                    download_chromium(
                        self._progressed.emit,
                        browsers_dir=self._browsers_dir,
                        command=self._command,
                    )
                )
            )
        )
        try:
            download = await asyncio.shield(spawning)
            folder = await service.call(_join(download))
        except asyncio.CancelledError:
            log.info("[web] browser download canceled")
            self._finish()
            # Canceled at once, the download may be starting still: it is stopped all the same
            # (the installer's process tree), not left to run on without its dialog.
            await service.call(_cancel(await spawning))
            raise
        except (DownloadFailed, OSError) as exc:
            log.warning("[web] browser download failed: %s", exc)
            self._finish()
            self.failed.emit(str(exc))
            return None
        log.info("[web] Chromium downloaded into %s", folder)
        self.setValue(100)
        self._finish()
        self.downloaded.emit(str(folder))
        return folder

    def reject(self) -> None:
        """Escape that reaches the dialog itself (its shortcut did not take it: the window
        was not active yet) hides it: a cancel, as its button and its × are."""
        self._on_self_canceled()
        super().reject()

    def _finish(self) -> None:
        self._done = True  # closing a QProgressDialog emits canceled(): not a cancel now
        self.close()

    def _on_progress(self, progress: DownloadProgress) -> None:
        if progress.percent is None:
            return
        text = (
            self.tr("Downloading %1\n%2% of %3")
            .replace("%1", progress.item)
            .replace("%2", str(progress.percent))
            .replace("%3", progress.size or "…")
        )
        self.setLabelText(text)
        self.setValue(progress.percent)

    def _on_self_canceled(self) -> None:
        if not self._done and self._task is not None and not self._task.done():
            self._task.cancel()


# On the download thread's loop: the download is a task there, so a Cancel here can stop it
# and wait for its clean-up (the installer's process tree stopped) before that loop closes.
async def _spawn(coro: Coroutine[Any, Any, Path]) -> asyncio.Task[Path]:
    return asyncio.ensure_future(coro)


async def _join(task: asyncio.Task[Path]) -> Path:
    return await asyncio.shield(task)  # cancelling the wait is not cancelling the download


async def _cancel(task: asyncio.Task[Path]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


def offer_browser_download(parent: QWidget) -> QMessageBox:
    """A non-modal question; "Download" starts a ``BrowserDownloadDialog``."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        QCoreApplication.translate("BrowserDownloadDialog", "No browser for web models"),
        QCoreApplication.translate(
            "BrowserDownloadDialog",
            "This computer has no Microsoft Edge, Google Chrome or Chromium for the web "
            "accounts. Media Assistant can download Chromium for them (about 150 MB, once).\n\n"
            "Download it now? API accounts work either way.",
        ),
        QMessageBox.StandardButton.NoButton,
        parent,
    )
    download = box.addButton(
        QCoreApplication.translate("BrowserDownloadDialog", "Download Chromium"),
        QMessageBox.ButtonRole.AcceptRole,
    )
    box.addButton(
        QCoreApplication.translate("BrowserDownloadDialog", "Not now"),
        QMessageBox.ButtonRole.RejectRole,
    )
    box.setWindowModality(Qt.WindowModality.NonModal)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def on_clicked(button: object) -> None:
        if button is download:
            dialog = BrowserDownloadDialog(parent)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.failed.connect(lambda message: _show_failure(parent, message))
            dialog.start()

    box.buttonClicked.connect(on_clicked)
    box.show()
    return box


def _show_failure(parent: QWidget, message: str) -> None:
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        QCoreApplication.translate("BrowserDownloadDialog", "The browser download failed"),
        QCoreApplication.translate(
            "BrowserDownloadDialog",
            "Chromium could not be downloaded. Check the internet connection (or install "
            "Microsoft Edge or Google Chrome) and start Media Assistant again.",
        ),
        QMessageBox.StandardButton.Ok,
        parent,
    )
    box.setDetailedText(message)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.show()
