"""The composition root of the desktop app: QApplication on a qasync loop, services, the
scheduler in-process, the window; graceful shutdown on close."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import logging.handlers
import os
import sys
import threading
import traceback
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from media_assistant import __version__
from media_assistant.core.disk.full import DiskFull
from media_assistant.core.files.local_state import LocalState
from media_assistant.core.files.locks import DataDirLock, runtime_dir
from media_assistant.core.files.paths import Paths
from media_assistant.core.files.private_files import PrivateRotatingFileHandler, private_dir
from media_assistant.core.model.errors import (
    SchedulerBusy,
    StoreDamaged,
    StoreLocked,
    StoreUnreachable,
    UserError,
)

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

    from media_assistant.core.store.sessions import WorkstationNameTaken
    from media_assistant.gui.window.main_window import MainWindow
    from media_assistant.services import Services

FIRST_PAINT_WAIT_S = 2.0  # the scheduler starts once the window is drawn, or after this
EXIT_GUARD_S = 5.0  # after the shutdown, the process is gone within this (exit_within)

log = logging.getLogger("media_assistant.app")


def _setup_file_log(paths: Paths) -> Path:
    private_dir(paths.logs)
    path = paths.logs / "media-assistant.log"
    handler = PrivateRotatingFileHandler(path, maxBytes=5_000_000, backupCount=5, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(min(root.level or logging.INFO, logging.INFO))
    return path


def main(
    data_dir: Path | None = None,
    config: Path | None = None,
    demo: bool = False,
    store_url: str | None = None,
) -> int:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from media_assistant.gui.bridge import restart

    restart.remember_start()  # what *Restart now* starts again with
    QCoreApplication.setOrganizationName("MediaAssistant")
    QCoreApplication.setApplicationName("Media Assistant")
    QCoreApplication.setApplicationVersion(__version__)
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)  # closing the window starts a graceful shutdown
    from media_assistant.gui.common.app_style import apply_app_style

    apply_app_style(app)  # Fusion, light: the hard-coded colours read on every PC
    from media_assistant.gui.bridge.app_mutex import hold_app_mutex

    hold_app_mutex()  # Windows: the installer asks to close the app rather than replace files
    screen = app.primaryScreen()
    if screen is not None:  # a web account's browser window fits it (providers/web/launch.py)
        from media_assistant.providers.web.launch import set_screen

        area = screen.availableGeometry()
        set_screen(area.width(), area.height())
    from media_assistant.gui.common.app_icon import DESKTOP_ID, app_icon

    app.setWindowIcon(app_icon())  # every window, the taskbar, the dock
    app.setDesktopFileName(DESKTOP_ID)  # Wayland and docks match the .desktop entry by it

    first_start = False
    if not demo:
        paths = Paths.resolve(data_dir, config)
        if not paths.config_file.exists():  # no accounts yet: the demo, or set-up
            from media_assistant.gui.window.first_start import ask_first_start

            choice = ask_first_start(app, paths.data_dir)
            if choice is None:
                return 0
            demo, first_start = choice == "demo", choice == "setup"
    demo_env = None
    held: DataDirLock | None = None
    if demo:
        from media_assistant.demo import DemoEnvironment

        speed = float(os.environ.get("MEDIA_ASSISTANT_DEMO_SPEED", "1") or 1)
        demo_env = DemoEnvironment(
            data_dir, web_time_scale=0.05 / speed, api_time_scale=0.25 / speed
        )
        try:
            demo_env.start()  # takes <data-dir>/demo's lock before it writes anything
        except SchedulerBusy as exc:
            print(f"error: the demo is already running: {exc}", file=sys.stderr)
            if sys.stderr is None:  # the windowed (frozen) app: no console to read the line
                _say_already_running(app, str(exc), translators=True)
            return exc.exit_code
        paths, held = Paths.resolve(demo_env.data_dir), demo_env.lock
    else:
        paths = Paths.resolve(data_dir, config)
    try:
        code = _run(
            app, paths, demo=demo, held_lock=held, first_start=first_start, store_url=store_url
        )
    finally:
        if demo_env is not None:
            demo_env.stop()
    if restart.requested():  # the set-up window's team page: the data folder is free now
        restart.start_again()
    return code


# Strings here use the "App" context: lupdate cannot tell which class ``app.tr`` would use.
def _run(
    app: object,
    paths: Paths,
    *,
    demo: bool,
    held_lock: DataDirLock | None = None,
    first_start: bool = False,
    store_url: str | None = None,
) -> int:
    """``first_start``: no config file yet; the window opens with the set-up on top."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication, QMessageBox

    from media_assistant.gui.bridge.event_loop import AppEventLoop
    from media_assistant.gui.bridge.session_end import run_app_loop
    from media_assistant.gui.common.i18n import install_translators
    from media_assistant.gui.window.log_panel import LogModel, QtLogHandler

    assert isinstance(app, QApplication)
    log_file = _setup_file_log(paths)
    try:
        runtime_dir()  # the lock folder is ours alone (UnsafeLockDir, a UserError)
        services = _open_services(
            app, paths, require_config=not first_start, store_url=store_url, team=not demo
        )
    except StoreDamaged as exc:  # no backup, or the operator chose not to restore one
        return exc.exit_code
    except DiskFull as exc:
        install_translators(app, "auto")
        QMessageBox.critical(
            None,
            QCoreApplication.translate("App", "Media Assistant"),
            QCoreApplication.translate(
                "App",
                "The disk is full; the task database cannot be opened:\n\n%1\n\n"
                "Free some space, then start Media Assistant again.",
            ).replace("%1", str(exc)),
        )
        return exc.exit_code
    except StoreUnreachable as exc:
        install_translators(app, "auto")
        QMessageBox.critical(
            None,
            QCoreApplication.translate("App", "Media Assistant"),
            QCoreApplication.translate(
                "App",
                "The team database cannot be reached:\n\n%1\n\n"
                "Check the network and the team database's address, then start Media "
                "Assistant again.",
            ).replace("%1", str(exc)),
        )
        return exc.exit_code
    except StoreLocked as exc:
        install_translators(app, "auto")
        QMessageBox.critical(
            None,
            QCoreApplication.translate("App", "Media Assistant"),
            QCoreApplication.translate(
                "App", "The task database is held by another program:\n\n%1"
            ).replace("%1", str(exc)),
        )
        return exc.exit_code
    except UserError as exc:
        install_translators(app, "auto")
        QMessageBox.critical(
            None,
            QCoreApplication.translate("App", "Media Assistant"),
            QCoreApplication.translate("App", "The configuration cannot be used:\n\n%1").replace(
                "%1", str(exc)
            ),
        )
        return exc.exit_code
    install_translators(app, services.config.ui.language)
    lock = held_lock or DataDirLock(paths.data_dir)
    try:
        if held_lock is None:
            lock.acquire()
    except SchedulerBusy as exc:
        _say_already_running(app, str(exc))
        services.close()
        return exc.exit_code
    log_model = LogModel()
    handler = QtLogHandler(log_model)
    logging.getLogger().addHandler(handler)
    loop = AppEventLoop(app)
    asyncio.set_event_loop(loop)
    _install_excepthook(app, log_file)
    try:
        with loop:
            return run_app_loop(
                loop, _amain(app, services, log_model, demo=demo, setup=first_start)
            )
    finally:
        logging.getLogger().removeHandler(handler)
        services.close()
        lock.release()


def _say_already_running(app: object, detail: str, *, translators: bool = False) -> None:
    """A second start, said in a message box: the windowed app has no console to print to.
    ``translators``: install them first (none yet at this point of the start)."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QMessageBox

    from media_assistant.gui.common.i18n import install_translators

    if translators:
        assert isinstance(app, QCoreApplication)
        install_translators(app, "auto")
    QMessageBox.warning(
        None,
        QCoreApplication.translate("App", "Media Assistant is already running"),
        QCoreApplication.translate(
            "App",
            "Another Media Assistant is working on this data folder:\n"
            "%1\n\nSwitch to its window, or close it first.",
        ).replace("%1", detail),
    )


def _open_services(
    app: object,
    paths: Paths,
    *,
    require_config: bool = True,
    store_url: str | None = None,
    team: bool = True,
) -> Services:
    """Services.open; a damaged store is offered its latest backup before any window shows."""
    from PySide6.QtWidgets import QApplication

    from media_assistant.gui.common.i18n import install_translators
    from media_assistant.gui.window.store_recovery import StoreRecovery
    from media_assistant.services import Services

    assert isinstance(app, QApplication)
    while True:
        try:
            return Services.open(
                paths, require_config=require_config, store_url=store_url, team=team
            )
        except StoreDamaged as exc:
            log.error("%s", exc)
            install_translators(app, "auto")
            if not StoreRecovery(paths).offer(exc):
                raise


async def _amain(
    app: object, services: object, log_model: object, *, demo: bool, setup: bool = False
) -> int:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from media_assistant.core.lanes.session_end import release_at_session_end
    from media_assistant.gui.bridge.controller import AppController
    from media_assistant.gui.bridge.jobs import stop_jobs
    from media_assistant.gui.bridge.session_end import SessionEndGuard
    from media_assistant.gui.bridge.shutdown_signals import ShutdownSignals
    from media_assistant.gui.window.log_panel import LogModel
    from media_assistant.gui.window.main_window import MainWindow
    from media_assistant.gui.window.store_recovery import DailyUpkeep
    from media_assistant.services import Services

    assert isinstance(app, QApplication) and isinstance(services, Services)
    assert isinstance(log_model, LogModel)
    services.bind_loop()  # events on this loop; a statement on its thread is reported
    services.serve_metrics()  # [metrics] listen: the figures for Prometheus
    findings: list[str] = []
    offer_download = False
    if any(a.kind.value == "web" for a in services.config.accounts):
        from media_assistant.providers.web.checkup import run_checkup

        checkup = await asyncio.to_thread(
            run_checkup, services.config, services.paths, services.accounts
        )
        findings = checkup.problems()
        offer_download = checkup.browser_downloadable
        for line in findings:
            log.warning("[web] %s", line)
    scheduler = services.scheduler()
    controller = AppController(services, scheduler)
    remembered = await asyncio.to_thread(LocalState.load, services.paths.local_state)
    window = MainWindow(controller, log_model, local_state=remembered)
    closing = asyncio.Event()
    window.close_requested.connect(closing.set)
    # SIGTERM / SIGHUP / SIGINT: the same graceful path as closing the window.
    signals = ShutdownSignals(lambda _name: window.close())
    signals.install()
    # Windows ending the session: the rows go back at once, then the same graceful path.
    session_end = SessionEndGuard(app, lambda: release_at_session_end(scheduler), window.close)
    cursor = await window.load()
    await controller.follower.start(cursor)  # changes other processes make, from here on
    window.show_startup_findings(findings)
    if demo:
        window.offer_demo_batch()
    # On screen first: starting the scheduler imports and builds the providers (browser driver,
    # HTTP clients, key look-ups), which the first paint need not wait for. Until it runs, the
    # window's actions only write to the store, which the scheduler picks up when it starts.
    painted = window.next_paint()
    window.hold_history()  # older history follows once the scheduler runs (see hold_history)
    window.show()
    with contextlib.suppress(TimeoutError):  # a window that starts minimised is not drawn
        await asyncio.wait_for(painted, FIRST_PAINT_WAIT_S)
    await window.start_notices()  # batch ended, account needs you, disk low; webhooks
    from media_assistant.core.store.sessions import WorkstationNameTaken

    try:
        await scheduler.start()
    except WorkstationNameTaken as exc:
        # Another PC (or data folder) runs under this name: said in the window, where the name
        # is set, and nothing runs here; the window stays for the operator to rename and restart.
        log.error("[scheduler] %s", exc)
        say_workstation_name_taken(window, exc)
    finally:
        window.release_history()
    log.info("Media Assistant %s started on %s", __version__, services.paths.data_dir)
    if setup:  # the first start: the accounts to set up, on top of the window
        window.open_setup(first_start=True)
    if offer_download:  # no browser on this PC (frozen): ask, after the window is up
        from media_assistant.gui.accounts.browser_download import offer_browser_download

        offer_browser_download(window)
    upkeep = asyncio.ensure_future(DailyUpkeep(services, window).run())  # check + backup
    try:
        await closing.wait()
    finally:
        signals.uninstall()
        session_end.uninstall()
    scheduler.close_claims()  # a closing workstation claims nothing more, from this instant
    window.statusBar().showMessage(
        QCoreApplication.translate("App", "Shutting down: running tasks go back to the queue…")
    )
    # Nothing the operator started outlives the window: background jobs stop at once (an
    # export's process is killed, nothing written), sign-in windows close; both bounded.
    await asyncio.gather(stop_jobs(), controller.stop_sign_ins())
    await scheduler.stop()
    await window.stop_notices()
    await window.local_state.flush()  # the notices read, the batch shown: for the next start
    if not upkeep.done():  # a backup in progress finishes: its thread cannot be interrupted
        await asyncio.wait({upkeep})
    await controller.close()
    window.deleteLater()
    app.quit()
    return 0


def say_workstation_name_taken(window: MainWindow, exc: WorkstationNameTaken) -> QMessageBox:
    """The window says that this workstation's name is another's (issue 27 item 1), without
    blocking the loop, and opens the set-up window, whose Team database page sets the name."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(
        QMessageBox.Icon.Critical,
        QCoreApplication.translate("App", "Media Assistant"),
        QCoreApplication.translate(
            "App",
            "The workstation name %1 is in use by Media Assistant on host %2 (this PC is %3): "
            "two PCs, or two data folders, cannot share a name. No task runs here.\n\n"
            "Give this PC a name of its own on the Team database page of the set-up window, "
            "then restart.",
        )
        .replace("%1", exc.name)
        .replace("%2", exc.other_host)
        .replace("%3", exc.this_host),
        QMessageBox.StandardButton.Ok,
        window,
    )
    box.setModal(False)
    box.show()
    window.open_setup()
    return box


def exit_within(seconds: float, code: int) -> None:
    """The window has shut down (tasks back in the queue, browsers and exports stopped): the
    process ends within ``seconds`` even if a thread we did not expect still runs — Python
    waits for every non-daemon thread at exit (a stuck file read on a network share, a
    library's worker). Only the app's own process arms this (cli.py), never a test."""

    def force() -> None:
        names = [t.name for t in threading.enumerate() if not t.daemon and t.is_alive()]
        log.error("still running %.0f s after the window closed: %s; exiting", seconds, names)
        logging.shutdown()
        os._exit(code)

    timer = threading.Timer(seconds, force)
    timer.daemon = True
    timer.start()


def _install_excepthook(app: object, log_file: Path) -> None:
    """Unexpected errors are logged and shown, not lost (and do not kill the scheduler).

    The operator sees one plain sentence and where the log is; the traceback goes to the log
    only (issue 26: a ``RuntimeError: libshiboken …`` with its traceback in the dialog). The box
    is non-modal: a nested event loop inside the hook would stall the scheduler's loop."""

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        text = "".join(traceback.format_exception(kind, exc, tb))
        log.error("unexpected error\n%s", text)
        if os.environ.get("MEDIA_ASSISTANT_NO_ERROR_DIALOG"):
            return
        show_error_box(log_file)

    sys.excepthook = hook


_error_boxes: list[object] = []  # the open error boxes (a parentless box needs a reference)


def show_error_box(log_file: Path) -> object:
    """The operator's word on an unexpected error: what happened in plain words, what to do,
    where the details are — never the exception's own text or a traceback."""
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(
        QMessageBox.Icon.Critical,
        QCoreApplication.translate("App", "Media Assistant"),
        QCoreApplication.translate(
            "App",
            "Something went wrong inside the app; your tasks are safe and work goes on. If it "
            "happens again, send a support bundle (Help menu). The details are in the log: %1",
        ).replace("%1", str(log_file)),
    )
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    _error_boxes.append(box)
    box.finished.connect(lambda _r: _error_boxes.remove(box) if box in _error_boxes else None)
    box.show()
    return box
