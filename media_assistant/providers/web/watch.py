"""Watching one sent prompt's answer to its end, on the lane's loop: one page read per poll
(through the driver's service), every heartbeat, checkpoint and timeout here.

Finished means several signals agree: the generating indicator is gone, a new done marker is
present (or, without one, the indicator was seen for this answer and went away; with neither,
the text held still for N polls), and the text did not change on a last re-read. Only an
answer that is new since the send is accepted, and never an error in disguise: an error box
inside the answer, an empty answer, or one that is only a known error text fails the attempt
even with a done marker. The result is the answer as Markdown (:mod:`markdown`), its plain
text kept beside it.

A failure that says an adapter step found nothing carries the step (core/rules/site_breakage.py):
an answer the page shows but ``selectors.answer`` does not find (the page gained text; the
watch saw none), or an answer that never finished (the indicator never went away).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from media_assistant.core.model.errors import ErrorKind, ProviderError, TaskCanceled
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.rules.site_breakage import AdapterStep
from media_assistant.providers.web.adapter import GENERIC_ERROR_TEXTS, SiteAdapter
from media_assistant.providers.web.leftover import LeftoverGuard
from media_assistant.providers.web.markdown import html_to_markdown, only_error_text
from media_assistant.providers.web.page import ChatPage
from media_assistant.providers.web.page_load import selectors_text
from media_assistant.providers.web.silence import SilentStop
from media_assistant.providers.web.snapshot import MarkerWatch, Snapshot, marker_error

T = TypeVar("T")
Call = Callable[[Coroutine[Any, Any, T]], Awaitable[T]]

# The page gained this much text since the send while the watch saw no answer: an answer is
# there, where selectors.answer does not look (a user bubble replaces the composer's text; a
# sidebar title adds a few dozen characters).
UNMATCHED_TEXT_CHARS = 80


class AnswerWatch:
    """One answer's watch. What it saw stays on it for the canary (``sites check``):
    ``generating_seen``, ``done_seen``, ``accepted_without_done``."""

    def __init__(
        self,
        adapter: SiteAdapter,
        chat: ChatPage,
        call: Call[Any],
        *,
        leftover: LeftoverGuard | None = None,
        quiesce: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.adapter = adapter
        self.chat = chat
        self.call = call
        self.leftover = leftover
        self.quiesce = quiesce
        self.generating_seen = False
        self.done_seen = False
        self.accepted_without_done = False
        # The attempt failed with an error the page showed (a toast or banner, an error box or
        # error text as the answer, an empty answer, a silent stop): its generation has ended
        # and leaves nothing running on the site (leftover.py, issue 25).
        self.page_ended = False

    async def run(self, ctx: TaskContext, before: Snapshot) -> GenerationResult:
        timing, chat, call = self.adapter.timing, self.chat, self.call
        selectors = self.adapter.selectors
        watch = MarkerWatch(timing.marker_persist_s)
        silence = SilentStop(timing.silent_stop_s)
        sent_at = last_change = time.monotonic()
        # In the shadow of a generation this account left and could not look at, a first
        # token that does not come is the leftover's doing: waited for less (leftover.py).
        first_token_s = (
            self.leftover.first_token_s(timing.first_token_timeout_s)
            if self.leftover is not None
            else timing.first_token_timeout_s
        )
        last_text: str | None = None
        stable = empty_done = 0
        snap: Snapshot | None = None
        wait_ms = 0  # the first read at once; then polls that wait in the page (see snapshot)
        while True:
            if ctx.cancel_requested:
                await self._cancel(ctx)
            snap = await call(chat.snapshot(wait_ms=wait_ms, after=snap))
            if snap.url != before.url and self.leftover is not None:
                await self.leftover.named(snap.url)
            problem = watch.problem(snap)
            if problem is not None:
                self.page_ended = True
                raise marker_error(problem, snap)
            now = time.monotonic()
            is_new = snap.answers > before.answers or (
                snap.answers == before.answers > 0 and snap.text != before.text
            )
            fresh_done = snap.done > before.done
            self.done_seen = self.done_seen or (is_new and fresh_done)
            has_text = is_new and bool((snap.text or "").strip())
            if silence.stopped(
                snap, now, answered=has_text or (is_new and fresh_done), pending=watch.pending()
            ):
                self.page_ended = True
                raise await self._no_answer(
                    ProviderError(
                        ErrorKind.SERVER_ERROR,
                        f"the site stopped without answering: it showed it was generating, "
                        f"then no new answer and no error for {timing.silent_stop_s:g} s",
                    )
                )
            self.generating_seen = silence.seen_generating
            # Without a done marker, the generating indicator going away is the end — once the
            # page has shown it for this answer (silence.seen_generating: the page watches for
            # it from the send on) and the text then holds still on a re-read confirm_ms later.
            # Not stable_polls × poll_ms of unchanged text (1.5 s with the defaults).
            told_by_indicator = (
                not selectors.done and bool(selectors.generating) and silence.seen_generating
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
                    or (not selectors.done and stable >= timing.stable_polls)
                    or (now - last_change >= timing.done_grace_s and stable >= timing.stable_polls)
                ):
                    if not fresh_done and selectors.done:
                        self.accepted_without_done = True
                        ctx.log(
                            "accepted without a done marker (text stable, generation "
                            f"indicator gone): adapter {self.adapter.id!r} may be outdated",
                            level=logging.WARNING,
                            code=EventCode.ACCEPTED_WITHOUT_DONE,
                            params={"adapter": self.adapter.id},
                        )
                    return await self.accept(ctx, snap)
                if snap.generating and now - last_change > timing.idle_timeout_s:
                    raise self._never_finished(
                        f"the answer stopped growing for {timing.idle_timeout_s:.0f} s while "
                        "the page still showed it was generating"
                    )
            elif is_new and fresh_done and not snap.generating:
                # Finished, by every sign the page gives, with nothing in the answer.
                empty_done += 1
                if empty_done >= timing.stable_polls:
                    self.page_ended = True
                    raise ProviderError(
                        ErrorKind.SERVER_ERROR,
                        snap.answer_error
                        and f"the site reported an error: {snap.answer_error}"
                        or "the site finished with an empty answer",
                    )
            elif now - sent_at > first_token_s:
                raise await self._no_answer(
                    ProviderError(
                        ErrorKind.TIMEOUT,
                        f"no answer appeared within {first_token_s:.0f} s"
                        + (
                            " (a generation this account left may still run on the site)"
                            if first_token_s < timing.first_token_timeout_s
                            else ""
                        ),
                    )
                )
            if now - sent_at > timing.hard_timeout_s:
                if snap.generating:
                    raise self._never_finished(
                        f"still generating after {timing.hard_timeout_s:.0f} s "
                        f"({len(last_text or '')} chars)"
                    )
                raise ProviderError(
                    ErrorKind.TIMEOUT,
                    f"no finished answer after {timing.hard_timeout_s:.0f} s "
                    f"({len(last_text or '')} chars)",
                )
            ctx.heartbeat()
            if is_new and not snap.generating and (fresh_done or (has_text and told_by_indicator)):
                # Done marker seen (or, without one, the indicator gone): one re-read after
                # confirm_ms must find the text unchanged and nothing generating.
                await asyncio.sleep(timing.confirm_ms / 1000)
                wait_ms = 0
            else:
                wait_ms = timing.poll_ms

    async def _cancel(self, ctx: TaskContext) -> None:
        clicked = await self.call(self.chat.stop_generating())
        ctx.log(
            "cancel: clicked the page's stop control"
            if clicked
            else "cancel: no stop control was visible",
            code=EventCode.CANCEL_STOP_CLICKED if clicked else EventCode.CANCEL_NO_STOP,
        )
        if self.quiesce is not None and not await self.quiesce():
            ctx.log(
                "the site kept generating: its browser was closed",
                kind="error",
                code=EventCode.SITE_KEPT_GENERATING,
            )
        raise TaskCanceled(ctx.task.task_id)

    async def _no_answer(self, exc: ProviderError) -> ProviderError:
        """No answer found: the site's silence, or an answer where selectors.answer does not
        look any more (the page gained text all the same) — then it is the adapter's step."""
        gained = await self.call(self.chat.text_gained())
        if gained < UNMATCHED_TEXT_CHARS:
            return exc
        answer = self.adapter.selectors.answer
        return ProviderError(
            exc.kind,
            f"{exc.message}, yet the page gained {gained} characters of text that "
            f"selectors.answer ({selectors_text(answer)}) does not find: adapter "
            f"{self.adapter.id!r} needs updating",
            step=AdapterStep.ANSWER_READ.value,
            selector=selectors_text(answer),
        )

    def _never_finished(self, what: str) -> ProviderError:
        generating = selectors_text(self.adapter.selectors.generating)
        return ProviderError(
            ErrorKind.TIMEOUT,
            f"{what}: the answer never finished (selectors.generating {generating} stayed)",
            step=AdapterStep.DONE_SEEN.value,
            selector=generating,
        )

    async def accept(self, ctx: TaskContext, snap: Snapshot) -> GenerationResult:
        """The finished answer as Markdown, unless it is an error dressed as an answer."""
        answer = self.adapter.answer
        if snap.answer_error:
            self.page_ended = True
            raise ProviderError(
                ErrorKind.SERVER_ERROR,
                f"the site drew an error inside the answer: {snap.answer_error}",
            )
        plain = (snap.text or "").strip()
        error_texts = [*answer.error_texts, *(GENERIC_ERROR_TEXTS if answer.generic_errors else [])]
        said = only_error_text(plain, error_texts)
        if said is not None:
            self.page_ended = True
            raise ProviderError(
                ErrorKind.SERVER_ERROR, f"the answer is only an error message: {said}"
            )
        extracted = await self.call(self.chat.extract_answer())
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
