"""The scripts the web provider evaluates in the chat page: one per poll, one per answer.

Kept apart from :mod:`page` so the Python reads as steps. Both take one config object built
from the site adapter (plain CSS selectors only: see ``SiteAdapter._poll_selectors_are_css``).
"""

from __future__ import annotations

# One round trip per poll: the last answer, markers, alerts, an error box inside the answer.
#
# Alert regions (toasts, banners) are where text markers are looked for. Two real-site traps:
# an aria-live region can hold the whole conversation (a prompt containing "too many requests"
# must not look like a rate limit), so text inside conversation elements is skipped; and a
# toast that was already up before the prompt was sent (left from the previous task, or from
# another tab) is not news, so alerts seen by a "mark" snapshot are ignored by the snapshots
# after it while their text stays the same.
SNAPSHOT_JS = """
async (cfg) => {
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
  const matchesAny = (el, sels) => sels.some((s) => {
    try { return el.matches(s); } catch (e) { return false; }
  });
  const text = (el) => (el ? (el.innerText || el.textContent || '') : null);
  // Waiting polls: return early when the page signals the end (a new done marker, the
  // generating indicator gone) or navigates, else after wait_ms. Done detection then costs a
  // round trip instead of half a poll interval. After a New chat click (wait_empty): return
  // as soon as the chat shows no answer and no user message.
  if (cfg.wait_ms > 0) {
    const signalled = () => (cfg.wait_empty
      ? !all(cfg.answer).length && !all(cfg.user_message).length
      : all(cfg.done).filter(visible).length > cfg.wait_done
        || (cfg.wait_generating && !all(cfg.generating).some(visible)));
    if (!signalled()) {
      await new Promise((resolve) => {
        let timer = null;
        const observer = new MutationObserver(() => {
          if (signalled()) finish();
        });
        const finish = () => { observer.disconnect(); clearTimeout(timer); resolve(); };
        timer = setTimeout(finish, cfg.wait_ms);
        observer.observe(document.documentElement,
          { subtree: true, childList: true, attributes: true, characterData: true });
      });
    }
  }
  const answers = all(cfg.answer);
  const last = answers.length ? answers[answers.length - 1] : null;
  const reasoning = all(cfg.reasoning);

  // Text of a region, leaving out every conversation element inside it.
  const conv = cfg.conversation;
  const outsideConversation = (region) => {
    if (!conv.length) return text(region);
    const show = NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT;
    const walker = document.createTreeWalker(region, show, {
      acceptNode: (n) => (n.nodeType === 1 && matchesAny(n, conv))
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
    });
    const parts = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 3) parts.push(n.nodeValue);
    }
    return parts.join(' ');
  };
  const seen = (window.__maSeenAlerts = window.__maSeenAlerts || new WeakMap());
  const alertTexts = [];
  for (const region of all(cfg.alert_regions)) {
    if (!visible(region)) continue;
    const up = region.parentElement;
    if (conv.length && (matchesAny(region, conv) || (up && up.closest(conv.join(','))))) continue;
    const t = (outsideConversation(region) || '').trim();
    const old = seen.get(region) === t;
    if (cfg.mark) seen.set(region, t);
    if (t && !old) alertTexts.push(t);
  }
  const alerts = alertTexts.join('\\n');

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

  // An error box inside the last answer (or its message container), outside code blocks.
  let answerError = null;
  if (last) {
    const scopes = [last];
    if (cfg.container.length) {
      const box = last.closest(cfg.container.join(','));
      if (box) scopes.push(box);
    }
    outer: for (const scope of scopes) {
      for (const s of cfg.error_selectors) {
        let found;
        try { found = scope.querySelectorAll(s); } catch (e) { continue; }
        for (const el of found) {
          if (el.closest('pre, code') || !visible(el)) continue;
          answerError = (text(el) || s).trim().slice(0, 300) || s;
          break outer;
        }
      }
    }
  }
  return {
    url: location.href,
    answers: answers.length,
    text: text(last),
    reasoning: reasoning.length ? text(reasoning[reasoning.length - 1]) : null,
    generating: all(cfg.generating).some(visible),
    generated: window.__maGenerated === true,
    composer: all(cfg.input).some(visible),
    done: all(cfg.done).filter(visible).length,
    users: all(cfg.user_message).length,
    alerts: alerts,
    markers: markers,
    answer_error: answerError,
  };
}
"""

# Just before a send: from now on, note in the page whether the generating indicator shows at
# any moment, between polls included. A UI whose server fails may show its stop button for a
# split second and then nothing at all; the snapshot reports the sighting (``generated``), and
# the provider knows the page started and stopped without answering (issue 22). One sighting is
# all it takes: the observer then stops watching.
ARM_JS = """
(cfg) => {
  // The page's text now: an answer the adapter's selectors no longer find still adds to it
  // (how "the site stopped without answering" is told from "the answer moved", issue 21).
  window.__maTextBefore = document.body ? document.body.innerText.length : 0;
  if (!cfg.generating.length) return;
  const visible = (el) => {
    const st = getComputedStyle(el);
    if (st.display === 'none' || st.visibility === 'hidden') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0;
  };
  const generating = () => {  // as the snapshot reads it: the first selector that matches
    for (const s of cfg.generating) {
      let found;
      try { found = document.querySelectorAll(s); } catch (e) { continue; }
      if (found.length) return Array.from(found).some(visible);
    }
    return false;
  };
  if (window.__maGenWatch) window.__maGenWatch.disconnect();
  window.__maGenerated = false;
  const observer = new MutationObserver(() => {
    if (generating()) { window.__maGenerated = true; observer.disconnect(); }
  });
  observer.observe(document.documentElement,
    { subtree: true, childList: true, attributes: true, characterData: true });
  window.__maGenWatch = observer;
}
"""

# Once per accepted answer: its HTML (cleaned, code languages marked, emphasis drawn by CSS
# turned into tags), its text, and the site's own Markdown when the adapter names where the
# copy control keeps it.
#
# Emphasis drawn by CSS: utility-class UIs (Tailwind, shadcn) render **bold** as
# <span class="font-bold">, so the tags say nothing and only the computed style does — and
# computed style exists only on the live page, not on the clone or in Python. Each live element
# is read once and the same element of the clone (cloneNode keeps the order) gets a <strong>,
# <em> or <code> inside it. Marked only where the element changes the look against its parent
# (a bold paragraph's inner spans are not bold again), never inside tags that already say it,
# and never where bold or italic is the default look rather than emphasis: headings, table
# headers, quotes (typography plugins draw them italic), links, code. A block element is marked
# only when all it holds is inline (a bold <li>: "- **x**"); a monospace block is not code.
EXTRACT_JS = """
(cfg) => {
  const all = (sels) => {
    for (const s of sels) {
      let found;
      try { found = document.querySelectorAll(s); } catch (e) { continue; }
      if (found.length) return Array.from(found);
    }
    return [];
  };
  const answers = all(cfg.answer);
  const last = answers.length ? answers[answers.length - 1] : null;
  if (!last) return null;
  const clone = last.cloneNode(true);
  const live = Array.from(last.querySelectorAll('*'));
  const copies = Array.from(clone.querySelectorAll('*'));
  const styles = new Map();
  const style = (el) => {
    let st = styles.get(el);
    if (!st) { st = getComputedStyle(el); styles.set(el, st); }
    return st;
  };
  const weight = (st) => {
    const w = parseInt(st.fontWeight, 10);
    return Number.isNaN(w) ? (st.fontWeight === 'bold' ? 700 : 400) : w;
  };
  const italic = (st) => /italic|oblique/.test(st.fontStyle);
  const MONO = /monospace|mono\\b|courier|consolas|menlo|monaco|sfmono|fira code|source code/i;
  const mono = (st) => MONO.test(st.fontFamily);
  const inline = (st) => /^inline|^contents$/.test(st.display);
  const within = (el, sel) => {
    const hit = el.closest(sel);
    return hit !== null && last.contains(hit);
  };
  const NEVER = 'pre, code, kbd, samp, h1, h2, h3, h4, h5, h6, [role="heading"], th, thead, '
    + 'caption, svg, math, .katex, button, [role="button"]';
  const marks = [];
  if (copies.length === live.length) {
    live.forEach((el, i) => {
      if (within(el, NEVER) || !(el.textContent || '').trim()) return;
      const st = style(el);
      if (st.display === 'none') return;
      const up = style(el.parentElement);
      const isInline = inline(st);
      if (el.matches('a')) return; // a link's own weight, slant or font is how links look
      if (isInline && mono(st) && !mono(up)) { marks.push([copies[i], ['code']]); return; }
      const blockChild = (c) => !inline(style(c)) && style(c).display !== 'none';
      if (!isInline && Array.from(el.children).some(blockChild)) return;
      const tags = [];
      if (italic(st) && !italic(up) && !within(el, 'em, i, cite, var, dfn, address, blockquote')) {
        tags.push('em');
      }
      if (weight(st) >= 600 && weight(up) < 600 && !within(el, 'strong, b')) tags.push('strong');
      if (tags.length) marks.push([copies[i], tags]);
    });
  }
  for (const [node, tags] of marks) {
    for (const tag of tags) {
      const wrap = document.createElement(tag);
      while (node.firstChild) wrap.appendChild(node.firstChild);
      node.appendChild(wrap);
    }
  }
  // Code drawn by a code editor (CodeMirror, Monaco, an adapter's own): the text of its lines,
  // in order, becomes one <pre><code> with the language the page names. Gutters, line
  // numbers and fold markers are outside the lines and stay behind; a fold placeholder
  // inside a line goes. Monaco reuses its line elements out of document order: they are put
  // in order by their style top. Runs before the code-language lookup below, which then also
  // serves these blocks (a header naming the language, adapter answer.code_language).
  const editorLanguage = (root, attr) => {
    const names = [attr, 'data-language', 'data-lang', 'data-mode-id'].filter(Boolean);
    const holders = [root, ...Array.from(root.querySelectorAll(
      names.map((n) => `[${n}]`).join(',')))];
    for (let anc = root.parentElement, d = 0; anc && d < 3; anc = anc.parentElement, d++) {
      holders.push(anc);
    }
    for (const el of holders) {
      for (const n of names) {
        const v = (el.getAttribute(n) || '').trim();
        if (v) return v;
      }
    }
    for (const el of [root, ...holders.slice(1)]) {
      for (const c of Array.from(el.classList || [])) {
        const m = /^(?:language|lang)-(.+)$/.exec(c);
        if (m) return m[1];
      }
    }
    return '';
  };
  for (const ed of cfg.code_editors) {
    let roots;
    try { roots = Array.from(clone.querySelectorAll(ed.root)); } catch (e) { continue; }
    for (const root of roots) {
      if (!clone.contains(root)) continue;  // inside an editor replaced already
      let lines;
      try { lines = Array.from(root.querySelectorAll(ed.line)); } catch (e) { continue; }
      lines = lines.filter((l) => !lines.some((o) => o !== l && o.contains(l)));
      if (!lines.length) continue;
      const tops = lines.map((l) => parseFloat(l.style && l.style.top));
      if (tops.every((t) => !Number.isNaN(t))) {
        const order = lines.map((l, i) => [tops[i], i, l]);
        order.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        lines = order.map((entry) => entry[2]);
      }
      const text = lines.map((line) => {
        const copy = line.cloneNode(true);
        for (const w of copy.querySelectorAll('.cm-foldPlaceholder, .cm-widgetBuffer')) w.remove();
        return (copy.textContent || '').replace(/\\u00a0/g, ' ').replace(/\\u200b/g, '');
      }).join('\\n');
      let lang = editorLanguage(root, ed.language_attribute).split(/\\s+/)[0].toLowerCase();
      if (lang === 'plaintext' || lang === 'text' || lang === 'plain') lang = '';
      const pre = document.createElement('pre');
      const code = document.createElement('code');
      code.textContent = text;
      pre.appendChild(code);
      if (lang) pre.setAttribute('data-language', lang);
      root.replaceWith(pre);
    }
  }
  // Code languages first: the element naming one is often in a header that is excluded next.
  for (const pre of clone.querySelectorAll('pre')) {
    let lang = pre.getAttribute('data-language') || pre.getAttribute('data-lang');
    let anc = pre.parentElement;
    for (let depth = 0; !lang && anc && depth < 3; depth++, anc = anc.parentElement) {
      for (const s of cfg.code_language) {
        let hit = null;
        try { hit = anc.querySelector(s); } catch (e) { continue; }
        if (hit && !pre.contains(hit) && hit.textContent.trim()) {
          lang = hit.textContent.trim();
          break;
        }
      }
    }
    if (lang) pre.setAttribute('data-language', lang.split(/\\s+/)[0].toLowerCase());
  }
  const junk = ['button', '[role="button"]', 'svg', 'script', 'style', 'noscript', 'template',
                'textarea', 'input', 'select', ...cfg.exclude];
  for (const s of junk) {
    let found;
    try { found = clone.querySelectorAll(s); } catch (e) { continue; }
    for (const el of found) el.remove();
  }
  // A code block's language label the adapter does not exclude ("python" above the fence):
  // dropped when it is all the text the block's wrapper holds besides the code. The wrapper is
  // the nearest ancestor with other text (up to 3 levels, never the answer itself), so a
  // paragraph that happens to say "python" next to a bare code block stays.
  for (const pre of clone.querySelectorAll('pre')) {
    let lang = pre.getAttribute('data-language') || '';
    for (const node of [pre, pre.querySelector('code')]) {
      for (const name of node ? Array.from(node.classList) : []) {
        const m = /^(?:language|lang)-(.+)$/.exec(name);
        if (!lang && m) lang = m[1];
      }
    }
    lang = lang.trim().toLowerCase();
    if (!lang) continue;
    let anc = pre.parentElement;
    for (let depth = 0; anc && anc !== clone && depth < 3; depth++, anc = anc.parentElement) {
      const outside = [];
      const walker = document.createTreeWalker(anc, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!pre.contains(n) && n.nodeValue.trim()) outside.push(n);
      }
      if (!outside.length) continue;
      if (outside.map((n) => n.nodeValue).join('').trim().toLowerCase() === lang) {
        for (const n of outside) n.remove();
      }
      break;
    }
  }
  let source = null;
  if (cfg.markdown_source.length) {
    const box = cfg.container.length ? last.closest(cfg.container.join(',')) : null;
    const scope = box || last.parentElement || last;
    for (const s of cfg.markdown_source) {
      let el = null;
      try { el = scope.querySelector(s); } catch (e) { continue; }
      if (!el) continue;
      source = cfg.markdown_attribute ? el.getAttribute(cfg.markdown_attribute) : el.textContent;
      if (source) break;
    }
  }
  // Plain text shown as is (white-space: pre-wrap): nothing to rebuild, its line breaks are
  // the content.
  const rich = clone.querySelector(
    'p, h1, h2, h3, h4, h5, h6, ul, ol, table, pre, code, blockquote, strong, em, b, i, a, img, '
    + 'hr');
  return { html: clone.innerHTML, text: last.innerText || last.textContent || '', source,
           rich: rich !== null };
}
"""
