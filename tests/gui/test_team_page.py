"""The set-up window's Team database page (issue 19 item 1) against a real PostgreSQL: *Test
connection* with a good password, a wrong one (role ma_pw, scram) and a port where nothing
listens, on a worker thread (the window keeps its turns while libpq waits); the password into
the keyring and never into config.toml; a machine without a keyring said at once; saving
``[store] url`` / ``[team] workstation`` and the restart it needs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
import tomllib
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.fail
import psycopg
import pytest
import shiboken6
from keyring.backend import KeyringBackend
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from media_assistant.gui.accounts.setup_dialog import SetupDialog
from media_assistant.gui.accounts.setup_session import SetupSession
from media_assistant.gui.accounts.team_page import TeamPage
from media_assistant.gui.bridge import jobs, restart
from media_assistant.providers.secrets import KEYRING_SERVICE, store_password_key
from tests.gui.app_env import running_app
from tests.gui.test_i18n import use_language  # noqa: F401 - a fixture
from tests.support.file_keyring import FileKeyring
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, PostgresServer, free_port

CONFIG = """\
# the team's template — keep this line
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_TEAM_PAGE_TEST_KEY"
models = ["api-model"]
enabled = false
"""

CJK = "\u4e00-\u9fff"


@pytest.fixture
def file_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "keyring.json"
    monkeypatch.setenv("MA_TEST_KEYRING_FILE", str(path))
    before: KeyringBackend = keyring.get_keyring()
    keyring.set_keyring(FileKeyring())
    yield path
    keyring.set_keyring(before)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    before: KeyringBackend = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.set_keyring(before)


@contextlib.asynccontextmanager
async def opened_page(
    tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[TeamPage]:
    """The set-up window of a single PC's app (its own SQLite queue), on its team page. A
    context of the test itself, not a fixture: the app is torn down before the test returns
    (pytest-qt processes events between a test and its fixtures' teardown, outside the loop,
    where the database follower's next tick would fail)."""
    monkeypatch.setenv("MA_TEAM_PAGE_TEST_KEY", "sk-team-page")
    monkeypatch.delenv("MEDIA_ASSISTANT_STORE_URL", raising=False)
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    monkeypatch.setattr(restart._request, "asked", False)
    quits = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)  # as the app: closing the window is not the end
    async with running_app(data, qtbot, start_scheduler=False) as env:
        dialog = SetupDialog(SetupSession(env.controller), env.window)
        qtbot.addWidget(dialog)
        dialog.show()
        dialog.tabs.setCurrentWidget(dialog.team_tab)
        await asyncio.wait_for(dialog.team_page.looked.wait(), 10)
        yield dialog.team_page
        # A look at the keyring the test's typing or saving started (a check timer, a spawn)
        # ends before the loop does: on a loaded machine it outlived the test, and Qt stepped
        # it at teardown with no loop running ("team:keyring failed").
        if shiboken6.isValid(dialog.team_page):
            dialog.team_page._check_timer.stop()
        looks = [t for t in jobs._spawned if t.get_name() == "team:keyring"]
        if looks:
            await asyncio.wait(looks)
        if shiboken6.isValid(dialog):  # a restart closed the window, and the dialog with it
            dialog.close()
    app.setQuitOnLastWindowClosed(quits)


Opens = Callable[[], contextlib.AbstractAsyncContextManager[TeamPage]]


@pytest.fixture
def page_of(tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> Opens:
    return lambda: opened_page(tmp_path, qtbot, monkeypatch)


def type_into(page: TeamPage, url: str, password: str = "", workstation: str = "") -> None:
    page.url.setText(url)
    page._on_url_edited(url)
    page.password.setText(password)
    page.workstation.setText(workstation)


def password_url(server: PostgresServer, database: str = "postgres") -> str:
    return f"postgresql://{PASSWORD_ROLE}@127.0.0.1:{server.port}/{database}"


def database_of_the_password_role(server: PostgresServer) -> str:
    """A fresh database ma_pw owns (it may create the tables there)."""
    server.ensure_password_role()
    name = f"owned_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server.admin_url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" OWNER {PASSWORD_ROLE}')
    return name


async def test_test_connection_says_the_servers_version_or_exactly_why_not(
    page_of: Opens, pg_server: PostgresServer, pg_url: str
) -> None:
    async with page_of() as page:
        pg_server.ensure_password_role()
        type_into(page, pg_url)
        result = await page.test_connection()
        assert result is not None and result.ok
        assert result.server_version and result.server_version.startswith("15.")
        assert page.result.text().startswith(f"Connected: PostgreSQL {result.server_version}.")
        assert "creates its tables" in page.result.text()  # an empty database

        type_into(page, password_url(pg_server), password="not-the-password")
        result = await page.test_connection()
        assert result is not None and result.kind == "bad_password"
        assert f"The server refused the password of {PASSWORD_ROLE}" in page.result.text()
        assert "not-the-password" not in page.result.text()
        assert "password authentication failed" in page.result.text()  # the server's own words

        type_into(page, password_url(pg_server), password=PASSWORD)
        result = await page.test_connection()
        assert result is not None and result.ok, page.result.text()

        type_into(page, password_url(pg_server))  # no password anywhere: libpq finds none
        result = await page.test_connection()
        assert result is not None and result.kind == "no_password"

        unknown = pg_url.rsplit("/", 1)[0] + "/no_such_db"
        type_into(page, unknown)
        result = await page.test_connection()
        assert result is not None and result.kind == "unknown_database"
        assert "There is no database no_such_db on 127.0.0.1" in page.result.text()

        port = free_port()  # nothing listens there
        type_into(page, f"postgresql://ma@127.0.0.1:{port}/media")
        result = await page.test_connection()
        assert result is not None and result.kind == "refused"
        assert f"Nothing answers at 127.0.0.1:{port}" in page.result.text()


async def test_a_server_that_never_answers_does_not_freeze_the_window(page_of: Opens) -> None:
    """A socket that takes the connection and then says nothing (a server hung, a firewall
    that swallows packets): libpq waits its connect_timeout — on a worker thread, while the
    window keeps its turns."""
    async with page_of() as page:
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # never accepted: the handshake completes in the backlog, then silence
        port = silent.getsockname()[1]
        ticks: list[float] = []
        timer = QTimer()
        timer.setInterval(20)
        timer.timeout.connect(lambda: ticks.append(time.monotonic()))
        timer.start()
        try:
            type_into(page, f"postgresql://ma@127.0.0.1:{port}/media?connect_timeout=2")
            testing = asyncio.ensure_future(page.test_connection())
            await asyncio.sleep(0)  # its first step: on the loop, libpq's wait would be here
            ticked_while_waiting = 0
            while not testing.done():
                before = len(ticks)
                await asyncio.wait({testing}, timeout=0.05)
                if not testing.done():
                    ticked_while_waiting += len(ticks) - before
            result = testing.result()
        finally:
            timer.stop()
            silent.close()
        assert result is not None and result.kind == "timeout", result
        # The window's timer kept ticking while libpq waited: a wait on the loop's thread would
        # have let none through between the test's first step and its answer.
        assert ticked_while_waiting >= 3, ticked_while_waiting
        assert f"127.0.0.1:{port} does not answer" in page.result.text()


async def test_the_url_is_checked_as_typed_and_a_password_in_it_is_never_repeated(
    page_of: Opens,
) -> None:
    async with page_of() as page:
        type_into(page, "mysql://ma@db.local/media")
        assert not page.check()
        assert "postgresql://" in page.problems.labels["url"].text()
        type_into(page, "postgresql://ma:hunter2-secret@db.local/media")
        assert not page.check()
        words = page.problems.labels["url"].text()
        assert "password" in words and "hunter2" not in words
        assert await page.save() is False  # nothing written
        assert "hunter2" not in page.session.paths.config_file.read_text(encoding="utf-8")


async def test_saving_keeps_the_password_in_the_keyring_and_offers_the_restart(
    page_of: Opens,
    pg_server: PostgresServer,
    file_keyring: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with page_of() as page:
        monkeypatch.setattr(restart._request, "asked", False)
        await page.look_at_keyring()
        assert page.keyring == "none"
        url = password_url(pg_server, database_of_the_password_role(pg_server))
        type_into(page, url, password=PASSWORD, workstation="pc-07")
        assert await page.save() is True
        config = page.session.paths.config_file
        text = config.read_text(encoding="utf-8")
        assert PASSWORD not in text
        assert "# the team's template — keep this line" in text
        data = tomllib.loads(text)
        assert data["store"] == {"url": url} and data["team"] == {"workstation": "pc-07"}
        stored = json.loads(file_keyring.read_text())
        assert stored == {f"{KEYRING_SERVICE}/{store_password_key(url)}": PASSWORD}
        assert page.password.text() == ""
        assert await page.look_at_keyring() == "kept"
        assert "kept in the system keyring" in page.keyring_note.text()
        # The running app stays on its own queue until it starts again: it says so, and offers it.
        services = page.session.controller.services
        assert services.store_url is None and services.config.store.url is None
        box = page.restart_box
        assert box is not None and box.isVisible()
        assert "Restart now" in [b.text() for b in box.buttons()]
        main = page.window().parentWidget()
        assert main is not None
        later = next(b for b in box.buttons() if b.text() == "Later")
        later.click()
        assert not restart.requested()
        box = page._offer_restart()
        now = next(b for b in box.buttons() if b.text() == "Restart now")
        visible: Callable[[], bool] = main.isVisible
        now.click()
        assert restart.requested()
        assert not visible()  # the window closed: the app's graceful shutdown runs from there
        assert restart.command()[1:] and restart.command()[0]


async def test_a_computer_without_a_keyring_says_so_at_once_and_keeps_no_password(
    page_of: Opens, pg_url: str, no_keyring: None
) -> None:
    """Declined, the password file is not written and the page says so once (issue 26: the
    no-keyring warning showed twice and nothing was saved)."""
    async with page_of() as page:
        state = await page.look_at_keyring()
        assert state == "no_keyring"
        note = page.keyring_note.text()
        assert "no system keyring" in note and "PGPASSWORD" in note and "pgpass" in note
        type_into(page, pg_url, password="some-password")
        saving = asyncio.ensure_future(page.save())
        while getattr(page, "confirm_box", None) is None:
            await asyncio.sleep(0.02)
        assert "password file" in page.confirm_box.text()
        page.confirm_box.button(QMessageBox.StandardButton.Cancel).click()
        assert await saving is False
        said = page.problems.labels["password"].text()
        assert "not kept" in said and "no system keyring" not in said  # said once, by the note
        assert "[store]" not in page.session.paths.config_file.read_text(encoding="utf-8")
        assert not (page.session.paths.data_dir.parent / "no-pgpass").exists()  # PGPASSFILE


async def test_without_a_keyring_the_password_goes_to_libpqs_password_file_and_works(
    page_of: Opens, pg_server: PostgresServer, no_keyring: None, tmp_path: Path
) -> None:
    """Issue 26 item 2: offered and accepted, the password is written to the pgpass file
    (0600, the one libpq reads: PGPASSFILE here), config.toml gets the address without it,
    and a connection with the field left empty then works — libpq found it there."""
    database = database_of_the_password_role(pg_server)
    url = password_url(pg_server, database)
    pgpass = tmp_path / "no-pgpass"  # the PGPASSFILE opened_page points libpq at
    pgpass.write_text("# kept as it was\notherhost:5432:*:someone:secret\n", encoding="utf-8")
    async with page_of() as page:
        await page.look_at_keyring()
        type_into(page, url, password=PASSWORD)
        page.confirm_box = None
        saving = asyncio.ensure_future(page.save())
        while getattr(page, "confirm_box", None) is None:
            await asyncio.sleep(0.02)
        assert str(pgpass) in page.confirm_box.text()
        page.confirm_box.button(QMessageBox.StandardButton.Save).click()
        assert await saving is True
        assert pgpass.stat().st_mode & 0o777 == 0o600
        lines = pgpass.read_text(encoding="utf-8").splitlines()
        assert lines[:2] == ["# kept as it was", "otherhost:5432:*:someone:secret"]
        assert lines[2] == f"127.0.0.1:{pg_server.port}:{database}:{PASSWORD_ROLE}:{PASSWORD}"
        text = page.session.paths.config_file.read_text(encoding="utf-8")
        assert url in text and PASSWORD not in text
        assert str(pgpass) in page.result.text()
        if page.restart_box is not None:
            page.restart_box.close()
        page.password.clear()  # empty: libpq reads the file
        result = await page.test_connection()
        assert result is not None and result.ok, page.result.text()
        assert "Connected" in page.result.text()


async def test_an_address_that_does_not_answer_is_saved_only_when_confirmed(
    page_of: Opens, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with page_of() as page:
        monkeypatch.setattr(restart._request, "asked", False)
        type_into(page, f"postgresql://ma@127.0.0.1:{free_port()}/media")
        saving = asyncio.ensure_future(page.save())
        while getattr(page, "confirm_box", None) is None:
            await asyncio.sleep(0.02)
        page.confirm_box.button(QMessageBox.StandardButton.Cancel).click()
        assert await saving is False
        assert "[store]" not in page.session.paths.config_file.read_text(encoding="utf-8")
        page.confirm_box = None
        saving = asyncio.ensure_future(page.save())
        while getattr(page, "confirm_box", None) is None:
            await asyncio.sleep(0.02)
        page.confirm_box.button(QMessageBox.StandardButton.Save).click()
        assert await saving is True
        assert "[store]" in page.session.paths.config_file.read_text(encoding="utf-8")
        assert page.restart_box is not None
        page.restart_box.close()


async def test_the_page_speaks_chinese_in_a_chinese_window(
    page_of: Opens,
    pg_server: PostgresServer,
    use_language: Callable[[str], None],  # noqa: F811 - the fixture imported above
) -> None:
    async with page_of() as page:
        pg_server.ensure_password_role()
        use_language("zh_CN")
        import re

        cjk = re.compile(f"[{CJK}]")
        type_into(page, password_url(pg_server), password="wrong")
        result = await page.test_connection()
        assert result is not None and result.kind == "bad_password"
        first = page.result.text().splitlines()[0]
        assert cjk.search(first) and PASSWORD_ROLE in first, first
        type_into(page, f"postgresql://ma@127.0.0.1:{free_port()}/media")
        await page.test_connection()
        assert cjk.search(page.result.text().splitlines()[0])
        type_into(page, "postgresql://ma:pw@db.local/media")
        page.check()
        assert cjk.search(page.problems.labels["url"].text())
