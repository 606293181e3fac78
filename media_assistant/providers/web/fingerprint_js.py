# ruff: noqa: E501 - page scripts: one JavaScript statement a line reads better than wrapped
"""The page scripts behind locator repair (issue 33): what an element looks like, as data.

``DESCRIBE`` is the one description both sides use — the fingerprint of the element a step used
on a successful task (:mod:`fingerprint`) and every candidate on a changed page (:mod:`repair`):
tag, role, id, test ids, aria-label, placeholder, name, type, title, classes (hashed CSS-in-JS
classes flagged unstable), own text (controls only), the labels of the buttons around it, its
place on the page and its DOM path. No prompt or answer text: a content element (composer,
answer, user message) keeps no text of its own, and neighbour labels come only from buttons and
``aria-label``/``title`` attributes, never from the conversation's text.

``CANDIDATES_JS`` also writes, for each candidate, the CSS selectors that would find it
(:func:`selectorsFor`): stable attributes first, hashed classes never, and for a repeated
element (answers, done markers) an ancestor taken from the old selector when it still holds.
"""

from __future__ import annotations

# Shared helpers (a string, included in both scripts).
_HELPERS = r"""
const HASHED = /^(css|sc|jsx|emotion|styled|tw|svelte|makeStyles|jss|chakra|mui)-[A-Za-z0-9_-]{4,}$|^_?[a-zA-Z]{0,3}[0-9][A-Za-z0-9_-]{4,}$|^[a-zA-Z]+_[a-zA-Z0-9]{5,}$|^(?=[a-z0-9]*[0-9])[a-z0-9]{6,}$/;
const TESTID_ATTRS = ["data-testid", "data-test-id", "data-test", "data-qa", "data-cy", "data-e2e"];
const ROLE_ATTRS = ["data-role", "data-message-author-role", "data-type", "data-state"];
const CONTROL = 'button, [role="button"], a[href], input[type="submit"], input[type="button"]';
const hashed = (c) => HASHED.test(c);
const short = (s, n) => (s || "").replace(/\s+/g, " ").trim().slice(0, n);
function visible(el) {
  if (!el || !el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return false;
  const st = getComputedStyle(el);
  return st.visibility !== "hidden" && st.display !== "none" && Number(st.opacity) > 0.05;
}
function enabled(el) {
  if (el.disabled || el.getAttribute("aria-disabled") === "true") return false;
  if (el.closest("fieldset[disabled], [inert]")) return false;
  if (el.hasAttribute("contenteditable") && el.getAttribute("contenteditable") === "false") return false;
  if (el.readOnly) return false;
  return true;
}
function role(el) {
  const r = el.getAttribute("role");
  if (r) return r;
  const t = el.tagName.toLowerCase();
  if (t === "button" || (t === "input" && /submit|button/.test(el.type))) return "button";
  if (t === "textarea" || (t === "input" && /^(text|search|)$/.test(el.type || ""))) return "textbox";
  if (el.isContentEditable && el.getAttribute("contenteditable") !== null) return "textbox";
  if (t === "a" && el.hasAttribute("href")) return "link";
  return "";
}
function testid(el) {
  for (const a of TESTID_ATTRS) if (el.hasAttribute(a)) return [a, el.getAttribute(a)];
  return null;
}
function node(el) {  // one step of a DOM path: tag, stable classes, role-ish attributes
  let s = el.tagName.toLowerCase();
  const cls = Array.from(el.classList).filter((c) => !hashed(c)).slice(0, 3);
  if (cls.length) s += "." + cls.join(".");
  for (const a of ["role", ...ROLE_ATTRS.slice(0, 2)]) {
    if (el.hasAttribute(a)) s += "[" + a + "=" + el.getAttribute(a) + "]";
  }
  return s;
}
function path(el) {
  const out = [];
  for (let n = el; n && n !== document.body && out.length < 14; n = n.parentElement) out.unshift(node(n));
  return out;
}
function label(el) {
  return short(el.getAttribute("aria-label") || el.getAttribute("title") || el.innerText, 40);
}
function neighbours(el) {  // the labels of buttons close by (parent, grandparent): never links,
                          // whose text may be a conversation's title (a prompt)
  const out = [];
  for (const scope of [el.parentElement, el.parentElement && el.parentElement.parentElement]) {
    if (!scope || scope === document.body) continue;
    for (const b of scope.querySelectorAll('button, [role="button"]')) {
      if (b === el || el.contains(b) || out.length >= 8) continue;
      const text = label(b);
      if (text && !out.includes(text)) out.push(text);
    }
  }
  return out;
}
function describe(el, content) {
  const r = el.getBoundingClientRect();
  const vw = Math.max(1, innerWidth), vh = Math.max(1, innerHeight);
  const tid = testid(el);
  const cls = Array.from(el.classList);
  const attrs = {};
  for (const a of ROLE_ATTRS) if (el.hasAttribute(a)) attrs[a] = el.getAttribute(a);
  return {
    tag: el.tagName.toLowerCase(),
    role: role(el),
    id: el.id || "",
    testid: tid ? tid[1] : "",
    aria_label: el.getAttribute("aria-label") || "",
    placeholder: el.getAttribute("placeholder") || el.getAttribute("data-placeholder") || "",
    name: el.getAttribute("name") || "",
    type: el.getAttribute("type") || "",
    title: el.getAttribute("title") || "",
    classes: cls.filter((c) => !hashed(c)),
    unstable_classes: cls.filter(hashed),
    attrs,
    text: content ? "" : short(el.innerText || el.value, 60),
    neighbours: neighbours(el),
    x: (r.left + r.width / 2) / vw, y: (r.top + r.height / 2) / vh,
    w: r.width / vw, h: r.height / vh,
    path: path(el),
    children: el.children.length,
    visible: visible(el),
    enabled: enabled(el),
  };
}
function all(selectors) {
  const out = [];
  for (const sel of selectors || []) {
    try { out.push(...document.querySelectorAll(sel)); } catch (e) { /* Playwright-only */ }
    if (out.length) return [sel, out];
  }
  return [null, out];
}
"""

# The elements the adapter's selectors find now (after a successful task), described.
# cfg: {keys: {key: {selectors: [...], content: bool, last: bool}}}
FINGERPRINT_JS = (
    "(cfg) => {\n"
    + _HELPERS
    + r"""
  const out = {};
  for (const [key, spec] of Object.entries(cfg.keys)) {
    const [sel, found] = all(spec.selectors);
    if (!found.length) continue;
    const shown = found.filter(visible);
    const pool = shown.length ? shown : found;
    const el = spec.last ? pool[pool.length - 1] : pool[0];
    out[key] = { selector: sel, count: found.length, element: describe(el, spec.content) };
  }
  return out;
}
"""
)

# Every candidate for one key on the page as it is now, described, with the selectors that
# would find it. cfg: {kind: "textbox"|"control"|"content", content: bool, last: bool,
# old: [old selectors], min_text: int, limit: int}
CANDIDATES_JS = (
    "(cfg) => {\n"
    + _HELPERS
    + r"""
  const q = (s) => { try { return Array.from(document.querySelectorAll(s)); } catch (e) { return null; } };
  const esc = (v) => String(v).replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  function ownParts(el) {
    const t = el.tagName.toLowerCase();
    const parts = [];
    if (el.id && !hashed(el.id) && !/\d{3,}/.test(el.id)) parts.push(t + "#" + CSS.escape(el.id));
    const tid = testid(el);
    if (tid) parts.push(t + "[" + tid[0] + '="' + esc(tid[1]) + '"]');
    if (el.getAttribute("aria-label")) parts.push(t + '[aria-label="' + esc(el.getAttribute("aria-label")) + '"]');
    if (el.getAttribute("placeholder")) parts.push(t + '[placeholder="' + esc(el.getAttribute("placeholder")) + '"]');
    if (el.getAttribute("data-placeholder")) parts.push(t + '[data-placeholder="' + esc(el.getAttribute("data-placeholder")) + '"]');
    if (el.getAttribute("name")) parts.push(t + '[name="' + esc(el.getAttribute("name")) + '"]');
    const cls = Array.from(el.classList).filter((c) => !hashed(c)).slice(0, 2);
    if (cls.length) parts.push(t + "." + cls.map((c) => CSS.escape(c)).join("."));
    if (el.getAttribute("title")) parts.push(t + '[title="' + esc(el.getAttribute("title")) + '"]');
    for (const a of ROLE_ATTRS.slice(0, 2)) {
      if (el.hasAttribute(a)) parts.push(t + "[" + a + '="' + esc(el.getAttribute(a)) + '"]');
    }
    return parts;
  }
  function prefixes(el) {  // the old selectors' ancestor parts that still hold an ancestor of el
    const out = [];
    for (const sel of cfg.old || []) {
      // Every cut at a space outside brackets, parentheses and quotes, longest prefix first.
      const cuts = [];
      let depth = 0, quote = "";
      for (let i = 0; i < sel.length; i++) {
        const ch = sel[i];
        if (quote) { if (ch === quote) quote = ""; continue; }
        if (ch === '"' || ch === "'") quote = ch;
        else if (ch === "[" || ch === "(") depth++;
        else if (ch === "]" || ch === ")") depth--;
        else if (ch === " " && depth === 0) cuts.push(i);
      }
      for (const cut of cuts.reverse()) {
        const prefix = sel.slice(0, cut).replace(/\s*>\s*$/, "").trim();
        if (!prefix) continue;
        const anc = q(prefix);
        if (anc && anc.some((a) => a !== el && a.contains(el)) && !out.includes(prefix)) out.push(prefix);
      }
    }
    for (let a = el.parentElement, depth = 0; a && a !== document.body && depth < 6; a = a.parentElement, depth++) {
      for (const part of ownParts(a).filter((p) => /\[|#/.test(p))) if (!out.includes(part)) out.push(part);
    }
    return out;
  }
  function fits(sel, el) {
    const found = q(sel);
    if (!found || !found.includes(el)) return false;
    if (cfg.last) {
      const shown = found.filter(visible);
      const pool = shown.length ? shown : found;
      return pool[pool.length - 1] === el && found.every((f) => f.tagName === el.tagName);
    }
    return found.filter((f) => visible(f) && f !== el).length === 0;
  }
  function selectorsFor(el) {
    const own = ownParts(el);
    const tries = [];
    if (cfg.last) for (const p of prefixes(el)) for (const o of own) tries.push(p + " " + o);
    tries.push(...own);
    if (!cfg.last) for (const p of prefixes(el)) for (const o of own) tries.push(p + " " + o);
    // Structure as a last resort: a stable ancestor, then tags with their place.
    const parent = el.parentElement;
    if (parent) {
      const t = el.tagName.toLowerCase();
      const idx = Array.from(parent.children).filter((c) => c.tagName === el.tagName).indexOf(el) + 1;
      for (const p of prefixes(el)) {
        tries.push(p + " > " + t + ":nth-of-type(" + idx + ")");
      }
    }
    const out = [];
    for (const s of tries) if (!out.includes(s) && fits(s, el)) out.push(s);
    return out.slice(0, 3);
  }
  let pool;
  if (cfg.kind === "textbox") {
    pool = q('textarea, input:not([type]), input[type="text"], input[type="search"], [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"], [role="textbox"]');
  } else if (cfg.kind === "control") {
    pool = q(CONTROL);
  } else {
    pool = q("body *").filter((e) => !e.matches("script, style, svg, svg *, button, [role=button], input, textarea, select, option, head *")
      && (e.innerText || "").trim().length >= (cfg.min_text || 1));
  }
  pool = (pool || []).slice(-(cfg.limit || 1500));
  const out = [];
  pool.forEach((el, i) => {
    const d = describe(el, cfg.content);
    d.index = i;
    d.selectors = selectorsFor(el);
    d.ancestors = [];
    out.push(d);
  });
  // Which candidates hold which (the runner-up is never the winner's own wrapper or part).
  pool.forEach((el, i) => {
    pool.forEach((other, j) => { if (i !== j && other.contains(el)) out[i].ancestors.push(j); });
  });
  return out;
}
"""
)


# One element (a Playwright locator's), described: for selectors a page script cannot run.
DESCRIBE_ONE_JS = "(el, content) => {\n" + _HELPERS + "\n  return describe(el, content);\n}\n"
