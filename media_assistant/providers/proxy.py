"""An account's proxy in the browser's and httpx's terms, and a failing proxy told as one.

The configuration says which proxy (core/config/proxy.py); here it gets its password (the OS
keyring or ``proxy_password_env``: providers/secrets.py) and becomes

* for a web account, Playwright's ``proxy`` option: the server without a user or password
  (Chromium's ``--proxy-server`` cannot carry one, and a process's arguments are readable by
  every local user), the user and password handed to Playwright over its pipe, which answers
  the proxy's 407 itself. Chromium never sends loopback addresses through a proxy unless its
  bypass list says ``<-loopback>``: it is always added, so a proxy applies to whatever address
  the account's site has — loopback and LAN included. ``proxy = ""`` (direct) is
  ``--no-proxy-server``;
* for an API account, httpx's ``proxy`` (SOCKS5 through httpx's own ``socks`` extra, socksio:
  a well-kept implementation, user and password included), with the environment's proxy
  variables ignored once the configuration names a proxy or direct.

A connection that fails while a proxy is in the way is asked one more question — does the
proxy itself answer? — so the operator reads "cannot reach the proxy", "the proxy refused the
password (407)" or "the proxy cannot reach the site", never "logged out" or "the site changed".
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from media_assistant.core.config.proxy import ProxySetting, effective_proxy
from media_assistant.core.config.schema import AccountConfig, AppConfig
from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.providers.secrets import resolve_proxy_password

PROBE_TIMEOUT_S = 5.0  # how long "does the proxy itself answer?" may take
BACKOFF_BASE_S = 15.0  # the account's first pause after a failing proxy; doubles each time
BACKOFF_CAP_S = 120.0  # ... up to this (core/rules/retry.py caps a Retry-After there too)

# Chromium's net errors that a proxy causes (net/base/net_error_list.h).
_PROXY_DOWN = (
    "ERR_PROXY_CONNECTION_FAILED",
    "ERR_SOCKS_CONNECTION_FAILED",
    "ERR_NO_SUPPORTED_PROXIES",
    "ERR_MANDATORY_PROXY_CONFIGURATION_FAILED",
    "ERR_PROXY_CERTIFICATE_INVALID",
)
_PROXY_AUTH = (
    "ERR_PROXY_AUTH_UNSUPPORTED",
    "ERR_PROXY_AUTH_REQUESTED",
    "ERR_PROXY_AUTH_REQUESTED_WITH_NO_CONNECTION",
    "ERR_INVALID_AUTH_CREDENTIALS",
    "ERR_UNEXPECTED_PROXY_AUTH",
)
_PROXY_NO_ROUTE = ("ERR_TUNNEL_CONNECTION_FAILED", "ERR_SOCKS_CONNECTION_HOST_UNREACHABLE")

PROXY_KINDS = (ErrorKind.PROXY_UNREACHABLE, ErrorKind.PROXY_AUTH)
# What a failing proxy looks like to an API request (the lane's and the set-up's probes alike):
# a refused password (tinyproxy answers 401), a dropped or refused connection, a timeout, the
# proxy's own 5xx page.
API_FAILURES_OF_A_PROXY = frozenset(
    {
        ErrorKind.AUTH_REJECTED,
        ErrorKind.NETWORK,
        ErrorKind.TIMEOUT,
        ErrorKind.PROTOCOL,
        ErrorKind.SERVER_ERROR,
        ErrorKind.PROXY_AUTH,
    }
)
# What a failing proxy looks like to the page: a load that fails or times out, the proxy's own
# 401/5xx page (no composer, a sign-in wall), a crash of the page.
PAGE_FAILURES_OF_A_PROXY = frozenset(
    {
        ErrorKind.NETWORK,
        ErrorKind.TIMEOUT,
        ErrorKind.SERVER_ERROR,
        ErrorKind.PROTOCOL,
        ErrorKind.BROWSER_CRASHED,
        ErrorKind.LOGIN_REQUIRED,
        ErrorKind.SITE_BUSY,
        ErrorKind.PROXY_AUTH,
    }
)


@dataclass(frozen=True, slots=True)
class ProxyRoute:
    """An account's proxy with its password (None: it needs none). ``setting.direct``: none."""

    setting: ProxySetting
    password: str | None = field(default=None, repr=False)

    @property
    def shown(self) -> str:
        return self.setting.shown

    def applies_to(self, url: str) -> bool:
        """Requests to ``url`` go through the proxy (not direct, not in ``no_proxy``)."""
        host = urlsplit(url).hostname or ""
        return not self.setting.direct and not self.setting.bypasses(host)


def route_for(
    config: AppConfig, account: AccountConfig, *, fresh: bool = True
) -> ProxyRoute | None:
    """The account's proxy, password found (None: no proxy configured, the system's settings
    apply). Blocking (the keyring): call it off the event loop. Raises
    ``ProviderError(BAD_CONFIG)`` when the proxy names a user and no password is kept."""
    setting = effective_proxy(config.network, account)
    if setting is None:
        return None
    if setting.direct:
        return ProxyRoute(setting)
    return ProxyRoute(setting, resolve_proxy_password(account.id, setting, fresh=fresh))


# ------------------------------------------------------------------------------ the browser


def playwright_proxy(route: ProxyRoute | None) -> dict[str, str] | None:
    """Playwright's ``proxy`` launch option (None: none, or direct)."""
    if route is None or route.setting.direct:
        return None
    proxy = {
        "server": route.setting.server,
        # "<-loopback>" first: Chromium would otherwise reach 127.0.0.1 and localhost directly.
        "bypass": ",".join(["<-loopback>", *route.setting.no_proxy]),
    }
    if route.setting.username:
        proxy["username"] = route.setting.username
        proxy["password"] = route.password or ""
    return proxy


def browser_args(route: ProxyRoute | None) -> list[str]:
    """Extra browser arguments: ``--no-proxy-server`` when the account goes direct."""
    return ["--no-proxy-server"] if route is not None and route.setting.direct else []


def web_proxy_error(route: ProxyRoute | None, message: str) -> ProviderError | None:
    """A browser error (``net::ERR_…``) a proxy caused, as the proxy's failure; else None."""
    if route is None or route.setting.direct:
        return None
    for names, kind, code in (
        (_PROXY_AUTH, ErrorKind.PROXY_AUTH, "proxy_auth"),
        (_PROXY_DOWN, ErrorKind.PROXY_UNREACHABLE, "proxy_down"),
        (_PROXY_NO_ROUTE, ErrorKind.PROXY_UNREACHABLE, "proxy_no_route"),
    ):
        if any(f"net::{name}" in message for name in names):
            return proxy_error(route, kind, code)
    return None


# ------------------------------------------------------------------------------ httpx


def httpx_options(route: ProxyRoute | None, url: str) -> dict[str, Any]:
    """``httpx.AsyncClient`` keyword arguments for requests to ``url``: the proxy (with its
    password) when one applies; the environment's proxy variables only when the configuration
    names no proxy at all (as before issue 32). A SOCKS5 proxy's requests carry
    :func:`_closing_trace` (a failed handshake's socket is closed)."""
    if route is None:
        return {}
    if not route.applies_to(url):
        return {"trust_env": False}
    auth = (route.setting.username, route.password or "") if route.setting.username else None
    options: dict[str, Any] = {
        "proxy": httpx.Proxy(route.setting.server, auth=auth),
        "trust_env": False,
    }
    if route.setting.scheme == "socks5":
        options["event_hooks"] = {"request": [_trace_socks]}
    return options


async def _trace_socks(request: httpx.Request) -> None:
    request.extensions.setdefault("trace", _closing_trace())


def _closing_trace() -> Callable[[str, dict[str, Any]], Awaitable[None]]:
    """httpcore (1.0.x) leaves the connection to a SOCKS5 proxy open when the SOCKS handshake
    fails — a refused password, a proxy that cannot reach the site — or TLS over it does: one
    socket per failed request, for as long as the process runs (a proxy that fails all night
    would exhaust the process's files). Its trace extension says when the handshake starts (with
    the stream) and how it ends: a failure closes that stream here; once the connection is up,
    the connection pool owns it."""
    opened: list[Any] = []

    async def trace(event: str, info: dict[str, Any]) -> None:
        if event == "socks.setup_socks5_connection.started":
            opened.append(info.get("stream"))
        elif event in ("socks.setup_socks5_connection.failed", "socks.start_tls.failed"):
            while opened:
                stream = opened.pop()
                with contextlib.suppress(Exception):
                    await stream.aclose()
        elif event in ("socks.start_tls.complete", "http11.send_request_headers.started"):
            opened.clear()  # the pool's connection owns the stream from here

    return trace


def refused_by_proxy(route: ProxyRoute | None, url: str, status: int) -> ProviderError | None:
    """A plain-HTTP request through an HTTP proxy: the proxy's refusal of its password comes
    as the answer's status (407). None: not the proxy's refusal."""
    if status != 407 or route is None or not route.applies_to(url):
        return None
    return proxy_error(route, ErrorKind.PROXY_AUTH, "proxy_auth")


# ------------------------------------------------------------------------------ telling a proxy


def proxy_error(route: ProxyRoute, kind: ErrorKind, code: str, detail: str = "") -> ProviderError:
    what = {
        "proxy_auth": "the proxy refused the user name or password (407)",
        "proxy_down": "cannot reach the proxy",
        "proxy_no_route": "the proxy cannot reach the site",
    }[code]
    return ProviderError(
        kind,
        f"{what}: {route.shown}" + (f" ({detail})" if detail else ""),
        status=407 if code == "proxy_auth" else None,
        code=code,
        params={"proxy": route.shown, "detail": detail},
    )


async def proxy_answers(route: ProxyRoute, timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """A TCP connection to the proxy itself opens."""
    try:
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(route.setting.host, route.setting.port), timeout_s
        )
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


@dataclass
class ProxyBackoff:
    """How long an account whose proxy fails waits before it tries again: 15 s, doubled each
    failure up to 120 s; the first failure's time is kept ("unreachable since 14:02")."""

    failures: int = 0
    since: float | None = None

    def failed(self, error: ProviderError, now: float) -> ProviderError:
        """``error`` with the pause and the time the proxy first failed."""
        self.failures += 1
        if self.since is None:
            self.since = now
        pause = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (self.failures - 1))
        since = time.strftime("%H:%M", time.localtime(self.since))
        return ProviderError(
            error.kind,
            f"{error.message}; since {since}, trying again in {pause:.0f} s",
            retry_after=pause,
            status=error.status,
            code=error.code,
            params={**error.params, "since": since, "pause": pause},
        )

    def passed(self) -> None:
        self.failures, self.since = 0, None
