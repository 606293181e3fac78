"""Repair a site adapter from the live page, and prove it before anyone installs it (issue 33).

The loop, on the account's own browser (``sites repair``):

1. Run the site check (:mod:`canary`) with the adapter as it is. Every step passes: nothing to
   repair. A step fails at a selector (composer found / text entered → ``input``, sent →
   ``send``, answer read → ``answer``, done seen → ``done``, new chat → ``new_chat``): the page
   is left as the failure left it — a loaded page without its composer, a typed prompt whose
   send control is gone, a written answer its selector no longer finds.
2. Describe every candidate of that kind on the page (:data:`fingerprint_js.CANDIDATES_JS`) and
   score it against the fingerprint of the element that step used on the last successful task
   (:mod:`fingerprint`, :mod:`repair_score`). No visible, enabled winner clearly ahead of the
   runner-up: nothing is proposed (the reason is said).
3. Put the winner's selector in a copy of the adapter file and run the check again with it.
   A later step fails: repair that one too (a redesign breaks several); the same step fails
   again: that candidate is disproved and the next one gets its chance.
4. **Proven** only when one check passes every step with the repaired file — text entered and
   read back, sent, the answer read and rebuilt as Markdown, the done marker seen — and the
   answer read is not the prompt's own echo (a user message taken for the answer). Only then
   is the file offered, with its version + 1. Nothing here installs: the caller does, after the
   operator's yes (or ``--yes`` / ``[sites] auto_repair``), and never an unproven file.

Every check is one short prompt through the account, like ``sites check``.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import tomlkit

from media_assistant.core.files.atomic import write_atomically
from media_assistant.core.rules.site_breakage import (
    AdapterStep,
    SiteCheckReport,
    StepResult,
    StepStatus,
)
from media_assistant.providers.web.adapter import PLAYWRIGHT_ONLY, SiteAdapter, parse_adapter
from media_assistant.providers.web.adapter_files import Installed, install_adapter
from media_assistant.providers.web.browser import AccountBrowser, WebDriver
from media_assistant.providers.web.canary import CHECK_PROMPT, CheckOutcome
from media_assistant.providers.web.fingerprint import KEYS, SiteFingerprint
from media_assistant.providers.web.fingerprint_js import CANDIDATES_JS
from media_assistant.providers.web.repair_score import choose

# The step a check failed at → the selector key a repair looks for.
STEP_KEYS: dict[AdapterStep, str] = {
    AdapterStep.COMPOSER_FOUND: "input",
    AdapterStep.TEXT_ENTERED: "input",
    AdapterStep.SENT: "send",
    AdapterStep.ANSWER_READ: "answer",
    AdapterStep.DONE_SEEN: "done",
    AdapterStep.NEW_CHAT: "new_chat",
}
# What kind of element each key is (which candidates are collected).
_KIND = {"input": "textbox", "answer": "content", "user_message": "content"}
MAX_ROUNDS = 6
DEADLINE_S = 300.0


@dataclass(frozen=True)
class Proposal:
    key: str
    old: list[str]
    new: list[str]
    score: float
    margin: float

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "old": self.old,
            "new": self.new,
            "score": round(self.score, 3),
            "margin": round(self.margin, 3),
        }


@dataclass
class RepairResult:
    account: str
    site: str
    step: AdapterStep | None  # the step the first check failed at (None: it passed)
    proposed: list[Proposal] = field(default_factory=list)
    proven: bool = False
    check: SiteCheckReport | None = None  # the last check (the proof when proven)
    old_text: str = ""
    new_text: str = ""  # the repaired adapter file (offered only when proven)
    version: str = ""  # its version
    why: str = ""  # why nothing is proven
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # each round, in words

    def diff(self, name: str) -> str:
        if not self.proven:
            return ""
        return "".join(
            difflib.unified_diff(
                self.old_text.splitlines(keepends=True),
                self.new_text.splitlines(keepends=True),
                f"{name} (in use)",
                f"{name} (repaired, version {self.version})",
            )
        )

    def to_json(self, installed_version: str | None) -> dict[str, Any]:
        return {
            "account": self.account,
            "site": self.site,
            "step": self.step.value if self.step is not None else None,
            "proposed": [p.to_json() for p in self.proposed],
            "proven": self.proven,
            "installed_version": installed_version,
            "check": self.check.to_json() if self.check is not None else None,
        }


def next_version(version: str) -> str:
    """Version + 1: ``7`` → ``8``, ``2026.11.30`` → ``2026.11.30.1`` → ``2026.11.30.2``."""
    if version.isdigit():
        return str(int(version) + 1)
    parts = version.split(".")
    if len(parts) >= 4 and parts[-1].isdigit():
        return ".".join([*parts[:-1], str(int(parts[-1]) + 1)])
    return f"{version}.1" if version else "1"


def with_selectors(text: str, changes: dict[str, list[str]], version: str) -> str:
    """The adapter file ``text`` with ``[selectors]`` keys replaced and its version set; the
    rest of the file (comments, order) as it was (tomlkit)."""
    doc = tomlkit.parse(text)
    table = doc["selectors"]
    for key, selectors in changes.items():
        array = tomlkit.array()
        for sel in selectors:
            array.append(tomlkit.string(sel, literal="'" not in sel))
        table[key] = array
    doc["version"] = version
    return tomlkit.dumps(doc)


def _plain(selectors: list[str]) -> list[str]:
    """Old selectors a page script can run (Playwright-only ones are left out)."""
    return [s for s in selectors if not PLAYWRIGHT_ONLY.search(s)]


class CheckingProvider(Protocol):
    """What a repair needs of a web provider (``WebProvider``: built per candidate adapter by
    the caller, so this module does not import the provider, which imports it)."""

    driver: WebDriver
    browser: AccountBrowser

    async def check_site(
        self, at_answer: Callable[[list[StepResult]], Awaitable[None]] | None = None
    ) -> tuple[SiteCheckReport, CheckOutcome]: ...


async def repair_adapter(
    make_provider: Callable[[SiteAdapter], CheckingProvider],
    account_id: str,
    text: str,
    fingerprint: SiteFingerprint | None,
    *,
    source: str = "adapter",
    max_rounds: int = MAX_ROUNDS,
    deadline_s: float = DEADLINE_S,
) -> RepairResult:
    """Check, repair, re-check until proven or out of ideas (see the module's docstring)."""
    started = time.monotonic()
    adapter = parse_adapter(text, source)
    result = RepairResult(account_id, adapter.id, None, old_text=text)
    changes: dict[str, list[str]] = {}
    scores: dict[str, tuple[float, float]] = {}
    tried: dict[str, list[str]] = {}
    version = next_version(adapter.version)
    current = text
    seen: dict[str, list[dict[str, Any]]] = {}  # candidates collected during a check, per key
    for round_no in range(1, max_rounds + 1):
        candidate = parse_adapter(current, source)
        provider = make_provider(candidate)
        seen.clear()

        async def at_answer(done: list[StepResult], provider: CheckingProvider = provider) -> None:
            # A missing done marker: the check goes on to New chat, which empties the page;
            # its candidates are collected now, beside the answer.
            if any(r.step is AdapterStep.DONE_SEEN and r.status is StepStatus.FAILED for r in done):
                seen["done"] = await _candidates(provider, adapter, "done")

        report, outcome = await provider.check_site(at_answer)
        result.check = report
        failed = report.failed
        if round_no == 1:
            result.step = failed.step if failed is not None else None
        if failed is None:
            if not changes:
                result.why = "the site check passes with the adapter as it is: nothing to repair"
                break
            read = outcome.result.plain_text or outcome.result.text if outcome.result else ""
            if is_echo(read or ""):
                result.why = "the repaired answer selector reads the prompt's own echo"
                tried.setdefault("answer", []).extend(changes.pop("answer", []))
                current = with_selectors(text, changes, version) if changes else text
                continue
            result.proven = True
            result.new_text, result.version = current, version
            break
        key = STEP_KEYS.get(failed.step)
        result.notes.append(f"check {round_no}: {failed.step.words} failed ({failed.detail})")
        if key is None:
            result.why = (
                f"{failed.step.words} failed: not something a selector repair can fix "
                f"({failed.detail})"
            )
            break
        if time.monotonic() - started > deadline_s:
            result.why = f"no proven repair within {deadline_s:.0f} s"
            break
        if key in changes:  # the last candidate for this key did not hold: disproved
            tried.setdefault(key, []).extend(changes[key])
        element = fingerprint.element(key) if fingerprint is not None else None
        if element is None:
            result.why = (
                f"no fingerprint of the {key} element of site {adapter.id} (one is recorded "
                "by every successful task): nothing to compare the page with"
            )
            break
        if key in seen:
            candidates = seen[key]
        elif provider.browser.chat is not None:
            candidates = await _candidates(provider, adapter, key)
        else:
            result.why = f"{failed.step.words} failed and the page is gone: {failed.detail}"
            break
        choice = choose(element, candidates, control=key != "answer", exclude=tried.get(key, []))
        if not choice.chosen:
            result.why = f"{key}: {choice.why}"
            break
        assert choice.selector is not None
        changes[key] = [choice.selector]
        scores[key] = (choice.score, choice.margin)
        result.notes.append(
            f"{key}: {choice.selector} (score {choice.score:.2f}, "
            f"{choice.margin:.2f} ahead of {choice.runner_up or 'nothing'})"
        )
        current = with_selectors(text, changes, version)
    else:
        result.why = f"not proven after {max_rounds} checks"
    result.proposed = [
        Proposal(k, list(getattr(adapter.selectors, k) or []), v, *scores[k])
        for k, v in changes.items()
    ]
    result.seconds = time.monotonic() - started
    return result


async def _candidates(
    provider: CheckingProvider, adapter: SiteAdapter, key: str
) -> list[dict[str, Any]]:
    """Every element of the key's kind on the page now, described, with its selectors."""
    chat = provider.browser.chat
    if chat is None:
        return []
    content, last = KEYS[key]
    cfg = {
        "kind": _KIND.get(key, "control"),
        "content": content,
        "last": last,
        "old": _plain(getattr(adapter.selectors, key) or []),
        "min_text": 20 if key == "answer" else 1,
        "limit": 1500,
    }
    found = await provider.driver.service.call(chat.page.evaluate(CANDIDATES_JS, cfg))
    return list(found)


def install_repair(result: RepairResult, sites_dir: Path) -> Installed:
    """A proven repair made the site's adapter (blocking file I/O): the file kept in
    ``<sites>/proposed/<site>-<version>.toml``, then installed like ``sites install`` (the one
    it replaces kept for rollback). Never an unproven one."""
    if not result.proven:
        raise ValueError("an unproven repair is never installed")
    path = keep_proposal(result, sites_dir)
    return install_adapter(path, sites_dir)


def keep_proposal(result: RepairResult, sites_dir: Path) -> Path:
    """The proven file in ``<sites>/proposed/`` (for ``sites install`` later)."""
    folder = sites_dir / "proposed"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{result.site}-{result.version}.toml"
    text = result.new_text
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path


def is_echo(answer: str) -> bool:
    """The answer a check read is the check's own prompt (a user message taken for it)."""
    norm = " ".join(answer.split())
    return not norm or norm in " ".join(CHECK_PROMPT.split())
