"""What a web account may have left running on its site: the last prompt sent, until it ended.

Chat sites keep generating an answer after the page that asked for it is gone, and allow one
generation per account: a second one started meanwhile breaks both. So a web attempt that ends
without seeing its generation end — the app was killed (kill -9, a second Ctrl-C, a power cut)
or its browser had to be closed mid-answer — leaves the account busy on the site, and the next
prompt on that account would collide with it (issue 9, item 2).

The provider writes a small record before it presses send and updates it with the
conversation's address once the site names one; it removes it as soon as the generation is
known to have ended (an answer, a stop that took, an error the page settled after). A record
found before the next prompt means "look first": open that conversation, press stop, wait until
nothing generates there (:meth:`ChatPage.settle_conversation`).

The record lives inside the account's browser profile: it describes that profile's session on
the site, and it survives the process (a file, not the database: it must be written before the
send even while the database is busy, and it is one small file per account).

A leftover that cannot be looked at — killed before the site named its conversation, or an
adapter without a generating indicator — casts a shadow (issue 17 item 10): until it can have
ended (``sent_at + timing.hard_timeout_s``, or an answer on the account proves the site free),
an attempt on the account that fails in any way that would use an attempt is the leftover's
doing. It is deferred (``leftover_generation``: no attempt used), its pause bounded by when the
leftover can have ended, and its wait for a first token is bounded too (a site that meets the
leftover often shows nothing the adapter knows: no first token, ever).

What never excuses (issue 25): a task's **own** earlier attempt — a page that always fails
one prompt would otherwise excuse that prompt's every failure with the leftover of its previous
failure, forever —, and an attempt that failed with an error the page showed (a toast, an
error box, a silent stop): its generation has ended, so it leaves no record at all
(:meth:`LeftoverGuard.ended`). On the account, a second task in a row excused with the same
error as the one before ends the shadow: the same error on different prompts is the site's, not
the leftover's. Per task, the core counts the excuses (core/rules/excuses.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from media_assistant.core.files.private_files import PRIVATE_FILE_MODE
from media_assistant.core.model.errors import DEFERRING, ErrorKind, ProviderError
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import TaskContext

log = logging.getLogger(__name__)

RECORD_NAME = "media-assistant-sent.json"

# A generation an earlier attempt left running: how long to press stop and watch it before the
# task waits (deferred, its attempt not used up) and the account tries again.
LEFTOVER_STOP_S = 15.0
LEFTOVER_RETRY_S = 20.0
# In an unlocated leftover's shadow: how long an attempt waits for its first token (instead of
# timing.first_token_timeout_s, 120 s) before it is taken for the leftover's doing.
LEFTOVER_FIRST_TOKEN_S = 30.0
# A deferral never asks for less than this (a leftover that can have ended a moment from now).
_MIN_PAUSE_S = 1.0


@dataclass(frozen=True, slots=True)
class SentPrompt:
    task_id: str
    attempt: int
    sent_at: float  # wall clock, seconds since the epoch
    url: str  # the page's address: the conversation once ``conversation`` is True
    conversation: bool = False  # the site named the conversation (its address changed)


class SentRecord:
    """The record file of one account's profile. Every method is blocking file I/O: call it
    off the event loop (``asyncio.to_thread``). Failures are logged, never raised: a record
    that cannot be written costs at most the old behaviour (a conflict, deferred), and must
    not fail the task."""

    def __init__(self, profile_dir: Path) -> None:
        self.path = profile_dir / RECORD_NAME

    def read(self) -> SentPrompt | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return SentPrompt(
                task_id=str(data["task_id"]),
                attempt=int(data["attempt"]),
                sent_at=float(data["sent_at"]),
                url=str(data["url"]),
                conversation=bool(data.get("conversation", False)),
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("%s: unreadable (%s); ignored", self.path, exc)
            self.forget()
            return None

    def write(self, sent: SentPrompt) -> None:
        """Atomically (a temporary file, then a rename), 0600: it names the task and the chat."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(asdict(sent), file)
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("%s: not written (%s)", self.path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)

    def forget(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("%s: not removed (%s)", self.path, exc)


# Looks at a conversation and makes sure nothing generates there (ChatPage.settle_conversation,
# called on the browser's loop): "idle" | "stopped" | "generating" | "unknown".
LookAt = Callable[[str, float], Awaitable[str]]


class LeftoverGuard:
    """One web account's watch over the generation it may have left running on the site: the
    record before each send, the look before each prompt, and the blame for what a leftover
    breaks. Lives as long as the account's provider (a rebuilt provider reads the record
    again); runs on the lane's loop, the file I/O on worker threads."""

    def __init__(self, profile_dir: Path, hard_timeout_s: float) -> None:
        self._record = SentRecord(profile_dir)
        self._hard_timeout_s = hard_timeout_s
        self._sent: SentPrompt | None = None  # what the record says; read once
        self._loaded = False
        # The leftover the current attempt looked at: a conflict on it is its doing.
        self.looked_at: SentPrompt | None = None
        # An unlocated leftover that may still run (see the module's docstring).
        self._unlocated: SentPrompt | None = None
        # The task and error kind the shadow last excused: the same error on another task
        # right after is the site's (issue 25 item 2).
        self._last_excused: tuple[str, ErrorKind] | None = None

    # ---------------------------------------------------------------- the record

    async def remember(self, task_id: str, attempt: int, url: str) -> None:
        """Written right before the click on send: a kill from then on leaves a generation."""
        self._sent = SentPrompt(task_id, attempt, time.time(), url)
        self._loaded = True
        await asyncio.to_thread(self._record.write, self._sent)

    async def named(self, url: str) -> None:
        """The site gave the conversation its address: the record now says where to look."""
        sent = self._sent
        if sent is None or sent.conversation or url == sent.url:
            return
        self._sent = SentPrompt(sent.task_id, sent.attempt, sent.sent_at, url, conversation=True)
        await asyncio.to_thread(self._record.write, self._sent)

    async def ended(self) -> None:
        """The page showed this attempt's failure (a toast, an error box, a silent stop): its
        generation has ended, whatever the page does next — no record, nothing to look at."""
        await self.forget()

    async def forget(self) -> None:
        """The generation is known to have ended."""
        if self._sent is None and self._loaded:
            return
        self._sent, self._loaded = None, True
        await asyncio.to_thread(self._record.forget)

    # ---------------------------------------------------------------- before a prompt

    async def settle(self, ctx: TaskContext, look_at: LookAt, *, has_indicator: bool) -> None:
        """Before a prompt goes out: nothing this account sent earlier may still generate on
        the site. Found in the record an attempt left (this process's, or one that crashed):
        open its conversation and stop it; if it will not stop, the task waits (deferred, the
        attempt not used up). Its conversation unknown (killed before the site named it), or
        the adapter naming no generating indicator (``has_indicator``): go on, in its shadow."""
        if not self._loaded:
            self._sent = await asyncio.to_thread(self._record.read)
            self._loaded = True
        sent = self._sent
        if sent is None:
            return
        age = time.time() - sent.sent_at
        if age > self._hard_timeout_s:
            await self.forget()  # it ended long ago, one way or the other
            return
        ctx.log(
            f"a generation this account started {age:.0f} s ago may still run on the site "
            f"(task {sent.task_id}, attempt {sent.attempt}; the app was stopped or its browser "
            "closed before it ended): looking before sending",
            level=logging.WARNING,
            code=EventCode.LEFTOVER_FOUND,
            params={"seconds": round(age), "task": sent.task_id, "attempt": sent.attempt},
        )
        self.looked_at = sent
        if not sent.conversation or not has_indicator:
            ctx.log(
                "its conversation is unknown (the site had not named it yet)"
                if not sent.conversation
                else "the adapter names no generating indicator to look for",
                code=EventCode.LEFTOVER_UNLOCATED,
                params={"why": "conversation_unknown" if not sent.conversation else "no_indicator"},
            )
            self._unlocated = sent
            await self.forget()
            return
        try:
            state = await look_at(sent.url, LEFTOVER_STOP_S)
        except ProviderError as exc:
            if exc.kind in (ErrorKind.LOGIN_REQUIRED, ErrorKind.CAPTCHA):
                raise  # the account's own problem, reported as anywhere else
            ctx.log(
                f"could not look at {sent.url} ({exc.message})",
                code=EventCode.LEFTOVER_UNSEEN,
                params={"detail": f"{sent.url}: {exc.message}"},
            )
            state = "unknown"
        if state == "generating":
            raise ProviderError(
                ErrorKind.LEFTOVER_GENERATION,
                f"the earlier generation at {sent.url} still runs after {LEFTOVER_STOP_S:.0f} s "
                "of pressing stop; the task waits (attempt not used up)",
                retry_after=LEFTOVER_RETRY_S,
            )
        ctx.log(
            {
                "stopped": f"it was still generating at {sent.url}: stopped it",
                "idle": f"it had ended ({sent.url})",
                "unknown": f"{sent.url} shows no conversation; going on",
            }[state],
            code=EventCode.LEFTOVER_SETTLED,
            params={"state": state, "detail": sent.url},
        )
        await self.forget()

    # ---------------------------------------------------------------- the shadow

    def shadow(self, now: float | None = None) -> SentPrompt | None:
        """The unlocated leftover that may still be generating now, if any."""
        left = self._unlocated
        if left is not None and (time.time() if now is None else now) >= self._ends_at(left):
            self._unlocated = left = None
        return left

    def first_token_s(self, first_token_timeout_s: float) -> float:
        """How long this attempt waits for its first token: bounded in a leftover's shadow."""
        if self.shadow() is None:
            return first_token_timeout_s
        return min(first_token_timeout_s, LEFTOVER_FIRST_TOKEN_S)

    def answered(self) -> None:
        """An answer came back on the account: the site is free, the shadow is over."""
        self._unlocated = None
        self._last_excused = None

    def attempt_ended(self) -> None:
        self.looked_at = None

    def blame(self, exc: ProviderError, task_id: str, now: float | None = None) -> ProviderError:
        """The leftover's doing, as a deferral, when it is: a conflict met right after a
        leftover was looked at, or any failure that would use an attempt in an unlocated
        leftover's shadow. Never when the leftover is ``task_id``'s own earlier attempt, nor
        for a second task in a row failing with the error the one before was excused for.
        Anything else is returned as it is."""
        now = time.time() if now is None else now
        looked = self.looked_at
        if exc.kind is ErrorKind.SESSION_CONFLICT and looked is not None:
            if looked.task_id == task_id:
                return exc
            return ProviderError(
                ErrorKind.LEFTOVER_GENERATION,
                f"{exc.message} (a generation this account started before a crash, task "
                f"{looked.task_id}; the task waits, its attempt not used up)",
                retry_after=LEFTOVER_RETRY_S,
                excused=exc,
            )
        left = self.shadow(now)
        if left is None or not exc.retryable or exc.kind in DEFERRING or left.task_id == task_id:
            return exc
        last = self._last_excused
        if last is not None and last[0] != task_id and last[1] is exc.kind:
            # Two prompts in a row failing the same way: the site's error, not the leftover's.
            self._unlocated = self._last_excused = None
            return exc
        self._last_excused = (task_id, exc.kind)
        pause = max(_MIN_PAUSE_S, min(LEFTOVER_RETRY_S, self._ends_at(left) - now))
        return ProviderError(
            ErrorKind.LEFTOVER_GENERATION,
            f"{exc.message} — right after a generation this account started "
            f"{now - left.sent_at:.0f} s ago (task {left.task_id}) whose conversation is "
            f"unknown and which can run until {self._hard_timeout_s:.0f} s after it began: "
            f"taken for its doing; the task waits {pause:.0f} s, its attempt not used up",
            retry_after=pause,
            excused=exc,
        )

    def _ends_at(self, sent: SentPrompt) -> float:
        return sent.sent_at + self._hard_timeout_s
