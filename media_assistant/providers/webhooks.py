"""Webhooks that carry notices (core/notices/center.py) to group chats, each in its service's
documented message format, signed where the service signs:

- **WeCom / 企业微信 group robot** ("群机器人配置说明",
  https://developer.work.weixin.qq.com/document/path/91770): ``POST`` JSON
  ``{"msgtype": "markdown", "markdown": {"content": …}}`` (content at most 4096 bytes) to the
  robot's ``…/cgi-bin/webhook/send?key=…`` address; success is ``{"errcode": 0}``; at most 20
  messages a minute (errcode 45009 when exceeded). No signing: the key in the URL is the secret.
- **DingTalk / 钉钉 custom robot** ("自定义机器人安全设置", "加签",
  https://open.dingtalk.com/document/robots/customize-robot-security-settings; message types:
  https://open.dingtalk.com/document/robots/custom-robot-access): ``{"msgtype": "markdown",
  "markdown": {"title": …, "text": …}}``. With a signing secret (``SEC…``): ``timestamp`` = now
  in **milliseconds**, string to sign ``timestamp + "\\n" + secret``, HMAC-SHA256 keyed with the
  secret, Base64, URL-encoded, appended as ``&timestamp=…&sign=…`` (valid for an hour).
  Success ``{"errcode": 0}``; 130101 means "sending too fast".
- **Feishu / Lark custom bot** ("自定义机器人使用指南", 签名校验,
  https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot): ``{"msg_type": "text",
  "content": {"text": …}}`` to ``…/open-apis/bot/v2/hook/…``. With a signing secret:
  ``timestamp`` = now in **seconds**; the HMAC-SHA256 is keyed with ``timestamp + "\\n" +
  secret`` over an **empty** message, Base64; ``"timestamp"`` and ``"sign"`` go into the JSON
  body. Success ``{"code": 0}``; 19021 is a bad signature or a stale timestamp.
- **json**: ``{"event", "subject", "title", "text", "at", "params"}`` to any URL; with a
  secret, ``X-Media-Assistant-Timestamp`` (seconds) and ``X-Media-Assistant-Signature:
  sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">``, the scheme GitHub-style receivers check.

Delivery never blocks the lanes: :meth:`WebhookSender.send_soon` only queues; each delivery is
its own task on the loop (httpx, async), retried on network errors, 5xx, 429 and the services'
rate-limit codes (:data:`RETRY_DELAYS_S`), then logged and dropped. The URL and the secret are
credentials: read from the environment, else the OS keyring (``webhooks set NAME``); logs name
the webhook by its kind and variable, never the address, and httpx's own request log line is
filtered for them.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime as dt
import hashlib
import hmac
import json
import logging
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from media_assistant.core.config.notifications import WebhookConfig
from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice, notice_text
from media_assistant.providers import secrets
from media_assistant.providers.tls import client_ssl_context

log = logging.getLogger(__name__)

RETRY_DELAYS_S = (2.0, 10.0, 30.0)  # after the 1st, 2nd and 3rd failed try: 4 tries in all
TIMEOUT_S = 10.0
MAX_IN_FLIGHT = 4
MAX_QUEUED = 200
WECOM_MAX_BYTES = 4096
_RATE_LIMIT_CODES = {45009, 130101, 11232, 9499}  # WeCom, DingTalk, Feishu (two) "too fast"


# ------------------------------------------------------------------------------- secrets


def lookup_secret(name: str) -> str | None:
    """``$NAME``, else the OS keyring entry ``NAME`` (blocking: commands, the support bundle)."""
    return secrets.lookup(secrets.WEBHOOK, name, name).value


async def alookup_secret(name: str) -> str | None:
    """The same from the event loop: the keyring is asked off the loop, once a session."""
    return (await secrets.alookup(secrets.WEBHOOK, name, name)).value


def store_secret(name: str, value: str) -> None:
    """``webhooks set NAME``; raises SecretStoreUnavailable when the keyring cannot keep it."""
    secrets.store(secrets.WEBHOOK, name, value, label=name)


class _Redact(logging.Filter):
    """Drops log records that would carry a webhook's address or secret (httpx logs every
    request's URL at INFO)."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        try:
            text = record.getMessage()
        except Exception:
            return True
        return not any(s in text for s in self.secrets)


_REDACT = _Redact()
logging.getLogger("httpx").addFilter(_REDACT)
logging.getLogger("httpcore").addFilter(_REDACT)


def _protect(secret: str) -> None:
    _REDACT.secrets.add(secret)
    parts = urllib.parse.urlsplit(secret)
    if parts.scheme and parts.query:  # the key sits in the query: that part alone too
        _REDACT.secrets.add(parts.query)


# ------------------------------------------------------------------------------- messages


def dingtalk_sign(secret: str, timestamp_ms: int) -> str:
    """DingTalk: Base64(HMAC-SHA256(key=secret, msg=f"{timestamp}\\n{secret}")) (URL-encode it
    when putting it into the query)."""
    message = f"{timestamp_ms}\n{secret}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def feishu_sign(secret: str, timestamp_s: int) -> str:
    """Feishu: Base64(HMAC-SHA256(key=f"{timestamp}\\n{secret}", msg=b""))."""
    key = f"{timestamp_s}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def json_signature(secret: str, timestamp_s: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp_s}.".encode() + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


@dataclass(frozen=True, slots=True)
class WebhookRequest:
    url: str
    body: bytes
    headers: dict[str, str]


def _fit_bytes(text: str, limit: int) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[: limit - 3].decode("utf-8", errors="ignore") + "…"


def build_request(
    hook: WebhookConfig,
    notice: Notice,
    url: str,
    secret: str | None,
    *,
    language: str,
    now: float,
) -> WebhookRequest:
    """The HTTP request that carries ``notice`` to ``hook`` (pure: the time is given)."""
    title, text = notice_text(notice, language)
    headers = {"Content-Type": "application/json; charset=utf-8"}
    payload: dict[str, Any]
    if hook.kind == "wecom":
        content = _fit_bytes(f"**{title}**\n{text}", WECOM_MAX_BYTES)
        payload = {"msgtype": "markdown", "markdown": {"content": content}}
    elif hook.kind == "dingtalk":
        payload = {
            "msgtype": "markdown",
            "markdown": {"title": title, "text": f"#### {title}\n\n{text}"},
        }
        if secret:
            ts = int(now * 1000)
            sign = urllib.parse.quote_plus(dingtalk_sign(secret, ts))
            url = f"{url}{'&' if '?' in url else '?'}timestamp={ts}&sign={sign}"
    elif hook.kind == "feishu":
        payload = {"msg_type": "text", "content": {"text": f"{title}\n{text}"}}
        if secret:
            ts = int(now)
            payload = {"timestamp": str(ts), "sign": feishu_sign(secret, ts), **payload}
    else:
        payload = {
            "event": notice.kind.value,
            "subject": notice.subject,
            "title": title,
            "text": text,
            "at": dt.datetime.fromtimestamp(notice.at, tz=dt.UTC)
            .astimezone()
            .isoformat("T", "seconds"),
            "params": dict(notice.params),
        }
    body = json.dumps(payload, ensure_ascii=False).encode()
    if hook.kind == "json" and secret:
        ts = int(now)
        headers["X-Media-Assistant-Timestamp"] = str(ts)
        headers["X-Media-Assistant-Signature"] = json_signature(secret, ts, body)
    return WebhookRequest(url, body, headers)


# ------------------------------------------------------------------------------- delivery


@dataclass(frozen=True, slots=True)
class Delivery:
    ok: bool
    tries: int
    detail: str  # never the URL


def hook_label(index: int, hook: WebhookConfig) -> str:
    return f"webhook #{index + 1} ({hook.kind}, ${hook.url_env})"


def _verdict(hook: WebhookConfig, response: httpx.Response) -> tuple[bool, bool, str]:
    """(delivered, worth retrying, detail) from a service's answer."""
    status = response.status_code
    if status == 429 or status >= 500:
        return False, True, f"HTTP {status}"
    if status >= 400:
        return False, False, f"HTTP {status}"
    if hook.kind == "json":
        return True, False, f"HTTP {status}"
    try:
        data = response.json()
    except ValueError:
        return False, False, f"HTTP {status}, not the service's JSON answer"
    code = (
        data.get("errcode", data.get("code", data.get("StatusCode", 0)))
        if isinstance(data, dict)
        else 0
    )
    message = str(data.get("errmsg", data.get("msg", ""))) if isinstance(data, dict) else ""
    if code in (0, None):
        return True, False, "ok"
    return False, code in _RATE_LIMIT_CODES, f"the service answered code {code}: {message}"[:300]


class WebhookSender:
    """Delivers notices to the configured webhooks from the event loop, in the background."""

    def __init__(
        self,
        hooks: Sequence[WebhookConfig],
        *,
        language: str = "en",
        lookup: Callable[[str], Awaitable[str | None]] = alookup_secret,
        retry_delays_s: Sequence[float] = RETRY_DELAYS_S,
        timeout_s: float = TIMEOUT_S,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.hooks = list(hooks)
        self.language = language
        self.lookup = lookup
        self.retry_delays_s = tuple(retry_delays_s)
        self.timeout_s = timeout_s
        self.now = now
        self._client: httpx.AsyncClient | None = None
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT)
        self._running: set[asyncio.Task[Delivery]] = set()
        self.results: list[tuple[int, Notice, Delivery]] = []

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=self.timeout_s, follow_redirects=False, verify=client_ssl_context()
            )
        return self._client

    def send_soon(self, notice: Notice) -> None:
        """Queue ``notice`` for every webhook that wants its kind; returns at once."""
        for index, hook in enumerate(self.hooks):
            if notice.kind.value not in hook.events:
                continue
            if len(self._running) >= MAX_QUEUED:
                log.error(
                    "%s: too many notices waiting; %s dropped",
                    hook_label(index, hook),
                    notice.kind.value,
                )
                continue
            task = asyncio.ensure_future(self.deliver(index, hook, notice))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def deliver(self, index: int, hook: WebhookConfig, notice: Notice) -> Delivery:
        label = hook_label(index, hook)
        url = await self.lookup(hook.url_env)
        secret = await self.lookup(hook.secret_env) if hook.secret_env else None
        if not url:
            result = Delivery(False, 0, f"${hook.url_env} is not set (environment or keyring)")
        elif hook.secret_env and not secret:
            result = Delivery(False, 0, f"${hook.secret_env} is not set (environment or keyring)")
        else:
            _protect(url)
            if secret:
                _protect(secret)
            async with self._slots:
                result = await self._try(hook, notice, url, secret)
        self.results.append((index, notice, result))
        if result.ok:
            log.info("%s: %s sent (%d tries)", label, notice.kind.value, result.tries)
        else:
            for name in (hook.url_env, hook.secret_env):  # changed since? look again next time
                if name:
                    secrets.forget(secrets.WEBHOOK, name)
            log.error(
                "%s: %s not delivered after %d tries: %s",
                label,
                notice.kind.value,
                result.tries,
                result.detail,
            )
        return result

    async def _try(
        self, hook: WebhookConfig, notice: Notice, url: str, secret: str | None
    ) -> Delivery:
        detail = ""
        for attempt in range(len(self.retry_delays_s) + 1):
            if attempt:
                await asyncio.sleep(self.retry_delays_s[attempt - 1])
            # Signed anew on every try: the services refuse a timestamp an hour old.
            request = build_request(
                hook, notice, url, secret, language=self.language, now=self.now()
            )
            try:
                response = await self._http().post(
                    request.url, content=request.body, headers=request.headers
                )
            except httpx.HTTPError as exc:
                detail, retry = f"{type(exc).__name__} (network)", True
            else:
                ok, retry, detail = _verdict(hook, response)
                if ok:
                    return Delivery(True, attempt + 1, detail)
            if not retry:
                return Delivery(False, attempt + 1, detail)
        return Delivery(False, len(self.retry_delays_s) + 1, detail)

    async def test(self) -> list[tuple[str, Delivery]]:
        """Send a test notice to every webhook now (``webhooks test``)."""
        notice = Notice(
            NoticeKind.BATCH_DONE,
            "test",
            self.now(),
            {"total": 1, "succeeded": 1, "failed": 0, "canceled": 0},
        )
        out = []
        for index, hook in enumerate(self.hooks):
            out.append((hook_label(index, hook), await self.deliver(index, hook, notice)))
        return out

    async def close(self, wait_s: float = 15.0) -> None:
        """Let deliveries in flight finish (up to ``wait_s``), then stop."""
        if self._running:
            _done, pending = await asyncio.wait(set(self._running), timeout=wait_s)
            for task in pending:
                task.cancel()
            for task in pending:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._client is not None:
            await self._client.aclose()
            self._client = None
