"""When a web account's failures say "the site's page changed" (issue 21).

A chat site redesigns its page without notice; the adapter's selectors then find nothing, and
every task of the night would use its attempts on the same broken step. The steps an adapter
drives are named here (:class:`AdapterStep`, also the canary's report, ``sites check``), and
the rule is: **the same adapter step failing on consecutive tasks of one account** is a verdict
— after the second such failure, not after every task has used its attempts. Pure: no I/O, no
clock; the web provider feeds it, one watch per account, and a fresh provider (a fixed adapter
installed, the account reset) starts with a fresh watch.

What counts: a failure at an adapter step (composer not found, text not entered, send never
landed, no answer element, the answer never finished, the declared done marker never seen) —
also an answer accepted without its declared done marker, which succeeds but says the adapter
no longer matches. At the steps a prompt itself can fail (text entered: an editor that mangles
some characters; sent: a site refusing a message too long) it takes two *tasks*: the same task
failing there again (its retry came back to the account) says as much about that prompt as
about the page. At the other steps the page is the same for every prompt: a task's retry counts
too (a batch of one task is held, not failed). What resets: a task that went through every
step. Failures that say nothing about the adapter (a network error, a rate limit, a busy site)
neither count nor reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class AdapterStep(StrEnum):
    """The steps of one prompt through a chat page, in order (ADAPTERS.md "How a task runs")."""

    # The account's proxy reaches the site (issue 32; skipped without a proxy). A failure here
    # is the proxy's: never a verdict on the adapter.
    THROUGH_PROXY = "through_proxy"
    PAGE_LOADED = "page_loaded"
    SIGNED_IN = "signed_in"
    COMPOSER_FOUND = "composer_found"
    TEXT_ENTERED = "text_entered"
    SENT = "sent"
    GENERATING_SEEN = "generating_seen"
    DONE_SEEN = "done_seen"
    ANSWER_READ = "answer_read"
    MARKDOWN_REBUILT = "markdown_rebuilt"
    NEW_CHAT = "new_chat"

    @property
    def words(self) -> str:
        """The step in plain English (logs, the CLI, webhooks; the window has its own)."""
        return _WORDS[self]

    @property
    def words_zh(self) -> str:
        """The step in Chinese, as the window says it (resources/i18n, context AdapterStep):
        for Chinese webhooks, which the core words without Qt."""
        return _WORDS_ZH[self]


_WORDS = {
    AdapterStep.THROUGH_PROXY: "through the proxy",
    AdapterStep.PAGE_LOADED: "page loaded",
    AdapterStep.SIGNED_IN: "signed in",
    AdapterStep.COMPOSER_FOUND: "composer found",
    AdapterStep.TEXT_ENTERED: "text entered and read back",
    AdapterStep.SENT: "sent",
    AdapterStep.GENERATING_SEEN: "generating seen",
    AdapterStep.DONE_SEEN: "done seen",
    AdapterStep.ANSWER_READ: "answer read",
    AdapterStep.MARKDOWN_REBUILT: "Markdown rebuilt",
    AdapterStep.NEW_CHAT: "new chat",
}

_WORDS_ZH = {
    AdapterStep.THROUGH_PROXY: "经由代理连通",
    AdapterStep.PAGE_LOADED: "页面已加载",
    AdapterStep.SIGNED_IN: "已登录",
    AdapterStep.COMPOSER_FOUND: "找到输入框",
    AdapterStep.TEXT_ENTERED: "已输入并回读文字",
    AdapterStep.SENT: "已发送",
    AdapterStep.GENERATING_SEEN: "看到生成中",
    AdapterStep.DONE_SEEN: "看到完成标记",
    AdapterStep.ANSWER_READ: "已读取回答",
    AdapterStep.MARKDOWN_REBUILT: "已还原 Markdown",
    AdapterStep.NEW_CHAT: "新对话",
}

# Consecutive failures at one step that make the verdict.
FAILURES_FOR_VERDICT = 2
# Steps whose failure may be the prompt's (see the module's docstring): two different tasks.
PROMPT_STEPS = frozenset({AdapterStep.TEXT_ENTERED, AdapterStep.SENT})


@dataclass(frozen=True, slots=True)
class Verdict:
    """The account's adapter no longer matches its site at ``step``."""

    step: AdapterStep
    selector: str  # what the step looked for (the adapter's selectors), for the operator
    failures: int

    @property
    def message(self) -> str:
        return verdict_message(self.step, self.selector)


_VERDICT = "the site's page changed: "


def verdict_message(step: AdapterStep, selector: str) -> str:
    """ "the site's page changed: composer found (div#composer)" — the account's problem."""
    return f"{_VERDICT}{step.words}" + (f" ({selector})" if selector else "")


def verdict_step(message: str) -> AdapterStep | None:
    """The step a :func:`verdict_message` names (an account's problem detail keeps only the
    text), or None."""
    if not message.startswith(_VERDICT):
        return None
    rest = message[len(_VERDICT) :]
    for step in AdapterStep:
        if rest == step.words or rest.startswith(f"{step.words} ("):
            return step
    return None


class BreakageWatch:
    """One account's run of failures at one adapter step."""

    def __init__(self, needed: int = FAILURES_FOR_VERDICT) -> None:
        self.needed = needed
        self._step: AdapterStep | None = None
        self._failures: list[str] = []  # the task of each failure of the run, in order

    def failed(self, step: AdapterStep, selector: str, task_id: str) -> Verdict | None:
        """Task ``task_id`` failed (or limped through) at ``step``: the verdict once that makes
        ``needed`` failures in a row at the same step (of as many tasks, at a prompt's step),
        else None."""
        if step is not self._step:
            self._step, self._failures = step, []
        self._failures.append(task_id)
        if self.streak[1] >= self.needed:
            return Verdict(step, selector, self.streak[1])
        return None

    def passed(self) -> None:
        """A task went through every step."""
        self._step, self._failures = None, []

    @property
    def streak(self) -> tuple[AdapterStep | None, int]:
        """The step failing, and how many failures count toward the verdict."""
        if self._step in PROMPT_STEPS:
            return self._step, len(set(self._failures))
        return self._step, len(self._failures)


# ------------------------------------------------------------------------------- the canary


class StepStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"
    SKIPPED = "skipped"  # not declared by the adapter, or an earlier step failed


@dataclass(frozen=True, slots=True)
class StepResult:
    step: AdapterStep
    status: StepStatus
    detail: str  # what it found: "div#composer[…] visible", "button[…] matched nothing"
    seconds: float

    def to_json(self) -> dict[str, Any]:
        ok = None if self.status is StepStatus.SKIPPED else self.status is StepStatus.OK
        return {
            "step": self.step.value,
            "ok": ok,
            "detail": self.detail,
            "seconds": round(self.seconds, 3),
        }

    def line(self) -> str:
        """ "composer found      ok       0.12 s  div#composer[…] visible" """
        status = self.status.value if self.status is not StepStatus.FAILED else "FAILED"
        return f"  {self.step.words:<27} {status:<8} {self.seconds:6.2f} s  {self.detail}"


@dataclass(frozen=True, slots=True)
class SiteCheckReport:
    """One tiny prompt through an account's real chat page, step by step (``sites check``)."""

    account: str
    site: str
    steps: tuple[StepResult, ...]

    @property
    def ok(self) -> bool:
        """Every step passed (a step the adapter does not declare, skipped, is no failure)."""
        return bool(self.steps) and all(s.status is not StepStatus.FAILED for s in self.steps)

    @property
    def failed(self) -> StepResult | None:
        return next((s for s in self.steps if s.status is StepStatus.FAILED), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "account": self.account,
            "site": self.site,
            "ok": self.ok,
            "steps": [s.to_json() for s in self.steps],
        }

    def lines(self) -> list[str]:
        verdict = "ok" if self.ok else f"FAILED at {self.failed.step.words}" if self.failed else ""
        seconds = sum(s.seconds for s in self.steps)
        head = f"{self.account} (site {self.site}): {verdict} in {seconds:.1f} s"
        return [head, *(s.line() for s in self.steps)]


def full_report(
    account: str, site: str, done: Sequence[StepResult], *, reason: str = ""
) -> SiteCheckReport:
    """The steps that ran, then every step after them skipped (``reason``: why)."""
    seen = {r.step for r in done}
    rest = [
        StepResult(step, StepStatus.SKIPPED, reason or "an earlier step failed", 0.0)
        for step in AdapterStep
        if step not in seen
    ]
    return SiteCheckReport(account, site, (*done, *rest))
