"""Set-up checks of an OpenAI-compatible endpoint, before any task runs on it: which models it
lists (``GET {base_url}/models``), and one tiny request (*Test connection*).

Failures are the same :class:`ProviderError` kinds a task would meet (``classify``): the set-up
window names them exactly as the task table would (key rejected, quota used up, cannot
connect...), with the server's own words. The key is never part of a message.

Both go out the way the account's tasks go (issue 32): through its proxy, with the same httpx
options (providers/proxy.py ``httpx_options``), and a failure that could be the proxy's is
asked of the proxy before it is believed (``blame_proxy``) — so *Test connection* says "cannot
reach the proxy" or "the proxy refused the password (407)" exactly where a task would.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from media_assistant import __version__
from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.providers.api.classify import classify_http_error, classify_transport_error
from media_assistant.providers.proxy import (
    API_FAILURES_OF_A_PROXY,
    ProxyRoute,
    httpx_options,
    refused_by_proxy,
)
from media_assistant.providers.proxy_check import blame_proxy
from media_assistant.providers.secrets import without_secret
from media_assistant.providers.tls import client_ssl_context

CONNECT_TIMEOUT_S = 10.0
MODELS_TIMEOUT_S = 20.0
CHECK_TIMEOUT_S = 90.0  # a reasoning model may think a while even for one word
CHECK_PROMPT = "Reply with the single word OK."
CHECK_MAX_TOKENS = 16


@dataclass(frozen=True, slots=True)
class ProbeAnswer:
    text: str  # what the model said (shortened)
    model: str  # as the server named it
    seconds: float


def _client(
    base_url: str, api_key: str, read_timeout_s: float, proxy: ProxyRoute | None
) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=base_url.rstrip("/") + "/",
        verify=client_ssl_context(),
        headers={
            "Authorization": f"Bearer {api_key}",
            "User-Agent": f"media-assistant/{__version__}",
        },
        timeout=httpx.Timeout(CONNECT_TIMEOUT_S, read=read_timeout_s),
        **httpx_options(proxy, base_url),
    )


async def _failed(
    error: ProviderError, proxy: ProxyRoute | None, base_url: str, api_key: str
) -> ProviderError:
    """``error`` as the operator reads it: the proxy's failure when the proxy is what failed
    (as the lane tells it), and never with the key in it."""
    if error.kind in API_FAILURES_OF_A_PROXY:
        error = await blame_proxy(proxy, base_url, error)
    return without_secret(error, api_key)


async def _request(
    base_url: str,
    api_key: str,
    method: str,
    path: str,
    timeout_s: float,
    proxy: ProxyRoute | None = None,
    **kwargs: Any,
) -> Any:
    if not base_url.startswith(("http://", "https://")):
        raise ProviderError(
            ErrorKind.BAD_CONFIG,
            "the base URL must start with http:// or https://",
            code="url_scheme",
        )
    try:
        async with _client(base_url, api_key, timeout_s, proxy) as client:
            response = await client.request(method, path, **kwargs)
    except httpx.RequestError as exc:
        error = classify_transport_error(
            exc, connect_timeout_s=CONNECT_TIMEOUT_S, idle_timeout_s=timeout_s
        )
        raise await _failed(error, proxy, base_url, api_key) from None
    refused = refused_by_proxy(proxy, base_url, response.status_code)
    if refused is not None:
        raise refused
    if response.status_code != 200:
        error = classify_http_error(
            response.status_code, response.headers, response.content, now=time.time()
        )
        raise await _failed(error, proxy, base_url, api_key)
    try:
        return response.json()
    except ValueError:
        raise ProviderError(
            ErrorKind.PROTOCOL, f"{response.url} did not answer with JSON"
        ) from None


async def list_models(base_url: str, api_key: str, proxy: ProxyRoute | None = None) -> list[str]:
    """The model ids the endpoint lists (OpenAI's ``{"data": [{"id": ...}]}``, or a plain list),
    sorted. An endpoint without the listing answers 404: a ``BAD_REQUEST`` error. ``proxy``:
    the account's way out (providers/proxy.py ``route_for``; None: the system's settings)."""
    payload = await _request(base_url, api_key, "GET", "models", MODELS_TIMEOUT_S, proxy)
    entries = payload.get("data", payload.get("models")) if isinstance(payload, dict) else payload
    if not isinstance(entries, list):
        raise ProviderError(ErrorKind.PROTOCOL, "the model list is not in a form we know")
    names = {
        str(e.get("id") or e.get("name")) if isinstance(e, dict) else str(e)
        for e in entries
        if (isinstance(e, dict) and (e.get("id") or e.get("name"))) or isinstance(e, str)
    }
    return sorted(names)


async def check_connection(
    base_url: str, api_key: str, model: str, proxy: ProxyRoute | None = None
) -> ProbeAnswer:
    """One tiny, non-streaming request: the model's answer, or the reason it failed.
    ``proxy``: as for :func:`list_models`."""
    started = time.monotonic()
    payload = await _request(
        base_url,
        api_key,
        "POST",
        "chat/completions",
        CHECK_TIMEOUT_S,
        proxy,
        json={
            "model": model,
            "messages": [{"role": "user", "content": CHECK_PROMPT}],
            "max_tokens": CHECK_MAX_TOKENS,
            "stream": False,
        },
    )
    try:
        choice = payload["choices"][0]
        message = choice.get("message") or {}
        text = message.get("content") or message.get("reasoning_content") or ""
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ProviderError(
            ErrorKind.PROTOCOL, "the answer has no choices[0].message: not OpenAI-compatible?"
        ) from None
    if not isinstance(text, str):
        raise ProviderError(ErrorKind.PROTOCOL, "the answer's text is not a string")
    text = " ".join(text.split())
    return ProbeAnswer(
        text=text if len(text) <= 200 else text[:199] + "…",
        model=str(payload.get("model") or model),
        seconds=time.monotonic() - started,
    )
