"""Driving one chat page with a site adapter: open a new chat, type, send, read, stop.

Runs on the browser service's loop. Reads use one script per poll (one round trip, see
:mod:`page_scripts`); actions use Playwright locators so they get real input events
(rich-text editors ignore ``.value``). Nothing is ever read through the OS clipboard:
concurrent browsers share it.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.core.rules.site_breakage import AdapterStep
from media_assistant.providers.web.adapter import (
    BUILTIN_CODE_EDITORS,
    GENERIC_ERROR_SELECTORS,
    PLAYWRIGHT_ONLY,
    Marker,
    SiteAdapter,
)
from media_assistant.providers.web.challenges import with_builtin_challenges
from media_assistant.providers.web.diagnose import save_page_evidence
from media_assistant.providers.web.new_chat import click_new_chat
from media_assistant.providers.web.page_load import (
    load_page,
    selectors_text,
    wait_for_composer,
)
from media_assistant.providers.web.page_scripts import ARM_JS, EXTRACT_JS, SNAPSHOT_JS
from media_assistant.providers.web.snapshot import (
    MARKERS,
    PERSISTENT_MARKERS,
    MarkerWatch,
    Snapshot,
    marker_error,
)

_NAVIGATED = re.compile(r"context was destroyed|navigat|Target page, context or browser", re.I)


def _marker_cfg(m: Marker) -> dict[str, list[str]]:
    return {"selectors": m.selectors, "texts": m.texts, "url": m.url, "buttons": m.buttons}


class ChatPage:
    def __init__(self, page: Page, adapter: SiteAdapter, origin: str | None = None) -> None:
        self.page = page
        self.adapter = adapter
        self.origin = origin
        s, m, a = adapter.selectors, adapter.markers, adapter.answer
        errors = [*a.error_selectors, *(GENERIC_ERROR_SELECTORS if a.generic_errors else [])]
        self._poll_cfg: dict[str, Any] = {
            "input": s.input,
            "answer": s.answer,
            "reasoning": s.reasoning,
            "generating": s.generating,
            "done": s.done,
            "user_message": s.user_message,
            "alert_regions": m.alert_regions,
            "markers": {
                name: _marker_cfg(getattr(m, name)) for name in MARKERS if name != "captcha"
            }
            # Every adapter knows the common verification pages (challenges.py).
            | {"captcha": with_builtin_challenges(_marker_cfg(m.captcha))},
            # Text markers never read inside these (the promise in ADAPTERS.md).
            "conversation": [
                *s.conversation,
                *s.answer,
                *s.reasoning,
                *s.user_message,
                *a.container,
            ],
            "container": a.container,
            "error_selectors": errors,
            "mark": False,
        }
        self._extract_cfg: dict[str, Any] = {
            "answer": s.answer,
            "exclude": a.exclude,
            "code_language": a.code_language,
            "container": a.container,
            "markdown_source": a.markdown_source,
            "markdown_attribute": a.markdown_attribute,
            "code_editors": [e.model_dump() for e in (*a.code_editors, *BUILTIN_CODE_EDITORS)],
        }
        # Input selectors with Playwright-only syntax cannot be checked inside the poll script.
        self.composer_by_locator = any(PLAYWRIGHT_ONLY.search(sel) for sel in s.input)
        self.sent_with = ""  # how the last send went out: "click" | "Enter"
        self.used_new_chat_control = False  # the last open_new_chat clicked the control
        self.new_chat_fell_back = False  # ...tried to, got no empty chat, loaded the URL

    # ---------------------------------------------------------------- reading

    async def snapshot(
        self,
        *,
        mark: bool = False,
        wait_ms: int = 0,
        after: Snapshot | None = None,
        empty: bool = False,
    ) -> Snapshot:
        """One poll. ``mark``: alerts showing now are old news for the snapshots that follow.
        ``wait_ms`` (with the previous poll ``after``): wait in the page up to that long for a
        new done marker or the generating indicator to go — or, ``empty``, for a chat with no
        answer and no user message (a New chat clicked) — then read."""
        cfg = self._poll_cfg
        if mark or wait_ms:
            cfg = {
                **cfg,
                "mark": mark,
                "wait_ms": wait_ms,
                "wait_done": after.done if after is not None else 0,
                "wait_generating": bool(after and after.generating),
                "wait_empty": empty,
            }
        for tries_left in (2, 1, 0):
            try:
                raw = await self.page.evaluate(SNAPSHOT_JS, cfg)
                return Snapshot(**raw)
            except PlaywrightError as exc:
                # The page navigated while we read it (a redirect to a login page, say): read
                # the new page. Anything else is a real error.
                if not tries_left or not _NAVIGATED.search(str(exc)):
                    raise
                await self.page.wait_for_timeout(100)
        raise AssertionError("unreachable")

    async def extract_answer(self) -> dict[str, Any] | None:
        """The last answer's cleaned HTML, its text, and the site's own Markdown if declared."""
        result = await self.page.evaluate(EXTRACT_JS, self._extract_cfg)
        return result if isinstance(result, dict) else None

    def _first(self, selectors: list[str]) -> Locator:
        """The ordered fallbacks as one locator: the first selector with a match wins."""
        locator = self.page.locator(selectors[0])
        for sel in selectors[1:]:
            locator = locator.or_(self.page.locator(sel))
        return locator.first

    def composer(self) -> Locator:
        return self._first(self.adapter.selectors.input)

    async def first_present(self, selectors: list[str]) -> Locator | None:
        for sel in selectors:
            loc = self.page.locator(sel)
            if await loc.count():
                return loc.first
        return None

    # ---------------------------------------------------------------- actions

    async def open_new_chat(self, model: str | None = None) -> Snapshot:
        """A fresh, empty conversation with the composer showing (or a reason why not).

        Clicks the site's new-chat control when the adapter declares one and the page is
        already on the site (~0.4 s on a heavy real UI, against 2-4 s for a page load), and
        confirms an empty chat; otherwise, or if that fails, loads ``new_chat_url``. Then picks
        the site's ``model`` if one is asked for (adapter ``[model_choice]``). The snapshot
        returned marks the alerts showing now as old news.
        """
        choice = self.adapter.model_choice
        self.used_new_chat_control = self.new_chat_fell_back = False
        snap: Snapshot | None = None
        if self.adapter.new_chat_steps and self._on_site():
            snap = await click_new_chat(self)
            self.used_new_chat_control = snap is not None
            self.new_chat_fell_back = snap is None
        if snap is None:
            await self.load_chat(model)
        if model is not None and choice is not None:
            await self._choose_model(model)
            snap = None
        return snap if snap is not None else await self.snapshot(mark=True)

    async def load_chat(self, model: str | None = None) -> Snapshot:
        """Load ``new_chat_url`` (or ``[model_choice] url``) and wait for the composer."""
        choice = self.adapter.model_choice
        url = self.adapter.new_chat_url
        if model is not None and choice is not None and choice.url is not None:
            url = choice.url.replace("{model}", choice.site_name(model))
        await self._load(self.adapter.url(url, self.origin))
        return await self._wait_for_composer()

    async def matching(self, selectors: list[str]) -> str | None:
        """The first of ``selectors`` with a visible match (what the site check reports)."""
        for sel in selectors:
            try:
                found = self.page.locator(sel).filter(visible=True)
                if await found.count():
                    return sel
            except PlaywrightError:
                continue
        return None

    def _on_site(self) -> bool:
        origin = (self.origin or self.adapter.origin).rstrip("/")
        return self.page.url.startswith(origin)

    async def _load(self, url: str) -> None:
        await load_page(self, url)

    async def _wait_for_composer(self) -> Snapshot:
        return await wait_for_composer(self)

    async def _choose_model(self, model: str) -> None:
        """Pick the site's model: skipped when ``confirm`` already shows it; else the steps."""
        choice = self.adapter.model_choice
        assert choice is not None
        name = choice.site_name(model)
        confirm = [sel.replace("{model}", name) for sel in choice.confirm]
        if confirm and await self.first_present(confirm) is not None:
            return
        timeout = self.adapter.timing.send_timeout_s * 1000
        for i, step in enumerate(choice.steps, 1):
            target = await self._wait_present([sel.replace("{model}", name) for sel in step])
            if target is None:
                raise ProviderError(
                    ErrorKind.BAD_CONFIG,
                    f"model_choice step {i} found nothing to click ({step}) for model "
                    f"{name!r}: adapter {self.adapter.id!r} needs updating",
                )
            await target.click(timeout=timeout)
        if confirm and await self._wait_present(confirm) is None:
            raise ProviderError(
                ErrorKind.BAD_CONFIG,
                f"the site did not confirm model {name!r} ({choice.confirm}) after the "
                f"model_choice steps",
            )

    async def _wait_present(self, selectors: list[str], timeout_s: float = 3.0) -> Locator | None:
        deadline = time.monotonic() + timeout_s
        while True:
            found = await self.first_present(selectors)
            if found is not None or time.monotonic() >= deadline:
                return found
            await self.page.wait_for_timeout(50)

    async def type_prompt(self, text: str) -> None:
        """Put ``text`` into the composer with real input events and check what landed."""
        how = self.adapter.input
        composer = self.composer()
        await composer.click()
        if how.method == "fill":
            await composer.fill(text)
        else:
            await self.page.keyboard.press("ControlOrMeta+A")
            await self.page.keyboard.press("Delete")
            lines = text.split("\n")
            for i, line in enumerate(lines):
                if i:
                    if how.newline == "shift+enter":
                        await self.page.keyboard.press("Shift+Enter")
                    else:
                        await self.page.keyboard.insert_text("\n")
                if line:
                    if how.method == "type":
                        await self.page.keyboard.type(line)
                    else:
                        await self.page.keyboard.insert_text(line)
        if how.verify:
            landed = await composer.evaluate(
                "(el) => ('value' in el && el.tagName !== 'DIV') ? el.value : el.innerText"
            )
            if _normalise(landed) != _normalise(text):
                raise ProviderError(
                    ErrorKind.PROTOCOL,
                    f"the composer holds {len(landed)} chars after typing {len(text)}: "
                    f"input method {how.method!r} does not work on this page",
                    step=AdapterStep.TEXT_ENTERED,
                    selector=f"input.method {how.method} into "
                    f"{selectors_text(self.adapter.selectors.input)}",
                )

    async def send(self, before: Snapshot) -> None:
        """Click send (or press Enter) and wait until the page visibly accepted the message."""
        how, timing = self.adapter.input, self.adapter.timing
        await self.page.evaluate(ARM_JS, {"generating": self.adapter.selectors.generating})
        button = await self.first_present(self.adapter.selectors.send)
        self.sent_with = "click" if how.send_with == "click" and button is not None else "Enter"
        if how.send_with == "click" and button is not None:
            try:
                await button.click(timeout=timing.send_timeout_s * 1000)
            except PlaywrightTimeout:  # never enabled: fall back to the keyboard
                self.sent_with = "Enter"
                await self.composer().press("Enter")
        else:
            await self.composer().press("Enter")
        waited, step = 0.0, 100.0
        watch = MarkerWatch(timing.marker_persist_s)
        while waited < timing.send_timeout_s * 1000:
            snap = await self.snapshot()
            problem = watch.problem(snap)
            if problem:
                raise marker_error(problem, snap)
            if snap.users > before.users or snap.generating or snap.answers > before.answers:
                return
            await self.page.wait_for_timeout(step)
            waited += step
        s = self.adapter.selectors
        if self.sent_with == "click":
            how_sent = f"clicked {selectors_text(s.send)}"
        elif s.send and how.send_with == "click":
            how_sent = f"send control {selectors_text(s.send)} matched nothing; pressed Enter"
        else:
            how_sent = "pressed Enter"
        shown = selectors_text([*s.user_message, *s.generating]) or "selectors.answer"
        raise ProviderError(
            ErrorKind.PROTOCOL,
            f"the page did not accept the message within {timing.send_timeout_s:.0f} s "
            f"({how_sent}; nothing new matched {shown})",
            step=AdapterStep.SENT,
            selector=selectors_text(s.send) if s.send else "Enter",
        )

    async def text_gained(self) -> int:
        """How many characters of text the page has gained since the send (ARM_JS noted the
        length then): an answer the adapter's answer selectors do not find still adds its
        text to the page."""
        try:
            gained = await self.page.evaluate(
                "() => (document.body ? document.body.innerText.length : 0)"
                " - (window.__maTextBefore || 0)"
            )
        except PlaywrightError:
            return 0
        return int(gained) if isinstance(gained, int | float) else 0

    async def stop_generating(self) -> bool:
        """Click the page's stop control if it is there. True if clicked."""
        stop = await self.first_present(self.adapter.selectors.stop)
        if stop is None or not await stop.is_visible():
            return False
        try:
            await stop.click(timeout=2000)
        except PlaywrightTimeout:
            return False
        return True

    async def settle_conversation(self, url: str, wait_s: float) -> str:
        """Open ``url`` — a conversation an earlier attempt of this account left (core of issue
        9 item 2) — and make sure nothing generates there any more: press the stop control
        while the generating indicator shows, for at most ``wait_s``. Returns ``"idle"``
        (nothing was generating), ``"stopped"`` (it was, and it ended), ``"generating"`` (it
        still is) or ``"unknown"`` (no conversation showed: deleted, or the page is not one).
        A login or captcha wall raises, as anywhere else."""
        await self._load(url)
        watch = MarkerWatch(self.adapter.timing.marker_persist_s)
        deadline = time.monotonic() + wait_s
        pressed_at: float | None = None
        seen_generating = False
        quiet = 0
        while True:
            now = time.monotonic()
            try:
                snap = await self.snapshot()
            except PlaywrightError:  # reloading (the site's own reaction to a stop, say)
                snap = None
            if snap is not None:
                problem = watch.problem(snap)
                if problem is not None and problem[0] in PERSISTENT_MARKERS:
                    raise marker_error(problem, snap)
                if snap.generating:
                    seen_generating, quiet = True, 0
                    if pressed_at is None or now - pressed_at >= 2.0:
                        if await self.stop_generating():
                            pressed_at = now
                elif snap.answers or snap.users or snap.composer:
                    # Quiet for a few polls in a page that shows a chat: the site has loaded
                    # the conversation and nothing streams into it.
                    quiet += 1
                    if quiet >= 3:
                        return "stopped" if seen_generating else "idle"
            if now >= deadline:
                return "generating" if snap is not None and snap.generating else "unknown"
            await self.page.wait_for_timeout(200)

    async def save_diagnostics(self, stem: Path) -> list[Path]:
        """A screenshot and the DOM for the operator, redacted and capped (:mod:`diagnose`)."""
        return await save_page_evidence(self.page, stem)


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
