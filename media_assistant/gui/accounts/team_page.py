"""The set-up window's *Team database* page (team mode): where the queue lives, the password,
this workstation's name — without TOML.

- The address is checked with the one schema as it is typed (``[store] url``: postgresql://,
  never with a password in it; the words are config_text's).
- The password goes to the OS keyring (providers/secrets.py ``save_store_password``), never to
  config.toml; the page looks at the keyring when it opens (on a worker thread: a backend may
  wait for its daemon) and says at once when this computer has none, pointing at PGPASSWORD
  and the pgpass file.
- *Test connection* runs on a worker thread (team_probe.py) and shows the server's version or
  the exact reason it failed, in words, with the server's own line.
- *Save* writes ``[store] url`` and ``[team] workstation`` into config.toml (comments kept,
  atomically). They take effect at the next start — the store, the scheduler's workstation and
  the owner of every web account are chosen then — so the page says so and offers *Restart
  now* (gui/bridge/restart.py). An address that does not answer is saved only when the
  operator confirms: the next start would wait for it, then stop.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.config.edit import ConfigDocument
from media_assistant.core.config.team import workstation_name
from media_assistant.core.model.errors import ConfigError, InputError
from media_assistant.gui.accounts import team_words
from media_assistant.gui.accounts.config_text import problem_text
from media_assistant.gui.accounts.setup_session import SetupSession
from media_assistant.gui.accounts.team_probe import ProbeResult, keyring_state, probe
from media_assistant.gui.bridge import restart
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.common.form_problems import FormProblems, ProblemLabel
from media_assistant.gui.common.style import RED

CHECK_DELAY_MS = 300  # the address is checked this long after the last keystroke
FIELDS = {("store", "url"): "url", ("team", "workstation"): "workstation"}


class TeamPage(QWidget):
    saved = Signal(bool)  # config.toml was saved; True: it takes effect after a restart

    def __init__(self, session: SetupSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        services = session.controller.services
        self.busy = False
        self.keyring = ""  # keyring_state() once looked at: "kept", "none", "no_keyring"…
        self.last_probe: ProbeResult | None = None
        self.restart_box: QMessageBox | None = None
        self.pgpass_written: Path | None = None  # where the password went (no keyring here)
        self.problems = FormProblems(ProblemLabel(self))

        intro = QLabel(
            self.tr(
                "Several workstations can share one queue on a PostgreSQL database: a batch "
                "submitted once runs on whichever workstation has a free account, and every "
                "window sees the whole team. Leave the address empty to keep this PC's own "
                "queue."
            ),
            self,
        )
        intro.setWordWrap(True)
        self.url = QLineEdit(str(session.doc.setting("store", "url") or ""), self)
        self.url.setPlaceholderText("postgresql://ma@db.local:5432/media")
        self.url.setToolTip(
            self.tr(
                "postgresql://USER@HOST:5432/DATABASE — libpq parameters may follow, such as "
                "?sslmode=verify-full. Never the password: it goes in the field below."
            )
        )
        self.url.textEdited.connect(self._on_url_edited)
        self.password = QLineEdit(self)
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText(self.tr("leave empty to keep the stored one"))
        self.password.textEdited.connect(self._on_url_edited)  # a new password: test again
        self.keyring_note = QLabel(self)
        self.keyring_note.setWordWrap(True)
        self.keyring_note.setStyleSheet("color: #6d6d6d;")
        password_box = QWidget(self)
        box = QVBoxLayout(password_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.password)
        box.addWidget(self.keyring_note)
        self.workstation = QLineEdit(str(session.doc.setting("team", "workstation") or ""), self)
        self.workstation.setPlaceholderText(
            self.tr("%1 (this computer's name)").replace("%1", socket.gethostname())
        )
        self.workstation.setToolTip(
            self.tr(
                "Its web accounts belong to it (their browser profiles are here); the other "
                "workstations show them as “on %1”."
            ).replace("%1", services.workstation)
        )
        self.workstation.textEdited.connect(lambda _t: self._check_soon())
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        form.addRow(self.tr("Team database:"), self.problems.field("url", self.url))
        form.addRow(self.tr("Password:"), self.problems.field("password", password_box))
        form.addRow(
            self.tr("This workstation:"), self.problems.field("workstation", self.workstation)
        )
        self.result = QLabel(self)
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.hide()
        self.test_button = QPushButton(self.tr("Test connection"), self)
        self.test_button.setToolTip(
            self.tr("Connect once with the address and password above; nothing is changed")
        )
        self.test_button.clicked.connect(self._on_test_clicked)
        self.save_button = QPushButton(self.tr("Save"), self)
        self.save_button.clicked.connect(self._on_save_clicked)
        buttons = QHBoxLayout()
        buttons.addWidget(self.test_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        self.running = QLabel(
            team_words.running_text(
                services.store_url,
                services.workstation,
                str(services.paths.database),
                services.config.store.url,
            ),
            self,
        )
        self.running.setWordWrap(True)
        self.running.setStyleSheet("color: #6d6d6d;")
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.result)
        layout.addWidget(self.problems.general)
        layout.addStretch(1)
        layout.addWidget(self.running)
        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(CHECK_DELAY_MS)
        self._check_timer.timeout.connect(self.check)
        self.looked = asyncio.Event()  # the keyring has been looked at (tests wait for it)
        QTimer.singleShot(0, self._look_at_keyring_soon)

    # ---------------------------------------------------------------- the keyring

    def _look_at_keyring_soon(self) -> None:
        if not shiboken6.isValid(self):  # the set-up window closed before the timer ran
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # a timer Qt ran at a shutdown, outside the loop: never mind
            return
        spawn(self.look_at_keyring(), "team:keyring")

    async def look_at_keyring(self) -> str:
        """Whether a password can be kept here (and is, for this address): off the GUI thread."""
        if not shiboken6.isValid(self.url):  # the set-up window closed before this ran
            return self.keyring
        url = self.url.text().strip() or None
        state = await asyncio.to_thread(keyring_state, url)
        if not shiboken6.isValid(self.url):  # closed meanwhile
            return state
        if (self.url.text().strip() or None) == url:  # not typed over meanwhile
            self.keyring = state
            self.keyring_note.setText(team_words.keyring_text(state))
            missing = team_words.keyring_missing(state)
            self.keyring_note.setStyleSheet(f"color: {RED};" if missing else "color: #6d6d6d;")
            self.password.setPlaceholderText(
                self.tr("kept in the password file if you agree when saving")
                if missing
                else self.tr("leave empty to keep the stored one")
                if state == "kept"
                else self.tr("the password of the database's user")
            )
        self.looked.set()
        return state

    def _on_url_edited(self, _text: str) -> None:
        self.last_probe = None
        self.result.hide()
        self._check_soon()

    def _check_soon(self) -> None:
        self._check_timer.start()

    # ---------------------------------------------------------------- the draft and its check

    def values(self) -> tuple[str | None, str | None]:
        """(``[store] url``, ``[team] workstation``) as typed; None: the key is removed."""
        return self.url.text().strip() or None, self.workstation.text().strip() or None

    def draft(self) -> ConfigDocument | None:
        """config.toml with the page's values, checked; None (problems shown) if refused."""
        url, workstation = self.values()
        try:
            doc = self.session.draft()
            doc.put_setting("store", "url", url)
            doc.put_setting("team", "workstation", workstation)
        except ConfigError as exc:  # the file was broken by hand meanwhile: say where
            self.problems.show([(None, str(exc))])
            return None
        config, problems = self.session.check(doc)
        shown: list[tuple[str | None, str]] = []
        for problem in problems:
            key = FIELDS.get((str(problem.path[0]), str(problem.path[-1])))
            words = problem_text(problem)
            shown.append((key, words if key else f"{problem.where(doc.data())}: {words}"))
        if self.password.text() and url is None:
            shown.append(("password", self.tr("Enter the team database's address first")))
        self.problems.show(shown)
        return doc if config is not None and not shown else None

    def check(self) -> bool:
        ok = self.draft() is not None
        if ok:
            self._look_at_keyring_soon()  # a password kept for this address?
        return ok

    # ---------------------------------------------------------------- Test connection

    def _on_test_clicked(self) -> None:
        spawn(self.test_connection(), "team:test")

    async def _password(self, url: str) -> str | None:
        """The password typed here, else the one kept in the keyring (read off the loop)."""
        typed = self.password.text()
        if typed:
            return typed
        from media_assistant.providers.secrets import read_store_password

        return await asyncio.to_thread(read_store_password, url)

    async def test_connection(self) -> ProbeResult | None:
        if self.busy:
            return None
        url, _ = self.values()
        if url is None:
            self.problems.show([("url", self.tr("Enter the team database's address to test it"))])
            return None
        if self.draft() is None:
            return None
        self._set_busy(True)
        self._say(self.tr("Connecting to %1…").replace("%1", url), error=False)
        try:
            result = await asyncio.to_thread(probe, url, await self._password(url))
        finally:
            self._set_busy(False)
        self.last_probe = result
        text, problem = team_words.probe_text(result)
        self._say(text, error=problem)
        return result

    # ---------------------------------------------------------------- Save

    def _on_save_clicked(self) -> None:
        spawn(self.save(), "team:save")

    async def save(self) -> bool:
        """Check, test a new address, keep the password, write config.toml, offer a restart."""
        if self.busy:
            return False
        doc = self.draft()
        if doc is None:
            return False
        url, workstation = self.values()
        services = self.session.controller.services
        if url is not None and url != (services.store_url or ""):
            result = self.last_probe or await self.test_connection()
            if result is None:
                return False
            if not result.ok or team_words.probe_text(result)[1]:
                if not await self._confirm(
                    self.tr(
                        "This team database did not accept the connection (see the page). "
                        "Save it anyway? Media Assistant would wait for it at its next start, "
                        "then stop."
                    )
                ):
                    return False
        self._set_busy(True)
        try:
            if url is not None and self.password.text():
                if not await self._keep_password(url):
                    return False
            try:
                await self.session.save_for_next_start(doc)
            except (ConfigError, InputError) as exc:
                self.problems.show([(None, str(exc))])
                return False
        finally:
            self._set_busy(False)
        self.password.clear()
        self._look_at_keyring_soon()
        changed = (url or None) != services.store_url or workstation_name(
            workstation
        ) != services.workstation
        self.saved.emit(changed)
        if not changed:
            self._say(self.tr("Saved.") + self._where_kept(), error=False)
            return True
        self._say(
            self.tr("Saved. Media Assistant works with it after a restart.") + self._where_kept(),
            error=False,
        )
        self._offer_restart()
        return True

    async def _keep_password(self, url: str) -> bool:
        if team_words.keyring_missing(self.keyring):  # the note says why: offer libpq's file
            return await self._keep_in_pgpass(url)
        from media_assistant.providers.secrets import save_store_password

        try:
            await asyncio.to_thread(save_store_password, url, self.password.text())
        except ConfigError as exc:
            self.problems.show(
                [
                    (
                        "password",
                        self.tr("The system keyring did not keep the password: %1").replace(
                            "%1", str(exc)
                        ),
                    )
                ]
            )
            return False
        return True

    async def _keep_in_pgpass(self, url: str) -> bool:
        """No keyring here (issue 26): offer libpq's own password file, 0600, where the app
        (and psql) find the password at every start. Declined: said once, next to the field."""
        from media_assistant.core.config.pgpass import pgpass_path, write_password

        path = await asyncio.to_thread(pgpass_path)
        if not await self._confirm(
            self.tr(
                "This computer has no system keyring to keep the password in. Write it to "
                "PostgreSQL's own password file, %1? Only your user account can read that file; "
                "Media Assistant (and psql) find the password there at every start."
            ).replace("%1", str(path)),
            self.tr("Write the password file"),
        ):
            self.problems.show(
                [
                    (
                        "password",
                        self.tr(
                            "The password was not kept: save again and let it be written to "
                            "the password file, or leave the field empty and set PGPASSWORD."
                        ),
                    )
                ]
            )
            return False
        try:
            written = await asyncio.to_thread(write_password, url, self.password.text(), path)
        except ConfigError as exc:
            self.problems.show([("password", str(exc))])
            return False
        self.pgpass_written = written
        return True

    def _where_kept(self) -> str:
        if self.pgpass_written is None:
            return ""
        return " " + self.tr("The password is in %1.").replace("%1", str(self.pgpass_written))

    def _offer_restart(self) -> QMessageBox:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Restart Media Assistant"),
            self.tr(
                "The team database and the workstation's name take effect when Media Assistant "
                "starts again. Restart now? Running tasks go back to the queue and carry on "
                "after the restart, without using an attempt."
            ),
            QMessageBox.StandardButton.NoButton,
            self,
        )
        now = box.addButton(self.tr("Restart now"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(self.tr("Later"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(now)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda b: restart.request(self) if b is now else None)
        self.restart_box = box
        box.open()
        return box

    async def _confirm(self, text: str, save_text: str = "") -> bool:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Team database"),
            text,
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel,
            self,
        )
        if save_text:
            box.button(QMessageBox.StandardButton.Save).setText(save_text)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def done(_code: int) -> None:
            if not answer.done():
                clicked = box.standardButton(box.clickedButton())
                answer.set_result(clicked == QMessageBox.StandardButton.Save)

        box.finished.connect(done)
        self.confirm_box = box
        box.open()
        return await answer

    # ---------------------------------------------------------------- showing

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.test_button.setEnabled(not busy)
        self.save_button.setEnabled(not busy)

    def _say(self, text: str, *, error: bool) -> None:
        self.result.setStyleSheet(f"color: {RED};" if error else "")
        self.result.setText(text)
        self.result.setVisible(bool(text))
