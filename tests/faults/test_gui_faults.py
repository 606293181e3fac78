"""Issue 9 in the desktop app (pytest-qt, offscreen): the skip report after submitting, and the
latest backup offered before the main window when the task store cannot be opened."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from media_assistant import app as app_module
from media_assistant.core.batches.batch_import import tasks_from_lines
from media_assistant.core.disk.backup_files import backup_name, list_backups
from media_assistant.core.disk.backups import backup_store
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import StoreDamaged
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.window.log_panel import LogModel
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.services import Services
from tests.faults.conftest import digest, rows, write_config


def test_the_window_names_every_skipped_id(tmp_path: Path, qtbot: Any) -> None:
    """Before: the window said "2 task(s) added" and nothing about the 12 rows of the file it
    had skipped; an operator believed those prompts queued."""
    data = tmp_path / "data"
    write_config(data)
    services = Services.open(Paths.resolve(data))
    try:
        controller = AppController(services, services.scheduler())
        window = MainWindow(controller, LogModel())
        qtbot.addWidget(window)
        supplied = [
            NewTask(f"row-{i:02d}", "web-model", ModelKind.WEB, f"prompt {i}", "file")
            for i in range(12)
        ]
        window._notify_submitted(services.store.submit(supplied))
        assert window.skipped_notice is None  # nothing skipped, nothing to say
        again = [*supplied, NewTask("row-99", "web-model", ModelKind.WEB, "new", "file")]
        window._notify_submitted(services.store.submit(again))
        notice = window.skipped_notice
        assert notice is not None and notice.isVisible()
        assert "12" in notice.text()
        assert "row-00" in notice.informativeText() and "2 more" in notice.informativeText()
        assert notice.detailedText().split("\n") == [f"row-{i:02d}" for i in range(12)]
        status = window.statusBar().currentMessage()
        assert "1 task" in status and "12 already present" in status
        # Pasted prompts never collide, whatever the batch id: nothing is skipped.
        window.skipped_notice = None
        pasted = tasks_from_lines(
            "a\nb", model="web-model", models={"web-model": ModelKind.WEB}, batch_id="file"
        )
        window._notify_submitted(services.store.submit(pasted))
        window._notify_submitted(services.store.submit(pasted))
        assert window.skipped_notice is None
        assert len(rows(data / "media-assistant.db")) == 12 + 1 + 4
        controller.bridge.close()
    finally:
        services.close()


def _answer(role: QMessageBox.ButtonRole, seen: list[str]) -> None:
    """Click the button with ``role`` on the modal box once it shows (the dialog runs its own
    event loop, as it does before the main window exists)."""

    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(50, click)
            return
        seen.append(box.text())
        for button in box.buttons():
            if box.buttonRole(button) == role:
                button.click()
                return
        box.buttons()[0].click()

    QTimer.singleShot(50, click)


def _damaged_store_with_a_backup(tmp_path: Path, *, with_backup: bool) -> Paths:
    data = tmp_path / "data"
    write_config(data)
    paths = Paths.resolve(data)
    services = Services.open(paths)
    services.store.submit(
        [NewTask(f"t{i}", "web-model", ModelKind.WEB, f"prompt {i}", "b") for i in range(5)]
    )
    services.close()
    if with_backup:
        import datetime as dt

        backup_store(paths.database, paths.backups / backup_name(dt.datetime(2026, 11, 30, 21)))
    damaged = paths.database.read_bytes()[: len(paths.database.read_bytes()) // 2]
    paths.database.write_bytes(damaged)
    for extra in ("-wal", "-shm"):
        Path(str(paths.database) + extra).unlink(missing_ok=True)
    return paths


@pytest.mark.expect_errors(r"is damaged or unreadable")
def test_the_app_offers_the_latest_backup_for_a_damaged_store(tmp_path: Path, qtbot: Any) -> None:
    """Before: a damaged database gave the desktop app a traceback and no window at all; the
    operator had no way back to yesterday's tasks from the app."""
    paths = _damaged_store_with_a_backup(tmp_path, with_backup=True)
    damaged_digest = digest(paths.database)
    seen: list[str] = []
    _answer(QMessageBox.ButtonRole.AcceptRole, seen)
    services = app_module._open_services(QApplication.instance(), paths)
    try:
        assert "2026-11-30 21:00" in seen[0] and str(paths.database) in seen[0]
        assert {r.task_id for r in services.store.list_tasks()} == {f"t{i}" for i in range(5)}
    finally:
        services.close()
    kept = [p for p in paths.data_dir.iterdir() if ".before-restore-" in p.name]
    assert len(kept) == 1 and digest(kept[0]) == damaged_digest  # never overwritten
    assert len(list_backups(paths.backups)) == 1


@pytest.mark.expect_errors(r"is damaged or unreadable")
def test_without_a_backup_the_app_says_so_and_leaves_the_file(tmp_path: Path, qtbot: Any) -> None:
    """Before: a traceback. Now: what is wrong, that there is no backup, and the file as it was."""
    paths = _damaged_store_with_a_backup(tmp_path, with_backup=False)
    before = digest(paths.database)
    seen: list[str] = []
    _answer(QMessageBox.ButtonRole.AcceptRole, seen)
    with pytest.raises(StoreDamaged):
        app_module._open_services(QApplication.instance(), paths)
    assert "no backup" in seen[0] and str(paths.database) in seen[0]
    assert digest(paths.database) == before


@pytest.mark.expect_errors(r"failed its daily check")
async def test_the_app_checks_and_backs_up_once_a_day(tmp_path: Path, qtbot: Any) -> None:
    """The desktop app is a scheduler too: its first start of the day checks and copies the
    store (off the GUI thread); a store failing the check gets a warning, not a backup."""
    from PySide6.QtWidgets import QWidget

    from media_assistant.gui.window.store_recovery import DailyUpkeep

    data = tmp_path / "data"
    write_config(data)
    services = Services.open(Paths.resolve(data))
    try:
        services.store.submit([NewTask("t0", "web-model", ModelKind.WEB, "p", "b")])
        window = QWidget()
        qtbot.addWidget(window)
        outcome = await DailyUpkeep(services, window).run()
        assert outcome.made is not None and outcome.made.tasks == 1
        again = await DailyUpkeep(services, window).run()
        assert again.made is None and again.existing is not None
    finally:
        services.close()
    # Damage inside the file (an index page), with yesterday's backup as the only one.
    import sqlite3

    for b in list_backups(services.paths.backups):
        b.path.unlink()
    db = services.paths.database
    con = sqlite3.connect(db)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'ix_tasks_seq'").fetchone()
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    with db.open("r+b") as f:
        f.seek((root[0] - 1) * size + 8)
        f.write(b"\xff" * 64)
    services = Services.open(Paths.resolve(data))
    try:
        upkeep = DailyUpkeep(services, window)
        outcome = await upkeep.run()
        assert outcome.damage is not None and outcome.made is None
        assert upkeep.notice is not None and upkeep.notice.isVisible()
        assert "media-assistant restore" in upkeep.notice.text()
        assert list_backups(services.paths.backups) == []
    finally:
        services.close()
