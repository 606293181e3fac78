"""Conversations and the generations that stream into them.

A :class:`Generation` runs on its own task and is only *watched* by HTTP responses: a page that
goes away (closed tab, navigation, timeout) does not end it, as on the real sites, so the session
stays busy until the answer is done or somebody presses Stop.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from media_assistant.sim.chat_markdown import render
from media_assistant.sim.chat_stats import Outcome
from media_assistant.sim.chinese import answer_prefix, chinese_filler, is_chinese

MessageState = Literal["done", "generating", "stopped", "failed"]

CHUNK_CHARS = 16  # a few tokens per streamed chunk
FIRST_CHUNK_SHARE = 0.1  # time to the first chunk, as a share of the generation's latency
CHUNKS_BEFORE_MIDSTREAM_ERROR = 3

_WORDS = (
    "the quick brown fox jumps over a lazy dog while media teams write clear "
    "articles titles and product notes for readers who value short useful text "
    "every paragraph explains one idea with care and a concrete example"
).split()

_STATE_AFTER: dict[Outcome, MessageState] = {
    "completed": "done",
    "stopped": "stopped",
    "failed": "failed",
}


@dataclass(frozen=True, slots=True)
class StreamError:
    code: str
    message: str  # shown to the human: Chinese / English, as the toasts of the real sites


CONFLICT = StreamError("concurrent_stream", "已有对话流正在输出 / Only one message at a time")
MIDSTREAM = StreamError("stream_error", "网络错误，请重试 / Network error, please retry")
SHUTDOWN = StreamError("server_shutdown", "服务已停止 / Service stopped")
# The server failed and the page is told nothing it would show: it takes the answer away.
DROPPED = StreamError("dropped", "")


def new_id() -> str:
    return str(uuid.uuid4())


def compose_answer(text: str, rng: random.Random, length: int) -> str:
    """``"Answer to: <text>"``, a blank line, then ``length`` characters of filler (in Chinese
    for a Chinese prompt: sim/chinese.py)."""
    if is_chinese(text):
        return f"{answer_prefix(text)}\n\n" + chinese_filler(rng, length)
    words: list[str] = []
    size = 0
    while size < length:
        word = rng.choice(_WORDS)
        words.append(word)
        size += len(word) + 1
    return f"Answer to: {text}\n\n" + " ".join(words)[:length]


@dataclass(slots=True)
class Message:
    role: Literal["user", "assistant"]
    text: str = ""
    state: MessageState = "done"
    error: str | None = None
    id: str = field(default_factory=new_id)
    html: str | None = None  # Markdown answers: the text rendered, as the page shows it
    error_box: str | None = None  # an error drawn inside the answer area (then "done")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "role": self.role,
            "text": self.text,
            "state": self.state,
            "error": self.error,
            "html": self.html,
            "error_box": self.error_box,
        }


@dataclass(slots=True)
class Conversation:
    user: str
    id: str = field(default_factory=new_id)
    messages: list[Message] = field(default_factory=list)

    @property
    def title(self) -> str:
        for message in self.messages:
            if message.role == "user":
                first_line = message.text.strip().splitlines()[0] if message.text.strip() else ""
                return first_line[:40] or "新对话 / New chat"
        return "新对话 / New chat"

    def last_user_text(self) -> str | None:
        for message in reversed(self.messages):
            if message.role == "user":
                return message.text
        return None


class Generation:
    """One answer being written; ``finish`` ends it exactly once, whoever calls first."""

    def __init__(
        self,
        *,
        user: str,
        conversation: Conversation,
        message: Message,
        answer: str,
        latency_s: float,
        fail_after_chunks: int | None,
        on_end: Callable[[Generation], None],
        markdown: bool = False,
        error_box: str | None = None,
        fail_with: StreamError = MIDSTREAM,
    ) -> None:
        self.user = user
        self.conversation = conversation
        self.message = message
        self.pieces = [answer[i : i + CHUNK_CHARS] for i in range(0, len(answer), CHUNK_CHARS)]
        self.emitted: list[str] = []
        self.outcome: Outcome | None = None
        self.error: StreamError | None = None
        self._first_s = FIRST_CHUNK_SHARE * latency_s
        self._step_s = (latency_s - self._first_s) / max(1, len(self.pieces))
        self._fail_after = fail_after_chunks
        self._fail_with = fail_with
        self._on_end = on_end
        self.markdown = markdown
        self.error_box = error_box
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> asyncio.Task[None]:
        self._task = asyncio.create_task(self._run(), name=f"chat-generation-{self.message.id}")
        return self._task

    async def changed(self) -> None:
        """Wait for the next chunk or the end."""
        await self._changed.wait()

    def finish(self, outcome: Outcome, error: StreamError | None = None) -> None:
        if self.outcome is not None:
            return
        self.outcome, self.error = outcome, error
        self.message.state = _STATE_AFTER[outcome]
        self.message.error = error.message if error else None
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        self._notify()
        self._on_end(self)

    def _notify(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.sleep(self._first_s)
        for index, piece in enumerate(self.pieces):
            if index == self._fail_after:
                self.finish("failed", self._fail_with)
                return
            self.emitted.append(piece)
            self.message.text += piece
            if self.markdown:
                self.message.html = render(self.message.text)
            self._notify()
            due = started + self._first_s + (index + 1) * self._step_s
            await asyncio.sleep(max(0.0, due - loop.time()))
        if self.error_box is not None:
            self.message.error_box = self.error_box
        self.finish("completed")
