"""Faults the fake chat site can be told to produce (from Python or ``POST /_sim/inject``).

``login_expired`` acts at once (the simulator revokes the user's sessions); the others wait in a
:class:`ChatFaultBook` for the user's next completion requests. A captcha, once shown, stays until
the human on the page passes it (``POST /api/captcha/verify``), as a real challenge does.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum


class ChatFault(StrEnum):
    LOGIN_EXPIRED = "login_expired"  # sessions revoked: pages → /login, API → 401
    RATE_LIMITED = "rate_limited"  # 429 + toast "请求过于频繁，请稍后再试 / Too many requests"
    BUSY = "busy"  # 503 + toast "服务器繁忙，请稍后再试 / Server busy"
    CAPTCHA = "captcha"  # 403 + the page shows the "人机验证 / Verify you are human" challenge
    ERROR_MIDSTREAM = "error_midstream"  # a few chunks, then an error event
    # The generating indicator for a moment, then nothing: no answer, no error, no toast (a
    # chat UI whose server failed and that shows no message for it)
    SILENT_FAILURE = "silent_failure"
    # Failures that look finished (a real UI's done marker appears all the same):
    ERROR_IN_ANSWER = "error_in_answer"  # an error box drawn inside the answer, then done
    ERROR_TEXT_ANSWER = "error_text_answer"  # the answer is only a known error text, then done
    EMPTY_ANSWER = "empty_answer"  # done with no text at all
    # The asking Chromium dies mid-answer: after the first chunk, its browser process and all
    # under it are SIGKILLed (sim/chat_crash.py); the generation goes on on the site
    BROWSER_CRASH = "browser_crash"
    # Faults of the next page load (GET /chat), not of a completion request:
    PAGE_BUSY = "page_busy"  # 200, a "服务器繁忙 / Server busy" banner and no composer
    PAGE_RATE_LIMITED = "page_rate_limited"  # 429 + Retry-After: 2, "请求过于频繁" and no composer
    SLOW_RENDER = "slow_render"  # 200; the composer shows only after ChatSiteConfig.slow_render_s
    # A CDN's or gateway's own error page instead of the chat (issue 27 item 8): no composer,
    # nothing of the site's page at all
    PAGE_FORBIDDEN = "page_forbidden"  # 403 "Access denied" from the CDN
    PAGE_BAD_GATEWAY = "page_bad_gateway"  # 502 "Bad gateway" from the gateway


PAGE_FAULTS = frozenset(
    {
        ChatFault.PAGE_BUSY,
        ChatFault.PAGE_RATE_LIMITED,
        ChatFault.SLOW_RENDER,
        ChatFault.PAGE_FORBIDDEN,
        ChatFault.PAGE_BAD_GATEWAY,
    }
)


@dataclass(slots=True)
class ChatFaultRule:
    fault: ChatFault
    remaining: int
    user: str | None = None  # None: whichever user asks next
    # Only completion requests whose text contains this (a prompt the server always fails)
    match: str | None = None

    def applies_to(self, user: str, text: str | None = None) -> bool:
        if self.match is not None and (text is None or self.match not in text):
            return False
        return self.user is None or self.user == user


class ChatFaultBook:
    """Pending faults (first injected, first applied) and open captcha challenges.

    Thread-safe: tests inject from their own thread while handlers run on the simulator's loop.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[ChatFaultRule] = []
        self._challenged: set[str] = set()

    def add(self, rule: ChatFaultRule) -> None:
        if rule.remaining < 1:
            raise ValueError("count must be at least 1")
        if rule.fault is ChatFault.LOGIN_EXPIRED:
            raise ValueError("login_expired acts at once; it is not queued")
        with self._lock:
            self._rules.append(rule)

    def take(self, user: str, *, page: bool = False, text: str | None = None) -> ChatFault | None:
        """The first pending fault for ``user``, with one use consumed: of a completion
        request asking ``text``, or (``page``) of a page load."""
        with self._lock:
            for rule in self._rules:
                if rule.applies_to(user, text) and (rule.fault in PAGE_FAULTS) == page:
                    rule.remaining -= 1
                    if rule.remaining == 0:
                        self._rules.remove(rule)
                    return rule.fault
        return None

    def pending(self) -> int:
        with self._lock:
            return sum(rule.remaining for rule in self._rules)

    def challenge(self, user: str) -> None:
        with self._lock:
            self._challenged.add(user)

    def challenged(self, user: str) -> bool:
        with self._lock:
            return user in self._challenged

    def solve(self, user: str) -> None:
        with self._lock:
            self._challenged.discard(user)

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()
            self._challenged.clear()
