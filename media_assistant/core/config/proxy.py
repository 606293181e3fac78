"""An account's way out: the proxy it goes through (issue 32), as the configuration says it.

``proxy`` on an account, else ``[network] proxy`` for every account; ``proxy = ""`` goes
direct; neither set: the system's own settings, as before. A proxy is
``http://``, ``https://`` or ``socks5://`` ``[USER@]HOST:PORT``; its password is never in the
configuration (one pasted there is refused without being repeated): it lives in the OS keyring
(``media-assistant accounts set-proxy-password ID``, the account editor), keyed by the proxy and
its user so accounts sharing one proxy share one password, or in the environment variable named
by ``proxy_password_env``. ``no_proxy`` names hosts that never go through it.

Pure: the provider side (providers/proxy.py) turns a :class:`ProxySetting` into Playwright's
and httpx's terms and finds the password.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from media_assistant.core.model.errors import RuleBroken

PROXY_SCHEMES = ("http", "https", "socks5")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
_HOST_PATTERN = re.compile(r"^(\*?\.)?[A-Za-z0-9_.:-]+(/\d{1,3})?$")


def checked_proxy(value: str) -> str:
    """``value`` as a ``proxy`` key may hold it ("" = direct), or RuleBroken. A password in it
    is refused and never repeated."""
    value = value.strip()
    if value == "":
        return value
    parts = urlsplit(value)
    if parts.scheme.lower() not in PROXY_SCHEMES or "://" not in value:
        raise RuleBroken(
            "proxy_scheme",
            "a proxy is http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT (a user name "
            'may come before the host: http://USER@HOST:PORT), or "" to go direct',
        )
    if parts.password is not None:
        raise RuleBroken(
            "proxy_password_in_url",
            "the proxy holds a password: remove it (it is not shown here) and keep it in the "
            "OS keyring ('media-assistant accounts set-proxy-password ID') or in an "
            "environment variable named by proxy_password_env",
        )
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None or parts.path not in ("", "/") or parts.query:
        raise RuleBroken(
            "proxy_host_port",
            "a proxy needs a host and a port and nothing after them, e.g. http://10.0.0.5:3128",
        )
    return value


def checked_env_name(value: str | None) -> str | None:
    if value is not None and not _ENV_NAME.fullmatch(value):
        raise RuleBroken(
            "proxy_password_env_name",
            "'proxy_password_env' must name an environment variable (letters, digits and _), "
            "not hold the password itself (the value is not shown)",
        )
    return value


def checked_no_proxy(hosts: list[str]) -> list[str]:
    for host in hosts:
        if not _HOST_PATTERN.fullmatch(host.strip()):
            raise RuleBroken(
                "no_proxy_host",
                "'no_proxy' lists host names (db.example.com, .example.com for its "
                "sub-domains), IP addresses or networks (10.0.0.0/8)",
                host=host,
            )
    return [h.strip() for h in hosts]


class NetworkConfig(BaseModel):
    """``[network]``: the proxy every account goes through unless it names its own."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    proxy: str | None = Field(
        None,
        description='Default proxy of every account (http://, https://, socks5://); "" = '
        "direct. Default: none (the system's settings).",
    )
    proxy_password_env: str | None = Field(
        None, description="Environment variable holding the default proxy's password."
    )
    no_proxy: list[str] = Field(
        default_factory=list, description="Hosts that never go through a proxy."
    )

    @field_validator("proxy")
    @classmethod
    def _a_proxy(cls, value: str | None) -> str | None:
        return None if value is None else checked_proxy(value)

    @field_validator("proxy_password_env")
    @classmethod
    def _an_env_name(cls, value: str | None) -> str | None:
        return checked_env_name(value)

    @field_validator("no_proxy")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        return checked_no_proxy(value)

    @model_validator(mode="after")
    def _password_needs_user(self) -> NetworkConfig:
        user_needed(self.proxy, self.proxy_password_env)
        return self


def user_needed(proxy: str | None, password_env: str | None) -> None:
    if password_env and proxy is not None and not urlsplit(proxy).username:
        raise RuleBroken(
            "proxy_password_without_user",
            "'proxy_password_env' is set but the proxy names no user: write it as "
            "http://USER@HOST:PORT",
        )


class ProxyKeys(Protocol):
    """What an account's table says of its proxy (core/config/schema.py AccountConfig)."""

    @property
    def proxy(self) -> str | None: ...

    @property
    def proxy_password_env(self) -> str | None: ...

    @property
    def no_proxy(self) -> list[str] | None: ...


@dataclass(frozen=True, slots=True)
class ProxySetting:
    """An account's proxy, resolved from its table and ``[network]``. ``scheme`` None: direct."""

    scheme: str | None
    host: str = ""
    port: int = 0
    username: str | None = None
    password_env: str | None = None
    no_proxy: tuple[str, ...] = ()

    @property
    def direct(self) -> bool:
        return self.scheme is None

    @property
    def server(self) -> str:
        """``scheme://host:port``: what a browser is told (never a user or password)."""
        return f"{self.scheme}://{_host_in_url(self.host)}:{self.port}"

    @property
    def shown(self) -> str:
        """How the proxy is named to the operator and in logs (the user, never a password)."""
        if self.direct:
            return "direct"
        user = f"{self.username}@" if self.username else ""
        return f"{self.scheme}://{user}{_host_in_url(self.host)}:{self.port}"

    @property
    def needs_password(self) -> bool:
        return self.username is not None

    def bypasses(self, host: str) -> bool:
        """``host`` is listed in ``no_proxy`` (a name, ``.domain`` for its sub-domains, an IP
        address, a network)."""
        host = host.strip("[]").lower()
        for pattern in (p.lower() for p in self.no_proxy):
            if "/" in pattern:
                try:
                    if ipaddress.ip_address(host) in ipaddress.ip_network(pattern, strict=False):
                        return True
                except ValueError:
                    continue
            elif pattern.startswith(("*.", ".")):
                if host.endswith(pattern.lstrip("*")):
                    return True
            elif host == pattern:
                return True
        return False


def _host_in_url(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def parse_proxy(
    value: str, password_env: str | None = None, no_proxy: tuple[str, ...] = ()
) -> ProxySetting:
    """A checked ``proxy`` value (:func:`checked_proxy`) as a setting."""
    if value.strip() == "":
        return ProxySetting(None, no_proxy=no_proxy)
    parts = urlsplit(value.strip())
    assert parts.hostname is not None and parts.port is not None
    return ProxySetting(
        parts.scheme.lower(),
        parts.hostname,
        parts.port,
        parts.username or None,
        password_env,
        no_proxy,
    )


def effective_proxy(network: NetworkConfig, account: ProxyKeys) -> ProxySetting | None:
    """The account's proxy: its own ``proxy``, else ``[network] proxy``; None: neither is set
    (the system's settings apply, as without this feature)."""
    no_proxy = tuple(account.no_proxy if account.no_proxy is not None else network.no_proxy)
    if account.proxy is not None:
        return parse_proxy(account.proxy, account.proxy_password_env, no_proxy)
    if network.proxy is not None:
        return parse_proxy(
            network.proxy, account.proxy_password_env or network.proxy_password_env, no_proxy
        )
    return None


WEB_SOCKS_PASSWORD = (
    "Chromium cannot give a SOCKS5 proxy a user name and password, so a web account cannot go "
    "through this one: use an HTTP or HTTPS proxy with the password (http://USER@HOST:PORT), "
    "or a SOCKS5 proxy that admits this computer without one (socks5://HOST:PORT)"
)


@dataclass(frozen=True, slots=True)
class ProxyShare:
    """Accounts that leave through one proxy (the accounts panel shows it): ``risky`` names
    the sites two or more of whose web accounts share it — a site that bans one address bans
    them together, which no pacing setting prevents."""

    proxy: str  # as shown: scheme://user@host:port, never a password
    accounts: tuple[str, ...]
    risky: tuple[tuple[str, tuple[str, ...]], ...] = ()


class SharingAccount(ProxyKeys, Protocol):
    @property
    def id(self) -> str: ...

    @property
    def site(self) -> str | None: ...

    @property
    def site_file(self) -> str | None: ...


def proxy_sharing(network: NetworkConfig, accounts: list[SharingAccount]) -> list[ProxyShare]:
    """Every proxy two or more accounts go through, in the order first met."""
    users: dict[str, list[SharingAccount]] = {}
    for account in accounts:
        setting = effective_proxy(network, account)
        if setting is not None and not setting.direct:
            # One proxy, whoever signs in to it: the address is what a site sees.
            users.setdefault(setting.server, []).append(account)
    shares = []
    for server, group in users.items():
        if len(group) < 2:
            continue
        sites: dict[str, list[str]] = {}
        for a in group:
            if a.site is not None or a.site_file is not None:  # web accounts
                sites.setdefault(a.site or a.site_file or "", []).append(a.id)
        risky = tuple((site, tuple(ids)) for site, ids in sites.items() if len(ids) > 1)
        shown = effective_proxy(network, group[0])
        assert shown is not None
        name = (
            shown.shown
            if all((effective_proxy(network, a) or shown).shown == shown.shown for a in group)
            else server
        )
        shares.append(ProxyShare(name, tuple(a.id for a in group), risky))
    return shares
