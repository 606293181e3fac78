"""Set-up: the accounts and models the app works with, added, edited and removed without TOML.

Accounts (web: a chat site and its browser profile; API: an address and a key) are listed
with what they serve; models with their options. Each change is checked with the config
schema, saved atomically into config.toml (comments kept) and applied to the running
scheduler at once: a new account starts working, an edited one continues with its new
settings, a removed one finishes its running task first (core/lanes/live_accounts.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.model.errors import ConfigError, InputError
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.accounts.account_editor import AccountEditor
from media_assistant.gui.accounts.config_text import save_error_text
from media_assistant.gui.accounts.model_editor import ModelEditor
from media_assistant.gui.accounts.setup_session import SetupSession
from media_assistant.gui.accounts.team_page import TeamPage
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.common import labels
from media_assistant.gui.common.style import RED, latin_width, resize_within_screen


class SetupDialog(QDialog):
    changed = Signal()  # a change was saved and applied

    def __init__(
        self, session: SetupSession, parent: QWidget | None = None, *, first_start: bool = False
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle(self.tr("Accounts and models"))
        intro = QLabel(self)
        intro.setWordWrap(True)
        intro.setText(
            (
                self.tr("Welcome. Add the accounts your team works with, then start a batch.")
                + "\n"
                if first_start
                else ""
            )
            + self.tr(
                "A web account is a chat site you sign in to in a browser (one task at a time); "
                "an API account is an address and a key (several tasks at once). Changes take "
                "effect at once, no restart needed."
            )
        )
        self.tabs = QTabWidget(self)
        self.accounts = self._table(
            [self.tr("Account"), self.tr("Kind"), self.tr("Where"), self.tr("Models")]
        )
        self.accounts.itemDoubleClicked.connect(lambda _item: self._on_edit_account_clicked())
        self.accounts.itemSelectionChanged.connect(self._update_buttons)
        self.add_web = QPushButton(self.tr("Add web account…"), self)
        self.add_web.clicked.connect(lambda: self.edit_account(ModelKind.WEB, None))
        self.add_api = QPushButton(self.tr("Add API account…"), self)
        self.add_api.clicked.connect(lambda: self.edit_account(ModelKind.API, None))
        self.edit_button = QPushButton(self.tr("Edit…"), self)
        self.edit_button.clicked.connect(self._on_edit_account_clicked)
        self.login_button = QPushButton(self.tr("Log in"), self)
        self.login_button.setToolTip(self.tr("Open this account's browser profile to sign in"))
        self.login_button.clicked.connect(self._on_login_clicked)
        self.remove_button = QPushButton(self.tr("Remove…"), self)
        self.remove_button.clicked.connect(self._on_remove_account_clicked)
        self.tabs.addTab(
            self._with_buttons(
                self.accounts,
                [
                    self.add_web,
                    self.add_api,
                    None,
                    self.edit_button,
                    self.login_button,
                    self.remove_button,
                ],
            ),
            self.tr("Accounts"),
        )
        self.models = self._table(
            [self.tr("Model"), self.tr("Kind"), self.tr("Served by"), self.tr("Options")]
        )
        self.models.itemDoubleClicked.connect(lambda _item: self._on_edit_model_clicked())
        self.models.itemSelectionChanged.connect(self._update_buttons)
        self.edit_model_button = QPushButton(self.tr("Edit…"), self)
        self.edit_model_button.clicked.connect(self._on_edit_model_clicked)
        self.remove_model_button = QPushButton(self.tr("Remove…"), self)
        self.remove_model_button.clicked.connect(self._on_remove_model_clicked)
        models_note = QLabel(self.tr("Models are added with the accounts that serve them."), self)
        models_note.setWordWrap(True)
        models_page = self._with_buttons(
            self.models, [self.edit_model_button, self.remove_model_button, None]
        )
        page_layout = models_page.layout()
        assert isinstance(page_layout, QVBoxLayout)
        page_layout.addWidget(models_note)
        self.tabs.addTab(models_page, self.tr("Models"))
        self.team_page = TeamPage(session, self)
        # Scrolls inside: at 150 % display scaling a laptop leaves ~405 px (issue 29 item 8).
        self.team_tab = QScrollArea(self, widgetResizable=True)  # the tab: setCurrentWidget
        self.team_tab.setFrameShape(QFrame.Shape.NoFrame)
        self.team_tab.setWidget(self.team_page)
        self.tabs.addTab(self.team_tab, self.tr("Team database"))
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        where = QLabel(self.tr("Saved in %1").replace("%1", str(session.paths.config_file)), self)
        where.setWordWrap(True)
        where.setStyleSheet("color: #6d6d6d;")
        close = QPushButton(self.tr("Close"), self)
        close.clicked.connect(self.accept)
        bottom = QHBoxLayout()
        bottom.addWidget(where, 1)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.status)
        layout.addLayout(bottom)
        self.editor: QDialog | None = None
        self.refresh()
        resize_within_screen(
            self, latin_width(self.fontMetrics(), 120), self.fontMetrics().height() * 30
        )

    # ---------------------------------------------------------------- building blocks

    def _table(self, headers: list[str]) -> QTableWidget:
        table = QTableWidget(0, len(headers), self)
        table.setHorizontalHeaderLabels(headers)
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        header = table.horizontalHeader()
        for column in range(len(headers)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(headers) - 1, QHeaderView.ResizeMode.Stretch)
        return table

    def _with_buttons(self, table: QTableWidget, buttons: list[QPushButton | None]) -> QWidget:
        page = QWidget(self)
        column = QVBoxLayout()
        for button in buttons:
            if button is None:
                column.addSpacing(self.fontMetrics().height())
            else:
                column.addWidget(button)
        column.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(table, 1)
        row.addLayout(column)
        layout = QVBoxLayout(page)
        layout.addLayout(row, 1)
        return page

    def refresh(self) -> None:
        doc = self.session.doc
        accounts = doc.accounts()
        self.accounts.setRowCount(len(accounts))
        for row, a in enumerate(accounts):
            kind = str(a.get("kind", ""))
            where = a.get("base_url") or a.get("site") or a.get("site_file") or ""
            if a.get("origin"):
                where = f"{where} · {a['origin']}"
            self._row(
                self.accounts,
                row,
                [
                    str(a.get("id", "")),
                    labels.lane(kind),
                    str(where),
                    ", ".join(a.get("models", [])),
                ],
                a.get("id"),
            )
        models = doc.models()
        self.models.setRowCount(len(models))
        for row, m in enumerate(models):
            options = []
            if m.get("need_empty_prompt"):
                options.append(self.tr("user's text only"))
            if m.get("upstream"):
                options.append(self.tr("at the provider: %1").replace("%1", str(m["upstream"])))
            if m.get("system_prompt"):
                options.append(self.tr("system prompt"))
            served = ", ".join(self.session.accounts_serving(str(m.get("name"))))
            self._row(
                self.models,
                row,
                [
                    str(m.get("name", "")),
                    labels.lane(str(m.get("kind"))),
                    served,
                    " · ".join(options),
                ],
                m.get("name"),
            )
        self._update_buttons()

    def _row(self, table: QTableWidget, row: int, texts: list[str], key: Any) -> None:
        for column, text in enumerate(texts):
            item = QTableWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, key)
            table.setItem(row, column, item)

    def _selected(self, table: QTableWidget) -> str | None:
        items = table.selectedItems()
        return str(items[0].data(Qt.ItemDataRole.UserRole)) if items else None

    def _update_buttons(self) -> None:
        account = self._selected(self.accounts)
        data = self.session.account(account) if account else None
        for button in (self.edit_button, self.remove_button):
            button.setEnabled(data is not None)
        self.login_button.setEnabled(
            data is not None and data.get("kind") == "web" and data.get("site") != "fake"
        )
        model = self._selected(self.models)
        self.edit_model_button.setEnabled(model is not None)
        self.remove_model_button.setEnabled(model is not None)

    def say(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(f"color: {RED};" if error else "")
        self.status.setText(text)

    # ---------------------------------------------------------------- accounts

    def edit_account(self, kind: ModelKind, account_id: str | None) -> AccountEditor:
        editor = AccountEditor(self.session, kind, account_id, self)
        editor.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        editor.saved.connect(self._on_editor_saved)
        editor.login_wanted.connect(self.log_in)
        self.editor = editor
        editor.open()
        return editor

    def _on_editor_saved(self, name: str) -> None:
        self.refresh()
        note = str(getattr(self.editor, "saved_note", "") or "")
        if note:  # saved, but it cannot work yet: say exactly what is missing
            self.say(self.tr("%1 saved.").replace("%1", name) + " " + note, error=True)
        else:
            self.say(self.tr("%1 saved; the scheduler already works with it").replace("%1", name))
        self.changed.emit()
        account = self.session.account(name)
        if account is not None and account.get("kind") == "web" and account.get("site") != "fake":
            spawn(self._check_browser(), "setup:browser")

    async def _check_browser(self) -> None:
        """A web account needs a browser: on a PC without one, say so (and, in the installed
        app, offer the download) now rather than at its first task."""
        from media_assistant.providers.web.executable import BrowserNotFound, resolve_browser

        executable = self.session.controller.services.config.browser.executable
        try:
            await asyncio.to_thread(resolve_browser, executable)
        except BrowserNotFound as exc:
            if exc.downloadable:
                from media_assistant.gui.accounts.browser_download import offer_browser_download

                offer_browser_download(self)
            else:
                self.say(str(exc), error=True)

    def _on_edit_account_clicked(self) -> None:
        account_id = self._selected(self.accounts)
        data = self.session.account(account_id) if account_id else None
        if account_id and data:
            self.edit_account(ModelKind(str(data["kind"])), account_id)

    def _on_login_clicked(self) -> None:
        account_id = self._selected(self.accounts)
        if account_id:
            self.log_in(account_id)

    def log_in(self, account_id: str) -> None:
        self.say(
            self.tr("Sign in to %1 in the browser window, then close it").replace("%1", account_id)
        )
        spawn(self._log_in(account_id), f"setup:login:{account_id}")

    async def _log_in(self, account_id: str) -> None:
        state = await self.session.controller.login(account_id)
        self.say(
            labels.sign_in_result(account_id, state.outcome.value, state.where, state.detail),
            error=not state.logged_in,
        )

    def _on_remove_account_clicked(self) -> None:
        account_id = self._selected(self.accounts)
        if not account_id:
            return
        try:
            doc = self.session.draft()
        except ConfigError as exc:
            self.say(str(exc), error=True)
            return
        doc.remove_account(account_id)
        orphans = [
            m["name"]
            for m in doc.models()
            if not any(m["name"] in a.get("models", []) for a in doc.accounts())
        ]
        for name in orphans:  # a model nobody serves is refused by the schema
            doc.remove_model(name)
        text = self.tr("Remove account %1? A task it is running finishes first.").replace(
            "%1", account_id
        )
        if orphans:
            text += "\n" + self.tr("Only this account serves %1: removed too.").replace(
                "%1", ", ".join(orphans)
            )
        self._confirm(
            text, lambda: spawn(self._commit(doc, account_id, account=True), "setup:remove")
        )

    async def _commit(self, doc: Any, name: str, *, account: bool = False) -> None:
        """Save a removal; ``account``: ``name`` is an account, whose key leaves the keyring
        too (a later account of the same name must not find it)."""
        try:
            await self.session.commit(doc)
        except (ConfigError, InputError) as exc:
            if shiboken6.isValid(self):
                self.say(save_error_text(exc), error=True)
            return
        if account:
            from media_assistant.providers import secrets

            await asyncio.to_thread(secrets.delete, secrets.API_KEY, name)
        if not shiboken6.isValid(self):  # closed meanwhile: the change is saved all the same
            return
        self.refresh()
        self.say(self.tr("%1 removed").replace("%1", name))
        self.changed.emit()

    def _confirm(self, text: str, then: Any) -> QMessageBox:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.windowTitle(),
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.accepted.connect(then)
        self.confirmation = box
        box.open()
        return box

    # ---------------------------------------------------------------- models

    def _on_edit_model_clicked(self) -> None:
        name = self._selected(self.models)
        if not name:
            return
        editor = ModelEditor(self.session, name, self)
        editor.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        editor.saved.connect(self._on_editor_saved)
        self.editor = editor
        editor.open()

    def _on_remove_model_clicked(self) -> None:
        name = self._selected(self.models)
        if not name:
            return
        only = [a["id"] for a in self.session.doc.accounts() if a.get("models", []) == [name]]
        if only:
            self.say(
                self.tr(
                    "%1 is the only model of %2: give it another model first, or remove the account"
                )
                .replace("%1", name)
                .replace("%2", ", ".join(only)),
                error=True,
            )
            return
        try:
            doc = self.session.draft()
        except ConfigError as exc:
            self.say(str(exc), error=True)
            return
        doc.remove_model(name)
        self._confirm(
            self.tr(
                "Remove model %1? Its waiting tasks stay in the queue until a model of that "
                "name is back."
            ).replace("%1", name),
            lambda: spawn(self._commit(doc, name), "setup:remove-model"),
        )


def show_setup(
    window: QWidget, controller: AppController, current: QWidget | None, first_start: bool
) -> QWidget | None:
    """Raise the open set-up window, or open one (a config that cannot be read is said).

    ``current`` is the window opened last: closed, Qt has deleted it (WA_DeleteOnClose) and
    only its Python wrapper is left — asked anything, it raises (issue 26: *Accounts…* opened
    only once)."""
    if isinstance(current, SetupDialog) and shiboken6.isValid(current) and current.isVisible():
        current.raise_()
        current.activateWindow()
        return current
    try:
        session = SetupSession(controller)
    except ConfigError as exc:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            QCoreApplication.translate("SetupDialog", "Accounts and models"),
            str(exc),
            QMessageBox.StandardButton.Ok,
            window,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return None
    dialog = SetupDialog(session, window, first_start=first_start)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
