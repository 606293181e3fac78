"""OpenAI-compatible HTTP APIs (httpx): one :class:`ApiProvider` per API account."""

from media_assistant.providers.api.classify import (
    classify_http_error,
    classify_stream_error,
    classify_transport_error,
)
from media_assistant.providers.api.headers import parse_duration, parse_retry_after, throttle_hint
from media_assistant.providers.api.provider import (
    MAX_CONCURRENCY,
    ApiProvider,
    ModelInfo,
    chat_messages,
)

__all__ = [
    "MAX_CONCURRENCY",
    "ApiProvider",
    "ModelInfo",
    "chat_messages",
    "classify_http_error",
    "classify_stream_error",
    "classify_transport_error",
    "parse_duration",
    "parse_retry_after",
    "throttle_hint",
]
