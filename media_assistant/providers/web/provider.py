"""The web model provider: self-check, warm browser, new chat, type, send, watch, extract.

Runs on the lane's loop and talks to the browser through the driver's service, one short call
at a time; the watching loop (and so every heartbeat, checkpoint and timeout) stays here.
Finished means several signals agree: the generating indicator is gone, a new done marker is
present (or, without one, the text held still for N polls), and the text did not change on a
last re-read. Only an answer that is new since the send is accepted, and never an error in
disguise: an error box inside the answer, an empty answer, or one that is only a known error
text fails the attempt even with a done marker. The result is the answer as Markdown
(:mod:`markdown`), its plain text kept beside it.

One generation per account: before it sends, the provider makes sure nothing it started earlier
still runs on the site — a crash or a kill of the app leaves the last answer generating there,
and a second prompt would break both (issue 9, item 2; :mod:`leftover` keeps the record).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from playwright.async_api import Error as PlaywrightError

from media_assistant.core.files import diagnostics
from media_assistant.core.files.filenames import safe_file_stem
from media_assistant.core.model.errors import ErrorKind, ProviderError, TaskCanceled
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import GenerationResult, TaskContext, TaskSpec
from media_assistant.providers.web.adapter import GENERIC_ERROR_TEXTS, SiteAdapter
from media_assistant.providers.web.browser import AccountBrowser, WebDriver
from media_assistant.providers.web.leftover import LeftoverGuard
from media_assistant.providers.web.markdown import html_to_markdown, only_error_text
from media_assistant.providers.web.page import ComposerMissing
from media_assistant.providers.web.selfcheck import RecordedBrowser
from media_assistant.providers.web.silence import SilentStop
from media_assistant.providers.web.snapshot import MarkerWatch, Snapshot, marker_error

log = logging.getLogger(__name__)

RecordBrowser = Callable[[str, int | None, float | None], None]
RecordedLookup = Callable[[str], Awaitable[RecordedBrowser | None]]  # a read: awaited

# After a cancel, a timeout or an error: how long the page gets to stop generating.
QUIESCE_S = 3.0

# A loaded page without a composer is a slow page the first times (a retry), the adapter's
# fault (bad_config: the account waits for the operator) once it happens this many page loads
# in a row.
COMPOSER_MISSES_FOR_BAD_CONFIG = 3

# Diagnostics are worth their disk space only when a human will need to look.
_DIAGNOSE = {
    ErrorKind.BAD_CONFIG,
    ErrorKind.PROTOCOL,
    ErrorKind.TIMEOUT,
    ErrorKind.CAPTCHA,
    ErrorKind.LOGIN_REQUIRED,
    ErrorKind.BROWSER_CRASHED,
    ErrorKind.SERVER_ERROR,
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
    ) -> None:
        self.driver = driver
        self.account_id = account_id
        self.adapter = adapter
        self.origin = origin
        self.pacing_defaults = adapter.pacing  # the web lane's pacer reads the site's defaults
        # One browser per account, shared with the provider this one may replace (a rebuild):
        # it takes this provider's adapter and origin when this provider first uses it.
        self.browser: AccountBrowser = driver.account(account_id, profile_dir, adapter, origin)
        self.diagnostics_dir = diagnostics_dir
        self.diagnostics_retention = diagnostics_retention or diagnostics.DiagnosticsRetention()
        self._record_browser = record_browser
        self._recorded_browser = recorded_browser
        self.composer_misses = 0  # page loads in a row that showed no composer
        # What this account last sent, until its generation is known to have ended (on disk,
        # so the next process finds it after a crash), and the blame for what it breaks.
        self.leftover = LeftoverGuard(profile_dir, adapter.timing.hard_timeout_s)

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
        await self._selfcheck(ctx)
        try:
            info = await call(self.browser.ensure(adapter=self.adapter, origin=self.origin))
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
        chat = self.browser.chat
        assert chat is not None
        try:
            await self.leftover.settle(
                ctx,
                lambda url, wait_s: self.driver.service.call(chat.settle_conversation(url, wait_s)),
                has_indicator=bool(self.adapter.selectors.generating),
            )
            try:
                before = await call(chat.open_new_chat(ctx.task.upstream_model))
            except ComposerMissing as exc:
                raise self._composer_missing(exc) from None
            self.composer_misses = 0
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
            result = await self._watch(ctx, before)
            self.browser.tasks_done += 1
            await self.leftover.forget()  # the answer is complete: nothing runs on the site
            self.leftover.answered()
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
            # A generation this account left (before a crash) met this prompt: our own doing,
            # not the site's verdict on the task. It waits; no attempt used (leftover.py).
            exc = self.leftover.blame(exc)
            if exc.kind in _DIAGNOSE:
                await self._diagnose(ctx)
            # A generation abandoned mid-way keeps running on the site and breaks the
            # account's next task: stop it, and make sure it stopped.
            await self._quiesce()
            raise exc from None
        except PlaywrightError as exc:
            await self._diagnose(ctx)
            await call(self.browser.close())  # recycle: the next task gets a fresh browser
            raise self.leftover.blame(
                ProviderError(ErrorKind.BROWSER_CRASHED, f"browser/page error: {_first_line(exc)}")
            ) from None
        finally:
            self.leftover.attempt_ended()

    def _composer_missing(self, exc: ComposerMissing) -> ProviderError:
        """A slow page is retried; the same miss on several page loads in a row is the
        adapter's (or a logged-out session's) to fix."""
        self.composer_misses += 1
        if self.composer_misses >= COMPOSER_MISSES_FOR_BAD_CONFIG:
            return ProviderError(
                ErrorKind.BAD_CONFIG,
                f"{exc.message} ({self.composer_misses} page loads in a row)",
            )
        return ProviderError(
            ErrorKind.TIMEOUT,
            f"{exc.message}; retried (page load {self.composer_misses} of "
            f"{COMPOSER_MISSES_FOR_BAD_CONFIG} before the account waits for the operator)",
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

    async def _watch(self, ctx: TaskContext, before: Snapshot) -> GenerationResult:
        timing = self.adapter.timing
        chat = self.browser.chat
        assert chat is not None
        call = self.driver.service.call
        watch = MarkerWatch(timing.marker_persist_s)
        silence = SilentStop(timing.silent_stop_s)
        sent_at = last_change = time.monotonic()
        # In the shadow of a generation this account left and could not look at, a first
        # token that does not come is the leftover's doing: waited for less (leftover.py).
        first_token_s = self.leftover.first_token_s(timing.first_token_timeout_s)
        last_text: str | None = None
        stable = empty_done = 0
        snap: Snapshot | None = None
        wait_ms = 0  # the first read at once; then polls that wait in the page (see snapshot)
        while True:
            if ctx.cancel_requested:
                clicked = await call(chat.stop_generating())
                ctx.log(
                    "cancel: clicked the page's stop control"
                    if clicked
                    else "cancel: no stop control was visible",
                    code=EventCode.CANCEL_STOP_CLICKED if clicked else EventCode.CANCEL_NO_STOP,
                )
                if not await self._quiesce():
                    ctx.log(
                        "the site kept generating: its browser was closed",
                        kind="error",
                        code=EventCode.SITE_KEPT_GENERATING,
                    )
                raise TaskCanceled(ctx.task.task_id)
            snap = await call(chat.snapshot(wait_ms=wait_ms, after=snap))
            if snap.url != before.url:
                await self.leftover.named(snap.url)
            problem = watch.problem(snap)
            if problem is not None:
                raise marker_error(problem, snap)
            now = time.monotonic()
            is_new = snap.answers > before.answers or (
                snap.answers == before.answers > 0 and snap.text != before.text
            )
            fresh_done = snap.done > before.done
            has_text = is_new and bool((snap.text or "").strip())
            if silence.stopped(
                snap, now, answered=has_text or (is_new and fresh_done), pending=watch.pending()
            ):
                raise ProviderError(
                    ErrorKind.SERVER_ERROR,
                    f"the site stopped without answering: it showed it was generating, then "
                    f"no new answer and no error for {timing.silent_stop_s:g} s (if the page "
                    f"does show an answer, selectors.answer may be outdated)",
                )
            # Without a done marker, the generating indicator going away is the end — once the
            # page has shown it for this answer (silence.seen_generating: the page watches for
            # it from the send on) and the text then holds still on a re-read confirm_ms later.
            # Not stable_polls × poll_ms of unchanged text (1.5 s with the defaults).
            told_by_indicator = (
                not self.adapter.selectors.done
                and bool(self.adapter.selectors.generating)
                and silence.seen_generating
            )
            if has_text:
                if snap.text != last_text:
                    last_text, last_change, stable = snap.text, now, 0
                    ctx.heartbeat(progress_chars=len(snap.text or ""))
                else:
                    stable += 1
                if not snap.generating and (
                    (fresh_done and stable >= 1)
                    or (told_by_indicator and stable >= 1)
                    or (not self.adapter.selectors.done and stable >= timing.stable_polls)
                    or (now - last_change >= timing.done_grace_s and stable >= timing.stable_polls)
                ):
                    if not fresh_done and self.adapter.selectors.done:
                        ctx.log(
                            "accepted without a done marker (text stable, generation "
                            f"indicator gone): adapter {self.adapter.id!r} may be outdated",
                            level=logging.WARNING,
                            code=EventCode.ACCEPTED_WITHOUT_DONE,
                            params={"adapter": self.adapter.id},
                        )
                    return await self._accept(ctx, snap)
                if snap.generating and now - last_change > timing.idle_timeout_s:
                    raise ProviderError(
                        ErrorKind.TIMEOUT,
                        f"the answer stopped growing for "
                        f"{timing.idle_timeout_s:.0f} s while still generating",
                    )
            elif is_new and fresh_done and not snap.generating:
                # Finished, by every sign the page gives, with nothing in the answer.
                empty_done += 1
                if empty_done >= timing.stable_polls:
                    raise ProviderError(
                        ErrorKind.SERVER_ERROR,
                        snap.answer_error
                        and f"the site reported an error: {snap.answer_error}"
                        or "the site finished with an empty answer",
                    )
            elif now - sent_at > first_token_s:
                raise ProviderError(
                    ErrorKind.TIMEOUT,
                    f"no answer appeared within {first_token_s:.0f} s"
                    + (
                        " (a generation this account left may still run on the site)"
                        if first_token_s < timing.first_token_timeout_s
                        else ""
                    ),
                )
            if now - sent_at > timing.hard_timeout_s:
                raise ProviderError(
                    ErrorKind.TIMEOUT,
                    f"still generating after "
                    f"{timing.hard_timeout_s:.0f} s ({len(last_text or '')} chars)",
                )
            ctx.heartbeat()
            if is_new and not snap.generating and (fresh_done or (has_text and told_by_indicator)):
                # Done marker seen (or, without one, the indicator gone): one re-read after
                # confirm_ms must find the text unchanged and nothing generating.
                await asyncio.sleep(timing.confirm_ms / 1000)
                wait_ms = 0
            else:
                wait_ms = timing.poll_ms

    async def _accept(self, ctx: TaskContext, snap: Snapshot) -> GenerationResult:
        """The finished answer as Markdown, unless it is an error dressed as an answer."""
        answer = self.adapter.answer
        if snap.answer_error:
            raise ProviderError(
                ErrorKind.SERVER_ERROR,
                f"the site drew an error inside the answer: {snap.answer_error}",
            )
        plain = (snap.text or "").strip()
        error_texts = [*answer.error_texts, *(GENERIC_ERROR_TEXTS if answer.generic_errors else [])]
        said = only_error_text(plain, error_texts)
        if said is not None:
            raise ProviderError(
                ErrorKind.SERVER_ERROR, f"the answer is only an error message: {said}"
            )
        chat = self.browser.chat
        assert chat is not None
        extracted = await self.driver.service.call(chat.extract_answer())
        # Text the page showed as is (no markup): its own line breaks are the content.
        markdown = plain
        if extracted is not None:
            source = (extracted.get("source") or "").strip()
            if source:
                markdown = source
            elif answer.format == "html" and extracted.get("rich") and extracted.get("html"):
                # Parsing a long answer takes tens of milliseconds: not on the lane's loop
                # (in the desktop app that is the GUI thread).
                converted = await asyncio.to_thread(html_to_markdown, extracted["html"] or "")
                markdown = converted or plain
            if answer.markdown_source and not source:
                ctx.log(
                    f"answer.markdown_source {answer.markdown_source} found nothing: "
                    "rebuilt from the HTML instead",
                    level=logging.WARNING,
                    code=EventCode.MARKDOWN_SOURCE_EMPTY,
                    params={"detail": str(answer.markdown_source)},
                )
        return GenerationResult(
            text=markdown, reasoning=(snap.reasoning or None), plain_text=plain or None
        )

    async def _diagnose(self, ctx: TaskContext) -> None:
        chat = self.browser.chat
        if self.diagnostics_dir is None or chat is None:
            return
        # A task id is the operator's text: never a path of its own (core/files/filenames.py).
        name = f"{safe_file_stem(ctx.task.task_id)}-attempt{ctx.task.attempt}"
        stem = self.diagnostics_dir / name
        try:
            await asyncio.to_thread(diagnostics.prepare_folder, self.diagnostics_dir)
            saved = await asyncio.wait_for(
                self.driver.service.call(chat.save_diagnostics(stem)), 10.0
            )
        except Exception:
            return
        if saved:
            ctx.log(
                "saved for diagnosis: " + ", ".join(str(p) for p in saved),
                code=EventCode.DIAGNOSTICS_SAVED,
                params={"files": len(saved), "detail": ", ".join(str(p) for p in saved)},
            )
            # 0600, then the folder is kept to its days / megabytes ([diagnostics] config).
            with contextlib.suppress(OSError):
                await asyncio.to_thread(
                    diagnostics.settle, self.diagnostics_dir, saved, self.diagnostics_retention
                )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
