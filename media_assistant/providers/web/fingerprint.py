"""Fingerprints of what worked (issue 33 item 1): after every successful task, the elements each
adapter step used, recorded per site — so that when the site changes its page, the repair
(:mod:`repair`) knows what it is looking for.

One small JSON file per site, ``<data-dir>/fingerprints/<site>.json`` (a few KB), rewritten
atomically after each successful task: for each key (composer ``input``, ``send``, ``stop``,
``generating``, ``done``, ``answer``, ``user_message``, ``new_chat``) the selector that matched
and the element described by :data:`fingerprint_js.FINGERPRINT_JS` — tag, role, id, test ids,
aria-label, placeholder, name, classes (hashed CSS-in-JS classes kept apart as unstable), the
labels of the buttons around it, its place on the page and its DOM path. No prompt or answer
text is kept: content elements carry no text of their own. A key the page no longer showed
keeps its last fingerprint (the generating indicator is gone once an answer is finished).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from media_assistant.core.files.atomic import write_atomically
from media_assistant.providers.web.adapter import PLAYWRIGHT_ONLY, SiteAdapter
from media_assistant.providers.web.fingerprint_js import DESCRIBE_ONE_JS, FINGERPRINT_JS

log = logging.getLogger(__name__)

# key → (content: no own text kept, last: a repeated element whose last match is the one used)
KEYS: dict[str, tuple[bool, bool]] = {
    "input": (True, False),
    "send": (False, False),
    "stop": (False, False),
    "generating": (False, False),
    "done": (False, True),
    "answer": (True, True),
    "user_message": (True, True),
    "new_chat": (False, False),
}


def fingerprint_config(adapter: SiteAdapter) -> dict[str, Any]:
    """What :data:`FINGERPRINT_JS` looks for: the adapter's selectors per key."""
    s = adapter.selectors
    selectors = {
        "input": s.input,
        "send": s.send,
        "stop": s.stop,
        "generating": s.generating,
        "done": s.done,
        "answer": s.answer,
        "user_message": s.user_message,
        "new_chat": s.new_chat or [step[0] for step in adapter.new_chat_steps[:1]],
    }
    keys = {
        key: {"selectors": sels, "content": KEYS[key][0], "last": KEYS[key][1]}
        for key, sels in selectors.items()
        if sels
    }
    return {"keys": keys}


async def capture(page: Page, adapter: SiteAdapter) -> dict[str, Any]:
    """The elements the adapter's selectors find on ``page`` now, described (on the browser's
    loop). Plain CSS in one page script; a key whose selectors use Playwright-only syntax
    (``button:has-text("Send")``) through a locator."""
    cfg = fingerprint_config(adapter)
    found: dict[str, Any] = await page.evaluate(FINGERPRINT_JS, cfg)
    for key, spec in cfg["keys"].items():
        if key in found or not any(PLAYWRIGHT_ONLY.search(sel) for sel in spec["selectors"]):
            continue
        for sel in spec["selectors"]:
            try:
                matches = page.locator(sel)
                count = await matches.count()
                if not count:
                    continue
                el = matches.last if spec["last"] else matches.first
                described = await el.evaluate(DESCRIBE_ONE_JS, spec["content"])
            except PlaywrightError:
                continue
            found[key] = {"selector": sel, "count": count, "element": described}
            break
    return found


@dataclass
class SiteFingerprint:
    site: str
    keys: dict[str, dict[str, Any]]  # key → {"selector", "count", "element", "at"}
    adapter_version: str = ""
    updated_at: str = ""

    def element(self, key: str) -> dict[str, Any] | None:
        entry = self.keys.get(key)
        return entry.get("element") if entry else None

    def to_json(self) -> dict[str, Any]:
        return {
            "site": self.site,
            "adapter_version": self.adapter_version,
            "updated_at": self.updated_at,
            "keys": self.keys,
        }


class FingerprintStore:
    """The fingerprints folder of a data folder. Blocking file I/O: call off the event loop."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, site: str) -> Path:
        return self.folder / f"{site}.json"

    def load(self, site: str) -> SiteFingerprint | None:
        path = self.path(site)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("%s: fingerprints unreadable (%s): ignored", path, exc)
            return None
        keys = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(keys, dict):
            return None
        return SiteFingerprint(
            site, keys, str(data.get("adapter_version", "")), str(data.get("updated_at", ""))
        )

    def record(self, adapter: SiteAdapter, found: dict[str, Any]) -> SiteFingerprint:
        """Merge what the page showed after a successful task into the site's file."""
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        old = self.load(adapter.id)
        keys = dict(old.keys) if old is not None else {}
        for key, entry in found.items():
            if key in KEYS and isinstance(entry, dict) and isinstance(entry.get("element"), dict):
                keys[key] = {**entry, "at": now}
        fp = SiteFingerprint(adapter.id, keys, adapter.version, now)
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(fp.to_json(), ensure_ascii=False, indent=1)
        target = self.path(adapter.id)

        write_atomically(target, lambda tmp: tmp.write_text(text, encoding="utf-8"))  # 0600
        return fp
