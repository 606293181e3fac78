"""The fake chat site's API, as the page's own JavaScript calls it (``/api/...``).

``POST /api/chat/completion`` answers with server-sent events (``data: {json}\\n\\n``): ``meta``,
``delta``…, then one of ``done``, ``stopped``, ``error``; refusals are JSON
``{"error": {"code", "message"}}`` with a status (401, 403, 404, 429, 503). Here lives the rule the
real sites enforce: one generation per account, and a second one breaks both.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from aiohttp import web

from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_crash import crash_peer_browser
from media_assistant.sim.chat_faults import ChatFault, ChatFaultBook
from media_assistant.sim.chat_generation import (
    CHUNKS_BEFORE_MIDSTREAM_ERROR,
    CONFLICT,
    DROPPED,
    MIDSTREAM,
    SHUTDOWN,
    Conversation,
    Generation,
    Message,
    compose_answer,
)
from media_assistant.sim.chat_markdown import ERROR_BOX_TEXT, ERROR_TEXT_ANSWER, compose_markdown
from media_assistant.sim.chat_sessions import COOKIE_NAME, Identity, SessionBook
from media_assistant.sim.chat_stats import ChatStatsBook

_REFUSALS: dict[ChatFault, tuple[int, str, str]] = {
    ChatFault.RATE_LIMITED: (429, "rate_limited", "请求过于频繁，请稍后再试 / Too many requests"),
    ChatFault.BUSY: (503, "server_busy", "服务器繁忙，请稍后再试 / Server busy, try again later"),
    ChatFault.CAPTCHA: (403, "captcha_required", "人机验证 / Verify you are human"),
}
# Faults that end a generation part-way: after this many chunks.
_FAIL_AFTER_CHUNKS: dict[ChatFault, int] = {
    ChatFault.ERROR_MIDSTREAM: CHUNKS_BEFORE_MIDSTREAM_ERROR,
    ChatFault.SILENT_FAILURE: 0,  # at the first chunk's time, before anything was shown
}
LOGIN_REQUIRED = (401, "login_required", "登录已过期，请重新登录 / Please log in again")
_NOT_FOUND = (404, "conversation_not_found", "对话不存在 / Conversation not found")


def error_response(status: int, code: str, message: str) -> web.Response:
    return web.json_response({"error": {"code": code, "message": message}}, status=status)


def _sse(event: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(event, ensure_ascii=False).encode("utf-8") + b"\n\n"


def _end_event(generation: Generation) -> dict[str, Any]:
    if generation.error is DROPPED:
        return {"type": "dropped"}
    if generation.error is not None:
        return {"type": "error", "code": generation.error.code, "message": generation.error.message}
    if generation.outcome == "completed":
        return {"type": "done", "error_box": generation.message.error_box}
    return {"type": "stopped"}


class ChatApi:
    """Conversations, the generations streaming into them, and the handlers that serve both.

    Everything here runs on the simulator's loop; the books it shares are thread-safe.
    """

    def __init__(
        self,
        config: ChatSiteConfig,
        sessions: SessionBook,
        faults: ChatFaultBook,
        stats: ChatStatsBook,
    ) -> None:
        self._config = config
        self._sessions = sessions
        self._faults = faults
        self._stats = stats
        self._rng = random.Random(config.seed)
        self._conversations: dict[str, Conversation] = {}
        self._streaming: dict[str, list[Generation]] = {}  # user → generations streaming
        self._tasks: set[asyncio.Task[None]] = set()

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/api/session", self._handle_session)
        app.router.add_post("/api/chat/completion", self._handle_completion)
        app.router.add_get("/api/chat/resume", self._handle_resume)
        app.router.add_post("/api/chat/stop", self._handle_stop)
        app.router.add_post("/api/captcha/verify", self._handle_captcha_verify)

    def conversation(self, user: str, conversation_id: str | None) -> Conversation | None:
        """``user``'s conversation with this id (None for anybody else's)."""
        conversation = self._conversations.get(conversation_id or "")
        return conversation if conversation is not None and conversation.user == user else None

    def answers_of(self, user: str) -> list[str]:
        """Every answer the user got, as the model wrote it (Markdown), oldest first."""
        return [
            m.text
            for c in list(self._conversations.values())
            if c.user == user
            for m in list(c.messages)
            if m.role == "assistant"
        ]

    def conversations_of(self, user: str) -> list[Conversation]:
        """Newest first; conversations that never got a message are left out."""
        mine = [c for c in self._conversations.values() if c.user == user and c.messages]
        return mine[::-1]

    async def end_all(self) -> None:
        """End every generation (watching pages get an error event) and wait for their tasks."""
        for generations in list(self._streaming.values()):
            for generation in list(generations):
                generation.finish("failed", SHUTDOWN)
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _user(self, request: web.Request) -> str | None:
        return self._sessions.valid_user(request.cookies.get(COOKIE_NAME))

    async def _handle_session(self, request: web.Request) -> web.Response:
        user = self._user(request)
        return web.json_response({"user": user}) if user else error_response(*LOGIN_REQUIRED)

    async def _handle_completion(self, request: web.Request) -> web.StreamResponse:
        identity = self._sessions.identify(request.cookies.get(COOKIE_NAME))
        if identity is None:
            return error_response(*LOGIN_REQUIRED)
        try:
            body = await request.json()
            text, conversation_id = body.get("text"), body.get("conversation_id")
            regenerate = bool(body.get("regenerate", False))
            model = body.get("model")
            if not (model is None or isinstance(model, str)):
                raise TypeError("'model' must be a string or null")
            if not (isinstance(text, str) or (regenerate and text is None)):
                raise TypeError("'text' must be a string")
            if not (conversation_id is None or isinstance(conversation_id, str)):
                raise TypeError("'conversation_id' must be a string or null")
        except (ValueError, TypeError, AttributeError) as exc:
            return error_response(400, "bad_request", f"invalid request: {exc}")
        if isinstance(text, str):
            self._stats.record_text(identity.user, text, model)
        return await self._answer(request, identity, text, conversation_id)

    async def _answer(
        self,
        request: web.Request,
        identity: Identity,
        text: str | None,
        conversation_id: str | None,
    ) -> web.StreamResponse:
        user = identity.user
        if not identity.valid:
            return error_response(*LOGIN_REQUIRED)
        if self._faults.challenged(user):  # an open challenge blocks until the human passes it
            fault: ChatFault | None = ChatFault.CAPTCHA
        else:
            fault = self._faults.take(user, text=text)
            if fault is ChatFault.CAPTCHA:
                self._faults.challenge(user)
        refusal = _REFUSALS.get(fault) if fault is not None else None
        if refusal is not None:
            self._stats.rejected(user)
            return error_response(*refusal)
        if text is not None and not text.strip():
            return error_response(400, "empty_message", "消息不能为空 / Message is empty")
        conversation = self.conversation(user, conversation_id)
        if conversation_id is not None and conversation is None:
            return error_response(*_NOT_FOUND)
        if conversation is None:
            if text is None:
                return error_response(400, "bad_request", "nothing to regenerate")
            conversation = Conversation(user)
            self._conversations[conversation.id] = conversation
        if text is None:  # regenerate: answer the last question again, in place of its answer
            text = conversation.last_user_text()
            last = conversation.messages[-1] if conversation.messages else None
            if text is None or last is None or last.state == "generating":
                return error_response(400, "bad_request", "nothing to regenerate")
            if last.role == "assistant":
                conversation.messages.pop()
        else:
            conversation.messages.append(Message("user", text))
        fail_after = _FAIL_AFTER_CHUNKS.get(fault) if fault is not None else None
        generation = self._begin(user, conversation, text, fail_after, fault)
        return await self._stream(request, generation, crash=fault is ChatFault.BROWSER_CRASH)

    def _begin(
        self,
        user: str,
        conversation: Conversation,
        text: str,
        fail_after: int | None,
        fault: ChatFault | None = None,
    ) -> Generation:
        config = self._config
        message = Message("assistant", state="generating")
        conversation.messages.append(message)
        length = self._rng.randint(*config.answer_chars)
        if fault in (ChatFault.ERROR_IN_ANSWER, ChatFault.EMPTY_ANSWER):
            answer = ""
        elif fault is ChatFault.ERROR_TEXT_ANSWER:
            answer = ERROR_TEXT_ANSWER
        elif config.markdown_answers:
            answer = compose_markdown(text, self._rng, length)
        else:
            answer = compose_answer(text, self._rng, length)
        generation = Generation(
            user=user,
            conversation=conversation,
            message=message,
            answer=answer,
            latency_s=self._rng.uniform(*config.latency_s) * config.time_scale,
            fail_after_chunks=fail_after,
            on_end=self._on_generation_end,
            markdown=config.markdown_answers,
            error_box=ERROR_BOX_TEXT if fault is ChatFault.ERROR_IN_ANSWER else None,
            fail_with=DROPPED if fault is ChatFault.SILENT_FAILURE else MIDSTREAM,
        )
        streaming = self._streaming.setdefault(user, [])
        streaming.append(generation)
        self._stats.started(user)
        # The key property of the real sites: one stream per account. A second one breaks both.
        if len(streaming) > 1:
            self._stats.conflict(user)
            for broken in list(streaming):
                broken.finish("failed", CONFLICT)
        else:
            task = generation.start()
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return generation

    def _on_generation_end(self, generation: Generation) -> None:
        if generation.error is DROPPED:  # a reload shows the question without an answer
            generation.conversation.messages.remove(generation.message)
        streaming = self._streaming.get(generation.user, [])
        if generation in streaming:
            streaming.remove(generation)
        assert generation.outcome is not None
        self._stats.ended(generation.user, generation.outcome)

    async def _stream(
        self, request: web.Request, generation: Generation, *, crash: bool = False
    ) -> web.StreamResponse:
        """Watch ``generation`` as server-sent events; leaving early does not end it.
        ``crash``: once its first chunk is out, the asking browser dies (fault browser_crash)."""
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-cache",
            }
        )
        meta = {
            "type": "meta",
            "conversation_id": generation.conversation.id,
            "message_id": generation.message.id,
            "title": generation.conversation.title,
        }
        try:
            await response.prepare(request)
            await response.write(_sse(meta))
            sent = 0
            while True:
                while sent < len(generation.emitted):
                    delta = {"type": "delta", "text": generation.emitted[sent]}
                    if generation.markdown:  # the page shows the rendered answer so far
                        delta["html"] = generation.message.html or ""
                    await response.write(_sse(delta))
                    sent += 1
                if crash and (sent or generation.outcome is not None):
                    crash = False
                    await self._crash_browser(request, generation.user)
                if generation.outcome is not None:
                    break
                await generation.changed()
            await response.write(_sse(_end_event(generation)))
            await response.write_eof()
        except asyncio.CancelledError:
            self._page_left(generation)
            raise
        except ConnectionError:  # aiohttp finishes such a response quietly
            self._page_left(generation)
        return response

    async def _crash_browser(self, request: web.Request, user: str) -> None:
        transport = request.transport
        peer = transport.get_extra_info("peername") if transport is not None else None
        local = transport.get_extra_info("sockname") if transport is not None else None

        def crash_and_count() -> None:
            # Counted in the thread that kills: the kill resets this request's connection, and
            # aiohttp may cancel this handler before the thread's result comes back to it.
            pid = crash_peer_browser(peer, local)
            if pid is not None:
                self._stats.browser_crashed(user, pid)

        await asyncio.to_thread(crash_and_count)

    def _page_left(self, generation: Generation) -> None:
        self._stats.page_left(generation.user)
        if not self._config.keep_generating_on_disconnect:
            generation.finish("stopped")

    async def _handle_resume(self, request: web.Request) -> web.StreamResponse:
        user = self._user(request)
        if user is None:
            return error_response(*LOGIN_REQUIRED)
        conversation = self.conversation(user, request.query.get("conversation_id"))
        if conversation is None:
            return error_response(*_NOT_FOUND)
        for generation in self._streaming.get(user, []):
            if generation.conversation is conversation:
                return await self._stream(request, generation)
        return error_response(409, "not_generating", "没有正在生成的回答 / Nothing to resume")

    async def _handle_stop(self, request: web.Request) -> web.Response:
        user = self._user(request)
        if user is None:
            return error_response(*LOGIN_REQUIRED)
        try:
            conversation_id = (await request.json()).get("conversation_id")
        except (ValueError, AttributeError) as exc:
            return error_response(400, "bad_request", f"invalid request: {exc}")
        stopped = False
        for generation in list(self._streaming.get(user, [])):
            if generation.conversation.id == conversation_id:
                generation.finish("stopped")
                stopped = True
        return web.json_response({"ok": True, "stopped": stopped})

    async def _handle_captcha_verify(self, request: web.Request) -> web.Response:
        user = self._user(request)
        if user is None:
            return error_response(*LOGIN_REQUIRED)
        self._faults.solve(user)
        return web.json_response({"ok": True})
