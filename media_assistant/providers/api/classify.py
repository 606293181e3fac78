"""What went wrong with an API call, as an :class:`ErrorKind` the lanes know how to handle.

Pure functions: an HTTP status + headers + body, an error object inside a stream, or an httpx
transport exception in; a :class:`ProviderError` out (never raised here). Messages carry the
server's own words (shortened) so the operator's log says what the provider said.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.providers.api.headers import parse_retry_after

MAX_MESSAGE_CHARS = 300

# Codes and types are compared lower-cased. Numbers are Zhipu (GLM) business codes.
_AUTH_CODES = frozenset(
    {"invalid_api_key", "invalid_authentication", "authentication_error", "unauthorized"}
)
_QUOTA_CODES = frozenset(
    {
        "insufficient_quota",
        "insufficient_balance",
        "exceeded_current_quota_error",  # Moonshot
        "billing_hard_limit_reached",
        "arrearage",  # DashScope
        "1113",  # Zhipu: account in arrears
    }
)
_RATE_CODES = frozenset(
    {
        "rate_limit_exceeded",
        "rate_limit_error",
        "rate_limit_reached",
        "too_many_requests",
        "resource_exhausted",
    }
)
_CONTEXT_CODES = frozenset(
    {"context_length_exceeded", "context_window_exceeded", "string_above_max_length"}
)
_POLICY_CODES = frozenset(
    {
        "content_filter",
        "content_policy_violation",
        "data_inspection_failed",  # DashScope (compatible mode)
        "datainspectionfailed",  # DashScope (native)
        "1301",  # Zhipu: unsafe or sensitive content
    }
)
_QUOTA_TEXT = re.compile(
    r"insufficient[ _](?:quota|balance)|exceeded your current quota|余额不足|欠费", re.IGNORECASE
)
_CONTEXT_TEXT = re.compile(
    r"context[ _]length|context window|maximum context|token limit|too many tokens"
    r"|prompt is too long|input (?:is )?too long|range of input length|超长",
    re.IGNORECASE,
)
_POLICY_TEXT = re.compile(
    r"content (?:management )?policy|content[ _]filter|data inspection|inappropriate content"
    r"|不安全|敏感内容",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ErrorDetails:
    """The useful parts of an error body, whatever its dialect."""

    message: str
    codes: frozenset[str]  # error.type / error.code / top-level ones, lower-cased

    def label(self) -> str:
        shown = sorted(c for c in self.codes if c)
        return f"{self.message} [{', '.join(shown)}]" if shown else self.message


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1] + "…"


def error_details(body: bytes | str | Mapping[str, Any]) -> ErrorDetails:
    """``{"error": {"message", "type", "code"}}`` (OpenAI), ``{"error": "..."}``,
    ``{"message", "code"}`` (DashScope native, vLLM), ``{"detail": ...}``, or plain text."""
    parsed: Any = body
    if isinstance(body, bytes | str):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        try:
            parsed = json.loads(text)
        except ValueError:
            return ErrorDetails(_shorten(text) or "(empty body)", frozenset())
    if not isinstance(parsed, Mapping):
        return ErrorDetails(_shorten(str(parsed)), frozenset())
    inner = parsed.get("error")
    layers = [inner, parsed] if isinstance(inner, Mapping) else [parsed]
    codes = frozenset(
        str(layer[name]).lower()
        for layer in layers
        for name in ("type", "code", "status")
        if isinstance(layer.get(name), str | int) and not isinstance(layer.get(name), bool)
    )
    candidates = [layer.get(name) for layer in layers for name in ("message", "msg", "detail")]
    if isinstance(inner, str):
        candidates.insert(0, inner)
    message = next((c for c in candidates if isinstance(c, str) and c.strip()), None)
    if message is None:
        message = json.dumps(parsed, ensure_ascii=False)
    return ErrorDetails(_shorten(message), codes)


def _is(details: ErrorDetails, codes: frozenset[str], text: re.Pattern[str] | None) -> bool:
    if details.codes & codes:
        return True
    return text is not None and text.search(details.message) is not None


def classify_http_error(
    status: int, headers: Mapping[str, str], body: bytes | str | Mapping[str, Any], *, now: float
) -> ProviderError:
    """The error for a non-200 answer. ``now`` (epoch seconds) dates an HTTP-date Retry-After."""
    details = error_details(body)
    retry_after = parse_retry_after(headers, now=now)

    def error(kind: ErrorKind, hint: str = "", *, wait: float | None = None) -> ProviderError:
        message = f"HTTP {status}: {details.label()}" + (f" ({hint})" if hint else "")
        return ProviderError(kind, message, retry_after=wait, status=status)

    if 300 <= status < 400:
        return error(ErrorKind.BAD_CONFIG, "the API redirected: check base_url")
    if status in (401, 403):
        return error(ErrorKind.AUTH_REJECTED)
    if status == 402 or (status in (400, 429) and _is(details, _QUOTA_CODES, _QUOTA_TEXT)):
        return error(ErrorKind.INSUFFICIENT_QUOTA)
    if status == 429:
        return error(ErrorKind.RATE_LIMITED, wait=retry_after)
    if status in (408, 409) or status >= 500:
        return error(ErrorKind.SERVER_ERROR, wait=retry_after)
    if status == 413 or (400 <= status < 500 and _is(details, _CONTEXT_CODES, _CONTEXT_TEXT)):
        return error(ErrorKind.CONTEXT_TOO_LONG)
    if 400 <= status < 500 and _is(details, _POLICY_CODES, _POLICY_TEXT):
        return error(ErrorKind.CONTENT_POLICY)
    if 400 <= status < 500:
        return error(ErrorKind.BAD_REQUEST)
    return error(ErrorKind.PROTOCOL, "unexpected status")


def classify_stream_error(payload: Mapping[str, Any], *, now: float) -> ProviderError:
    """An ``{"error": ...}`` object sent inside a 200 stream (OpenRouter, vLLM, some proxies)."""
    details = error_details(payload)
    inner = payload.get("error")
    code = inner.get("code") if isinstance(inner, Mapping) else payload.get("code")
    if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600:
        return classify_http_error(code, {}, payload, now=now)
    message = f"error in the stream: {details.label()}"
    for kind, codes, text in (
        (ErrorKind.AUTH_REJECTED, _AUTH_CODES, None),
        (ErrorKind.INSUFFICIENT_QUOTA, _QUOTA_CODES, _QUOTA_TEXT),
        (ErrorKind.RATE_LIMITED, _RATE_CODES, None),
        (ErrorKind.CONTEXT_TOO_LONG, _CONTEXT_CODES, _CONTEXT_TEXT),
        (ErrorKind.CONTENT_POLICY, _POLICY_CODES, _POLICY_TEXT),
    ):
        if _is(details, codes, text):
            return ProviderError(kind, message)
    return ProviderError(ErrorKind.SERVER_ERROR, message)


def classify_transport_error(
    exc: httpx.RequestError, *, connect_timeout_s: float, idle_timeout_s: float
) -> ProviderError:
    """Network trouble: nothing (or nothing complete) came back. Each case has a ``code``: the
    window says it in words (``connect_failed``: nothing answered at that address), the
    English message keeps the library's detail for the log."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ReadTimeout):
        return ProviderError(
            ErrorKind.TIMEOUT,
            f"the API sent nothing for {idle_timeout_s:g}s",
            code="idle_timeout",
            params={"seconds": idle_timeout_s},
        )
    if isinstance(exc, httpx.ConnectTimeout):
        return ProviderError(
            ErrorKind.NETWORK,
            f"could not connect to the API within {connect_timeout_s:g}s",
            code="connect_timeout",
            params={"seconds": connect_timeout_s},
        )
    if isinstance(exc, httpx.TimeoutException):  # write or pool
        return ProviderError(
            ErrorKind.TIMEOUT, f"sending the request timed out: {detail}", code="send_timeout"
        )
    if isinstance(exc, httpx.RemoteProtocolError):  # e.g. the peer closed mid-answer
        return ProviderError(
            ErrorKind.NETWORK, f"the connection was dropped: {detail}", code="dropped"
        )
    if isinstance(exc, httpx.ProtocolError | httpx.DecodingError):
        return ProviderError(
            ErrorKind.PROTOCOL, f"invalid HTTP from the API: {detail}", code="invalid_http"
        )
    if isinstance(exc, httpx.UnsupportedProtocol):
        return ProviderError(ErrorKind.BAD_CONFIG, f"bad base_url: {detail}", code="url_scheme")
    # ConnectError: refused, or the name does not resolve; ReadError, WriteError: cut off.
    code = "connect_failed" if isinstance(exc, httpx.ConnectError) else "dropped"
    return ProviderError(ErrorKind.NETWORK, f"{type(exc).__name__}: {detail}", code=code)
