"""Every dialog and window of the app opens twice (issue 26 item 1): *Accounts…* opened once, then
"RuntimeError: libshiboken: Internal C++ object (SetupDialog) already deleted" — the window kept
the Python wrapper of the set-up window Qt had deleted when it closed. Each dialog here is opened
from the operator's own entry point (toolbar action, menu signal, button), closed in each of
the three ways an operator closes a window — its button, the title bar's × (``close()``), Escape
— and opened again after each: it must show again, and no error may reach the excepthook
(pytest-qt fails the test on one). An unexpected error's box never shows a traceback."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import psutil
import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QMessageBox,
    QPushButton,
    QWidget,
)

from media_assistant.core.model.records import NewTask, SubmitResult
from media_assistant.core.model.states import ModelKind
from tests.gui.app_env import Env, two_accounts_app

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")

WAYS = ("button", "x", "escape")
JOB_PATIENCE_S = 120.0  # an export or a bundle (a child process) under a loaded machine
CLOSE_WORDS = {"Close", "Cancel", "Quit", "No", "OK", "Later"}


@pytest.fixture
async def env(tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Env]:
    async with two_accounts_app(tmp_path, qtbot, monkeypatch) as env:
        yield env


def shown_dialogs() -> set[QWidget]:
    return {
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, QDialog) and shiboken6.isValid(w) and w.isVisible()
    }


async def until(predicate: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, what
        await asyncio.sleep(0.02)


def close_button(dialog: QDialog) -> QAbstractButton:
    """The button an operator closes ``dialog`` with: its reject/close button."""
    if isinstance(dialog, QMessageBox):
        buttons = dialog.buttons()
        rejecting = [
            b
            for b in buttons
            if dialog.buttonRole(b)
            in (QMessageBox.ButtonRole.RejectRole, QMessageBox.ButtonRole.NoRole)
        ]
        accepting = [
            b
            for b in buttons
            if dialog.buttonRole(b)
            in (QMessageBox.ButtonRole.AcceptRole, QMessageBox.ButtonRole.YesRole)
        ]
        return (rejecting or accepting)[-1]
    for box in dialog.findChildren(QDialogButtonBox):
        for button in box.buttons():
            if box.buttonRole(button) == QDialogButtonBox.ButtonRole.RejectRole:
                return button
    for push in dialog.findChildren(QPushButton):
        if push.isVisible() and push.text().replace("&", "") in CLOSE_WORDS:
            return push
    raise AssertionError(f"{type(dialog).__name__}: no button closes it")


async def close_by(dialog: QDialog, way: str) -> None:
    if way == "button":
        close_button(dialog).click()
    elif way == "x":
        dialog.close()  # what the title bar's × does
    else:
        QTest.keyClick(dialog, Qt.Key.Key_Escape)
    await until(
        lambda: not shiboken6.isValid(dialog) or not dialog.isVisible(),
        f"{type(dialog).__name__} did not close by {way}",
    )
    await asyncio.sleep(0.05)  # deleteLater() runs: a deleted one is really gone


async def opens(
    open_it: Callable[[], object], name: str, kind: type[QDialog], patience: float = 10.0
) -> QDialog:
    before = shown_dialogs()
    open_it()
    await until(
        lambda: any(isinstance(w, kind) for w in shown_dialogs() - before),
        f"{name} did not open",
        patience,
    )
    return next(w for w in shown_dialogs() - before if isinstance(w, kind))


async def twice_each_way(
    open_it: Callable[[], object], name: str, kind: type[QDialog], patience: float = 10.0
) -> None:
    """Open, close one way, open again — for each way; then close what is left open.
    ``patience``: how long opening may take (an export's child process under load)."""
    for way in WAYS:
        dialog = await opens(open_it, f"{name} (before closing by {way})", kind, patience)
        await close_by(dialog, way)
    await close_by(await opens(open_it, f"{name} (after all)", kind, patience), "x")


async def test_every_dialog_opens_again_however_it_was_closed(env: Env, qtbot: Any) -> None:
    from PySide6.QtWidgets import QInputDialog

    from media_assistant.gui.accounts.account_editor import AccountEditor
    from media_assistant.gui.accounts.model_editor import ModelEditor
    from media_assistant.gui.accounts.setup_dialog import SetupDialog
    from media_assistant.gui.accounts.site_actions import SiteCheckDialog
    from media_assistant.gui.batches.dialog import NewBatchDialog
    from media_assistant.gui.batches.submit_notice import SkippedIdsNotice
    from media_assistant.gui.tasks.details import TaskDetailsDialog
    from media_assistant.gui.tasks.export_dialog import ExportDialog
    from media_assistant.gui.window.settings_dialog import SettingsDialog

    window = env.window
    result = await env.controller.submit(
        [
            NewTask(
                task_id="t-1",
                model="api-model",
                model_kind=ModelKind.API,
                prompt="写一段话",
                batch_id="b1",
                title="第一篇",
            )
        ]
    )
    task_id = result.added[0]
    await until(lambda: window.model.task(task_id) is not None, "the task reached the table")

    # The blocker, from both of its entry points: the toolbar and the accounts panel.
    await twice_each_way(window.act_setup.trigger, "set-up (toolbar)", SetupDialog)
    await twice_each_way(window.accounts.setup_requested.emit, "set-up (panel)", SetupDialog)
    await twice_each_way(window.act_settings.trigger, "settings", SettingsDialog)
    await twice_each_way(window.act_new.trigger, "new batch", NewBatchDialog)
    await twice_each_way(window.task_actions.export_action.trigger, "export", ExportDialog)
    await twice_each_way(lambda: window.open_details(task_id), "task details", TaskDetailsDialog)
    await twice_each_way(
        lambda: window.task_actions.set_priority([task_id], None, "set"), "priority", QInputDialog
    )
    await twice_each_way(
        lambda: window.task_actions.cancel_batch("b1"), "cancel confirmation", QMessageBox
    )
    await twice_each_way(window.help_actions.act_about.trigger, "about", QMessageBox)
    await twice_each_way(
        lambda: window._notify_submitted(SubmitResult((), ("已有-1",), "b1")),
        "ids already present",
        SkippedIdsNotice,
    )
    await twice_each_way(lambda: window.site_actions.check("web-1"), "site check", SiteCheckDialog)

    # Inside the set-up window: the account editors, the model editor, a removal's question.
    setup = await opens(window.act_setup.trigger, "set-up", SetupDialog)
    assert isinstance(setup, SetupDialog)
    await twice_each_way(setup.add_api.click, "add API account", AccountEditor)
    await twice_each_way(setup.add_web.click, "add web account", AccountEditor)
    setup.accounts.selectRow(1)
    await twice_each_way(setup.edit_button.click, "edit account", AccountEditor)
    await twice_each_way(setup.remove_button.click, "remove account question", QMessageBox)
    setup.tabs.setCurrentIndex(1)
    setup.models.selectRow(0)
    await twice_each_way(setup.edit_model_button.click, "edit model", ModelEditor)
    await close_by(setup, "x")
    assert (await env.controller.task(task_id)) is not None  # nothing was confirmed


@pytest.fixture
def no_quit(qapp: QApplication) -> Any:
    """A lone dialog closed is not the app's end here (as in the app, whose window stays)."""
    quits = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(quits)


async def test_the_first_start_dialog_closes_every_way(
    tmp_path: Path, qtbot: Any, no_quit: None
) -> None:
    from media_assistant.gui.window.first_start import FirstStartDialog

    for way in WAYS:
        dialog = FirstStartDialog(tmp_path)
        qtbot.addWidget(dialog)
        dialog.show()
        await close_by(dialog, way)
        assert dialog.choice is None  # closed is "quit", never a choice


@pytest.mark.expect_errors(r"unexpected error")
async def test_an_unexpected_error_says_where_the_log_is_never_a_traceback(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch, no_quit: None
) -> None:
    import media_assistant.app as app_module

    monkeypatch.delenv("MEDIA_ASSISTANT_NO_ERROR_DIALOG", raising=False)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    log_file = tmp_path / "media-assistant.log"
    app_module._install_excepthook(QApplication.instance(), log_file)
    try:
        raise RuntimeError("libshiboken: Internal C++ object (SetupDialog) already deleted.")
    except RuntimeError as exc:
        before = shown_dialogs()
        sys.excepthook(type(exc), exc, exc.__traceback__)  # the traceback goes to the log
    box = next(w for w in shown_dialogs() - before if isinstance(w, QMessageBox))
    shown = box.text() + box.informativeText() + box.detailedText()
    assert "Traceback" not in shown and "libshiboken" not in shown and "RuntimeError" not in shown
    assert str(log_file) in box.text()
    assert box.detailedText() == ""
    await close_by(box, "button")


@pytest.mark.parametrize("kind", [ModelKind.API])
async def test_an_editor_closed_while_the_set_up_window_reopens(env: Env, kind: ModelKind) -> None:
    """The set-up window closed while its account editor is open: both open again."""
    from media_assistant.gui.accounts.account_editor import AccountEditor
    from media_assistant.gui.accounts.setup_dialog import SetupDialog

    window = env.window
    for _ in range(2):
        setup = await opens(window.act_setup.trigger, "set-up", SetupDialog)
        assert isinstance(setup, SetupDialog)
        editor = await opens(lambda s=setup: s.edit_account(kind, None), "editor", AccountEditor)
        await close_by(setup, "x")
        await until(lambda e=editor: not shiboken6.isValid(e), "the editor went with it")


async def test_the_questions_and_result_boxes_open_again(
    env: Env, tmp_path: Path, no_quit: None
) -> None:
    """The boxes the first walk left out: the Team page's questions, the browser download's,
    the export's and the support bundle's results, each of them twice every way."""
    from media_assistant.gui.accounts import browser_download
    from media_assistant.gui.accounts.setup_dialog import SetupDialog
    from media_assistant.gui.bridge.jobs import spawn

    window = env.window
    await env.controller.submit(
        [NewTask("t-1", "api-model", ModelKind.API, "写一段话", batch_id="b1")]
    )
    await until(lambda: window.model.task("t-1") is not None, "the task reached the table")

    setup = await opens(window.act_setup.trigger, "set-up", SetupDialog)
    assert isinstance(setup, SetupDialog)
    team = setup.team_page
    setup.tabs.setCurrentIndex(2)
    await twice_each_way(
        lambda: spawn(team._confirm("把密码写入密码文件？"), "confirm"),
        "team: keep the password",
        QMessageBox,
    )
    await twice_each_way(team._offer_restart, "team: restart now?", QMessageBox)
    await close_by(setup, "x")

    await twice_each_way(
        lambda: browser_download.offer_browser_download(window),
        "browser download offered",
        QMessageBox,
    )
    await twice_each_way(
        lambda: browser_download._show_failure(window, "getaddrinfo ENOTFOUND"),
        "browser download failed",
        QMessageBox,
    )

    actions, help_actions = window.task_actions, window.help_actions
    exported = tmp_path / "out" / "tasks.csv"
    exported.parent.mkdir()
    await twice_each_way(
        lambda: spawn(actions.export_to(exported, ["t-1"]), "export"),
        "export done",
        QMessageBox,
        JOB_PATIENCE_S,
    )
    await twice_each_way(
        lambda: spawn(actions.export_to(tmp_path / "no-such-folder" / "t.csv", ["t-1"]), "x"),
        "export failed",
        QMessageBox,
        JOB_PATIENCE_S,
    )
    bundle = tmp_path / "out" / "support.zip"
    await twice_each_way(
        lambda: spawn(help_actions.create_bundle(bundle), "bundle"),
        "bundle done",
        QMessageBox,
        JOB_PATIENCE_S,
    )
    await twice_each_way(
        lambda: spawn(help_actions.create_bundle(tmp_path / "no-such-folder" / "s.zip"), "x"),
        "bundle failed",
        QMessageBox,
        JOB_PATIENCE_S,
    )


async def test_the_browser_downloads_progress_opens_again(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch, no_quit: None
) -> None:
    """The download's progress, closed each way (each a cancel: the installer is stopped)."""
    from media_assistant.gui.accounts.browser_download import BrowserDownloadDialog
    from tests.gui.test_browser_download import installer

    def start() -> None:
        dialog = BrowserDownloadDialog(
            browsers_dir=tmp_path / "browsers", command=installer(tmp_path)
        )
        qtbot.addWidget(dialog)
        dialog.start()

    monkeypatch.setenv("FAKE_MODE", "slow")  # it waits 30 s per step: open until closed
    await twice_each_way(start, "browser download", BrowserDownloadDialog)
    dialogs = [
        d
        for d in QApplication.topLevelWidgets()
        if isinstance(d, BrowserDownloadDialog) and shiboken6.isValid(d)
    ]
    assert len(dialogs) == 4
    await until(lambda: not any(d.running for d in dialogs), "every download stopped", 30)

    script = installer(tmp_path)[-1]

    def installers() -> list[psutil.Process]:
        found = []
        for p in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if script in p.cmdline() and p.status() != psutil.STATUS_ZOMBIE:
                    found.append(p)
        return found

    await until(lambda: not installers(), "no installer left running", 30)
    assert not (tmp_path / "browsers" / "chromium-1255").exists()


def test_the_store_recovery_question_asks_again_however_it_was_closed(
    tmp_path: Path, qtbot: Any, no_quit: None
) -> None:
    """Before the window exists (a modal question with a loop of its own): a damaged store, a
    backup to offer; closed each way it is "Quit" (nothing restored), and it asks again."""
    from PySide6.QtCore import QTimer

    from media_assistant.core.files.paths import Paths
    from media_assistant.core.model.errors import StoreDamaged
    from media_assistant.gui.window.store_recovery import StoreRecovery

    paths = Paths.resolve(tmp_path / "data")
    paths.backups.mkdir(parents=True, exist_ok=True)
    backup = paths.backups / "media-assistant-20261205-090000.db"
    backup.write_bytes(b"a backup")
    recovery = StoreRecovery(paths)
    damaged = StoreDamaged(str(paths.database), "file is not a database", "restore a backup")
    shown: list[str] = []

    def close_it(way: str) -> None:
        box = recovery.box
        if box is None or not box.isVisible():  # not shown yet: look again at the next turn
            QTimer.singleShot(10, lambda: close_it(way))
            return
        shown.append(box.text())
        if way == "button":
            close_button(box).click()
        elif way == "x":
            box.close()
        else:
            QTest.keyClick(box, Qt.Key.Key_Escape)

    for way in (*WAYS, "button"):
        QTimer.singleShot(0, lambda way=way: close_it(way))
        assert recovery.offer(damaged) is False, way
        assert recovery.box is None
    assert len(shown) == 4 and all("2026-12-05 09:00" in text for text in shown)
    assert backup.read_bytes() == b"a backup"  # nothing was restored
