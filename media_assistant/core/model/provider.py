"""The one interface both ways of generating implement (httpx for APIs, Playwright for web chats).

A provider gets a :class:`TaskContext` and returns a :class:`GenerationResult` or raises
:class:`~media_assistant.core.model.errors.ProviderError` (a kind the lanes know how to handle) or
:class:`~media_assistant.core.model.errors.TaskCanceled` (from ``ctx.checkpoint()``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from media_assistant.core.model.clock import Clock
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.states import ModelKind


@dataclass(frozen=True, slots=True)
class TaskSpec:
    """What a provider needs to know about the task it runs (a snapshot, never the live row)."""

    task_id: str
    model: str
    model_kind: ModelKind
    account_id: str
    prompt: str
    system_prompt: str | None
    attempt: int
    # Reasoning models answer worse when a preset or system text is sent along: send only the
    # user's content (DESIGN §5, the incident's second pitfall).
    need_empty_prompt: bool = False
    upstream_model: str | None = None  # the provider's own model name, when it differs

    @property
    def effective_system_prompt(self) -> str | None:
        if self.need_empty_prompt:
            return None
        return self.system_prompt or None


@dataclass(slots=True)
class GenerationResult:
    text: str  # web models: the answer as Markdown, rebuilt from the page's rendered HTML
    reasoning: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    truncated: bool = False  # ended by a timeout rather than by the model
    plain_text: str | None = None  # web models: the answer as the page showed it (innerText)


class TaskContext(Protocol):
    """What the lane offers a running attempt."""

    @property
    def task(self) -> TaskSpec: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def cancel_requested(self) -> bool: ...

    def checkpoint(self) -> None:
        """Raise TaskCanceled if the operator asked to cancel. Call at least once a second."""

    async def wait_cancel(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a cancel request; True if one came."""

    def heartbeat(self, progress_chars: int | None = None) -> None:
        """Report that the attempt is alive, with the answer length so far."""

    def log(
        self,
        message: str,
        *,
        level: int = logging.INFO,
        kind: str = "log",
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        """A line for the task's event log (and the lane's log, with its prefix). ``code`` and
        ``params``: what it says as a kind (core/model/event_codes.py), for the window's words."""

    def throttle_account(self, seconds: float, reason: str) -> None:
        """Ask the lane to send this account no new work for ``seconds`` (e.g. quota nearly out)."""


@runtime_checkable
class Provider(Protocol):
    """One per account. ``generate`` may be called concurrently for API accounts, never for web."""

    async def generate(self, ctx: TaskContext) -> GenerationResult: ...

    async def aclose(self) -> None: ...


class ShowOutcome(StrEnum):
    """What *Show browser* did for an account a verification page holds (issue 32)."""

    BROUGHT_FORWARD = "brought_forward"  # its window (a shown browser) is now in front
    REOPENED = "reopened"  # it ran without a window: reopened in one, same profile and proxy
    PASSED = "passed"  # the page was past the verification already: the account works again
    NOT_HELD = "not_held"  # no verification page holds the account
    FAILED = "failed"  # the browser could not be shown (``detail`` says why)


@dataclass(frozen=True, slots=True)
class ShownBrowser:
    outcome: ShowOutcome
    detail: str = ""


@runtime_checkable
class ChallengeWatch(Protocol):
    """A web provider whose account a verification page holds (issue 32): its browser stays
    open for the person to pass it, the lane asks now and then whether it is past, and the
    operator's *Show browser* puts it in front of them — reopened in a window, on the same
    page through the same proxy, when it ran without one (headless)."""

    async def challenge_passed(self) -> bool: ...

    async def show_browser(self) -> ShownBrowser: ...


class UnavailableProvider:
    """Stands in for an account whose provider could not be built; fails with the reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        from media_assistant.core.model.errors import ErrorKind, ProviderError

        raise ProviderError(ErrorKind.BAD_CONFIG, self.reason)

    async def aclose(self) -> None:
        return None
