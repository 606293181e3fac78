"""The web model provider: self-check, warm browser, new chat, type, send, watch, extract.

Runs on the lane's loop and talks to the browser through the driver's service, one short call
at a time; the watching loop (and so every heartbeat, checkpoint and timeout) stays on this
side (:mod:`watch`: when an answer is finished, and never an error in disguise).

One generation per account: before it sends, the provider makes sure nothing it started earlier
still runs on the site — a crash or a kill of the app leaves the last answer generating there,
and a second prompt would break both (issue 9, item 2; :mod:`leftover` keeps the record).

A broken adapter stops costing the batch (issue 21): a failure at an adapter step (composer not
found, send never landed, no answer element, the answer never finished) is counted per account
(core/rules/site_breakage.py); the same step failing on the account's next task is the verdict
``site_changed`` — the task goes back to the queue without using an attempt, and the account
waits for the operator with "the site's page changed: <step> (<selectors>)".
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from media_assistant.core.files import diagnostics
from media_assistant.core.files.filenames import safe_file_stem
from media_assistant.core.model.errors import DEFERRING, ErrorKind, ProviderError, TaskCanceled
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import (
    GenerationResult,
    ShownBrowser,
    ShowOutcome,
    TaskContext,
    TaskSpec,
)
from media_assistant.core.rules.site_breakage import (
    AdapterStep,
    BreakageWatch,
    SiteCheckReport,
    StepResult,
    StepStatus,
    Verdict,
    full_report,
)
from media_assistant.providers.proxy import (
    PAGE_FAILURES_OF_A_PROXY,
    PROXY_KINDS,
    ProxyBackoff,
    ProxyRoute,
    proxy_error,
    web_proxy_error,
)
from media_assistant.providers.proxy_check import blame_proxy, check_proxy, site_check_step
from media_assistant.providers.web import provider_repair
from media_assistant.providers.web.adapter import SiteAdapter
from media_assistant.providers.web.browser import AccountBrowser, WebDriver
from media_assistant.providers.web.canary import CheckOutcome, run_check
from media_assistant.providers.web.fingerprint import FingerprintStore
from media_assistant.providers.web.leftover import LeftoverGuard
from media_assistant.providers.web.page import ChatPage
from media_assistant.providers.web.page_load import selectors_text
from media_assistant.providers.web.selfcheck import RecordedBrowser
from media_assistant.providers.web.watch import AnswerWatch

if TYPE_CHECKING:
    from media_assistant.providers.web.repair import RepairResult

log = logging.getLogger(__name__)

RecordBrowser = Callable[[str, int | None, float | None], None]
RecordedLookup = Callable[[str], Awaitable[RecordedBrowser | None]]  # a read: awaited

# After a cancel, a timeout or an error: how long the page gets to stop generating.
QUIESCE_S = 3.0

# Diagnostics are worth their disk space only when a human will need to look.
_DIAGNOSE = {
    ErrorKind.BAD_CONFIG,
    ErrorKind.PROTOCOL,
    ErrorKind.TIMEOUT,
    ErrorKind.CAPTCHA,
    ErrorKind.LOGIN_REQUIRED,
    ErrorKind.BROWSER_CRASHED,
    ErrorKind.SERVER_ERROR,
    ErrorKind.SITE_CHANGED,
}


def page_text(task: TaskSpec) -> str:
    """What goes into the composer. ``need_empty_prompt``: exactly the user's content."""
    system = task.effective_system_prompt
    return f"{system}\n\n{task.prompt}" if system else task.prompt


class WebProvider:
    def __init__(
        self,
        driver: WebDriver,
        account_id: str,
        profile_dir: Path,
        adapter: SiteAdapter,
        *,
        origin: str | None = None,
        diagnostics_dir: Path | None = None,
        diagnostics_retention: diagnostics.DiagnosticsRetention | None = None,
        record_browser: RecordBrowser | None = None,
        recorded_browser: RecordedLookup | None = None,
        proxy: ProxyRoute | None = None,
        fingerprints: FingerprintStore | None = None,
        adapter_file: Path | None = None,
        sites_dir: Path | None = None,
    ) -> None:
        self.driver = driver
        self.account_id = account_id
        self.adapter = adapter
        self.origin = origin
        self.pacing_defaults = adapter.pacing  # the web lane's pacer reads the site's defaults
        # One browser per account, shared with the provider this one may replace (a rebuild):
        # it takes this provider's adapter and origin when this provider first uses it.
        self.browser: AccountBrowser = driver.account(account_id, profile_dir, adapter, origin)
        # The account's way out (issue 32): the browser (re)launches through it.
        self.proxy = proxy
        self.proxy_backoff = ProxyBackoff()
        self.diagnostics_dir = diagnostics_dir
        self.diagnostics_retention = diagnostics_retention or diagnostics.DiagnosticsRetention()
        self._record_browser = record_browser
        self._recorded_browser = recorded_browser
        self.fingerprints = fingerprints  # what worked, for a repair (fingerprint.py)
        self.adapter_file = adapter_file  # the file the adapter came from (a repair edits it)
        self.sites_dir = sites_dir  # where a repair installs (None: the account's own site_file)
        # Failures at one adapter step, task after task: two make the verdict "the site's
        # page changed". A fresh provider (a fixed adapter, Reset) starts a fresh count.
        self.breakage = BreakageWatch()
        # A verdict reached by a task that still succeeded (its answer taken without the
        # declared done marker): given at the account's next task, before anything is sent.
        self._verdict: Verdict | None = None
        # What this account last sent, until its generation is known to have ended (on disk,
        # so the next process finds it after a crash), and the blame for what it breaks.
        self.leftover = LeftoverGuard(profile_dir, adapter.timing.hard_timeout_s)

    async def check_site(
        self, at_answer: Callable[[list[StepResult]], Awaitable[None]] | None = None
    ) -> tuple[SiteCheckReport, CheckOutcome]:
        """The site check (``sites check``, *Check site*): one tiny prompt through this
        account's page, step by step (:mod:`canary`). Its caller holds the account (the web
        lane's worker between two tasks, or the CLI with the profile lock) and its pacing.
        ``at_answer``: see :func:`canary.run_check` (a repair's look at the answer's page)."""
        call = self.driver.service.call
        through, failing = await site_check_step(self.proxy, self.site_url)
        if failing is not None:  # the proxy's failure: nothing else can be checked
            report = full_report(
                self.account_id, self.adapter.id, [through], reason="the proxy failed"
            )
            return report, CheckOutcome(error=failing)
        try:
            await call(
                self.browser.ensure(adapter=self.adapter, origin=self.origin, proxy=self.proxy)
            )
        except PlaywrightError as exc:
            detail = f"the browser did not start: {_first_line(exc)}"
            failed = StepResult(AdapterStep.PAGE_LOADED, StepStatus.FAILED, detail, 0.0)
            report = full_report(self.account_id, self.adapter.id, [through, failed])
            return report, CheckOutcome(error=ProviderError(ErrorKind.BROWSER_CRASHED, detail))
        chat = self.browser.chat
        assert chat is not None
        try:
            report, outcome = await run_check(
                self.account_id,
                self.adapter,
                chat,
                call,
                self.leftover,
                quiesce=self._quiesce,
                at_answer=lambda done: self._answered(chat, done, at_answer),
            )
        finally:
            self.leftover.attempt_ended()
        steps = tuple(r for r in report.steps if r.step is not AdapterStep.THROUGH_PROXY)
        report = dataclasses.replace(report, steps=(through, *steps))
        if outcome.error is not None and outcome.error.kind is ErrorKind.BROWSER_CRASHED:
            await call(self.browser.close())  # recycle: the next task gets a fresh browser
        return report, outcome

    async def challenge_passed(self) -> bool:
        """The account's page is past the verification that held it (core/lanes/web.py asks
        while the account waits; nothing is sent)."""
        if not self.driver.service.running:
            return False
        return await self.driver.service.call(self.browser.challenge_gone())

    async def show_browser(self) -> ShownBrowser:
        """*Show browser* for the verification page that holds the account (the lane's worker
        asks, between two looks at the page): its window in front, or the profile reopened in
        a window through the same proxy (browser.py ``AccountBrowser.show``)."""
        if not self.driver.service.running:
            return ShownBrowser(ShowOutcome.FAILED, "the browser driver is not running")
        # Through the account's way out, as its tasks take it.
        return await self.driver.service.call(self.browser.show(self.proxy))

    async def repair_site(self) -> RepairResult | None:
        """The window's *Repair…*, ``[sites] auto_repair`` (issue 33): see provider_repair."""
        return await provider_repair.repair_site(self)

    async def install_repair(self, result: RepairResult) -> str | None:
        return await provider_repair.install_repair(self, result)

    async def release(self) -> None:
        """Close the warm browser until the next task (the account went out of service)."""
        await self.aclose()

    async def aclose(self) -> None:
        if self.driver.service.running:
            await self.driver.service.call(self.browser.close())
            if self._record_browser is not None:
                self._record_browser(self.account_id, None, None)

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        call = self.driver.service.call
        if self._verdict is not None:
            raise self._site_changed(self._verdict)
        await self._selfcheck(ctx)
        try:
            info = await call(
                self.browser.ensure(adapter=self.adapter, origin=self.origin, proxy=self.proxy)
            )
        except PlaywrightError as exc:
            raise ProviderError(
                ErrorKind.BROWSER_CRASHED, f"the browser did not start: {_first_line(exc)}"
            ) from None
        if info.launched:
            ctx.log(
                f"browser started (pid {info.pid}; {info.description})",
                code=EventCode.BROWSER_STARTED,
                params={"pid": info.pid, "detail": info.description},
            )
            if self._record_browser is not None:
                self._record_browser(self.account_id, info.pid, info.started_at)
        if info.launched or self.proxy_backoff.failures:
            await self._proxy_first(ctx)
        chat = self.browser.chat
        assert chat is not None
        watch: AnswerWatch | None = None
        try:
            await self.leftover.settle(
                ctx,
                lambda url, wait_s: self.driver.service.call(chat.settle_conversation(url, wait_s)),
                has_indicator=bool(self.adapter.selectors.generating),
            )
            before = await call(chat.open_new_chat(ctx.task.upstream_model))
            if chat.new_chat_fell_back:
                steps = self.adapter.new_chat_steps
                what = f"control {steps[0]}" if len(steps) == 1 else f"steps {steps}"
                ctx.log(
                    f"the new-chat {what} gave no empty chat within "
                    f"{self.adapter.timing.new_chat_timeout_s:.0f} s: loaded new_chat_url "
                    "instead (slower; check the adapter)",
                    level=logging.WARNING,
                    code=EventCode.NEW_CHAT_FALLBACK,
                    params={
                        "seconds": self.adapter.timing.new_chat_timeout_s,
                        "detail": str(steps[0] if len(steps) == 1 else steps),
                    },
                )
            ctx.checkpoint()
            await call(chat.type_prompt(page_text(ctx.task)))
            # Written before the click: a kill from here on leaves a generation on the site.
            await self.leftover.remember(ctx.task.task_id, ctx.task.attempt, before.url)
            await call(chat.send(before))
            watch = AnswerWatch(
                self.adapter, chat, call, leftover=self.leftover, quiesce=self._quiesce
            )
            result = await watch.run(ctx, before)
            self.browser.tasks_done += 1
            await self.leftover.forget()  # the answer is complete: nothing runs on the site
            self.leftover.answered()
            await self._passed_or_limped(ctx, watch)
            if not watch.accepted_without_done:
                await self._remember(chat)
            self.proxy_backoff.passed()
            return result
        except TaskCanceled:
            raise
        except asyncio.CancelledError:
            # The lane gave up waiting for a checkpoint: still stop the generation, or the site
            # keeps the session busy and breaks the account's next task.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._quiesce()), QUIESCE_S + 3.0)
            raise
        except ProviderError as exc:
            if exc.kind in PAGE_FAILURES_OF_A_PROXY:  # believed once the proxy is known to work
                exc = await blame_proxy(self.proxy, self.site_url, exc)
            if exc.kind in PROXY_KINDS:  # the proxy's failure: nothing reached the site
                raise self._proxy_failed(ctx, exc) from None
            if watch is not None and watch.page_ended:
                await self.leftover.ended()  # the page showed the failure: nothing runs on
            # A generation this account left (before a crash) met this prompt: our own doing,
            # not the site's verdict on the task. It waits; no attempt used (leftover.py).
            exc = self.leftover.blame(exc, ctx.task.task_id)
            exc = self._judge(ctx, exc)
            if exc.kind in _DIAGNOSE:
                await self._diagnose(ctx, exc)
            if exc.kind is ErrorKind.CAPTCHA:  # a person passes it there: the browser stays
                await call(self.browser.bring_forward())
                raise exc from None
            # A generation abandoned mid-way keeps running on the site and breaks the
            # account's next task: stop it, and make sure it stopped.
            await self._quiesce()
            raise exc from None
        except PlaywrightError as exc:
            failing = web_proxy_error(self.proxy, str(exc))
            if failing is None and self.proxy is not None:
                crashed = ProviderError(ErrorKind.BROWSER_CRASHED, str(exc))
                if (blamed := await blame_proxy(self.proxy, self.site_url, crashed)) is not crashed:
                    failing = blamed
            if failing is not None:
                raise self._proxy_failed(ctx, failing) from None
            await self._diagnose(ctx)
            await call(self.browser.close())  # recycle: the next task gets a fresh browser
            raise self.leftover.blame(
                ProviderError(ErrorKind.BROWSER_CRASHED, f"browser/page error: {_first_line(exc)}"),
                ctx.task.task_id,
            ) from None
        finally:
            self.leftover.attempt_ended()

    # ---------------------------------------------------------------- a failing proxy

    @property
    def site_url(self) -> str:
        return self.origin or self.adapter.origin

    async def _proxy_first(self, ctx: TaskContext) -> None:
        """A fresh browser, or a proxy that failed last time: asked first whether it reaches
        the site (a proxy refusing the password may answer with a page of its own, which the
        page would only show as no composer after the page-load timeout)."""
        if self.proxy is None or not self.proxy.applies_to(self.site_url):
            return
        verdict = await check_proxy(self.proxy, self.site_url)
        if (failing := verdict.error(self.proxy)) is not None:
            raise self._proxy_failed(ctx, failing)

    def _proxy_failed(self, ctx: TaskContext, exc: ProviderError) -> ProviderError:
        """The proxy failed before anything reached the site: said as the proxy's failure
        (never a lost login or a changed page), the account pausing with a growing back-off."""
        if self.proxy is not None and exc.code == "proxy_auth" and not exc.params.get("proxy"):
            exc = proxy_error(self.proxy, exc.kind, "proxy_auth")
        return self.proxy_backoff.failed(exc, ctx.clock.now())

    # ---------------------------------------------------------------- a broken adapter

    async def _answered(
        self,
        chat: ChatPage,
        done: list[StepResult],
        then: Callable[[list[StepResult]], Awaitable[None]] | None,
    ) -> None:
        if all(r.status is not StepStatus.FAILED for r in done):
            await self._remember(chat)
        if then is not None:
            await then(done)

    async def _remember(self, chat: ChatPage) -> None:
        await provider_repair.remember(self, chat)

    def _judge(self, ctx: TaskContext, exc: ProviderError) -> ProviderError:
        """A failure at an adapter step counts toward the verdict; the same step failing on
        the account's next task makes it (``site_changed``: the task goes back, no attempt
        used). A deferral (a leftover's doing, a busy site) says nothing about the adapter."""
        if exc.step is None or exc.kind in DEFERRING or not exc.retryable:
            return exc
        step = AdapterStep(exc.step)
        verdict = self.breakage.failed(step, exc.selector or "", ctx.task.task_id)
        streak = self.breakage.streak[1]
        ctx.log(
            f"adapter step {step.words!r} failed ({exc.selector or 'no selector'}): "
            f"{streak} of {self.breakage.needed} in a row before the account waits for the "
            "operator",
            level=logging.WARNING,
            code=EventCode.STEP_FAILED,
            params={"step": step.value, "count": streak, "detail": exc.selector or exc.message},
        )
        if verdict is None:
            return exc
        return self._site_changed(verdict)

    async def _passed_or_limped(self, ctx: TaskContext, watch: AnswerWatch) -> None:
        """A task that got its answer: every step held — unless the declared done marker never
        came (the answer was taken after done_grace_s), which counts like a failed step."""
        if not watch.accepted_without_done:
            self.breakage.passed()
            return
        done = selectors_text(self.adapter.selectors.done)
        self._verdict = self.breakage.failed(AdapterStep.DONE_SEEN, done, ctx.task.task_id)
        await self._diagnose(
            ctx, ProviderError(ErrorKind.TIMEOUT, "", step=AdapterStep.DONE_SEEN.value)
        )
        ctx.log(
            f"adapter step 'done seen' failed ({done}): {self.breakage.streak[1]} of "
            f"{self.breakage.needed} in a row before the account waits for the operator",
            level=logging.WARNING,
            code=EventCode.STEP_FAILED,
            params={
                "step": AdapterStep.DONE_SEEN.value,
                "count": self.breakage.streak[1],
                "detail": done,
            },
        )

    def _site_changed(self, verdict: Verdict) -> ProviderError:
        self._verdict = None
        return ProviderError(
            ErrorKind.SITE_CHANGED,
            verdict.message,
            step=verdict.step.value,
            selector=verdict.selector,
        )

    async def _quiesce(self) -> bool:
        """No generation may keep running on the site when the account's next task starts:
        press stop, wait for the page to settle, else close the browser (a fresh session).
        True if the page settled by itself."""
        call, chat = self.driver.service.call, self.browser.chat
        if chat is None:
            return True
        try:
            await call(chat.stop_generating())
            loop = asyncio.get_running_loop()
            deadline = loop.time() + QUIESCE_S
            while loop.time() < deadline:
                if not (await call(chat.snapshot())).generating:
                    await self.leftover.forget()
                    return True
                await asyncio.sleep(0.25)
        except Exception:  # a dead page: closing the browser below settles it too
            pass
        # Closing the browser ends the page, not the site's generation: the record stays, and
        # the account's next attempt looks at that conversation before it sends.
        with contextlib.suppress(Exception):
            await call(self.browser.close())
        return False

    async def _selfcheck(self, ctx: TaskContext) -> None:
        recorded = await self._recorded_browser(self.account_id) if self._recorded_browser else None
        report = await self.driver.service.call(self.browser.selfcheck(recorded))
        for finding in report.for_account(self.account_id):
            if finding.kind != "ok":
                ctx.log(
                    finding.message(),
                    kind="selfcheck",
                    level=logging.WARNING,
                    code=EventCode.SELFCHECK,
                    params={
                        "finding": finding.kind.value,
                        "account": finding.account_id,
                        "detail": " — ".join(p for p in (finding.description, finding.action) if p),
                    },
                )
        blocked = report.blocked_accounts().get(self.account_id)
        if blocked:
            raise ProviderError(ErrorKind.PROFILE_IN_USE, blocked)

    async def _diagnose(self, ctx: TaskContext, exc: ProviderError | None = None) -> None:
        """A screenshot and the page's DOM of the failing step, named in the task's log."""
        chat = self.browser.chat
        if self.diagnostics_dir is None or chat is None:
            return
        step = exc.step if exc is not None else None
        # A task id is the operator's text: never a path of its own (core/files/filenames.py).
        name = f"{safe_file_stem(ctx.task.task_id)}-attempt{ctx.task.attempt}"
        stem = self.diagnostics_dir / (f"{name}-{step}" if step else name)
        try:
            await asyncio.to_thread(diagnostics.prepare_folder, self.diagnostics_dir)
            saved = await asyncio.wait_for(
                self.driver.service.call(chat.save_diagnostics(stem)), 10.0
            )
        except Exception:
            return
        if saved:
            where = ", ".join(str(p) for p in saved)
            what = f" of step {AdapterStep(step).words!r}" if step else ""
            ctx.log(
                f"saved for diagnosis{what} (redacted): {where}",
                code=EventCode.DIAGNOSTICS_SAVED,
                params={"files": len(saved), "step": step or "", "detail": where},
            )
            # 0600, then the folder is kept to its days / megabytes ([diagnostics] config).
            with contextlib.suppress(OSError):
                await asyncio.to_thread(
                    diagnostics.settle, self.diagnostics_dir, saved, self.diagnostics_retention
                )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
