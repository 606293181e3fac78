"""A loopback AI chat site for browser-automation tests, benchmarks and the demo mode.

It behaves like the real chat sites in the ways that break automation: a rich-text composer that
ignores ``.value``, an answer that streams in, a done marker that appears only at the end, toasts
for rate limits, a captcha, a login that expires, and **one generation per account**: a second
generation started while one streams (another tab, another conversation) breaks both. A generation
also keeps running when its page goes away (closed, navigated, timed out), as on the real sites,
until it ends or Stop is pressed. ::

    sim = ChatSiteSimulator(ChatSiteConfig(latency_s=(31, 370), time_scale=0.003, seed=1))
    base_url = await sim.start()          # "http://127.0.0.1:<port>"
    # browser: GET {base_url}/_sim/autologin?user=alice, then drive {base_url}/chat
    sim.inject("rate_limited", user="alice")
    sim.stats()["alice"]["conflicts"]
    await sim.stop()

From synchronous code use :meth:`ChatSiteSimulator.start_in_thread` / ``stop_in_thread``; from a
shell ``python -m media_assistant.sim.chat_site --port 8002 --latency 31,370 --time-scale 0.01``.

Selectors an adapter can rely on (kept stable):

==================  ===============================================================================
login form          ``GET /login``: ``input[name="username"]``, ``input[name="password"]``,
                    ``button[type="submit"]`` ("登录 / Log in"); a bad password re-renders it with
                    ``[role="alert"]``. Login route: URL path starts with ``/login``.
session endpoint    ``GET /api/session`` → 200 ``{"user": ...}`` or 401
new chat            ``a[aria-label="New chat"]`` (href ``/chat``); URL of a conversation
                    ``/chat/<uuid>`` (set by ``history.replaceState`` once the first answer starts)
composer            ``div#composer[contenteditable="true"][role="textbox"][aria-label="Message"]``;
                    keeps its own model like ProseMirror/Lexical: typing, IME and
                    ``execCommand('insertText')`` land, ``.value``/``innerText`` writes do not.
                    Enter sends, Shift+Enter is a newline; the text is trimmed before sending.
send                ``button[aria-label="Send"]`` (icon only); ``disabled`` while the composer is
                    empty, while generating and while a captcha/login overlay is up
stop                ``button[aria-label="Stop generating"]``, present but ``hidden`` unless
                    generating
messages            ``div.message[data-role="user"]`` (text in ``.user-text``) and
                    ``div.message[data-role="assistant"][data-state=generating|done|stopped|failed]``
answer              ``.message[data-role="assistant"] .markdown`` (plain text, ``pre-wrap``;
                    grows chunk by chunk while streaming)
done marker         ``.message-actions`` with ``button[aria-label="Copy"]`` and (last answer only)
                    ``button[aria-label="Regenerate"]``; absent while generating, after Stop
                    (``.message-status`` "(stopped)") and after an error (``.message-error``).
                    Older completed answers of the conversation have a Copy button too.
toasts              ``div.toast[role="alert"]`` (gone after 6 s or at the next send):
                    "已有对话流正在输出 / Only one message at a time", "请求过于频繁，请稍后再试 /
                    Too many requests", "服务器繁忙，请稍后再试 / Server busy…", "网络错误，请重试 /
                    Network error…", "连接中断 / Connection lost"
login lost          overlay ``div.login-required`` with ``a.login-button`` "登录 / Log in", then
                    the page goes to ``/login`` (1.5 s); page loads without a session → 302 /login
captcha             overlay ``div.captcha-challenge`` with "人机验证 / Verify you are human" and
                    ``iframe[title="captcha"]``; ``button.captcha-verify`` is the human's answer.
                    Inserted only while a challenge is open (presence = state).
verification page   (issue 32) ``show_challenge(user, shape)`` / ``POST /_sim/challenge``: every
                    chat page load shows Cloudflare's interstitial (403), Turnstile, reCAPTCHA,
                    hCaptcha, GeeTest, Aliyun's or Tencent's slider instead of the chat, in
                    their vendors' markup (sim/chat_challenges.py), until a person passes it
preset text         ``div.preset-instructions``: page text that must never be sent
==================  ===============================================================================

The page's JS posts ``{"text", "conversation_id", "regenerate"}`` to ``POST /api/chat/completion``
and reads server-sent events (``data: {json}\\n\\n``): ``meta`` (conversation_id, message_id,
title), ``delta`` (text), then exactly one of ``done``, ``stopped``, ``error`` (code, message),
``dropped`` (fault ``silent_failure``: the page takes the answer away and shows nothing).
Refusals are plain JSON ``{"error": {"code", "message"}}``: 401 ``login_required``, 403
``captcha_required``, 429 ``rate_limited``, 503 ``server_busy``. ``POST /api/chat/stop``
``{"conversation_id"}`` stops that conversation's generation; ``GET /api/chat/resume`` re-attaches
a page to a generation still running.

Fault ``browser_crash`` kills the asking browser itself once the answer's first chunk is out:
the Chromium that owns the request's connection, its whole process tree, SIGKILL
(``chat_crash.py``; anything that is not a Chromium is left alone); the generation goes on.

Page-load faults (``page_busy``: a busy banner and no composer; ``page_rate_limited``: 429 with
``Retry-After: 2``, a "too many requests" banner and no composer; ``slow_render``: the composer
shows only after ``slow_render_s``; ``page_forbidden``, ``page_bad_gateway``: a CDN's 403 or a
gateway's 502 page, nothing of the chat) act on the user's next ``GET /chat`` instead of a
completion.

Site updates (issue 21; ``ChatSiteConfig.breakage``, or ``break_page`` / ``POST /_sim/break``
``{"breakage"}`` while the site runs, from the next page load on): ``composer_renamed`` (the
composer's id and label change), ``send_moved`` (the send button moves under another label and
Enter no longer sends), ``answer_renamed`` (the answer's ``.markdown`` becomes ``.md-body``),
``done_missing`` (the action bar and its Copy button are renamed), ``login_wall`` (a new sign-in
page at ``/chat`` with a password field, nothing the adapter's login markers know). Issue 33
adds ``classes_rotated`` (a new build: every CSS-in-JS class hash changes, the answer body and
its action bar keep only theirs), ``testids_renamed``, ``send_icon_only`` (the send button's text
label goes, its aria-label stays), ``answer_wrapped`` (one more container around the answer's
body), ``decoy_composer`` (the composer renamed beside a hidden and a disabled look-alike) and
``decoy_send`` (Send renamed beside a "Submit feedback" button); the last three also make Enter a
new line where the send button changes. Which adapter each one breaks: ``chat_adapters.py``.

Test hooks: ``GET /_sim/autologin?user=NAME``,
``POST /_sim/inject`` ``{"user", "fault", "count", "match"}`` (``match``: only prompts with it),
``POST /_sim/reset``, ``GET /_sim/stats``. Simulated durations are multiplied by ``time_scale``.
"""

from __future__ import annotations

import argparse
import secrets
from collections.abc import Sequence

from aiohttp import web

from media_assistant.sim.chat_api import ChatApi, error_response
from media_assistant.sim.chat_config import BREAKAGES, ChatSiteConfig
from media_assistant.sim.chat_faults import ChatFault, ChatFaultBook, ChatFaultRule
from media_assistant.sim.chat_pages import ChatPages
from media_assistant.sim.chat_sessions import SessionBook
from media_assistant.sim.chat_stats import ChatStatsBook, UserStats
from media_assistant.sim.threaded import ThreadedServer, serve_until_signal

HOST = "127.0.0.1"  # never reachable from another machine
_STOP_GRACE_S = 1.0  # aiohttp's wait for handlers at stop; ours end at once


class ChatSiteSimulator(ThreadedServer):
    thread_name = "chat-site-simulator"

    def __init__(self, config: ChatSiteConfig | None = None) -> None:
        self.config = config or ChatSiteConfig()
        secret = self.config.session_secret
        self._sessions = SessionBook(
            secret.encode("utf-8") if secret else secrets.token_bytes(32), self.config.users
        )
        self._faults = ChatFaultBook()
        self._stats = ChatStatsBook()
        self._api = ChatApi(self.config, self._sessions, self._faults, self._stats)
        self._pages = ChatPages(self._sessions, self._faults, self._api, self.config, self._stats)
        self._runner: web.AppRunner | None = None
        self._base_url: str | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self._base_url is None:
            raise RuntimeError("the simulator is not running")
        return self._base_url

    async def start(self, port: int = 0) -> str:
        """Serve on 127.0.0.1 (``port`` 0 picks a free one); returns ``http://127.0.0.1:<port>``."""
        if self._runner is not None:
            raise RuntimeError("the simulator is already running")
        app = web.Application()
        self._pages.add_routes(app)
        self._api.add_routes(app)
        app.router.add_post("/_sim/inject", self._handle_inject)
        app.router.add_post("/_sim/reset", self._handle_reset)
        app.router.add_post("/_sim/break", self._handle_break)
        app.router.add_get("/_sim/stats", self._handle_stats)
        app.router.add_post("/_sim/challenge", self._handle_challenge)
        # handler_cancellation: a page that goes away ends its handler (not its generation).
        runner = web.AppRunner(
            app, handler_cancellation=True, access_log=None, shutdown_timeout=_STOP_GRACE_S
        )
        await runner.setup()
        try:
            await web.TCPSite(runner, HOST, port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self._base_url = f"http://{HOST}:{runner.addresses[0][1]}"
        return self._base_url

    async def stop(self) -> None:
        """End every generation (its pages get an error event), close every connection."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        await self._api.end_all()
        await runner.cleanup()
        self._base_url = None

    # -- control (thread-safe) -------------------------------------------------------------------

    def inject(
        self,
        fault: ChatFault | str,
        count: int = 1,
        user: str | None = None,
        match: str | None = None,
    ) -> None:
        """Give ``user``'s (None: anybody's) next ``count`` completion requests ``fault`` —
        only those whose text contains ``match``, if given (a prompt the server always fails).

        ``login_expired`` acts at once: every session of the user (None: of everybody) is revoked.
        """
        fault = ChatFault(fault)
        if fault is ChatFault.LOGIN_EXPIRED:
            self._sessions.revoke(user)
        else:
            self._faults.add(ChatFaultRule(fault, count, user, match))

    def break_page(self, breakage: str | None) -> None:
        """A site update from the next page load on (``chat_config.BREAKAGES``: the composer
        renamed, the send button moved, the answer renamed, the done marker renamed, a new
        login wall); None undoes it. Thread-safe (one assignment)."""
        if breakage and breakage not in BREAKAGES:
            raise ValueError(f"unknown breakage {breakage!r} (known: {sorted(BREAKAGES)})")
        self._pages.breakage = breakage or ""

    def show_challenge(self, user: str, shape: str) -> None:
        """From the next page load on, ``user`` meets a verification page of ``shape``
        (chat_challenges.SHAPES: cloudflare, turnstile, recaptcha, hcaptcha, geetest, aliyun,
        tencent) instead of the chat, until a person passes it."""
        self._pages.challenges.show(user, shape)

    def pass_challenge(self, user: str) -> None:
        """A person passed ``user``'s verification page: its page goes on to the chat."""
        self._pages.challenges.pass_challenge(user)

    def stats(self) -> dict[str, UserStats]:
        """Per user; see :class:`UserStats`."""
        return self._stats.snapshot()

    def answers(self, user: str) -> list[str]:
        """Every answer ``user`` got, exactly as generated (Markdown answers: the source)."""
        return self._api.answers_of(user)

    def user_stats(self, user: str) -> UserStats:
        """One user's stats (all zero if the site never heard of them)."""
        return self._stats.user(user)

    def reset(self) -> None:
        """Forget stats, pending faults, open captchas and verification pages (revoked logins
        stay revoked)."""
        self._faults.clear()
        self._pages.challenges.clear()
        self._stats.clear()

    # -- control over HTTP -----------------------------------------------------------------------

    async def _handle_inject(self, request: web.Request) -> web.Response:
        try:
            spec = await request.json()
            user = spec.get("user")
            if not (user is None or isinstance(user, str)):
                raise TypeError("'user' must be a string or null")
            match = spec.get("match")
            if not (match is None or isinstance(match, str)):
                raise TypeError("'match' must be a string or null")
            self.inject(str(spec["fault"]), count=int(spec.get("count", 1)), user=user, match=match)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            faults = ", ".join(f.value for f in ChatFault)
            return error_response(400, "sim_error", f"bad fault spec ({exc!r}); faults: {faults}")
        return web.json_response({"ok": True, "pending": self._faults.pending()})

    async def _handle_break(self, request: web.Request) -> web.Response:
        try:
            spec = await request.json()
            self.break_page(spec.get("breakage"))
        except (ValueError, AttributeError, TypeError) as exc:
            return error_response(400, "sim_error", f"bad breakage ({exc})")
        return web.json_response({"ok": True, "breakage": self._pages.breakage})

    async def _handle_challenge(self, request: web.Request) -> web.Response:
        """``{"user": U, "shape": S}`` shows one; ``"shape": null`` passes it."""
        try:
            spec = await request.json()
            user, shape = str(spec["user"]), spec.get("shape")
            if shape is None:
                self.pass_challenge(user)
            else:
                self.show_challenge(user, str(shape))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            return error_response(400, "sim_error", f"bad challenge spec ({exc!r})")
        return web.json_response({"ok": True})

    async def _handle_reset(self, request: web.Request) -> web.Response:
        self.reset()
        return web.json_response({"ok": True})

    async def _handle_stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.stats())


# -- command line ----------------------------------------------------------------------------------


def _range(text: str) -> tuple[float, float]:
    low, _, high = text.partition(",")
    return float(low), float(high or low)


def _user_spec(text: str) -> tuple[str, str]:
    name, sep, password = text.partition(":")
    if not name or not sep or not password:
        raise ValueError(f"--user wants NAME:PASSWORD, got {text!r}")
    return name, password


def _parse_args(argv: Sequence[str] | None) -> tuple[ChatSiteConfig, int]:
    parser = argparse.ArgumentParser(
        prog="python -m media_assistant.sim.chat_site",
        description="Serve a fake AI chat site on 127.0.0.1 until Ctrl-C.",
    )
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--latency", default="31,370", help="seconds per generation: LOW,HIGH")
    parser.add_argument("--time-scale", type=float, default=1.0, help="0.01 = 100x faster")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--answer-chars", default="300,1200", help="filler length: LOW,HIGH")
    parser.add_argument(
        "--user",
        action="append",
        default=None,
        metavar="NAME:PASSWORD",
        help="accept only these logins (repeatable); default: any non-empty pair",
    )
    parser.add_argument(
        "--session-secret", default=None, help="fixed secret: logins survive restarts"
    )
    args = parser.parse_args(argv)
    try:
        chars = _range(args.answer_chars)
        config = ChatSiteConfig(
            latency_s=_range(args.latency),
            time_scale=args.time_scale,
            seed=args.seed,
            answer_chars=(int(chars[0]), int(chars[1])),
            users=dict(_user_spec(u) for u in args.user) if args.user else None,
            session_secret=args.session_secret,
        )
    except ValueError as exc:
        parser.error(str(exc))
    return config, args.port


def main(argv: Sequence[str] | None = None) -> int:
    config, port = _parse_args(argv)
    return serve_until_signal(ChatSiteSimulator(config), port)


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["ChatFault", "ChatSiteConfig", "ChatSiteSimulator", "UserStats", "main"]
