"""Driving one chat page with a site adapter: open a new chat, type, send, read, stop.

Runs on the browser service's loop. Reads use one script per poll (one round trip); actions use
Playwright locators so they get real input events (rich-text editors ignore ``.value``).
Nothing is ever read through the OS clipboard: concurrent browsers share it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from media_assistant.core.errors import ErrorKind, ProviderError
from media_assistant.providers.web.adapter import Marker, SiteAdapter

MARKERS = ("login_lost", "captcha", "rate_limited", "busy", "conflict", "error")

MARKER_ERRORS: dict[str, ErrorKind] = {
    "login_lost": ErrorKind.LOGIN_REQUIRED,
    "captcha": ErrorKind.CAPTCHA,
    "rate_limited": ErrorKind.RATE_LIMITED,
    "busy": ErrorKind.SITE_BUSY,
    "conflict": ErrorKind.SESSION_CONFLICT,
    "error": ErrorKind.SERVER_ERROR,
}

_SNAPSHOT_JS = """
(cfg) => {
  const visible = (el) => {
    if (!el || !el.isConnected) return false;
    const st = getComputedStyle(el);
    if (st.display === 'none' || st.visibility === 'hidden') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0;
  };
  const all = (sels) => {
    for (const s of sels) {
      let found;
      try { found = document.querySelectorAll(s); } catch (e) { continue; }
      if (found.length) return Array.from(found);
    }
    return [];
  };
  const text = (el) => (el ? (el.innerText || el.textContent || '') : null);
  const answers = all(cfg.answer);
  const last = answers.length ? answers[answers.length - 1] : null;
  const reasoning = all(cfg.reasoning);
  const alerts = all(cfg.alert_regions).filter(visible).map(text).join('\\n');
  let buttons = null;
  const marker = (m) => {
    const url = location.href;
    for (const u of m.url) if (url.includes(u)) return 'url ' + u;
    for (const s of m.selectors) {
      try { if (Array.from(document.querySelectorAll(s)).some(visible)) return s; } catch (e) {}
    }
    for (const t of m.texts) if (alerts.includes(t)) return t;
    if (m.buttons.length) {
      if (buttons === null) {
        buttons = Array.from(document.querySelectorAll('button, a, [role=button]'))
          .filter(visible).map((e) => text(e).trim());
      }
      for (const b of m.buttons) if (buttons.includes(b)) return b;
    }
    return null;
  };
  const markers = {};
  for (const [name, m] of Object.entries(cfg.markers)) markers[name] = marker(m);
  return {
    url: location.href,
    answers: answers.length,
    text: text(last),
    reasoning: reasoning.length ? text(reasoning[reasoning.length - 1]) : null,
    generating: all(cfg.generating).some(visible),
    done: all(cfg.done).filter(visible).length,
    users: all(cfg.user_message).length,
    alerts: alerts,
    markers: markers,
  };
}
"""


@dataclass(frozen=True, slots=True)
class Snapshot:
    url: str
    answers: int
    text: str | None
    reasoning: str | None
    generating: bool
    done: int
    users: int
    alerts: str
    markers: dict[str, str | None] = field(default_factory=dict)

    def problem(self) -> tuple[str, str] | None:
        """The first marker present, by severity: (marker name, what matched)."""
        for name in MARKERS:
            hit = self.markers.get(name)
            if hit:
                return name, hit
        return None


def _marker_cfg(m: Marker) -> dict[str, list[str]]:
    return {"selectors": m.selectors, "texts": m.texts, "url": m.url, "buttons": m.buttons}


class ChatPage:
    def __init__(self, page: Page, adapter: SiteAdapter, origin: str | None = None) -> None:
        self.page = page
        self.adapter = adapter
        self.origin = origin
        s, m = adapter.selectors, adapter.markers
        self._poll_cfg: dict[str, Any] = {
            "answer": s.answer,
            "reasoning": s.reasoning,
            "generating": s.generating,
            "done": s.done,
            "user_message": s.user_message,
            "alert_regions": m.alert_regions,
            "markers": {name: _marker_cfg(getattr(m, name)) for name in MARKERS},
        }

    # ---------------------------------------------------------------- reading

    async def snapshot(self) -> Snapshot:
        raw = await self.page.evaluate(_SNAPSHOT_JS, self._poll_cfg)
        return Snapshot(**raw)

    def _first(self, selectors: list[str]) -> Locator:
        """The ordered fallbacks as one locator: the first selector with a match wins."""
        locator = self.page.locator(selectors[0])
        for sel in selectors[1:]:
            locator = locator.or_(self.page.locator(sel))
        return locator.first

    def composer(self) -> Locator:
        return self._first(self.adapter.selectors.input)

    async def _first_present(self, selectors: list[str]) -> Locator | None:
        for sel in selectors:
            loc = self.page.locator(sel)
            if await loc.count():
                return loc.first
        return None

    # ---------------------------------------------------------------- actions

    async def open_new_chat(self) -> Snapshot:
        """Load a fresh conversation; the composer must show up (or a reason why it won't)."""
        timing = self.adapter.timing
        url = self.adapter.url(self.adapter.new_chat_url, self.origin)
        try:
            await self.page.goto(
                url, wait_until="domcontentloaded", timeout=timing.page_load_timeout_s * 1000
            )
        except PlaywrightTimeout:
            raise ProviderError(
                ErrorKind.NETWORK, f"{url} did not load within {timing.page_load_timeout_s:.0f} s"
            ) from None
        composer = self.composer()
        deadline = timing.page_load_timeout_s * 1000
        waited = 0.0
        step = 250.0
        while True:
            snap = await self.snapshot()
            problem = snap.problem()
            if problem and problem[0] in ("login_lost", "captcha"):
                raise marker_error(problem, snap)
            if await composer.count() and await composer.is_visible():
                return snap
            if waited >= deadline:
                raise ProviderError(
                    ErrorKind.BAD_CONFIG,
                    f"no composer on {snap.url} after {timing.page_load_timeout_s:.0f} s "
                    f"(selectors {self.adapter.selectors.input}): logged out, or the site "
                    f"changed and adapter {self.adapter.id!r} needs updating",
                )
            await self.page.wait_for_timeout(step)
            waited += step

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
                )

    async def send(self, before: Snapshot) -> None:
        """Click send (or press Enter) and wait until the page visibly accepted the message."""
        how, timing = self.adapter.input, self.adapter.timing
        button = await self._first_present(self.adapter.selectors.send)
        if how.send_with == "click" and button is not None:
            try:
                await button.click(timeout=timing.send_timeout_s * 1000)
            except PlaywrightTimeout:  # never enabled: fall back to the keyboard
                await self.composer().press("Enter")
        else:
            await self.composer().press("Enter")
        waited, step = 0.0, 100.0
        while waited < timing.send_timeout_s * 1000:
            snap = await self.snapshot()
            problem = snap.problem()
            if problem:
                raise marker_error(problem, snap)
            if snap.users > before.users or snap.generating or snap.answers > before.answers:
                return
            await self.page.wait_for_timeout(step)
            waited += step
        raise ProviderError(
            ErrorKind.PROTOCOL,
            f"the page did not accept the message within {timing.send_timeout_s:.0f} s",
        )

    async def stop_generating(self) -> bool:
        """Click the page's stop control if it is there. True if clicked."""
        stop = await self._first_present(self.adapter.selectors.stop)
        if stop is None or not await stop.is_visible():
            return False
        try:
            await stop.click(timeout=2000)
        except PlaywrightTimeout:
            return False
        return True

    async def save_diagnostics(self, stem: Path) -> list[Path]:
        """A screenshot and a DOM dump for the operator, next to each other."""
        stem.parent.mkdir(parents=True, exist_ok=True)
        saved = []
        png, html = stem.with_suffix(".png"), stem.with_suffix(".html")
        try:
            await self.page.screenshot(path=str(png), full_page=True, timeout=5000)
            saved.append(png)
        except Exception:  # a crashed page cannot be photographed; the DOM may still come
            pass
        try:
            html.write_text(await self.page.content(), encoding="utf-8")
            saved.append(html)
        except Exception:
            pass
        return saved


def marker_error(problem: tuple[str, str], snap: Snapshot) -> ProviderError:
    name, hit = problem
    detail = snap.alerts.strip().splitlines()[0] if snap.alerts.strip() else hit
    messages = {
        "login_lost": f"the site asks to log in ({hit})",
        "captcha": f"a captcha/challenge needs a human ({hit})",
        "rate_limited": f"the site says: {detail}",
        "busy": f"the site says: {detail}",
        "conflict": f"the site says another generation is running: {detail}",
        "error": f"the site reported an error: {detail}",
    }
    return ProviderError(MARKER_ERRORS[name], messages[name])


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
