"""The API provider's pure parts: error classification, header parsing, SSE decoding, messages,
and API key lookup (env var, keyring)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from email.utils import formatdate

import httpx
import keyring
import keyring.backend
import keyring.backends.fail
import pytest

from media_assistant.core.model.errors import ConfigError, ErrorKind, ProviderError
from media_assistant.core.model.provider import TaskSpec
from media_assistant.core.model.states import ModelKind
from media_assistant.providers.api import (
    chat_messages,
    classify_http_error,
    classify_stream_error,
    classify_transport_error,
    parse_duration,
    parse_retry_after,
    throttle_hint,
)
from media_assistant.providers.api.classify import error_details
from media_assistant.providers.api.sse import SseDecoder, SseEvent
from media_assistant.providers.secrets import KEYRING_SERVICE, resolve_api_key, store_api_key

NOW = 1_700_000_000.0


def openai_error(type_: str | None, code: str | None, message: str = "something") -> bytes:
    return json.dumps({"error": {"message": message, "type": type_, "code": code}}).encode()


def classify(status: int, body: bytes | str = b"", **headers: str) -> ProviderError:
    return classify_http_error(status, headers, body, now=NOW)


# -- HTTP errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, openai_error("invalid_request_error", "invalid_api_key"), ErrorKind.AUTH_REJECTED),
        (403, b"Forbidden", ErrorKind.AUTH_REJECTED),
        (
            400,
            openai_error("invalid_request_error", "context_length_exceeded"),
            ErrorKind.CONTEXT_TOO_LONG,
        ),
        (
            400,  # DeepSeek: no code, only the message says it
            openai_error(
                "invalid_request_error",
                None,
                "This model's maximum context length is 65536 tokens. However, you requested "
                "70000 tokens.",
            ),
            ErrorKind.CONTEXT_TOO_LONG,
        ),
        (
            400,  # DashScope
            openai_error(
                "InvalidParameter", "InvalidParameter", "Range of input length should be [1, 30720]"
            ),
            ErrorKind.CONTEXT_TOO_LONG,
        ),
        (413, b"Payload Too Large", ErrorKind.CONTEXT_TOO_LONG),
        (400, openai_error("invalid_request_error", "content_filter"), ErrorKind.CONTENT_POLICY),
        (
            400,
            openai_error("invalid_request_error", "content_policy_violation"),
            ErrorKind.CONTENT_POLICY,
        ),
        (
            400,
            openai_error(
                "data_inspection_failed",
                "data_inspection_failed",
                "Input data may contain inappropriate content.",
            ),
            ErrorKind.CONTENT_POLICY,
        ),
        (
            400,  # DashScope native format
            b'{"code": "DataInspectionFailed", "message": "Output data may contain it."}',
            ErrorKind.CONTENT_POLICY,
        ),
        (400, openai_error("invalid_request_error", "invalid_value"), ErrorKind.BAD_REQUEST),
        (404, openai_error("invalid_request_error", "model_not_found"), ErrorKind.BAD_REQUEST),
        (422, b'{"detail": [{"loc": ["body", "messages"]}]}', ErrorKind.BAD_REQUEST),
        (429, openai_error("insufficient_quota", None), ErrorKind.INSUFFICIENT_QUOTA),
        (429, openai_error(None, "insufficient_quota"), ErrorKind.INSUFFICIENT_QUOTA),
        (402, b'{"error": {"message": "Insufficient Balance"}}', ErrorKind.INSUFFICIENT_QUOTA),
        (429, openai_error("rate_limit_exceeded", "rate_limit_exceeded"), ErrorKind.RATE_LIMITED),
        (429, b"", ErrorKind.RATE_LIMITED),
        (500, openai_error("server_error", None), ErrorKind.SERVER_ERROR),
        (502, b"<html>Bad Gateway</html>", ErrorKind.SERVER_ERROR),
        (503, b"", ErrorKind.SERVER_ERROR),
        (408, b"", ErrorKind.SERVER_ERROR),
        (409, b"", ErrorKind.SERVER_ERROR),
        (301, b"", ErrorKind.BAD_CONFIG),
    ],
)
def test_http_status_and_body_give_the_kind(status: int, body: bytes, kind: ErrorKind) -> None:
    error = classify(status, body)
    assert error.kind is kind
    assert error.status == status
    assert error.message.startswith(f"HTTP {status}: ")


def test_retryable_and_final_kinds() -> None:
    assert classify(500).retryable
    assert classify(429).retryable
    assert not classify(401).retryable
    assert not classify(400, openai_error(None, "context_length_exceeded")).retryable
    assert not classify(429, openai_error("insufficient_quota", None)).retryable


def test_message_carries_the_servers_words_shortened() -> None:
    error = classify(400, openai_error("invalid_request_error", "invalid_value", "bad temp"))
    assert "bad temp" in error.message
    assert "invalid_value" in error.message
    long = classify(502, "x" * 5000)
    assert len(long.message) < 400


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),  # the precise one wins
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after": formatdate(NOW + 30, usegmt=True)}, 30.0),
        ({"retry-after": formatdate(NOW - 30, usegmt=True)}, 0.0),  # already passed
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-5"}, None),
        ({}, None),
    ],
)
def test_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == pytest.approx(expected)


def test_rate_limited_and_server_errors_carry_retry_after() -> None:
    assert classify(429, b"", **{"retry-after-ms": "250"}).retry_after == pytest.approx(0.25)
    assert classify(429, b"", **{"retry-after": "3"}).retry_after == 3.0
    assert classify(429, b"").retry_after is None
    assert classify(503, b"", **{"retry-after": "12"}).retry_after == 12.0
    assert classify(401, b"", **{"retry-after": "12"}).retry_after is None


@pytest.mark.parametrize(
    ("payload", "kind"),
    [
        ({"error": {"code": 502, "message": "upstream failed"}}, ErrorKind.SERVER_ERROR),
        ({"error": {"code": 429, "message": "slow down"}}, ErrorKind.RATE_LIMITED),
        ({"error": {"type": "insufficient_quota", "message": "pay"}}, ErrorKind.INSUFFICIENT_QUOTA),
        ({"error": {"code": "content_filter", "message": "no"}}, ErrorKind.CONTENT_POLICY),
        ({"error": {"code": "invalid_api_key", "message": "who"}}, ErrorKind.AUTH_REJECTED),
        ({"error": {"message": "something broke"}}, ErrorKind.SERVER_ERROR),
        ({"error": "plain text error"}, ErrorKind.SERVER_ERROR),
    ],
)
def test_errors_inside_a_stream(payload: dict[str, object], kind: ErrorKind) -> None:
    assert classify_stream_error(payload, now=NOW).kind is kind


def test_error_details_reads_every_dialect() -> None:
    assert error_details(openai_error("t", "c", "m")).message == "m"
    assert error_details(openai_error("t", "c", "m")).codes == {"t", "c"}
    assert error_details(b'{"error": "just words"}').message == "just words"
    assert error_details(b'{"message": "vllm says", "code": 400}').codes == {"400"}
    assert error_details(b'{"detail": "fastapi says"}').message == "fastapi says"
    assert error_details(b"<html>\n  Bad   Gateway</html>").message == "<html> Bad Gateway</html>"
    assert error_details(b"").message == "(empty body)"


# -- transport errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (httpx.ReadTimeout("read"), ErrorKind.TIMEOUT),
        (httpx.ConnectTimeout("connect"), ErrorKind.NETWORK),
        (httpx.ConnectError("refused"), ErrorKind.NETWORK),
        (httpx.ReadError("reset"), ErrorKind.NETWORK),
        (httpx.RemoteProtocolError("peer closed connection"), ErrorKind.NETWORK),
        (httpx.LocalProtocolError("bad"), ErrorKind.PROTOCOL),
        (httpx.DecodingError("gzip"), ErrorKind.PROTOCOL),
        (httpx.UnsupportedProtocol("ftp"), ErrorKind.BAD_CONFIG),
    ],
)
def test_transport_errors(exc: httpx.RequestError, kind: ErrorKind) -> None:
    error = classify_transport_error(exc, connect_timeout_s=10, idle_timeout_s=60)
    assert error.kind is kind


def test_read_timeout_names_the_idle_timeout() -> None:
    error = classify_transport_error(httpx.ReadTimeout(""), connect_timeout_s=5, idle_timeout_s=45)
    assert "45s" in error.message


# -- rate-limit headers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1s", 1.0),
        ("6m0s", 360.0),
        ("20ms", 0.02),
        ("1h2m3.5s", 3723.5),
        ("0.5", 0.5),
        ("17", 17.0),
        ("250µs", 0.00025),
        ("0s", 0.0),
        ("", None),
        ("soon", None),
        ("1x", None),
        ("1s2", None),
        ("s", None),
    ],
)
def test_parse_duration(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


def test_throttle_when_requests_nearly_out() -> None:
    hint = throttle_hint(
        {"X-RateLimit-Remaining-Requests": "1", "X-RateLimit-Reset-Requests": "1.5s"}
    )
    assert hint is not None
    seconds, reason = hint
    assert seconds == 1.5
    assert "request" in reason


def test_throttle_when_tokens_nearly_out_takes_the_longer_wait() -> None:
    hint = throttle_hint(
        {
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "2s",
            "x-ratelimit-remaining-tokens": "120",
            "x-ratelimit-reset-tokens": "6m0s",
        }
    )
    assert hint is not None and hint[0] == 360.0 and "token" in hint[1]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"x-ratelimit-remaining-requests": "5", "x-ratelimit-reset-requests": "1s"},
        {"x-ratelimit-remaining-requests": "0"},  # no reset: nothing to wait for
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "0s"},
        {"x-ratelimit-remaining-tokens": "5000", "x-ratelimit-reset-tokens": "1s"},
        {  # a small tpm account is not "nearly out" after every request
            "x-ratelimit-limit-tokens": "2000",
            "x-ratelimit-remaining-tokens": "900",
            "x-ratelimit-reset-tokens": "1s",
        },
    ],
)
def test_no_throttle(headers: dict[str, str]) -> None:
    assert throttle_hint(headers) is None


# -- SSE ------------------------------------------------------------------------------------------


def decode(lines: list[str]) -> list[SseEvent]:
    decoder = SseDecoder()
    events = [e for line in lines if (e := decoder.feed(line)) is not None]
    if (last := decoder.flush()) is not None:
        events.append(last)
    return events


def test_sse_multiline_data_comments_and_fields() -> None:
    events = decode(
        [
            ": keep-alive",
            "event: delta",
            "id: 7",
            "data: first",
            "data:second",
            "retry: 1000",
            "",
            "",
            "data: [DONE]",
        ]
    )
    assert events == [SseEvent("first\nsecond", "delta", "7"), SseEvent("[DONE]", "message", "7")]


def test_sse_keeps_spaces_after_the_first() -> None:
    assert decode(["data:  two spaces", ""]) == [SseEvent(" two spaces")]


# -- messages -------------------------------------------------------------------------------------


def spec(system: str | None, *, need_empty_prompt: bool = False) -> TaskSpec:
    return TaskSpec(
        task_id="t1",
        model="m",
        model_kind=ModelKind.API,
        account_id="a",
        prompt="Write a title",
        system_prompt=system,
        attempt=1,
        need_empty_prompt=need_empty_prompt,
    )


def test_messages_with_and_without_system_prompt() -> None:
    assert chat_messages(spec("Be brief")) == [
        {"role": "system", "content": "Be brief"},
        {"role": "user", "content": "Write a title"},
    ]
    user_only = [{"role": "user", "content": "Write a title"}]
    assert chat_messages(spec(None)) == user_only
    assert chat_messages(spec("")) == user_only
    assert chat_messages(spec("Be brief", need_empty_prompt=True)) == user_only


# -- API keys -------------------------------------------------------------------------------------


class MemoryKeyring(keyring.backend.KeyringBackend):
    priority = -1  # type: ignore[assignment]  # never chosen by keyring on its own: set it

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """Never touch the developer's real keyring: tests get an in-memory one (or set another)."""
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    yield memory
    keyring.set_keyring(previous)


def test_key_from_environment_first(
    monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.set_password(KEYRING_SERVICE, "ds-api", "from-keyring")
    monkeypatch.setenv("DS_KEY", "  from-env\n")
    assert resolve_api_key("ds-api", "DS_KEY") == "from-env"
    monkeypatch.delenv("DS_KEY")
    assert resolve_api_key("ds-api", "DS_KEY") == "from-keyring"
    assert resolve_api_key("ds-api", None) == "from-keyring"


def test_missing_key_names_the_account_and_where_we_looked(
    monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring
) -> None:
    monkeypatch.delenv("DS_KEY", raising=False)
    with pytest.raises(ProviderError) as caught:
        resolve_api_key("ds-api", "DS_KEY")
    assert caught.value.kind is ErrorKind.BAD_CONFIG
    message = caught.value.message
    assert "'ds-api'" in message and "DS_KEY" in message and "keyring" in message
    assert "accounts set-key ds-api" in message


def test_no_keyring_on_this_system(memory_keyring: MemoryKeyring) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())
    with pytest.raises(ProviderError, match="none available"):
        resolve_api_key("ds-api", None)
    with pytest.raises(ConfigError, match="api_key_env"):
        store_api_key("ds-api", "sk-secret-value")


def test_store_key(memory_keyring: MemoryKeyring) -> None:
    store_api_key("ds-api", " sk-123 \n")
    assert memory_keyring.entries == {(KEYRING_SERVICE, "ds-api"): "sk-123"}
    with pytest.raises(ConfigError, match="empty"):
        store_api_key("ds-api", "   ")
