"""The fake chat site's pages: login, logout, the chat page (``chat_*.html`` beside this file).

Pages are self-contained (inline CSS and JS, inline SVG icons, no fonts or CDNs), and the Content
Security Policy below makes sure of it: a page cannot reach anything but its own origin. A page
without a valid session redirects to ``/login``.
"""

from __future__ import annotations

import asyncio
import functools
import html
import json
import random
from importlib import resources
from typing import Any

from aiohttp import web

from media_assistant.sim.chat_api import ChatApi
from media_assistant.sim.chat_challenges import ChallengeBook, challenge_page
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_faults import ChatFault, ChatFaultBook
from media_assistant.sim.chat_sessions import COOKIE_MAX_AGE_S, COOKIE_NAME, SessionBook
from media_assistant.sim.chat_stats import ChatStatsBook

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "connect-src 'self'; frame-src 'self' about:; form-action 'self'; base-uri 'none'"
)
_HEADERS = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-store"}

_NOT_FOUND = """<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>对话不存在 / Not found — Sim Chat</title></head>
<body style="font: 15px system-ui, sans-serif; padding: 40px">
<p>对话不存在或已被删除 / This conversation does not exist.</p>
<p><a href="/chat" aria-label="New chat">新对话 / New chat</a></p>
</body></html>
"""


# Page loads that meet a busy or rate-limited site: a banner instead of the composer.
_PAGE_ALERTS = {
    ChatFault.PAGE_BUSY: "服务器繁忙，请稍后再试 / Server busy, please try again later",
    ChatFault.PAGE_RATE_LIMITED: "请求过于频繁，请稍后再试 / Too many requests, try again later",
}


@functools.cache
def _template(name: str) -> str:
    return resources.files("media_assistant.sim").joinpath(name).read_text(encoding="utf-8")


def login_page(*, error: str | None = None, username: str = "") -> str:
    banner = f'<div class="form-error" role="alert">{html.escape(error)}</div>' if error else ""
    return (
        _template("chat_login.html")
        .replace("__ERROR__", banner)
        .replace("__USERNAME__", html.escape(username, quote=True))
    )


def chat_page(state: dict[str, Any]) -> str:
    # JSON inside <script>: "<" escaped so no text can close the element early.
    payload = json.dumps(state, ensure_ascii=False).replace("<", "\\u003c")
    return _template("chat_page.html").replace("__INITIAL_STATE__", payload)


# What a CDN or gateway in front of the site serves instead of its page.
_GATEWAY_PAGES = {
    ChatFault.PAGE_FORBIDDEN: (403, "Access denied"),
    ChatFault.PAGE_BAD_GATEWAY: (502, "Bad gateway"),
}


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html", headers=_HEADERS)


class ChatPages:
    def __init__(
        self,
        sessions: SessionBook,
        faults: ChatFaultBook,
        api: ChatApi,
        config: ChatSiteConfig | None = None,
        stats: ChatStatsBook | None = None,
        challenges: ChallengeBook | None = None,
    ) -> None:
        self.challenges = challenges or ChallengeBook()
        self._sessions = sessions
        self._faults = faults
        self._api = api
        self._config = config or ChatSiteConfig()
        self._stats = stats
        self._rng = random.Random(self._config.seed)
        # A site update (chat_config.BREAKAGES), switched while the site runs: page loads from
        # then on show it. A plain attribute: one assignment, read once per page load.
        self.breakage = self._config.breakage

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/", self._handle_root)
        app.router.add_get("/login", self._handle_login_form)
        app.router.add_post("/login", self._handle_login)
        app.router.add_get("/logout", self._handle_logout)
        app.router.add_get("/chat", self._handle_chat)
        app.router.add_get("/chat/{conversation_id}", self._handle_chat)
        app.router.add_get("/_sim/autologin", self._handle_autologin)
        app.router.add_get("/api/challenge/state", self._handle_challenge_state)
        app.router.add_post("/api/challenge/pass", self._handle_challenge_pass)

    def _user(self, request: web.Request) -> str | None:
        return self._sessions.valid_user(request.cookies.get(COOKIE_NAME))

    def _logged_in(self, user: str) -> web.HTTPFound:
        response = web.HTTPFound("/chat")
        response.set_cookie(
            COOKIE_NAME,
            self._sessions.issue(user),
            max_age=COOKIE_MAX_AGE_S,
            path="/",
            httponly=True,
            samesite="Lax",
        )
        return response

    async def _handle_root(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound("/chat" if self._user(request) else "/login")

    async def _handle_login_form(self, request: web.Request) -> web.Response:
        return _html(login_page())

    async def _handle_login(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        username, password = str(form.get("username", "")), str(form.get("password", ""))
        if not self._sessions.check_password(username, password):
            error = "用户名或密码错误 / Wrong username or password"
            return _html(login_page(error=error, username=username), status=401)
        raise self._logged_in(username)

    async def _handle_logout(self, request: web.Request) -> web.StreamResponse:
        response = web.HTTPFound("/login")
        response.del_cookie(COOKIE_NAME, path="/")
        raise response

    async def _handle_autologin(self, request: web.Request) -> web.StreamResponse:
        user = request.query.get("user", "")
        if not self._sessions.known(user):
            raise web.HTTPForbidden(text=f"unknown user {user!r}")
        raise self._logged_in(user)

    async def _handle_challenge_state(self, request: web.Request) -> web.Response:
        user = self._user(request) or ""
        return web.json_response({"open": self.challenges.open_for(user) is not None})

    async def _handle_challenge_pass(self, request: web.Request) -> web.Response:
        if (user := self._user(request)) is not None:
            self.challenges.pass_challenge(user)
        return web.json_response({"ok": True})

    async def _handle_chat(self, request: web.Request) -> web.StreamResponse:
        user = self._user(request)
        if user is None:
            raise web.HTTPFound("/login")
        if (shape := self.challenges.open_for(user)) is not None:  # a verification page
            page, status = challenge_page(shape)
            return _html(page, status=status)
        if self._stats is not None:
            self._stats.page_loaded(user)
        low, high = self._config.page_load_s
        if high > 0:  # a heavy real UI: the page (and so its composer) takes seconds to come
            await asyncio.sleep(self._rng.uniform(low, high))
        conversation_id = request.match_info.get("conversation_id")
        conversation = self._api.conversation(user, conversation_id)
        if conversation_id is not None and conversation is None:
            return _html(_NOT_FOUND, status=404)
        fault = self._faults.take(user, page=True)
        if fault in _GATEWAY_PAGES:
            status, text = _GATEWAY_PAGES[fault]
            return _html(f"<html><body><h1>{status} {text}</h1><hr>cdn-edge</body></html>", status)
        state = {
            "user": user,
            "conversation_id": conversation.id if conversation else None,
            "messages": [m.to_json() for m in conversation.messages] if conversation else [],
            "conversations": [
                {"id": c.id, "title": c.title} for c in self._api.conversations_of(user)
            ],
            "challenged": self._faults.challenged(user),
            "variations": {
                "markdown": self._config.markdown_answers,
                "emphasis_classes": self._config.emphasis_classes,
                "code_editor": self._config.code_editor,
                "breakage": self.breakage,
                "new_chat_button": self._config.new_chat_button,
                "new_chat_ms": round(self._config.new_chat_s * 1000),
                "new_chat_confirm": self._config.new_chat_confirm,
                "new_chat_dialog_ms": round(self._config.new_chat_dialog_s * 1000),
                "new_chat_trusted_only": self._config.new_chat_trusted_only,
                "signin_flash_ms": round(self._config.signin_flash_s * 1000),
                "indicator_gap_ms": round(self._config.indicator_gap_s * 1000),
                "models": list(self._config.models),
                "model": request.query.get("model"),
                "page_alert": _PAGE_ALERTS.get(fault) if fault is not None else None,
                "render_delay_ms": (
                    round(self._config.slow_render_s * 1000)
                    if fault is ChatFault.SLOW_RENDER
                    else 0
                ),
            },
        }
        if fault is ChatFault.PAGE_RATE_LIMITED:
            response = _html(chat_page(state), status=429)
            response.headers["Retry-After"] = "2"
            return response
        return _html(chat_page(state))
