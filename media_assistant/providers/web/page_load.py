"""Loading a chat page and waiting for its composer (:class:`page.ChatPage` calls these): what
an HTTP status says, what markers say while no composer shows, and which adapter step failed
when none comes — the composer's selectors, or a sign-in page the login markers do not know.
"""

from __future__ import annotations

import time
from typing import Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.core.rules.site_breakage import AdapterStep
from media_assistant.providers.api.headers import parse_retry_after
from media_assistant.providers.web.adapter import SiteAdapter
from media_assistant.providers.web.snapshot import MarkerWatch, Snapshot, marker_error


class ChatPage(Protocol):
    """What loading needs of the chat page (providers/web/page.py ``ChatPage``)."""

    page: Page
    adapter: SiteAdapter

    def composer(self) -> Locator: ...

    async def snapshot(
        self,
        *,
        mark: bool = False,
        wait_ms: int = 0,
        after: Snapshot | None = None,
        empty: bool = False,
    ) -> Snapshot: ...


# A page load answered with one of these statuses says what a banner would (read before the DOM).
PAGE_STATUS_ERRORS: dict[int, ErrorKind] = {
    429: ErrorKind.RATE_LIMITED,
    503: ErrorKind.SITE_BUSY,
    408: ErrorKind.SERVER_ERROR,
}


# Verification pages come with these (Cloudflare's challenge: 403 with ``cf-mitigated:
# challenge``; its older interstitial and others: 503); issue 32 item 4 holds the account for a
# person, which a "site unavailable" cool-down must not pre-empt.
CHALLENGE_STATUSES = (403, 503)


async def _is_challenge(chat: ChatPage, headers: dict[str, str]) -> bool:
    if headers.get("cf-mitigated", "").lower() == "challenge":
        return True
    try:
        snap = await chat.snapshot()
    except PlaywrightError:
        return False
    return bool(snap.markers.get("captcha"))


def page_status_error(status: int) -> ErrorKind | None:
    """What a page load's status says. Beyond :data:`PAGE_STATUS_ERRORS`: a 403 or any other
    5xx is the error page of a CDN or a gateway in front of the site (Cloudflare's 403, 520-530,
    a proxy's 502 or 504), not the chat page: the site is unavailable — deferred with a
    cool-down, no attempt used — never "the composer is missing", which two loads in a row would
    make a site-changed verdict holding the account all night (issue 27 item 8)."""
    kind = PAGE_STATUS_ERRORS.get(status)
    if kind is None and (status == 403 or 500 <= status <= 599):
        kind = ErrorKind.SITE_BUSY
    return kind


class ComposerMissing(ProviderError):
    """The page loaded and showed no composer within ``page_load_timeout_s``: a slow page, or a
    site that changed under its adapter (``step`` composer_found), or a sign-in wall the
    adapter's markers do not know (``step`` signed_in). One such load is retried like a
    timeout; the same step failing on the account's next task is the verdict
    (core/rules/site_breakage.py)."""

    def __init__(self, message: str, *, step: AdapterStep, selector: str) -> None:
        super().__init__(ErrorKind.TIMEOUT, message, step=step.value, selector=selector)


def selectors_text(selectors: list[str]) -> str:
    """An adapter key's fallbacks as the operator reads them in a verdict."""
    return ", ".join(selectors)


async def load_page(chat: ChatPage, url: str) -> None:
    """Load ``url``. A busy, rate-limited or failing site says so in the status of its
    answer (with a Retry-After, perhaps): classified as during a generation (deferred or
    retried), never as a broken adapter."""
    timing = chat.adapter.timing
    try:
        response = await chat.page.goto(
            url, wait_until="domcontentloaded", timeout=timing.page_load_timeout_s * 1000
        )
    except PlaywrightTimeout:
        raise ProviderError(
            ErrorKind.NETWORK, f"{url} did not load within {timing.page_load_timeout_s:.0f} s"
        ) from None
    if response is not None and response.status == 407:
        # Only a proxy answers 407 (the password it was given is wrong): the provider names it.
        raise ProviderError(
            ErrorKind.PROXY_AUTH,
            "the proxy refused the user name or password (407)",
            status=407,
            code="proxy_auth",
        )
    kind = page_status_error(response.status) if response is not None else None
    if response is not None and kind is not None:
        headers = await response.all_headers()
        if response.status in CHALLENGE_STATUSES and await _is_challenge(chat, headers):
            return  # a verification page, not an error page: wait_for_composer holds for it
        unavailable = (
            ": the site (or the CDN or gateway in front of it) is unavailable, not changed"
            if kind is ErrorKind.SITE_BUSY and response.status != 503
            else ""
        )
        raise ProviderError(
            kind,
            f"loading {url}: HTTP {response.status} {response.status_text}".rstrip() + unavailable,
            retry_after=parse_retry_after(headers, now=time.time()),
            status=response.status,
        )


async def wait_for_composer(chat: ChatPage) -> Snapshot:
    """The first snapshot showing the composer; or why there is none: a login or captcha
    marker, a marker saying why (busy, rate limited…), a sign-in form the markers do not know
    (held ``marker_persist_s``: no need to wait out the page-load timeout), the timeout."""
    timing = chat.adapter.timing
    composer = chat.composer()
    watch = MarkerWatch(timing.marker_persist_s)
    started = time.monotonic()
    deadline = started + timing.page_load_timeout_s
    form_since: float | None = None
    form_looked = float("-inf")
    while True:
        try:
            snap = await chat.snapshot()
        except PlaywrightError:  # navigating (a redirect): look again in a moment
            await chat.page.wait_for_timeout(100)
            continue
        problem = watch.problem(snap)
        if problem and problem[0] in ("login_lost", "captcha"):
            raise marker_error(problem, snap)
        if not watch.pending() and await composer.count() and await composer.is_visible():
            return snap
        if problem is not None:
            # No composer, and the page says why (busy, too many requests, another
            # generation running, an error): what it means during a generation, it means
            # here — a deferral or a retry, not an adapter to fix.
            raise marker_error(problem, snap)
        now = time.monotonic()
        if now - started >= timing.marker_persist_s and now - form_looked >= 1.0:
            # A sign-in page the adapter's login markers do not know (a site update): told
            # by its password field, once it has held as long as a login marker must.
            form_looked = now
            if not await _sign_in_form(chat):
                form_since = None
            elif form_since is None:
                form_since = now
            elif now - form_since >= timing.marker_persist_s:
                raise _unknown_sign_in(chat, snap)
        if now >= deadline:
            await _no_composer(chat, snap)
        await chat.page.wait_for_timeout(100)


async def _no_composer(chat: ChatPage, snap: Snapshot) -> None:
    timing = chat.adapter.timing
    try:
        ready = await chat.page.evaluate("document.readyState")
    except PlaywrightError:
        ready = "unknown"
    if ready != "complete":
        raise ProviderError(
            ErrorKind.TIMEOUT,
            f"{snap.url} was still loading after {timing.page_load_timeout_s:.0f} s "
            f"(document {ready})",
        )
    if await _sign_in_form(chat):
        raise _unknown_sign_in(chat, snap)
    raise ComposerMissing(
        f"no composer on {snap.url} within {timing.page_load_timeout_s:.0f} s of loading "
        f"(selectors {chat.adapter.selectors.input}): a slow page, or the site changed and "
        f"adapter {chat.adapter.id!r} needs updating",
        step=AdapterStep.COMPOSER_FOUND,
        selector=selectors_text(chat.adapter.selectors.input),
    )


def _unknown_sign_in(chat: ChatPage, snap: Snapshot) -> ComposerMissing:
    login = chat.adapter.markers.login_lost
    known = [*login.selectors, *(f"url {u}" for u in login.url), *login.buttons]
    return ComposerMissing(
        f"no composer on {snap.url}, and a sign-in form shows that markers.login_lost "
        f"({selectors_text(known) or 'none declared'}) does not recognise: the session may be "
        f"signed out behind a new sign-in page, and adapter {chat.adapter.id!r} needs its "
        "login_lost markers updated",
        step=AdapterStep.SIGNED_IN,
        selector=f"markers.login_lost: {selectors_text(known) or 'none'}",
    )


async def _sign_in_form(chat: ChatPage) -> bool:
    """A visible password field: a sign-in page, whatever the adapter's markers say."""
    try:
        return bool(
            await chat.page.evaluate(
                """() => Array.from(document.querySelectorAll('input[type="password"]'))
                    .some((el) => { const r = el.getBoundingClientRect();
                                    return r.width > 0 || r.height > 0; })"""
            )
        )
    except PlaywrightError:
        return False
