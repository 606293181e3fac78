"""What the fake OpenAI API says: deterministic answers and the JSON shapes that carry them.

An answer always starts with ``"Answer to: <last user message>"`` (``"回答：<…>"`` and Chinese
filler for a Chinese message: sim/chinese.py) so a test can tell which task got which answer; the
filler after it is drawn from a generator seeded by the request itself, so the same request
always gets the same answer.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from media_assistant.sim.chinese import answer_prefix, chinese_filler, is_chinese, thinking_prefix

_WORDS = (
    "the quick brown fox jumps over a lazy dog while media teams write clear "
    "articles titles and product notes for readers who value short useful text "
    "every paragraph explains one idea with care and a concrete example"
).split()

# A prompt may carry "[task:<id>]" so a test or benchmark can match requests to its tasks.
_TASK_MARKER = re.compile(r"\[task:([^\]\s]+)\]")

CHUNK_CHARS = 16  # about four tokens per streamed chunk


def is_reasoning_model(model: str) -> bool:
    name = model.lower()
    return "reasoner" in name or "r1" in name


def message_text(message: Mapping[str, Any]) -> str:
    """The text of one chat message, whether ``content`` is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    return ""


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return message_text(message)
    return ""


def task_marker(text: str) -> str | None:
    found = _TASK_MARKER.search(text)
    return found.group(1) if found else None


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def request_rng(
    seed: int | None, model: str, messages: Sequence[Mapping[str, Any]]
) -> random.Random:
    """A generator that depends only on the request (and the simulator's seed)."""
    material = json.dumps([seed, model, list(messages)], sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(material.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _filler(rng: random.Random, length: int) -> str:
    words: list[str] = []
    size = 0
    while size < length:
        word = rng.choice(_WORDS)
        words.append(word)
        size += len(word) + 1
    return " ".join(words)[:length]


@dataclass(frozen=True, slots=True)
class Reply:
    content: str
    reasoning: str  # empty unless the model is a reasoning model
    prompt_tokens: int

    @property
    def completion_tokens(self) -> int:
        return estimate_tokens(self.content) + estimate_tokens(self.reasoning)

    def usage(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }


def make_reply(
    seed: int | None,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    answer_chars: tuple[int, int],
) -> Reply:
    rng = request_rng(seed, model, messages)
    user = last_user_text(messages)
    filler = chinese_filler if is_chinese(user) else _filler
    content = f"{answer_prefix(user)}\n\n" + filler(rng, rng.randint(*answer_chars))
    reasoning = ""
    if is_reasoning_model(model):
        reasoning = f"{thinking_prefix(user)}\n" + filler(rng, rng.randint(*answer_chars) // 3)
    prompt_tokens = sum(estimate_tokens(message_text(m)) for m in messages)
    return Reply(content=content, reasoning=reasoning, prompt_tokens=prompt_tokens)


REFUSALS = {
    "refusal": "I'm sorry, but I can't help with that request.",
    "refusal_zh": "抱歉，我无法回答这个问题。",
}
LENGTH_CUT_CHARS = 60  # what a "length" fault leaves of the answer


def poor_reply(reply: Reply, fault: object) -> Reply:
    """The answer an injected refusal or length fault turns ``reply`` into (else ``reply``)."""
    name = str(getattr(fault, "value", fault))
    if name in REFUSALS:
        return Reply(content=REFUSALS[name], reasoning="", prompt_tokens=reply.prompt_tokens)
    if name == "length":
        return Reply(reply.content[:LENGTH_CUT_CHARS], reply.reasoning, reply.prompt_tokens)
    return reply


def finish_reason(fault: object) -> str:
    return "length" if str(getattr(fault, "value", fault)) == "length" else "stop"


def split_chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class ChunkWriter:
    """Builds the ``data: {...}`` lines of one ``chat.completion.chunk`` stream."""

    def __init__(self, model: str, *, include_usage: bool) -> None:
        self.model = model
        self.include_usage = include_usage
        self.id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        self.created = int(time.time())

    def _event(self, payload: Mapping[str, Any]) -> bytes:
        return b"data: " + json.dumps(payload, ensure_ascii=False).encode("utf-8") + b"\n\n"

    def chunk(self, delta: Mapping[str, Any], finish_reason: str | None = None) -> bytes:
        payload: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": dict(delta), "finish_reason": finish_reason}],
        }
        if self.include_usage:
            payload["usage"] = None
        return self._event(payload)

    def usage_chunk(self, usage: Mapping[str, int]) -> bytes:
        return self._event(
            {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "choices": [],
                "usage": dict(usage),
            }
        )

    @staticmethod
    def done() -> bytes:
        return b"data: [DONE]\n\n"

    @staticmethod
    def malformed() -> bytes:
        return b'data: {"id": "chatcmpl-broken", "choices": [{"delta": {"content": "x"\n\n'


def completion_body(model: str, reply: Reply, finish: str = "stop") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": reply.usage(),
    }


def error_body(message: str, type_: str, code: str | None, param: str | None = None) -> bytes:
    error = {"message": message, "type": type_, "param": param, "code": code}
    return json.dumps({"error": error}).encode("utf-8")
