"""A web answer's rendered HTML → the Markdown the model wrote.

Chat sites render the model's Markdown into HTML (headings, emphasis, links, lists, tables,
code blocks with a language class, quotes); ``innerText`` drops all of that structure, and
operators paste results into article editors that want it. We convert the answer element's
HTML back with **markdownify** rather than a parser of our own:

- markdownify (MIT, BeautifulSoup-based, maintained, 1.x in 2025-26) has a documented
  converter class with the options we need: ATX headings, ``-`` bullets, pipe tables with
  their header row, fenced code blocks with a ``code_language_callback``, nested lists and
  block quotes; its subclass hooks let us keep KaTeX formulas as ``$…$``;
- html2text, the other maintained converter, is GPL-3.0 (this app is proprietary and frozen
  into one bundle) and writes code blocks indented or as ``[code]`` without their language.

Escaping of ``*`` and ``_`` in text is switched off: a product code or ``snake_case`` word
with backslashes in it is worse for an article editor than the rare literal asterisk that
would read as emphasis. The page script (``page_scripts.EXTRACT_JS``) has already removed
buttons, icons and the adapter's ``answer.exclude`` elements, put a code block's language
on its ``<pre data-language>`` when the site shows it elsewhere (and dropped a header label
that only repeats it), and turned emphasis drawn by CSS classes into ``<strong>``/``<em>``/
``<code>``: computed style exists only in the page, so that cannot be done here.
"""

from __future__ import annotations

import re
from typing import Any

from bs4 import BeautifulSoup, Tag
from markdownify import MarkdownConverter

_LANGUAGE_CLASS = re.compile(r"^(?:language|lang)-([\w#+.-]+)$")
_BLANK_LINES = re.compile(r"\n{3,}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


def code_language(pre: Any) -> str:
    """The language of a ``<pre>`` block: its data-language, else a language-* class on it
    or on its ``<code>``."""
    if not isinstance(pre, Tag):
        return ""
    for attr in ("data-language", "data-lang"):
        value = pre.get(attr)
        if isinstance(value, str) and value.strip():
            return value.strip().split()[0].lower()
    nodes = [pre, *pre.find_all("code", limit=1)]
    for node in nodes:
        classes: Any = node.get("class") or []
        for name in classes if isinstance(classes, list) else [classes]:
            m = _LANGUAGE_CLASS.match(str(name))
            if m:
                return m.group(1).lower()
    return ""


class _AnswerConverter(MarkdownConverter):
    def convert_span(self, el: Tag, text: str, *args: Any, **kwargs: Any) -> str:
        # KaTeX renders a formula three times (MathML, HTML, its TeX source): keep the TeX.
        classes: Any = el.get("class") or []
        if isinstance(classes, list) and "katex" in classes:
            tex = el.find("annotation", attrs={"encoding": "application/x-tex"})
            if tex is not None:
                fence = "$$" if el.find_parent(class_="katex-display") else "$"
                return f"{fence}{tex.get_text().strip()}{fence}"
        return text


def html_to_markdown(html: str) -> str:
    """Markdown for an answer's HTML (already cleaned by the page script)."""
    soup = BeautifulSoup(html, "html.parser")
    for junk in soup.find_all(["script", "style", "button", "svg", "noscript", "template"]):
        junk.decompose()
    converter = _AnswerConverter(
        heading_style="ATX",
        bullets="-",
        code_language_callback=code_language,
        escape_asterisks=False,
        escape_underscores=False,
        escape_misc=False,
        table_infer_header=True,
    )
    markdown = converter.convert_soup(soup)
    markdown = _TRAILING_SPACE.sub("\n", markdown)
    return _BLANK_LINES.sub("\n\n", markdown).strip()


_PUNCTUATION = re.compile(r"[\s\W_]+", re.UNICODE)


def normalised(text: str) -> str:
    """Letters and digits only, lower case: how error texts are compared."""
    return _PUNCTUATION.sub("", text).lower()


def only_error_text(answer: str, error_texts: list[str]) -> str | None:
    """The error text(s) ``answer`` consists of (ignoring case, spaces and punctuation, in
    any order, e.g. a Chinese and an English one), or None if it says anything else."""
    rest = normalised(answer)
    if not rest:
        return None
    found = []
    for candidate in sorted(error_texts, key=len, reverse=True):
        key = normalised(candidate)
        if key and key in rest:
            rest = rest.replace(key, "")
            found.append(candidate)
    return " / ".join(found) if found and not rest else None
