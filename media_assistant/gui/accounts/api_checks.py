"""What the API account editor asks beyond the form, off the loop: the OS keyring (can a key be
kept on this computer at all, and keeping it — issue 20: a desktop without Secret Service, a
locked keyring), and the endpoint (*Fetch the model list*, *Test connection*).

Where the keyring cannot keep a key, the operator is told at once in words, the key field is
closed and the environment variable offered with a name; a keyring that does not answer is said
after a second ("waiting for the system keyring") and given up on at the limit
(providers/secrets.py). The endpoint's failures are the kinds a task would get
(providers/api/probe.py), named in the GUI's words with the server's own text. Both questions
go out through the account's proxy as the form has it (issue 32), as its tasks will: a proxy
that fails is said as the proxy's failure.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QListWidget, QListWidgetItem

from media_assistant.core.model.errors import ConfigError, ErrorKind, ProviderError, RuleBroken
from media_assistant.gui.common import labels
from media_assistant.gui.common.form_problems import FormProblems

if TYPE_CHECKING:
    from media_assistant.core.config.proxy import NetworkConfig
    from media_assistant.providers.proxy import ProxyRoute


class ProxyRouteSource(Protocol):
    """The editor's proxy fields (gui/accounts/proxy_fields.py)."""

    async def route(self, url: str, network: NetworkConfig) -> ProxyRoute | None: ...


class ApiEditor(Protocol):
    """What of the account editor these checks use (the editor imports this module, not the
    other way round)."""

    key: QLineEdit
    key_env: QLineEdit
    base_url: QLineEdit
    models: QListWidget
    problems: FormProblems
    original_id: str | None
    busy: bool

    @property
    def proxy_fields(self) -> ProxyRouteSource: ...

    def network(self) -> NetworkConfig: ...

    def account_id(self) -> str: ...
    def show_note(self, text: str, *, error: bool = False) -> None: ...
    def set_busy(self, busy: bool, text: str = "") -> None: ...
    def add_model(self, name: str, checked: bool) -> QListWidgetItem: ...
    def checked_models(self) -> list[str]: ...


KEYRING_PATIENCE_S = 1.0  # a key not stored by then: say that the keyring is being waited for


class ApiChecks(QObject):
    def __init__(self, editor: ApiEditor, parent: QObject) -> None:
        super().__init__(parent)
        self.editor = editor
        self.keyring_problem: str | None = None  # why the OS keyring cannot keep a key here

    # ---------------------------------------------------------------- the keyring

    async def store_key(self, account_id: str) -> bool:
        """The typed key into the OS keyring (off the loop, at most secrets.KEYRING_TIMEOUT_S);
        False, said next to the key with the way out, when it cannot be kept here."""
        from media_assistant.providers.secrets import SecretStoreUnavailable, store_api_key

        e = self.editor
        if self.keyring_problem == "none":
            self.no_keyring("none")
            return False
        storing = asyncio.ensure_future(asyncio.to_thread(store_api_key, account_id, e.key.text()))
        done, _ = await asyncio.wait({storing}, timeout=KEYRING_PATIENCE_S)
        if not done:  # a locked keyring may be asking for its password in a window of its own
            e.show_note(self.tr("Waiting for the system keyring (unlock it if it asks)…"))
        try:
            await storing
        except SecretStoreUnavailable as exc:
            if self.editor_open():
                self.no_keyring(exc.reason)
            return False
        except ConfigError as exc:  # an empty key
            e.problems.show([("key", str(exc))])
            return False
        if self.keyring_problem is not None:  # unlocked meanwhile
            self.keyring_problem = None
            e.problems.clear()
        return True

    async def check_keyring(self) -> None:
        """Whether this computer has a keyring to keep a key in, asked off the loop when the
        editor opens: where there is none, the operator is told before typing a key."""
        from media_assistant.providers.secrets import keyring_available

        reason = await asyncio.to_thread(keyring_available)
        if reason == "none" and self.editor_open():
            self.no_keyring(reason)

    def editor_open(self) -> bool:
        """The editor may have been closed (and deleted) while a keyring call was waited for."""
        return shiboken6.isValid(self) and shiboken6.isValid(self.editor)

    def no_keyring(self, reason: str) -> None:
        """The key cannot be kept here: say why, in the operator's words, and offer the
        environment variable instead."""
        e = self.editor
        self.keyring_problem = reason
        e.problems.show([("key", self.keyring_words(reason))])
        if reason == "none":
            e.key.clear()
            e.key.setEnabled(False)
            e.key.setPlaceholderText(self.tr("no system keyring on this computer"))
        self.offer_variable()
        e.key_env.setFocus()

    def offer_variable(self) -> None:
        """A name for the key's variable, following the account's name as it is typed."""
        e = self.editor
        e.key_env.setPlaceholderText(
            self.tr("e.g. %1").replace("%1", _variable_name(e.account_id() or "my-api"))
        )

    def keyring_words(self, reason: str) -> str:
        if reason == "none":
            return self.tr(
                "This computer has no system keyring to keep the key in: put the key in an "
                "environment variable and enter its name below."
            )
        if reason == "timeout":
            return self.tr(
                "The system keyring did not answer (locked?): unlock it and save again, or put "
                "the key in an environment variable and enter its name below."
            )
        return self.tr(
            "The system keyring refused the key (locked?): unlock it and save again, or put "
            "the key in an environment variable and enter its name below."
        )

    # ---------------------------------------------------------------- the endpoint

    async def key(self) -> str | None:
        """The key typed here, else the named variable's (in this app's environment), else
        the stored one (keyring; read off the loop). None, with what is missing said next to
        its field: the key, the variable's name, or the variable itself (issue 26)."""
        e = self.editor
        typed = e.key.text().strip()
        if typed:
            return typed
        variable = e.key_env.text().strip()
        if variable:
            value = os.environ.get(variable, "").strip()
            if value:
                return value
            if e.original_id is None or self.keyring_problem is not None:
                e.problems.show([("api_key_env", variable_unset_text(variable))])
                return None
        if e.original_id is None:
            if self.keyring_problem == "none":
                e.problems.show(
                    [("api_key_env", self.tr("Enter the name of the variable that holds the key"))]
                )
            else:
                e.problems.show([("key", self.tr("Paste the API key first"))])
            return None
        from media_assistant.providers.secrets import resolve_api_key

        try:
            return await asyncio.to_thread(
                resolve_api_key, e.original_id, e.key_env.text().strip() or None
            )
        except ProviderError as exc:  # said in words: its English names a command to type
            e.problems.show([("key", labels.reason_text("no_api_key") or exc.message)])
            return None

    async def probe(self, action: Callable[[str, str, ProxyRoute | None], Any]) -> None:
        e = self.editor
        if e.busy:
            return
        base_url = e.base_url.text().strip()
        if not base_url:
            e.problems.show([("base_url", self.tr("Enter the base URL first"))])
            return
        key = await self.key()
        if key is None:
            return
        try:  # the account's way out, as its tasks will take it (issue 32)
            proxy = await e.proxy_fields.route(base_url, e.network())
        except RuleBroken as exc:  # said in the operator's words, as the form's check says it
            from media_assistant.core.config.schema import ConfigProblem
            from media_assistant.gui.accounts.config_text import problem_text

            problem = ConfigProblem(("proxy",), str(exc), exc.code, exc.params)
            e.problems.show([("proxy", problem_text(problem))])
            return
        e.problems.clear()
        # Disabling the pressed button moves the focus on, to the Name field with its text
        # selected (issue 20): it goes back where it was once the buttons are enabled again.
        focused = QApplication.focusWidget()
        e.set_busy(True)
        try:
            await action(base_url, key, proxy)
        except ProviderError as exc:  # our own reasons in words, else the server's message
            e.show_note(
                labels.provider_error_text(exc.kind.value, exc.message, exc.code, exc.params),
                error=True,
            )
        finally:
            if self.editor_open():
                e.set_busy(False)
                if focused is not None and shiboken6.isValid(focused) and focused.isEnabled():
                    focused.setFocus(Qt.FocusReason.OtherFocusReason)

    async def fetch(self, base_url: str, key: str, proxy: ProxyRoute | None = None) -> None:
        from media_assistant.providers.api.probe import list_models

        e = self.editor
        e.show_note(self.tr("Asking %1 for its models…").replace("%1", base_url))
        try:
            names = await list_models(base_url, key, proxy)
        except ProviderError as exc:
            if exc.kind is ErrorKind.BAD_REQUEST and exc.status == 404:
                e.show_note(
                    self.tr("This endpoint does not list its models: type the model name below")
                )
                return
            raise
        for name in names:
            e.add_model(name, False)
        e.show_note(
            self.tr("%n model(s) offered: tick the ones this account should serve", "", len(names))
        )

    async def test(self, base_url: str, key: str, proxy: ProxyRoute | None = None) -> None:
        from media_assistant.providers.api.probe import check_connection

        e = self.editor
        chosen = e.checked_models() or [e.models.item(i).text() for i in range(e.models.count())]
        if not chosen:
            e.problems.show([("models", self.tr("Choose a model to test with"))])
            return
        model = chosen[0]
        e.show_note(self.tr("Sending one short request to %1…").replace("%1", model))
        answer = await check_connection(base_url, key, model, proxy)
        e.show_note(
            self.tr("Connected: %1 answered in %2 s: “%3”")
            .replace("%1", answer.model)
            .replace("%2", f"{answer.seconds:.1f}")
            .replace("%3", answer.text)
        )


def variable_unset(variable: str | None) -> bool:
    """A variable is named for the key but this app's environment does not have it."""
    return bool(variable) and not os.environ.get(str(variable), "").strip()


def variable_unset_text(variable: str) -> str:
    """The named variable is not in this app's environment: say so, and how to set it (an
    app sees the environment it was started with: a variable set later needs a new start)."""
    return QCoreApplication.translate(
        "ApiChecks",
        "The variable %1 is not set in this app's environment. Set it for your user, then quit "
        "Media Assistant and start it again. Windows: in a Command Prompt type `setx %1 "
        "your-key` (or System → Advanced system settings → Environment Variables → New). "
        "Linux: add the line `export %1=your-key` to ~/.profile, then log out and in again.",
    ).replace("%1", variable)


def _variable_name(account_id: str) -> str:
    """A name to propose for the key's environment variable: ``ds-api`` → ``DS_API_KEY``."""
    stem = "".join(c if c.isalnum() else "_" for c in account_id.upper()).strip("_") or "MY"
    return f"{stem}_KEY" if stem.endswith("API") else f"{stem}_API_KEY"
