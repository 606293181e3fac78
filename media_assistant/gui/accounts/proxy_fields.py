"""The account editor's proxy fields (issue 32): the proxy, its password (kept in the OS
keyring, never in the config), and *Test proxy* — which asks the proxy to reach this account's
own site or base URL and says what happened in the operator's words: connected in 180 ms; the
proxy refused the password (407); cannot reach the proxy; the proxy cannot reach the site.

The check is providers/proxy_check.py's, the same as ``accounts test-proxy``; the keyring is
asked off the window's thread (providers/secrets.py). The API set-up's *Fetch the model list*
and *Test connection* go out through the proxy as typed here (:meth:`ProxyFields.route`), the
way the account's tasks will.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLineEdit, QPushButton, QWidget

from media_assistant.core.config.proxy import (
    NetworkConfig,
    ProxySetting,
    checked_proxy,
    effective_proxy,
)
from media_assistant.core.config.schema import AppConfig
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.bridge.jobs import spawn

if TYPE_CHECKING:
    from media_assistant.gui.accounts.setup_session import SetupSession
    from media_assistant.gui.common.form_problems import FormProblems
    from media_assistant.providers.proxy import ProxyRoute


class Editor(Protocol):
    """What the fields need of the account editor (gui/accounts/account_editor.py)."""

    problems: FormProblems
    session: SetupSession

    def _changed(self, key: str) -> None: ...

    def check(self, *, everything: bool) -> Any: ...

    def account_id(self) -> str: ...

    def set_busy(self, busy: bool, text: str = "") -> None: ...

    def show_note(self, text: str, *, error: bool = False) -> None: ...


class ProxyFields(QObject):
    def __init__(self, editor: Any, form: QFormLayout, current: dict[str, Any]) -> None:
        """``editor``: the account editor (an :class:`Editor` and the fields' parent)."""
        super().__init__(editor)
        self.editor: Editor = editor
        # The account's other proxy keys, kept as they are (the form edits only the proxy).
        self._password_env: str | None = current.get("proxy_password_env")
        self._no_proxy: list[str] | None = current.get("no_proxy")
        proxy = current.get("proxy")
        self._direct = proxy == ""  # 'proxy = ""' (direct) written by hand stays direct
        self.proxy = QLineEdit("" if proxy is None else str(proxy), editor)
        self.proxy.setPlaceholderText(
            self.tr("optional: http://USER@HOST:PORT, https://… or socks5://HOST:PORT")
        )
        self.proxy.setToolTip(
            self.tr(
                "This account's way out. Empty: the default proxy of every account, if one is "
                "set; a proxy per account keeps a site from banning accounts together"
            )
        )
        self.proxy.textEdited.connect(lambda _t: editor._changed("proxy"))
        form.addRow(self.tr("Proxy:"), editor.problems.field("proxy", self.proxy))
        self.password = QLineEdit(editor)
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText(
            self.tr("the proxy's password, if it asks for one; kept in the system's keyring")
        )
        self.test_button = QPushButton(self.tr("Test proxy"), editor)
        self.test_button.setToolTip(
            self.tr("Connect through the proxy to this account's site and say what happened")
        )
        self.test_button.clicked.connect(self._on_test_clicked)
        row = QWidget(editor)
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.password, 1)
        box.addWidget(self.test_button)
        form.addRow(self.tr("Proxy password:"), editor.problems.field("proxy_password", row))

    def values(self) -> dict[str, Any]:
        """The account's ``proxy`` key (None: removed, the [network] default applies)."""
        return {"proxy": self.proxy.text().strip() or ("" if self._direct else None)}

    # ---------------------------------------------------------------- the password

    async def store_password(self, account_id: str, config: AppConfig) -> bool:
        """Keep a typed password in the keyring for the account's proxy (on saving). False:
        it could not be kept (said in the editor)."""
        typed = self.password.text()
        account = config.account(account_id)
        if not typed or account is None:
            return True
        proxy = effective_proxy(config.network, account)
        if proxy is None or proxy.direct or not proxy.username:
            self.editor.problems.show(
                [("proxy", self.tr("A proxy password needs a user name: http://USER@HOST:PORT"))]
            )
            return False
        from media_assistant.core.model.errors import ConfigError
        from media_assistant.providers.secrets import store_proxy_password

        try:
            await asyncio.to_thread(store_proxy_password, account_id, proxy, typed)
        except ConfigError as exc:
            if shiboken6.isValid(self.editor):
                self.editor.problems.show([("proxy_password", str(exc))])
            return False
        return True

    # ---------------------------------------------------------------- the route as typed

    def setting(self, network: NetworkConfig) -> ProxySetting | None:
        """The proxy as the form says it now (None: none, the system's settings). Raises
        RuleBroken (said by the caller next to the field) for a proxy that is not one."""
        typed = self.values()["proxy"]
        keys = _Keys(
            None if typed is None else checked_proxy(typed), self._password_env, self._no_proxy
        )
        return effective_proxy(network, keys)

    async def route(self, url: str, network: NetworkConfig) -> ProxyRoute | None:
        """The way out of a request to ``url`` as the account's tasks will take it: the proxy
        with its password (typed here, else the keyring or its variable, read off the loop);
        None when no proxy applies. RuleBroken: the proxy field is not a proxy."""
        from media_assistant.providers.proxy import ProxyRoute

        setting = self.setting(network)
        if setting is None:
            return None
        if setting.direct or setting.bypasses(_host(url)):
            return ProxyRoute(setting)
        return ProxyRoute(setting, await self._password(setting))

    async def _password(self, setting: ProxySetting) -> str | None:
        if setting.direct or not setting.username:
            return None
        if self.password.text():
            return self.password.text()
        from media_assistant.providers import secrets

        found = await secrets.alookup(
            secrets.PROXY_PASSWORD, secrets.proxy_password_name(setting), setting.password_env
        )
        return found.value

    # ---------------------------------------------------------------- Test proxy

    def _on_test_clicked(self) -> None:
        spawn(self.test(), "setup:test-proxy")

    async def test(self) -> str:
        """Test the proxy as typed; the words shown (also returned, for tests)."""
        doc, config = self.editor.check(everything=True)
        if doc is None or config is None:
            return ""
        account = config.account(self.editor.account_id())
        if account is None:
            return ""
        self.editor.set_busy(True, self.tr("Testing the proxy…"))
        try:
            words, error = await self._verdict(config, account)
        finally:
            if shiboken6.isValid(self.editor):
                self.editor.set_busy(False)
        if shiboken6.isValid(self.editor):
            self.editor.show_note(words, error=error)
        return words

    async def _verdict(self, config: AppConfig, account: Any) -> tuple[str, bool]:
        from media_assistant.providers.proxy import ProxyRoute
        from media_assistant.providers.proxy_check import check_proxy

        setting = effective_proxy(config.network, account)
        url = await self._site_url(account)
        if setting is None or setting.direct or url is None or setting.bypasses(_host(url)):
            return self.tr("No proxy for this account: it goes out directly"), False
        route: ProxyRoute = ProxyRoute(setting, await self._password(setting))
        verdict = await check_proxy(route, url)
        target = verdict.target
        if verdict.outcome == "ok":
            return self.tr("Connected to %1 through the proxy in %2 ms").replace(
                "%1", target
            ).replace("%2", str(verdict.ms)), False
        words = {
            "proxy_auth": self.tr("The proxy refused the user name or password (407)"),
            "proxy_down": self.tr("Cannot reach the proxy"),
            "proxy_no_route": self.tr("The proxy cannot reach the site (%1)").replace("%1", target),
        }[verdict.outcome]
        return words + (f" — {verdict.detail}" if verdict.detail else ""), True

    async def _site_url(self, account: Any) -> str | None:
        if account.kind is ModelKind.API:
            return str(account.base_url)
        if account.origin:
            return str(account.origin)
        for entry in self.editor.session.adapters():
            if entry.adapter is not None and entry.site == account.site:
                return str(entry.adapter.origin)
        return None


@dataclass(frozen=True, slots=True)
class _Keys:
    """An account's proxy keys (core/config/proxy.py ``ProxyKeys``) as the form has them."""

    proxy: str | None
    proxy_password_env: str | None
    no_proxy: list[str] | None


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).hostname or ""
