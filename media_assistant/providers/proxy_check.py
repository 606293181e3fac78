"""Does the account's proxy work, for its own site? One question with four answers, in the
operator's words: connected in N ms; the proxy refused the user name or password (407); cannot
reach the proxy; the proxy cannot reach the site.

Asked by *Test proxy* (the account editor), ``accounts test-proxy ID``, the site check's first
step ("through the proxy"), and whenever a request through a proxy failed in a way that could
be the site's or the proxy's (a 401 page, a dropped connection, a timeout): what the site said
is only believed once the proxy is known to be fine. Proxies differ in how they refuse a
password — tinyproxy answers 401 where the standard says 407, some close the connection — so
the question is asked the one way every HTTP proxy answers alike: ``CONNECT host:port`` with
the credentials, its status line read. A SOCKS5 proxy is asked its own handshake (socksio),
whose reply codes say which side failed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.core.rules.site_breakage import AdapterStep, StepResult, StepStatus
from media_assistant.providers.proxy import PROBE_TIMEOUT_S, ProxyRoute, proxy_error

OK = "ok"
PROXY_AUTH = "proxy_auth"
PROXY_DOWN = "proxy_down"
PROXY_NO_ROUTE = "proxy_no_route"


@dataclass(frozen=True, slots=True)
class ProxyVerdict:
    """``outcome``: one of :data:`OK`, :data:`PROXY_AUTH`, :data:`PROXY_DOWN`,
    :data:`PROXY_NO_ROUTE`; ``ms``: how long it took; ``detail``: the proxy's own words."""

    outcome: str
    ms: int
    proxy: str
    target: str
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome == OK

    def message(self) -> str:
        return {
            OK: f"connected to {self.target} through {self.proxy} in {self.ms} ms",
            PROXY_AUTH: f"the proxy {self.proxy} refused the user name or password (407)",
            PROXY_DOWN: f"cannot reach the proxy {self.proxy}",
            PROXY_NO_ROUTE: f"the proxy {self.proxy} cannot reach {self.target}",
        }[self.outcome] + (f" ({self.detail})" if self.detail and not self.ok else "")

    def error(self, route: ProxyRoute) -> ProviderError | None:
        """The proxy's failure as a task would meet it; None when the proxy worked."""
        if self.ok:
            return None
        kind = ErrorKind.PROXY_AUTH if self.outcome == PROXY_AUTH else ErrorKind.PROXY_UNREACHABLE
        return proxy_error(route, kind, self.outcome, self.detail)


def _target(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.hostname or "", port


async def check_proxy(
    route: ProxyRoute, url: str, timeout_s: float = PROBE_TIMEOUT_S
) -> ProxyVerdict:
    """Ask the account's proxy to reach ``url``'s host and port (nothing is sent to the site
    itself beyond opening the connection)."""
    host, port = _target(url)
    target = f"{host}:{port}"
    started = time.monotonic()
    if route.setting.scheme == "socks5":
        outcome, detail = await _socks(route, host, port, timeout_s)
    else:
        plain = urlsplit(url).scheme == "http"
        outcome, detail = await _connect(route, host, port, timeout_s, plain_http=plain)
    ms = round((time.monotonic() - started) * 1000)
    return ProxyVerdict(outcome, ms, route.shown, target, detail)


async def _connect(
    route: ProxyRoute, host: str, port: int, timeout_s: float, *, plain_http: bool = False
) -> tuple[str, str]:
    """``CONNECT host:port``. A proxy that allows tunnels only to port 443 (a common rule)
    refuses one to a plain-HTTP site it would forward: then a forwarded ``HEAD`` asks again."""
    outcome, detail, status = await _ask(route, f"CONNECT {host}:{port}", host, port, timeout_s)
    if plain_http and status in (403, 405, 501):
        url = f"http://{host}:{port}/"
        outcome, detail, status = await _ask(route, f"HEAD {url}", host, port, timeout_s)
        if outcome == PROXY_NO_ROUTE and status is not None and status < 500:
            return OK, ""  # the site itself answered (a 404, a redirect, its own 403)
    return outcome, detail


async def _ask(
    route: ProxyRoute, request: str, host: str, port: int, timeout_s: float
) -> tuple[str, str, int | None]:
    """One request line to the proxy, with its credentials; its answer's status read."""
    setting = route.setting
    tls = ssl.create_default_context() if setting.scheme == "https" else None
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(setting.host, setting.port, ssl=tls), timeout_s
        )
    except (OSError, TimeoutError) as exc:
        return PROXY_DOWN, _words(exc), None
    try:
        lines = [f"{request} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
        if setting.username:
            token = f"{setting.username}:{route.password or ''}".encode()
            lines.append(f"Proxy-Authorization: Basic {base64.b64encode(token).decode()}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), timeout_s)
    except (OSError, TimeoutError) as exc:
        return PROXY_DOWN, f"no answer: {_words(exc)}", None
    finally:
        writer.close()
        with contextlib.suppress(OSError, ssl.SSLError):
            await writer.wait_closed()
    words = status_line.decode("latin-1").strip()
    parts = words.split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        return (
            PROXY_DOWN,
            f"not an HTTP proxy's answer: {words[:80]!r}" if words else "closed",
            None,
        )
    status = int(parts[1])
    if 200 <= status < 300:
        return OK, "", status
    if status in (401, 407):
        return PROXY_AUTH, words, status
    return PROXY_NO_ROUTE, words, status


async def _socks(route: ProxyRoute, host: str, port: int, timeout_s: float) -> tuple[str, str]:
    """The SOCKS5 handshake, spoken with socksio (the protocol library httpx's SOCKS support
    uses) over a connection this function opens and closes itself."""
    from socksio import ProtocolError, socks5

    setting = route.setting
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(setting.host, setting.port), timeout_s
        )
    except (OSError, TimeoutError) as exc:
        return PROXY_DOWN, _words(exc)
    conn = socks5.SOCKS5Connection()

    async def ask(request: object) -> object:
        conn.send(request)
        writer.write(conn.data_to_send())
        await writer.drain()
        return conn.receive_data(await asyncio.wait_for(reader.read(512), timeout_s))

    try:
        method = (
            socks5.SOCKS5AuthMethod.USERNAME_PASSWORD
            if setting.username
            else socks5.SOCKS5AuthMethod.NO_AUTH_REQUIRED
        )
        reply = await ask(socks5.SOCKS5AuthMethodsRequest([method]))
        if getattr(reply, "method", None) != method:
            return PROXY_AUTH, "the proxy accepts no such sign-in"
        if setting.username:
            auth = await ask(
                socks5.SOCKS5UsernamePasswordRequest(
                    setting.username.encode(), (route.password or "").encode()
                )
            )
            if not getattr(auth, "success", False):
                return PROXY_AUTH, "the proxy refused the user name or password"
        answer = await ask(
            socks5.SOCKS5CommandRequest.from_address(socks5.SOCKS5Command.CONNECT, (host, port))
        )
        code = getattr(answer, "reply_code", None)
        if code == socks5.SOCKS5ReplyCode.SUCCEEDED:
            return OK, ""
        name = code.name.lower().replace("_", " ") if code is not None else "no reply"
        return PROXY_NO_ROUTE, name
    except (OSError, TimeoutError, ProtocolError) as exc:
        return PROXY_DOWN, f"no SOCKS5 answer: {_words(exc)}"
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


def _words(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


async def blame_proxy(route: ProxyRoute | None, url: str, error: ProviderError) -> ProviderError:
    """``error`` met on the way to ``url``: the proxy's failure instead, if the proxy is what
    fails; else ``error`` as it was."""
    if route is None or not route.applies_to(url):
        return error
    verdict = await check_proxy(route, url)
    return verdict.error(route) or error


async def site_check_step(
    route: ProxyRoute | None, url: str
) -> tuple[StepResult, ProviderError | None]:
    """The site check's first step (``sites check``, *Check site*): does the account's proxy
    reach its site? Skipped without a proxy; a failure is the proxy's, never the adapter's."""
    step = AdapterStep.THROUGH_PROXY
    if route is None or not route.applies_to(url):
        why = "no proxy" if route is None else "this site goes direct (no_proxy)"
        return StepResult(step, StepStatus.SKIPPED, why, 0.0), None
    verdict = await check_proxy(route, url)
    status = StepStatus.OK if verdict.ok else StepStatus.FAILED
    return StepResult(step, status, verdict.message(), verdict.ms / 1000), verdict.error(route)
