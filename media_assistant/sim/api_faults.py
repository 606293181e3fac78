"""Faults the fake API can be told to produce on its next requests (from Python or over HTTP)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum


class Fault(StrEnum):
    SERVER_ERROR = "500"  # HTTP 500
    HANG = "hang"  # accept, then never send a byte
    STALL = "stall"  # stream a few chunks, then go silent
    MALFORMED = "malformed"  # a stream chunk that is not JSON
    INVALID_KEY = "401"  # invalid_api_key
    CONTEXT_LENGTH = "context_length"  # 400 context_length_exceeded
    CONTENT_POLICY = "content_policy"  # 400 content_filter
    INSUFFICIENT_QUOTA = "insufficient_quota"  # 429 insufficient_quota
    RATE_LIMIT = "429"  # 429 rate_limit_exceeded with retry-after
    DISCONNECT = "disconnect"  # drop the connection mid-stream
    # Answers a quality gate turns down (core/rules/quality.py): a well-formed 200 reply.
    REFUSAL = "refusal"  # "I'm sorry, but I can't help with that."
    REFUSAL_ZH = "refusal_zh"  # "抱歉，我无法回答这个问题。"
    LENGTH = "length"  # the answer cut short with finish_reason "length"

    @property
    def answers_with_status(self) -> bool:
        """True for faults that are a plain error response (no stream, no waiting)."""
        return self in _STATUS_FAULTS


_STATUS_FAULTS = frozenset(
    {
        Fault.SERVER_ERROR,
        Fault.INVALID_KEY,
        Fault.CONTEXT_LENGTH,
        Fault.CONTENT_POLICY,
        Fault.INSUFFICIENT_QUOTA,
        Fault.RATE_LIMIT,
    }
)

DEFAULT_RETRY_AFTER_S = 2.0  # simulated seconds an injected "429" asks the client to wait


@dataclass(slots=True)
class FaultRule:
    fault: Fault
    remaining: int
    match: str | None = None  # only requests whose last user message contains this
    key: str | None = None  # only requests with this bearer key
    retry_after_s: float = DEFAULT_RETRY_AFTER_S  # simulated seconds, for "429"
    # For "429": send exactly this ``retry-after`` value instead (an HTTP date, an absurd or
    # garbled number...), without ``retry-after-ms``; "" sends no Retry-After at all.
    retry_after_header: str | None = None

    def applies_to(self, user_text: str, key: str) -> bool:
        if self.match is not None and self.match not in user_text:
            return False
        return self.key is None or self.key == key


@dataclass(frozen=True, slots=True)
class ErrorReply:
    status: int
    message: str
    type: str
    code: str | None
    param: str | None = None


ERROR_REPLIES: dict[Fault, ErrorReply] = {
    Fault.SERVER_ERROR: ErrorReply(
        500, "The server had an error processing your request.", "server_error", None
    ),
    Fault.INVALID_KEY: ErrorReply(
        401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"
    ),
    Fault.CONTEXT_LENGTH: ErrorReply(
        400,
        "This model's maximum context length is 65536 tokens. However, you requested 70000 "
        "tokens. Please reduce the length of the messages.",
        "invalid_request_error",
        "context_length_exceeded",
        "messages",
    ),
    Fault.CONTENT_POLICY: ErrorReply(
        400,
        "The response was filtered due to the prompt triggering the content management policy.",
        "invalid_request_error",
        "content_filter",
        "prompt",
    ),
    Fault.INSUFFICIENT_QUOTA: ErrorReply(
        429,
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "insufficient_quota",
    ),
    Fault.RATE_LIMIT: ErrorReply(
        429,
        "Rate limit reached for requests (injected).",
        "rate_limit_exceeded",
        "rate_limit_exceeded",
    ),
}


class FaultBook:
    """Pending faults, first injected first applied. Thread-safe: tests inject from their thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[FaultRule] = []

    def add(self, rule: FaultRule) -> None:
        if rule.remaining < 1:
            raise ValueError("count must be at least 1")
        with self._lock:
            self._rules.append(rule)

    def take(self, user_text: str, key: str) -> FaultRule | None:
        """The first rule that applies to this request, with one use consumed."""
        with self._lock:
            for rule in self._rules:
                if rule.applies_to(user_text, key):
                    rule.remaining -= 1
                    if rule.remaining == 0:
                        self._rules.remove(rule)
                    return rule
        return None

    def pending(self) -> int:
        with self._lock:
            return sum(rule.remaining for rule in self._rules)

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()
