"""What a site check found at each step, in the operator's language (issue 26 item 6).

The check (providers/web/canary.py) writes each step's finding in English — what ``sites check``
prints and the log keeps — from a fixed set of sentences with the adapter's selectors, counts
and seconds in them. The window words them from the catalogue's "SiteFinding" context: each
sentence is matched here and its parts (a selector, a number: never translated) put into the
translation. A finding that matches none — a site's own message, a page's address — is shown as
it came; the English stays in the cell's tooltip either way.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

_CTX = "SiteFinding"

# (the English sentence as a pattern, its words with %1, %2… for the pattern's groups in order)
_FINDINGS: list[tuple[re.Pattern[str], object]] = [
    (
        re.compile(r"(\d+) characters with input\.method (\S+), read back equal"),
        QT_TRANSLATE_NOOP("SiteFinding", "%1 characters with input.method %2, read back equal"),
    ),
    (
        re.compile(r"(\d+) characters with input\.method (\S+) \(input\.verify off\)"),
        QT_TRANSLATE_NOOP(
            "SiteFinding", "%1 characters with input.method %2 (not read back: input.verify off)"
        ),
    ),
    (
        re.compile(
            r"send control (.+) matched nothing: pressed Enter, and the page showed the "
            r"message"
        ),
        QT_TRANSLATE_NOOP(
            "SiteFinding",
            "the send control %1 matched nothing: pressed Enter, and the page showed the message",
        ),
    ),
    (
        re.compile(r"clicked (.+); the page showed the message"),
        QT_TRANSLATE_NOOP("SiteFinding", "clicked %1; the page showed the message"),
    ),
    (
        re.compile(r"pressed Enter; the page showed the message"),
        QT_TRANSLATE_NOOP("SiteFinding", "pressed Enter; the page showed the message"),
    ),
    (
        re.compile(r"the adapter declares no generating indicator"),
        QT_TRANSLATE_NOOP("SiteFinding", "the adapter declares no generating indicator"),
    ),
    (
        re.compile(r"the adapter declares no done marker \(the generating indicator went away\)"),
        QT_TRANSLATE_NOOP(
            "SiteFinding",
            "the adapter declares no done marker (taken when the generating indicator went away)",
        ),
    ),
    (
        re.compile(r"the adapter declares no done marker \(the text held still\)"),
        QT_TRANSLATE_NOOP(
            "SiteFinding", "the adapter declares no done marker (taken when the text held still)"
        ),
    ),
    (
        re.compile(r"(.+) matched nothing while the answer was written"),
        QT_TRANSLATE_NOOP("SiteFinding", "%1 matched nothing while the answer was written"),
    ),
    (
        re.compile(
            r"(.+) matched nothing \(the answer was taken after done_grace_s ([\d.]+) s of "
            r"stable text\)"
        ),
        QT_TRANSLATE_NOOP(
            "SiteFinding",
            "%1 matched nothing (the answer was taken after %2 s of stable text, done_grace_s)",
        ),
    ),
    (
        re.compile(r'answer\.format = "text": taken as shown'),
        QT_TRANSLATE_NOOP("SiteFinding", 'answer.format = "text": the text taken as shown'),
    ),
    (
        re.compile(r"the answer's HTML gave no Markdown"),
        QT_TRANSLATE_NOOP("SiteFinding", "the answer's HTML gave no Markdown"),
    ),
    (
        re.compile(r"(\d+) characters of Markdown"),
        QT_TRANSLATE_NOOP("SiteFinding", "%1 characters of Markdown"),
    ),
    (
        re.compile(r"the answer had no markup: its text as shown"),
        QT_TRANSLATE_NOOP("SiteFinding", "the answer had no markup: its text taken as shown"),
    ),
    (
        re.compile(r"the adapter declares no New chat control \(a page load per task\)"),
        QT_TRANSLATE_NOOP(
            "SiteFinding", "the adapter declares no New chat control (the page is loaded per task)"
        ),
    ),
    (
        re.compile(r"(.+) gave no empty chat within ([\d.]+) s"),
        QT_TRANSLATE_NOOP("SiteFinding", "%1 gave no empty chat within %2 s"),
    ),
    (
        re.compile(r"(.+): an empty chat"),
        QT_TRANSLATE_NOOP("SiteFinding", "%1: an empty chat"),
    ),
    (
        re.compile(r"no sign-in marker showed \(the adapter declares none\)"),
        QT_TRANSLATE_NOOP("SiteFinding", "no sign-in marker showed (the adapter declares none)"),
    ),
    (
        re.compile(r"no sign-in marker showed \((.+)\)"),
        QT_TRANSLATE_NOOP("SiteFinding", "no sign-in marker showed (%1)"),
    ),
    (re.compile(r"passed"), QT_TRANSLATE_NOOP("SiteFinding", "passed")),
    (re.compile(r"canceled"), QT_TRANSLATE_NOOP("SiteFinding", "canceled")),
    (
        re.compile(r"browser/page error: (.+)"),
        QT_TRANSLATE_NOOP("SiteFinding", "browser or page error: %1"),
    ),
    (  # the provider's own account of it stays in the tooltip
        re.compile(r"(.+?) matched nothing: .+"),
        QT_TRANSLATE_NOOP("SiteFinding", "%1 matched nothing (more in the tooltip)"),
    ),
    (re.compile(r"(.+) showed"), QT_TRANSLATE_NOOP("SiteFinding", "%1 showed")),
    (re.compile(r"(.+) appeared"), QT_TRANSLATE_NOOP("SiteFinding", "%1 appeared")),
    (re.compile(r"(.+) visible"), QT_TRANSLATE_NOOP("SiteFinding", "%1 visible")),
    (re.compile(r"(\d+) characters"), QT_TRANSLATE_NOOP("SiteFinding", "%1 characters")),
]


# The adapter's input.method values (providers/web/adapter.py), as the findings name them.
_METHODS: dict[str, object] = {
    "insert_text": QT_TRANSLATE_NOOP("SiteFinding", "inserted as text"),
    "type": QT_TRANSLATE_NOOP("SiteFinding", "typed key by key"),
    "fill": QT_TRANSLATE_NOOP("SiteFinding", "filled in"),
}


def finding_text(detail: str) -> str:
    """``detail`` in the operator's language (as it came when no sentence matches it)."""
    for pattern, source in _FINDINGS:
        found = pattern.fullmatch(detail)
        if found is None:
            continue
        text = QCoreApplication.translate(_CTX, str(source))
        parts = list(found.groups())
        if "input.method" in str(source) and len(parts) > 1 and parts[1] in _METHODS:
            parts[1] = QCoreApplication.translate(_CTX, str(_METHODS[parts[1]]))
        for i, part in enumerate(parts, start=1):
            text = text.replace(f"%{i}", part)
        return text
    return detail


def finding_sources() -> list[str]:
    """Every sentence worded here (a test walks them in Chinese)."""
    return [str(source) for _, source in _FINDINGS] + [str(m) for m in _METHODS.values()]
