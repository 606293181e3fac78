"""One account, added or edited without TOML.

A web account picks a chat site from the adapter list (or an adapter file) and its models; *Save
and log in* opens its browser profile to sign in. An API account takes a base URL and a key
(stored in the OS keyring, never in the config), fetches the endpoint's model list
(``GET /models``) and has *Test connection*: one tiny request, showing the answer or the exact
reason it failed (the kinds and words a task would get).

Every rule is the configuration schema's: what the operator typed goes into a draft of the
config, the schema checks it, and its problems appear next to the fields they are about
(:mod:`form_problems`). Saving writes config.toml atomically and applies it to the running
scheduler (:class:`SetupSession`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.config.edit import ConfigDocument
from media_assistant.core.config.proxy import NetworkConfig
from media_assistant.core.model.errors import ConfigError, InputError
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.accounts.api_checks import (
    ApiChecks,
    variable_unset,
    variable_unset_text,
)
from media_assistant.gui.accounts.config_text import problem_text, save_error_text
from media_assistant.gui.accounts.proxy_fields import ProxyFields
from media_assistant.gui.accounts.setup_session import SetupSession
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.common import labels
from media_assistant.gui.common.form_problems import FormProblems, ProblemLabel, fit_height
from media_assistant.gui.common.style import latin_width

FILE_CHOICE = "\x00file"  # the site combo's "adapter file…" entry
CHECK_DELAY_MS = 300  # fields are checked this long after the last keystroke


class AccountEditor(QDialog):
    saved = Signal(str)  # the account's id, once saved and applied
    login_wanted = Signal(str)  # "Save and log in": the account's id, after saving

    def __init__(
        self,
        session: SetupSession,
        kind: ModelKind,
        account_id: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.kind = kind
        self.original_id = account_id
        current: dict[str, Any] = dict(session.account(account_id) or {}) if account_id else {}
        self.touched: set[str] = set()
        self.busy = False
        self.saved_note = ""  # what the set-up window adds to "saved" (a variable not set)
        self._suggested: str | None = None  # the model name proposed for a new web account
        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(CHECK_DELAY_MS)
        self._check_timer.timeout.connect(lambda: self.check(everything=False))
        web = kind is ModelKind.WEB
        if account_id is None:
            title = self.tr("Add a web account") if web else self.tr("Add an API account")
        else:
            title = self.tr("Account %1").replace("%1", account_id)
        self.setWindowTitle(title)
        self.problems = FormProblems(ProblemLabel(self), lambda: fit_height(self))
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)

        self.id_edit = QLineEdit(str(current.get("id", "")), self)
        self.id_edit.setPlaceholderText(self.tr("e.g. deepseek-1 (letters, digits, - _ .)"))
        self.id_edit.setReadOnly(account_id is not None)  # its profile and key are stored by id
        self._watch(self.id_edit, "id")
        form.addRow(self.tr("Name (ID):"), self.problems.field("id", self.id_edit))

        if web:
            self._web_fields(form, current)
        else:
            self._api_fields(form, current)
        self.proxy_fields = ProxyFields(self, form, current)  # issue 32: its own way out

        self.models = QListWidget(self)
        self.models.setMinimumHeight(self.fontMetrics().height() * 5)
        self.models.setMaximumHeight(self.fontMetrics().height() * 8)
        self.models.itemChanged.connect(lambda _item: self._changed("models"))
        self.new_model = QLineEdit(self)
        self.new_model.setPlaceholderText(self.tr("another model name"))
        add_model = QPushButton(self.tr("Add"), self)
        add_model.clicked.connect(self._on_add_model_clicked)
        self.new_model.returnPressed.connect(self._on_add_model_clicked)
        row = QHBoxLayout()
        row.addWidget(self.new_model, 1)
        row.addWidget(add_model)
        models_box = QWidget(self)
        box = QVBoxLayout(models_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.models)
        box.addLayout(row)
        if not web:
            self.fetch_button = QPushButton(self.tr("Fetch the model list"), self)
            self.fetch_button.setToolTip(self.tr("Ask the endpoint which models it offers"))
            self.fetch_button.clicked.connect(self._on_fetch_clicked)
            box.addWidget(self.fetch_button, 0, Qt.AlignmentFlag.AlignLeft)
        form.addRow(self.tr("Models:"), self.problems.field("models", models_box))
        for name in session.model_names(kind):
            self.add_model(name, name in current.get("models", []))
        if web and not current:
            self._suggest_web_model()

        self.note = QLabel(self)  # fetch/test results, login hints
        self.note_is_error = False
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note.hide()
        buttons = QHBoxLayout()
        if not web:
            self.test_button = QPushButton(self.tr("Test connection"), self)
            self.test_button.clicked.connect(self._on_test_clicked)
            buttons.addWidget(self.test_button)
        buttons.addStretch(1)
        if web:
            self.login_button = QPushButton(self.tr("Save and log in"), self)
            self.login_button.setToolTip(
                self.tr("Save, then open this account's browser profile to sign in")
            )
            self.login_button.clicked.connect(lambda: self._save(login=True))
            buttons.addWidget(self.login_button)
        self.save_button = QPushButton(self.tr("Save"), self)
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(lambda: self._save(login=False))
        cancel = QPushButton(self.tr("Cancel"), self)
        cancel.clicked.connect(self.reject)
        buttons.addWidget(self.save_button)
        buttons.addWidget(cancel)
        # The fields scroll inside on a short screen (125 %/150 % scaling on a laptop); the note,
        # the problems and the buttons stay in sight below them.
        fields = QWidget(self)
        fields.setLayout(form)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(fields)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.note)
        layout.addWidget(self.problems.general)
        layout.addLayout(buttons)
        self.setMinimumWidth(latin_width(self.fontMetrics(), 70))
        self.api = ApiChecks(self, self)  # the keyring and the endpoint (API accounts)
        if not web:
            self.keyring_checked = spawn(self.api.check_keyring(), "setup:keyring")

    # ---------------------------------------------------------------- fields

    def _web_fields(self, form: QFormLayout, current: dict[str, Any]) -> None:
        self.site = QComboBox(self)
        for entry in self.session.adapters():
            if entry.where == "site_file":
                continue
            assert entry.adapter is not None
            name = labels.site_name(entry.adapter.name, entry.adapter.name_zh)
            self.site.addItem(f"{name} ({entry.site})", entry.site)
        self.site.addItem(self.tr("From an adapter file…"), FILE_CHOICE)
        self.site_file: str | None = current.get("site_file")
        if self.site_file:
            self._show_site_file(self.site_file)
        elif current.get("site"):
            index = self.site.findData(current["site"])
            self.site.setCurrentIndex(max(index, 0))
        self.site.activated.connect(self._on_site_activated)
        self.site.currentIndexChanged.connect(lambda _i: self._changed("site"))
        form.addRow(self.tr("Chat site:"), self.problems.field("site", self.site, "site_file"))
        self.origin = QLineEdit(str(current.get("origin") or ""), self)
        self.origin.setPlaceholderText(self.tr("the site's own address (leave empty)"))
        self.origin.setToolTip(
            self.tr("Only for a self-hosted chat (your company's Open WebUI) or a test site")
        )
        self._watch(self.origin, "origin")
        form.addRow(self.tr("Address:"), self.problems.field("origin", self.origin))

    def _api_fields(self, form: QFormLayout, current: dict[str, Any]) -> None:
        self.base_url = QLineEdit(str(current.get("base_url") or ""), self)
        self.base_url.setPlaceholderText("https://api.deepseek.com/v1")
        self._watch(self.base_url, "base_url")
        form.addRow(self.tr("Base URL:"), self.problems.field("base_url", self.base_url))
        self.key = QLineEdit(self)
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText(
            self.tr("paste the key; it is kept in the system's keyring")
            if self.original_id is None
            else self.tr("leave empty to keep the stored key")
        )
        form.addRow(self.tr("API key:"), self.problems.field("key", self.key))
        self.key_env = QLineEdit(str(current.get("api_key_env") or ""), self)
        self.key_env.setPlaceholderText(self.tr("optional: an environment variable with the key"))
        self._watch(self.key_env, "api_key_env")
        form.addRow(self.tr("Key variable:"), self.problems.field("api_key_env", self.key_env))
        self.concurrency = QSpinBox(self)
        self.concurrency.setRange(1, 5)
        self.concurrency.setValue(int(current.get("concurrency", 3)))
        self.concurrency.setToolTip(self.tr("Requests in flight at once (1..5)"))
        self.concurrency.valueChanged.connect(lambda _v: self._changed("concurrency"))
        form.addRow(self.tr("Concurrency:"), self.problems.field("concurrency", self.concurrency))
        self.rpm = self._limit(current.get("rpm"), "rpm")
        form.addRow(self.tr("Requests per minute:"), self.problems.field("rpm", self.rpm))
        self.tpm = self._limit(current.get("tpm"), "tpm")
        form.addRow(self.tr("Tokens per minute:"), self.problems.field("tpm", self.tpm))

    def _limit(self, value: Any, key: str) -> QSpinBox:
        spin = QSpinBox(self)
        spin.setRange(0, 100_000_000)
        spin.setSpecialValueText(self.tr("no limit"))
        spin.setValue(int(value or 0))
        spin.valueChanged.connect(lambda _v: self._changed(key))
        return spin

    def _watch(self, edit: QLineEdit, key: str) -> None:
        edit.textEdited.connect(lambda _t: self._changed(key))

    def _changed(self, key: str) -> None:
        if key == "id" and self.api.keyring_problem is not None:
            self.api.offer_variable()
        self.touched.add(key)
        self._check_timer.start()

    def add_model(self, name: str, checked: bool) -> QListWidgetItem:
        """Offer ``name`` (ticked if ``checked``); not a change by the operator."""
        self.models.blockSignals(True)
        try:
            for i in range(self.models.count()):
                item = self.models.item(i)
                if item.text() == name:
                    if checked:
                        item.setCheckState(Qt.CheckState.Checked)
                    return item
            item = QListWidgetItem(name, self.models)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            return item
        finally:
            self.models.blockSignals(False)

    def checked_models(self) -> list[str]:
        return [
            self.models.item(i).text()
            for i in range(self.models.count())
            if self.models.item(i).checkState() == Qt.CheckState.Checked
        ]

    def _on_add_model_clicked(self) -> None:
        name = self.new_model.text().strip()
        if name:
            self.add_model(name, True)
            self.new_model.clear()
            self._changed("models")

    def _suggest_web_model(self) -> None:
        """A new web account: "<site>-web", ticked, following the site chosen until the
        operator changes the models themselves."""
        if self.original_id is not None or "models" in self.touched:
            return
        if self._suggested is not None:
            for i in range(self.models.count()):
                if self.models.item(i).text() == self._suggested:
                    self.models.takeItem(i)
                    break
            self._suggested = None
        site = self.site.currentData()
        if not isinstance(site, str) or site == FILE_CHOICE or self.checked_models():
            return
        name = None if site.startswith("file:") else f"{site}-web"
        if name and name not in self.session.model_names(self.kind):
            self.add_model(name, True)
            self._suggested = name

    def _on_site_activated(self, index: int) -> None:
        if self.site.itemData(index) != FILE_CHOICE:
            self.site_file = None
            self._suggest_web_model()
            return
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Site adapter file"), "", self.tr("Site adapters (*.toml)")
        )
        if path:
            self._show_site_file(path)
        else:
            self.site.setCurrentIndex(0)

    def _show_site_file(self, path: str) -> None:
        self.site_file = path
        label = self.tr("Adapter file: %1").replace("%1", Path(path).name)
        index = self.site.findData(f"file:{path}")
        if index < 0:
            self.site.insertItem(self.site.count() - 1, label, f"file:{path}")
            index = self.site.count() - 2
        self.site.setCurrentIndex(index)
        self._changed("site_file")

    # ---------------------------------------------------------------- the draft and its check

    def account_id(self) -> str:
        return self.id_edit.text().strip()

    def network(self) -> NetworkConfig:
        """``[network]`` as the running app has it (its default proxy, ``no_proxy``)."""
        return self.session.controller.services.config.network

    def values(self) -> dict[str, Any]:
        """The account's keys as the config holds them (None: the key is removed)."""
        values: dict[str, Any] = {"id": self.account_id(), "kind": self.kind.value}
        if self.kind is ModelKind.WEB:
            choice = self.site.currentData()
            file_choice = isinstance(choice, str) and choice.startswith("file:")
            values["site"] = None if file_choice or choice == FILE_CHOICE else choice
            values["site_file"] = self.site_file if file_choice else None
            values["origin"] = self.origin.text().strip() or None
        else:
            values["base_url"] = self.base_url.text().strip() or None
            values["api_key_env"] = self.key_env.text().strip() or None
            values["concurrency"] = self.concurrency.value()
            values["rpm"] = self.rpm.value() or None
            values["tpm"] = self.tpm.value() or None
        values["models"] = self.checked_models()
        return values | self.proxy_fields.values()

    def draft(self) -> tuple[ConfigDocument, int]:
        doc = self.session.draft()
        for name in self.checked_models():
            if doc.model_index(name) is None:
                doc.put_model({"name": name, "kind": self.kind.value})
        index = doc.put_account(self.values(), replacing=self.original_id)
        return doc, index

    def check(self, *, everything: bool) -> Any:
        """Check the draft with the schema; show the problems (of the fields touched so far,
        or ``everything``). Returns (document or None, config or None)."""
        try:
            doc, index = self.draft()
        except ConfigError as exc:  # the file was broken by hand meanwhile: say where
            self.problems.show([(None, str(exc))])
            return None, None
        config, problems = self.session.check(doc)
        shown: list[tuple[str | None, str]] = []
        for problem in problems:
            path = problem.path
            mine = len(path) >= 2 and path[0] == "accounts" and path[1] == index
            key = str(path[2]) if mine and len(path) >= 3 else None
            if not mine and not everything:
                continue
            if mine and key is not None and not everything and key not in self.touched:
                continue
            words = problem_text(problem)
            message = words if mine else f"{problem.where(doc.data())}: {words}"
            shown.append((key, message))
        if self.api.keyring_problem is not None:  # said until a key was kept after all
            shown.append(("key", self.api.keyring_words(self.api.keyring_problem)))
            variable = self.key_env.text().strip()
            if "api_key_env" in self.touched and variable_unset(variable):
                shown.append(("api_key_env", variable_unset_text(variable)))
        self.problems.show(shown)
        return doc, config

    # ---------------------------------------------------------------- saving

    def _save(self, *, login: bool) -> None:
        if self.busy:
            return
        doc, config = self.check(everything=True)
        if doc is None or config is None:
            return
        if (
            self.kind is ModelKind.API
            and self.api.keyring_problem == "none"
            and not self.key_env.text().strip()
        ):  # no keyring to keep a key in: without a variable the account could never work
            self.problems.show(
                [
                    ("key", self.api.keyring_words("none")),
                    ("api_key_env", self.tr("Enter the name of the variable that holds the key")),
                ]
            )
            self.key_env.setFocus()
            return
        spawn(self._commit(doc, login), f"setup:save:{self.account_id()}")

    async def _commit(self, doc: ConfigDocument, login: bool) -> None:
        account_id = self.account_id()
        self.set_busy(True, self.tr("Saving…"))
        try:
            if self.kind is ModelKind.API and self.key.text().strip():
                if not await self.api.store_key(account_id):
                    return
                if self.original_id is not None:  # a running provider holds the old key
                    await self.session.controller.reset_account(account_id)
            if self.proxy_fields.password.text():  # kept in the keyring, never the config
                config, _ = self.session.check(doc)
                if config is None or not await self.proxy_fields.store_password(account_id, config):
                    return
            try:
                await self.session.commit(doc)
            except (ConfigError, InputError) as exc:
                if shiboken6.isValid(self):
                    self.problems.show([(None, save_error_text(exc))])
                return
        finally:
            if shiboken6.isValid(self):  # the operator may have closed it meanwhile
                self.set_busy(False)
                self.show_note("")  # "Saving…" never stays behind
        if not shiboken6.isValid(self):
            return
        variable = self.key_env.text().strip() if self.kind is ModelKind.API else ""
        if variable_unset(variable) and not self.key.text().strip():
            self.saved_note = variable_unset_text(variable)  # the set-up window says it
        self.saved.emit(account_id)
        if login:
            self.login_wanted.emit(account_id)
        self.accept()

    def set_busy(self, busy: bool, text: str = "") -> None:
        self.busy = busy
        for button in self.findChildren(QPushButton):
            button.setEnabled(not busy)
        if text:
            self.show_note(text)

    def show_note(self, text: str, *, error: bool = False) -> None:
        self.note_is_error = error
        self.note.setStyleSheet("color: #c62828;" if error else "")
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def _on_fetch_clicked(self) -> None:
        spawn(self.api.probe(self.api.fetch), "setup:fetch-models")

    def _on_test_clicked(self) -> None:
        spawn(self.api.probe(self.api.test), "setup:test-connection")
