"""``sites probe URL``: what an adapter author needs after a site redesign — the page's candidate
composers, its buttons (icon buttons known only by aria-label included) and the streaming
requests it makes — each with a suggested selector. The page is opened the way the account's
tasks open it: its profile, through its proxy (issue 32)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Response

from media_assistant.providers.proxy import ProxyRoute
from media_assistant.providers.web.executable import BrowserChoice
from media_assistant.providers.web.launch import open_profile

_CANDIDATES_JS = """
() => {
  const visible = (el) => {
    const st = getComputedStyle(el); const r = el.getBoundingClientRect();
    return st.display !== 'none' && st.visibility !== 'hidden' && (r.width > 0 || r.height > 0);
  };
  const q = (s) => (window.CSS && CSS.escape) ? CSS.escape(s) : s;
  const selector = (el) => {
    const tag = el.tagName.toLowerCase();
    if (el.id) return `${tag}#${q(el.id)}`;
    for (const a of ['data-testid', 'aria-label', 'name', 'placeholder', 'title']) {
      const v = el.getAttribute(a);
      if (v) return `${tag}[${a}="${v.replace(/"/g, '\\\\"')}"]`;
    }
    if (el.getAttribute('contenteditable') === 'true') return `${tag}[contenteditable="true"]`;
    const cls = Array.from(el.classList).filter((c) => !/\\d{3,}|^[a-z0-9_-]{10,}$/i.test(c));
    return cls.length ? `${tag}.${cls.slice(0, 2).map(q).join('.')}` : tag;
  };
  const describe = (el) => ({
    selector: selector(el),
    text: (el.innerText || el.value || '').trim().slice(0, 60),
    label: el.getAttribute('aria-label') || el.getAttribute('title') || '',
    disabled: !!el.disabled || el.getAttribute('aria-disabled') === 'true',
  });
  const inputs = Array.from(document.querySelectorAll(
    'textarea, input[type=text], input:not([type]), [contenteditable="true"], [role=textbox]'))
    .filter(visible).map(describe);
  const buttons = Array.from(document.querySelectorAll('button, [role=button], a[aria-label]'))
    .filter(visible).map(describe);
  return { url: location.href, title: document.title, inputs, buttons };
}
"""


@dataclass
class ProbeReport:
    url: str
    title: str
    inputs: list[dict[str, object]] = field(default_factory=list)
    buttons: list[dict[str, object]] = field(default_factory=list)
    streams: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"page: {self.url} — {self.title!r}", "", "candidate composers (selectors.input):"]
        out += [
            f"  {i['selector']}" + (f"   text={i['text']!r}" if i["text"] else "")
            for i in self.inputs
        ] or ["  (none visible)"]
        out += ["", "buttons (selectors.send / stop / new_chat; markers.*.buttons):"]
        for b in self.buttons:
            extra = ", ".join(f"{k}={b[k]!r}" for k in ("label", "text") if b[k])
            out.append(
                f"  {b['selector']}"
                + (f"   {extra}" if extra else "")
                + ("   (disabled)" if b["disabled"] else "")
            )
        out += ["", "streaming responses seen (the answer's transport):"]
        out += [f"  {s}" for s in self.streams] or ["  (none: send a message with --show)"]
        return out


def _is_stream(response: Response) -> bool:
    kind = response.headers.get("content-type", "")
    return any(k in kind for k in ("event-stream", "ndjson", "x-protobuf", "connect+")) or (
        "chunked" in response.headers.get("transfer-encoding", "")
        and any(w in response.url for w in ("stream", "completion", "chat", "conversation"))
    )


async def probe(
    url: str,
    profile: Path,
    choice: BrowserChoice,
    *,
    watch_s: float = 5.0,
    show: bool = False,
    proxy: ProxyRoute | None = None,
) -> ProbeReport:
    """Open ``url`` in ``profile`` through ``proxy`` (providers/proxy.py ``route_for``); watch
    for ``watch_s`` seconds (send a message meanwhile with ``show=True`` to see the streaming
    request); list what an adapter could target."""
    streams: list[str] = []
    async with open_profile(
        profile, choice, headless=not show, foreground=show, proxy=proxy
    ) as context:
        page = context.pages[0] if context.pages else await context.new_page()
        page.on(
            "response",
            lambda r: (
                streams.append(f"{r.request.method} {r.url} [{r.headers.get('content-type', '')}]")
                if _is_stream(r)
                else None
            ),
        )
        await page.goto(url, wait_until="domcontentloaded")
        await asyncio.sleep(watch_s)
        raw = await page.evaluate(_CANDIDATES_JS)
    return ProbeReport(
        raw["url"], raw["title"], raw["inputs"], raw["buttons"], list(dict.fromkeys(streams))
    )
