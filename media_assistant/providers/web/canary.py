"""The site check (issue 21 item 1): one tiny prompt through an account's real chat page, every
adapter step reported with what it found and how long it took — so a broken adapter is named
at its step in a minute, not after a night of failed tasks.

It drives the page exactly as a task does (:class:`ChatPage`, :class:`AnswerWatch`), on the
account's own warm browser, with the account's leftover record kept as for any prompt; it runs
on the lane's loop (the window, ``run``'s scheduler) or in ``sites check``, one call into the
browser's loop per step. The steps, in order (core/rules/site_breakage.py ``AdapterStep``):
page loaded, signed in, composer found, text entered and read back, sent, generating seen, done
seen, answer read, Markdown rebuilt, new chat. A step the adapter does not declare (no done
marker, no New chat control) is ``skipped``, not failed; once a step fails, the rest are
skipped.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError

from media_assistant.core.model.clock import Clock, SystemClock
from media_assistant.core.model.errors import ErrorKind, ProviderError, TaskCanceled
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import GenerationResult, TaskSpec
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.site_breakage import (
    AdapterStep,
    SiteCheckReport,
    StepResult,
    StepStatus,
    full_report,
)
from media_assistant.providers.web.adapter import SiteAdapter
from media_assistant.providers.web.leftover import LeftoverGuard
from media_assistant.providers.web.new_chat import click_new_chat
from media_assistant.providers.web.page import ChatPage
from media_assistant.providers.web.page_load import selectors_text
from media_assistant.providers.web.snapshot import Snapshot
from media_assistant.providers.web.watch import AnswerWatch, Call

log = logging.getLogger(__name__)

# Short, harmless, and it asks for Markdown, so "Markdown rebuilt" has something to rebuild.
CHECK_PROMPT = "Reply with one short sentence that has a **bold** word. 请用一句话回答。"
CHECK_TASK_ID = "site-check"

# Markers that tell "not signed in" (the page load's own words for a failing login).
_SIGN_IN = (ErrorKind.LOGIN_REQUIRED, ErrorKind.CAPTCHA)


@dataclass
class CheckOutcome:
    """What the pacer needs to hear after the check (like an attempt's Outcome)."""

    result: GenerationResult | None = None
    error: ProviderError | None = None


class CheckContext:
    """The TaskContext the watch gets during a check: its lines go to the log, never to a
    task's event log (a check is no task)."""

    def __init__(self, account_id: str, clock: Clock | None = None) -> None:
        self._spec = TaskSpec(
            task_id=CHECK_TASK_ID,
            model="site-check",
            model_kind=ModelKind.WEB,
            account_id=account_id,
            prompt=CHECK_PROMPT,
            system_prompt=None,
            attempt=1,
        )
        self._clock = clock or SystemClock()
        self.lines: list[str] = []

    @property
    def task(self) -> TaskSpec:
        return self._spec

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def cancel_requested(self) -> bool:
        return False

    def checkpoint(self) -> None:
        return None

    async def wait_cancel(self, timeout: float) -> bool:
        return False

    def heartbeat(self, progress_chars: int | None = None) -> None:
        return None

    def log(
        self,
        message: str,
        *,
        level: int = logging.INFO,
        kind: str = "log",
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self.lines.append(message)
        log.log(level, "[web %s] site check: %s", self._spec.account_id, message)

    def throttle_account(self, seconds: float, reason: str) -> None:
        return None


class _Steps:
    """The report as it is written, step by step, with the time each took."""

    def __init__(self) -> None:
        self.done: list[StepResult] = []
        self.phase = AdapterStep.PAGE_LOADED  # where a failure without a step of its own is
        self._since = time.monotonic()

    def restart_clock(self) -> None:
        self._since = time.monotonic()

    def add(self, step: AdapterStep, status: StepStatus, detail: str) -> None:
        now = time.monotonic()
        self.done.append(StepResult(step, status, detail, now - self._since))
        self._since = now

    def ok(self, step: AdapterStep, detail: str) -> None:
        self.add(step, StepStatus.OK, detail)

    def failed(self, step: AdapterStep, detail: str) -> None:
        self.add(step, StepStatus.FAILED, detail)

    def skipped(self, step: AdapterStep, detail: str) -> None:
        self.add(step, StepStatus.SKIPPED, detail)


async def run_check(
    account_id: str,
    adapter: SiteAdapter,
    chat: ChatPage,
    call: Call[Any],
    leftover: LeftoverGuard,
    *,
    quiesce: Callable[[], Awaitable[bool]] | None = None,
    at_answer: Callable[[list[StepResult]], Awaitable[None]] | None = None,
) -> tuple[SiteCheckReport, CheckOutcome]:
    """Check the site through ``chat`` (the account's page, on the browser's loop via
    ``call``). A leftover generation is settled first, as before any prompt. ``at_answer``:
    called with the steps so far once the answer is read, while it is still on the page (the
    elements that worked are recorded then, and a repair looks at a missing done marker's
    page: fingerprint.py, repair.py)."""
    steps = _Steps()
    ctx = CheckContext(account_id)
    outcome = CheckOutcome()
    s = adapter.selectors
    try:
        await leftover.settle(
            ctx,
            lambda url, wait_s: call(chat.settle_conversation(url, wait_s)),
            has_indicator=bool(s.generating),
        )
        steps.restart_clock()  # the time a leftover took is no step's
        before = await _open(chat, call, steps)
        steps.phase = AdapterStep.TEXT_ENTERED
        await call(chat.type_prompt(CHECK_PROMPT))
        steps.ok(
            AdapterStep.TEXT_ENTERED,
            f"{len(CHECK_PROMPT)} characters with input.method {adapter.input.method}"
            + (", read back equal" if adapter.input.verify else " (input.verify off)"),
        )
        await leftover.remember(CHECK_TASK_ID, 1, before.url)
        steps.phase = AdapterStep.SENT
        await call(chat.send(before))
        steps.ok(AdapterStep.SENT, _how_sent(chat))
        steps.phase = AdapterStep.ANSWER_READ
        watch = AnswerWatch(adapter, chat, call, leftover=leftover, quiesce=quiesce)
        try:
            result = await watch.run(ctx, before)
        finally:
            _watched(adapter, watch, steps)
        await leftover.forget()
        leftover.answered()
        outcome.result = result
        steps.ok(AdapterStep.ANSWER_READ, f"{len(result.plain_text or result.text)} characters")
        _markdown(adapter, result, steps)
        if at_answer is not None:
            await at_answer(steps.done)
        steps.phase = AdapterStep.NEW_CHAT
        await _new_chat(chat, call, steps)
    except ProviderError as exc:
        outcome.error = exc
        _failed_at(exc, steps)
        if quiesce is not None:
            await quiesce()
    except PlaywrightError as exc:  # the page or the browser went away: the caller recycles it
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        outcome.error = ProviderError(ErrorKind.BROWSER_CRASHED, f"browser/page error: {first}")
        _failed_at(outcome.error, steps)
    except TaskCanceled:  # nobody cancels a check; a watch would say so only on request
        steps.failed(steps.phase, "canceled")
    return full_report(account_id, adapter.id, steps.done), outcome


async def _open(chat: ChatPage, call: Call[Any], steps: _Steps) -> Snapshot:
    """Page loaded, signed in, composer found: a fresh load of the chat page."""
    snap: Snapshot = await call(chat.load_chat())
    steps.ok(AdapterStep.PAGE_LOADED, snap.url)
    login = chat.adapter.markers.login_lost
    markers = [*login.selectors, *(f"url {u}" for u in login.url), *login.buttons]
    steps.ok(
        AdapterStep.SIGNED_IN,
        "no sign-in marker showed"
        + (f" ({selectors_text(markers)})" if markers else " (the adapter declares none)"),
    )
    found = await call(chat.matching(chat.adapter.selectors.input))
    steps.ok(
        AdapterStep.COMPOSER_FOUND,
        f"{found or selectors_text(chat.adapter.selectors.input)} visible",
    )
    before: Snapshot = await call(chat.snapshot(mark=True))
    return before


def _how_sent(chat: ChatPage) -> str:
    s = chat.adapter.selectors
    if chat.sent_with == "click":
        return f"clicked {selectors_text(s.send)}; the page showed the message"
    if s.send and chat.adapter.input.send_with == "click":
        return (
            f"send control {selectors_text(s.send)} matched nothing: pressed Enter, and the "
            "page showed the message"
        )
    return "pressed Enter; the page showed the message"


def _watched(adapter: SiteAdapter, watch: AnswerWatch, steps: _Steps) -> None:
    """Generating seen and done seen, from what the watch saw (also when it then failed)."""
    s = adapter.selectors
    if not s.generating:
        steps.skipped(AdapterStep.GENERATING_SEEN, "the adapter declares no generating indicator")
    elif watch.generating_seen:
        steps.ok(AdapterStep.GENERATING_SEEN, f"{selectors_text(s.generating)} showed")
    else:
        steps.failed(
            AdapterStep.GENERATING_SEEN,
            f"{selectors_text(s.generating)} matched nothing while the answer was written",
        )
    if not s.done:
        how = "the generating indicator went away" if s.generating else "the text held still"
        steps.skipped(AdapterStep.DONE_SEEN, f"the adapter declares no done marker ({how})")
    elif watch.done_seen:
        steps.ok(AdapterStep.DONE_SEEN, f"{selectors_text(s.done)} appeared")
    elif watch.accepted_without_done:
        steps.failed(
            AdapterStep.DONE_SEEN,
            f"{selectors_text(s.done)} matched nothing (the answer was taken after "
            f"done_grace_s {adapter.timing.done_grace_s:g} s of stable text)",
        )


def _markdown(adapter: SiteAdapter, result: GenerationResult, steps: _Steps) -> None:
    if adapter.answer.format == "text":
        steps.skipped(AdapterStep.MARKDOWN_REBUILT, 'answer.format = "text": taken as shown')
    elif not result.text.strip():
        steps.failed(AdapterStep.MARKDOWN_REBUILT, "the answer's HTML gave no Markdown")
    elif result.text != (result.plain_text or ""):
        steps.ok(AdapterStep.MARKDOWN_REBUILT, f"{len(result.text)} characters of Markdown")
    else:
        steps.ok(AdapterStep.MARKDOWN_REBUILT, "the answer had no markup: its text as shown")


async def _new_chat(chat: ChatPage, call: Call[Any], steps: _Steps) -> None:
    control = chat.adapter.new_chat_steps
    if not control:
        steps.skipped(
            AdapterStep.NEW_CHAT, "the adapter declares no New chat control (a page load per task)"
        )
        return
    snap = await call(click_new_chat(chat))
    what = selectors_text(control[0]) if len(control) == 1 else str(control)
    if snap is None:
        steps.failed(
            AdapterStep.NEW_CHAT,
            f"{what} gave no empty chat within {chat.adapter.timing.new_chat_timeout_s:g} s",
        )
    else:
        steps.ok(AdapterStep.NEW_CHAT, f"{what}: an empty chat")


def _failed_at(exc: ProviderError, steps: _Steps) -> None:
    """The step ``exc`` failed at (its own, or the phase the check was in), with the steps of
    the page's opening before it marked passed: a composer looked for means a page loaded."""
    phase = steps.phase
    if exc.step is not None:
        step = AdapterStep(exc.step)
    elif phase is AdapterStep.PAGE_LOADED and exc.kind in _SIGN_IN:
        step = AdapterStep.SIGNED_IN
    else:
        step = phase
    reported = {r.step for r in steps.done}
    if step in reported:  # the watch's own word on it stands (generating / done seen)
        step = AdapterStep.ANSWER_READ
    opening = (AdapterStep.PAGE_LOADED, AdapterStep.SIGNED_IN, AdapterStep.COMPOSER_FOUND)
    if step in opening:
        for earlier in opening[: opening.index(step)]:
            if earlier not in reported:
                steps.ok(earlier, "passed")
    if exc.selector and step in (AdapterStep.COMPOSER_FOUND, AdapterStep.ANSWER_READ):
        steps.failed(step, f"{exc.selector} matched nothing: {exc.message}")
    else:
        steps.failed(step, exc.message)
