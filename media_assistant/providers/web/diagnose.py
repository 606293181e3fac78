"""What a failed step looked like, for the operator (or whoever fixes the adapter): a screenshot
of the page and its DOM, redacted and capped in size (issue 21 item 2).

Both show a signed-in session. Redacted in the page before anything is written: script bodies
(a chat UI's bootstrap state carries tokens and user data), every form field's value (a password,
a hidden CSRF token), attributes whose name says token, secret, csrf, nonce, key or auth, and
iframe ``srcdoc``; then, in Python, anything secret-shaped in what is left (``sk-…``, a bearer
token, ``key=…`` in a URL). The DOM is cut at ``DOM_CAP_BYTES``; the screenshot is the viewport
as a JPEG (full pages of a long chat are megabytes), password fields masked. The diagnostics
folder keeps them ``[diagnostics] keep_days`` / ``max_mb`` (core/files/diagnostics.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Page

DOM_CAP_BYTES = 512_000
SCREENSHOT_QUALITY = 60
REDACTED = "[redacted]"

# Runs in the page: the document's HTML with secrets taken out of a copy (the page is untouched).
REDACTED_DOM_JS = """
() => {
  const copy = document.documentElement.cloneNode(true);
  const SECRET_ATTR = /token|secret|csrf|xsrf|nonce|key|auth|password|session|cookie/i;
  for (const el of copy.querySelectorAll('script, noscript, template')) {
    if (el.textContent) el.textContent = '/* [redacted] */';
  }
  for (const el of copy.querySelectorAll('input, textarea, select, option')) {
    if (el.hasAttribute('value')) el.setAttribute('value', '[redacted]');
    if (el.tagName === 'TEXTAREA') el.textContent = '';
  }
  for (const el of copy.querySelectorAll('iframe[srcdoc]')) el.setAttribute('srcdoc', '');
  for (const el of copy.querySelectorAll('*')) {
    for (const attr of Array.from(el.attributes)) {
      if (SECRET_ATTR.test(attr.name) && attr.name !== 'aria-keyshortcuts') {
        el.setAttribute(attr.name, '[redacted]');
      }
    }
  }
  for (const el of copy.querySelectorAll('meta[content]')) {
    if (SECRET_ATTR.test(el.getAttribute('name') || '')) el.setAttribute('content', '[redacted]');
  }
  return '<!doctype html>\\n' + copy.outerHTML;
}
"""

_SECRET_SHAPED = (
    re.compile(r"sk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
    re.compile(r"(?i)((?:key|token|access_token|secret|sign|password|session)=)[^&\s\"'<]+"),
    re.compile(r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),  # a JWT
)


def redact_text(html: str) -> str:
    """Secret-shaped values taken out of the page's HTML."""
    for pattern in _SECRET_SHAPED:
        html = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, html)
    return html


def cap(html: str, limit: int = DOM_CAP_BYTES) -> str:
    """At most ``limit`` bytes of UTF-8, with a note where it was cut."""
    data = html.encode("utf-8")
    if len(data) <= limit:
        return html
    kept = data[:limit].decode("utf-8", errors="ignore")
    return kept + f"\n<!-- cut at {limit // 1000} KB of {len(data) // 1000} KB -->\n"


async def save_page_evidence(page: Page, stem: Path) -> list[Path]:
    """``<stem>.jpg`` (the viewport, password fields masked) and ``<stem>.html`` (the DOM,
    redacted, capped) next to each other; what could be saved (a crashed page cannot be
    photographed, its DOM may still come)."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    jpg, html = stem.with_suffix(".jpg"), stem.with_suffix(".html")
    try:
        await page.screenshot(
            path=str(jpg),
            type="jpeg",
            quality=SCREENSHOT_QUALITY,
            full_page=False,
            timeout=5000,
            mask=[page.locator('input[type="password"]')],
        )
        saved.append(jpg)
    except Exception:  # noqa: S110 - the DOM below is still worth having
        pass
    try:
        dom = await page.evaluate(REDACTED_DOM_JS)
        html.write_text(cap(redact_text(str(dom))), encoding="utf-8")
        saved.append(html)
    except Exception:  # noqa: S110 - a page gone mid-way: what was saved is what there is
        pass
    return saved
