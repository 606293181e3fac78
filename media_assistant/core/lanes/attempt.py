"""Running one claimed task: the provider's context, supervision (timeout, cancel, shutdown,
lost heartbeat) and the single write that records the attempt's true outcome."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from sqlalchemy.exc import OperationalError, SQLAlchemyError

from media_assistant.core.config.schema import AccountConfig
from media_assistant.core.disk.held import HeldOutcome
from media_assistant.core.lanes.quality_gate import reject_if_poor
from media_assistant.core.lanes.runtime import LaneLog, Runtime
from media_assistant.core.model.clock import Clock, wait_event
from media_assistant.core.model.errors import ErrorKind, ProviderError, TaskCanceled
from media_assistant.core.model.event_codes import EventCode, log_extra
from media_assistant.core.model.provider import GenerationResult, Provider, TaskSpec
from media_assistant.core.model.records import Claim, ClaimRequest, Handover
from media_assistant.core.model.states import AccountProblem
from media_assistant.core.rules.excuses import ExcuseCount, excused_before, ran_out
from media_assistant.core.rules.retry import Backoff, Cancel, Defer, Fail, Hold, Retry, decide

T = TypeVar("T")

# How long a cancelled provider coroutine gets to unwind before it is abandoned.
ABANDON_AFTER_S = 10.0
# A terminal write that meets a busy database is retried this long (then the reaper decides).
PERSIST_FOR_S = 120.0


class AttemptContext:
    """The :class:`~media_assistant.core.model.provider.TaskContext` a provider gets."""

    def __init__(self, spec: TaskSpec, runtime: Runtime, log: LaneLog) -> None:
        self._spec = spec
        self._rt = runtime
        self._log = log
        self.cancel_event = asyncio.Event()
        self.progress_chars = 0
        self.throttle: tuple[float, str] | None = None

    @property
    def task(self) -> TaskSpec:
        return self._spec

    @property
    def clock(self) -> Clock:
        return self._rt.clock

    @property
    def cancel_requested(self) -> bool:
        return self.cancel_event.is_set()

    def checkpoint(self) -> None:
        if self.cancel_event.is_set():
            raise TaskCanceled(self._spec.task_id)

    async def wait_cancel(self, timeout: float) -> bool:
        return await wait_event(self.cancel_event, timeout, self._rt.clock)

    def heartbeat(self, progress_chars: int | None = None) -> None:
        if progress_chars is not None:
            self.progress_chars = progress_chars

    def log(
        self,
        message: str,
        *,
        level: int = logging.INFO,
        kind: str = "log",
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self._log.log(level, "%s: %s", self._spec.task_id, message, extra=log_extra(code, params))
        # Queued on the database's writer, not awaited: a provider logs from code that cannot
        # wait, and a busy database must not turn a finished answer into a failure.
        self._rt.store.log_event_soon(
            self._spec.task_id,
            kind,
            f"{self._log.extra['prefix'] if self._log.extra else ''} {message}",
            lane=self._spec.model_kind.value,
            account_id=self._spec.account_id,
            attempt=self._spec.attempt,
            code=code,
            params=params,
        )

    def throttle_account(self, seconds: float, reason: str) -> None:
        self.throttle = (seconds, reason)
        self._rt.spawn(self._cool_down(seconds, reason), name=f"throttle:{self._spec.account_id}")

    async def _cool_down(self, seconds: float, reason: str) -> None:
        try:
            slowed = await self._rt.accounts.cool_down(self._spec.account_id, seconds, reason)
        except SQLAlchemyError as exc:
            self._log.warning("cannot record the slow-down (%s)", exc)
            return
        if slowed:
            self._log.info("slowing down for %.1f s: %s", seconds, reason)


@dataclass
class RunningAttempt:
    claim: Claim
    ctx: AttemptContext
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    # "shutdown" | "lost" | "outage" (the team database away past the dead threshold)
    interrupt: str | None = None


@dataclass
class Pending:
    """An outcome :meth:`AttemptRunner._persist` may have to hold through an outage."""

    outcome: HeldOutcome
    tries: int = 0
    by_link: bool = False  # held while the team database was away


@dataclass(frozen=True, slots=True)
class Outcome:
    result: GenerationResult | None = None
    error: ProviderError | None = None
    canceled: bool = False
    interrupted: str | None = None  # shutdown | lost | outage
    # The success write and the claim that followed it in the same writer job (see run's
    # ``then_claim``); None when the outcome was written alone.
    handover: Handover | None = None


class AttemptRunner:
    """Runs attempts for both lanes and keeps the registry the heartbeat writer reads."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self.attempts: dict[str, RunningAttempt] = {}
        self.abandoned: set[asyncio.Future[GenerationResult]] = set()
        # Failures excused in a row, per task: bounded (core/rules/excuses.py, issue 25).
        self.excuses = ExcuseCount()

    # ---------------------------------------------------------------- registry for the scheduler

    def beats(self) -> dict[str, tuple[int, int, int]]:
        return {
            tid: (ra.claim.attempt, ra.claim.lease, ra.ctx.progress_chars)
            for tid, ra in self.attempts.items()
        }

    def request_cancel(self, task_ids: set[str]) -> None:
        for tid in task_ids:
            ra = self.attempts.get(tid)
            if ra is not None and not ra.ctx.cancel_event.is_set():
                ra.ctx.cancel_event.set()
                ra.wake.set()

    def interrupt(self, attempts: Iterable[tuple[str, int, int]], reason: str) -> None:
        """Stop the attempts named by (task id, attempt, lease) — only those: a newer attempt
        registered under the same task id since (a deferral handed the row back and it was
        claimed again) is not the one the heartbeat or the reaper found lost."""
        for tid, attempt, lease in attempts:
            ra = self.attempts.get(tid)
            if ra is not None and (ra.claim.attempt, ra.claim.lease) == (attempt, lease):
                self._stop(ra, reason)

    def interrupt_all(self, reason: str) -> None:
        for ra in list(self.attempts.values()):
            self._stop(ra, reason)

    @staticmethod
    def _stop(ra: RunningAttempt, reason: str) -> None:
        if ra.interrupt is None:
            ra.interrupt = reason
            ra.wake.set()

    # ---------------------------------------------------------------- one attempt

    def spec_for(self, claim: Claim) -> TaskSpec:
        model = self.rt.config.model(claim.model)
        return TaskSpec(
            task_id=claim.task_id,
            model=claim.model,
            model_kind=claim.model_kind,
            account_id=claim.account_id,
            prompt=claim.prompt,
            system_prompt=claim.system_prompt or (model.system_prompt if model else None),
            attempt=claim.attempt,
            need_empty_prompt=model.need_empty_prompt if model else False,
            upstream_model=model.upstream if model else None,
        )

    async def run(
        self,
        claim: Claim,
        provider: Provider,
        account: AccountConfig,
        log: LaneLog,
        *,
        cancel_grace_s: float,
        on_stuck: Callable[[], Awaitable[None]] | None = None,
        then_claim: Callable[[], ClaimRequest | None] | None = None,
    ) -> Outcome:
        """``on_stuck``: called when the provider ignores cancellation, before the attempt is
        abandoned (the web lane closes the browser: the next task must not share its page).

        ``then_claim``: asked as an answer is about to be written; a request it returns is
        claimed right after the write, in the same writer job, for the slot the attempt frees
        (the API lane: :meth:`ApiLane._follow_up`). The result is ``Outcome.handover``."""
        ctx = AttemptContext(self.spec_for(claim), self.rt, log)
        ra = RunningAttempt(claim, ctx)
        if self.rt.stopping.is_set():  # claimed while the scheduler was shutting down
            ra.interrupt = "shutdown"
        self.attempts[claim.task_id] = ra
        lane = self.rt.config.lane(claim.model_kind)
        try:
            # No need to read the row for a cancel flag here: a pending row never carries one
            # (a cancel of a pending task ends it at once), and a cancel requested after the
            # claim reaches the attempt through the scheduler or its 0.5 s housekeeping poll.
            outcome = await self._supervise(
                provider,
                ra,
                timeout=lane.task_timeout_s,
                cancel_grace=cancel_grace_s,
                log=log,
                on_stuck=on_stuck,
            )
            # Still registered while the outcome is written: heartbeats keep the row alive if
            # the database is busy and the write has to wait.
            try:
                handover = await self._settle(ra, outcome, account, log, then_claim)
                if handover is not None:
                    outcome = replace(outcome, handover=handover)
            except OperationalError as exc:
                if not self.rt.disk.absorb(exc) and not self.rt.link.absorb(exc):
                    raise
                # A shutdown on a disk that stayed full, or while the team database is still
                # unreachable: the scheduler's last writes (in the reserve's room, or saved in
                # it for the next start) take it from here.
                log.warning("%s: its outcome could not be written yet", claim.task_id)
        finally:
            # The registry is keyed by task id: only remove our own entry, never that of a
            # newer attempt of the same task.
            if self.attempts.get(claim.task_id) is ra:
                del self.attempts[claim.task_id]
        return outcome

    async def _supervise(
        self,
        provider: Provider,
        ra: RunningAttempt,
        *,
        timeout: float,
        cancel_grace: float,
        log: LaneLog,
        on_stuck: Callable[[], Awaitable[None]] | None,
    ) -> Outcome:
        clock = self.rt.clock
        gen = asyncio.ensure_future(provider.generate(ra.ctx))
        gen.add_done_callback(lambda t: t.cancelled() or t.exception())  # an abandoned one's too
        give_up_at = clock.monotonic() + timeout
        cancel_by: float | None = None
        stopped_by: str | None = None
        while not gen.done():
            if ra.interrupt is not None:
                stopped_by = ra.interrupt
                break
            now = clock.monotonic()
            if ra.ctx.cancel_requested and cancel_by is None:
                cancel_by = now + cancel_grace
            limit = give_up_at if cancel_by is None else min(give_up_at, cancel_by)
            if now >= limit:
                stopped_by = "cancel" if cancel_by is not None and now >= cancel_by else "timeout"
                break
            ra.wake.clear()
            waker = asyncio.ensure_future(ra.wake.wait())
            sleeper = asyncio.ensure_future(clock.sleep(limit - now))
            try:
                await asyncio.wait({gen, waker, sleeper}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waker.cancel()
                sleeper.cancel()
        if not gen.done():
            gen.cancel()
            done, _ = await asyncio.wait({gen}, timeout=ABANDON_AFTER_S)
            if not done and on_stuck is not None:
                await on_stuck()
                done, _ = await asyncio.wait({gen}, timeout=ABANDON_AFTER_S)
            if not done:
                # The provider ignores cancellation. Keep a reference (the task must not be
                # garbage-collected mid-flight) and move on: its late writes are fenced out.
                self.abandoned.add(gen)
                gen.add_done_callback(self.abandoned.discard)
                log.error(
                    "%s: attempt %d did not stop within %.0f s of being cancelled; abandoned",
                    ra.claim.task_id,
                    ra.claim.attempt,
                    ABANDON_AFTER_S,
                )
                if stopped_by in ("shutdown", "lost", "outage"):
                    return Outcome(interrupted=stopped_by)
                if stopped_by == "cancel":
                    return Outcome(canceled=True)
                return Outcome(
                    error=ProviderError(ErrorKind.TIMEOUT, f"no result within {timeout:.0f} s")
                )
        outcome = self._outcome_of(gen, log)
        if outcome.result is not None:
            return outcome  # the answer landed first: that is the true final state
        if stopped_by in ("shutdown", "lost", "outage"):
            return Outcome(interrupted=stopped_by)
        if stopped_by == "cancel" or (outcome.canceled and ra.ctx.cancel_requested):
            return Outcome(canceled=True)
        if stopped_by == "timeout":
            return Outcome(
                error=ProviderError(ErrorKind.TIMEOUT, f"no result within {timeout:.0f} s")
            )
        if outcome.canceled and not ra.ctx.cancel_requested:
            # Nobody asked for it (the browser driver's loop went away, say): not an operator
            # cancel, and not final.
            return Outcome(
                error=ProviderError(
                    ErrorKind.INTERNAL, "the attempt was cancelled without a cancel request"
                )
            )
        return outcome

    def _outcome_of(self, gen: asyncio.Future[GenerationResult], log: LaneLog) -> Outcome:
        if gen.cancelled():
            return Outcome(canceled=True)
        exc = gen.exception()
        if exc is None:
            return Outcome(result=gen.result())
        if isinstance(exc, TaskCanceled):
            return Outcome(canceled=True)
        if isinstance(exc, ProviderError):
            return Outcome(error=exc)
        if isinstance(exc, TimeoutError):
            return Outcome(error=ProviderError(ErrorKind.TIMEOUT, str(exc) or "timed out"))
        log.error("unexpected error in provider", exc_info=exc)
        return Outcome(error=ProviderError(ErrorKind.INTERNAL, f"{type(exc).__name__}: {exc}"))

    # ---------------------------------------------------------------- the one write

    async def _settle(
        self,
        ra: RunningAttempt,
        outcome: Outcome,
        account: AccountConfig,
        log: LaneLog,
        then_claim: Callable[[], ClaimRequest | None] | None = None,
    ) -> Handover | None:
        """Write the attempt's outcome; an answer's write may be followed by a claim
        (``then_claim``, see :meth:`run`), whose result is returned."""
        claim, store = ra.claim, self.rt.store
        # The answer's time is when it arrived, not when the database took it (issue 26 item 4:
        # an answer held through an outage showed the outage in its duration and its lane's ETA).
        arrived = self.rt.clock.now()
        if outcome.interrupted == "lost":
            log.warning(
                "%s: attempt %d lost its row; its result is dropped", claim.task_id, claim.attempt
            )
            return None
        if outcome.result is not None:
            r = outcome.result
            self.excuses.reset(claim.task_id)
            if await reject_if_poor(self.rt, claim, r, log, self._persist):
                return None  # the model's quality gate sent it back (core/lanes/quality_gate.py)
            handover: Handover | None = None
            hold = Pending(HeldOutcome("answer", claim, arrived, r))

            async def write() -> bool:
                nonlocal handover
                # Asked at each try: a retried write (a busy database) decides afresh. A held
                # answer is written alone, with the time it arrived.
                then = then_claim() if then_claim is not None and not hold.tries else None
                hold.tries += 1
                if then is None:
                    return await store.finish_success(
                        claim,
                        r.text,
                        reasoning=r.reasoning,
                        usage=r.usage,
                        plain=r.plain_text,
                        finished_at=arrived,
                    )
                handover = await store.finish_success_then_claim(
                    claim,
                    r.text,
                    reasoning=r.reasoning,
                    usage=r.usage,
                    plain=r.plain_text,
                    then=then,
                )
                return handover.finished

            ok = await self._persist(write, hold=hold)
            took = round(arrived - claim.started_at, 1)
            if ok and hold.by_link:
                held_s = round(self.rt.clock.now() - arrived, 1)
                ra.ctx.log(
                    f"answer held {held_s:.0f} s while the team database was unreachable",
                    kind="state",
                    code=EventCode.ANSWER_HELD,
                    params={"seconds": held_s},
                )
            self._report(
                ok,
                log,
                claim,
                f"succeeded ({len(r.text)} chars)",
                code=EventCode.SUCCEEDED,
                params={"chars": len(r.text), "seconds": took},
            )
            return handover
        if outcome.interrupted == "outage":
            # Issue 27 item 3: the database was away past the dead threshold; the attempt is
            # not the task's to pay for. Fenced like every write: if another workstation took
            # the row back meanwhile, this is dropped; kept on disk until it is written.
            away = round(self.rt.link.down_for())
            message = (
                f"returned to the queue: the team database could not be reached for {away} s "
                "(attempt not used up)"
            )
            ok = await self._persist(
                lambda: store.requeue(
                    claim,
                    not_before=None,
                    keep_attempt=True,
                    kind=None,
                    message=message,
                    event_kind="state",
                    code=EventCode.RETURNED_OUTAGE,
                    params={"seconds": away},
                ),
                hold=Pending(HeldOutcome("returned", claim, arrived, reason=message)),
            )
            self._report(
                ok,
                log,
                claim,
                message,
                code=EventCode.RETURNED_OUTAGE,
                params={"seconds": away},
            )
            return None
        if outcome.interrupted == "shutdown":
            message = "returned to the queue at shutdown (attempt not used up)"
            ok = await self._persist(
                lambda: store.requeue(
                    claim,
                    not_before=None,
                    keep_attempt=True,
                    kind=None,
                    message=message,
                    event_kind="state",
                    code=EventCode.RETURNED_SHUTDOWN,
                ),
                hold=Pending(HeldOutcome("returned", claim, arrived, reason=message)),
            )
            returned = "returned to the queue at shutdown"
            self._report(ok, log, claim, returned, code=EventCode.RETURNED_SHUTDOWN)
            return None
        if outcome.canceled:
            ok = await self._persist(lambda: store.finish_canceled(claim))
            self._report(ok, log, claim, "canceled", code=EventCode.CANCELED)
            return None
        assert outcome.error is not None
        await self._apply_decision(ra, outcome.error, account, log)
        return None

    async def _apply_decision(
        self, ra: RunningAttempt, error: ProviderError, account: AccountConfig, log: LaneLog
    ) -> None:
        claim, store, rt = ra.claim, self.rt.store, self.rt
        lane = rt.config.lane(claim.model_kind)
        if error.excused is not None and not self.excuses.knows(claim.task_id):
            # Excuses an earlier run granted count too: a restart does not reset the bound.
            events = await self._persist(lambda: store.events(claim.task_id))
            self.excuses.seed(claim.task_id, excused_before(events, claim.attempt_base))
        error = self.excuses.bound(claim.task_id, error)
        decision = decide(
            error,
            attempt=claim.attempt,
            max_attempts=claim.max_attempts,
            cancel_requested=ra.ctx.cancel_requested,
            now=rt.clock.now(),
            deadline_at=claim.deadline_at,
            backoff=Backoff(lane.backoff_base_s, lane.backoff_cap_s),
            default_pause=lane.cooldown_s,
            rng=rt.rng,
        )
        if isinstance(decision, Defer) and error.excused is not None:
            self.excuses.excused(claim.task_id)
        elif not isinstance(decision, (Retry, Defer)):
            self.excuses.reset(claim.task_id)  # it ended (or waits for a person)
        await self._persist(lambda: self._account_effect(error, account, log))
        if isinstance(decision, Cancel):
            ok = await self._persist(lambda: store.finish_canceled(claim, decision.message))
            self._report(ok, log, claim, "canceled", code=EventCode.CANCELED)
        elif isinstance(decision, Fail):
            message, code = decision.message, EventCode.FAILED
            params: dict[str, Any] = {"error_kind": decision.kind.value, "detail": message}
            if decision.kind is error.kind and error.retryable:  # its attempts ran out
                events = await self._persist(lambda: store.events(claim.task_id))
                message, code, params = ran_out(events, claim, error, decision.message)
            ok = await self._persist(
                lambda: store.finish_failed(claim, decision.kind, message, code=code, params=params)
            )
            what = f"failed: {decision.kind.value}: {message}"
            self._report(ok, log, claim, what, level=logging.WARNING, code=code, params=params)
        elif isinstance(decision, Retry):
            msg = (
                f"attempt {claim.attempt}/{claim.max_attempts} failed: {decision.kind.value}: "
                f"{decision.message}; retry in {decision.delay:.1f} s"
            )
            not_before = rt.clock.now() + decision.delay
            retry = {
                "attempt": claim.attempt,
                "max_attempts": claim.max_attempts,
                "base": claim.attempt_base,
                "error_kind": decision.kind.value,
                "detail": decision.message,
                "delay": round(decision.delay, 1),
            }
            ok = await self._persist(
                lambda: store.requeue(
                    claim,
                    not_before=not_before,
                    keep_attempt=False,
                    kind=decision.kind,
                    message=msg,
                    code=EventCode.RETRY_SCHEDULED,
                    params=retry,
                )
            )
            self._report(
                ok,
                log,
                claim,
                msg,
                level=logging.WARNING,
                code=EventCode.RETRY_SCHEDULED,
                params=retry,
            )
        elif isinstance(decision, Hold):
            # The account's problem (set above by _account_effect) holds it; the task is not
            # the one to blame and waits for any account that can take it.
            msg = (
                f"{decision.kind.value}: {decision.message}; the account waits for the "
                "operator, the task waits (attempt not used up)"
            )
            ok = await self._persist(
                lambda: store.requeue(
                    claim,
                    not_before=None,
                    keep_attempt=True,
                    kind=decision.kind,
                    message=msg,
                    code=EventCode.HELD_SITE_CHANGED,
                    params={
                        "step": error.step or "",
                        "account": claim.account_id,
                        "detail": error.selector or decision.message,
                    },
                )
            )
            self._report(ok, log, claim, msg, level=logging.WARNING)
        elif isinstance(decision, Defer):
            msg = (
                f"{decision.kind.value}: {decision.message}; account pauses "
                f"{decision.pause:.1f} s, task waits (attempt not used up)"
            )
            await self._persist(
                lambda: rt.accounts.cool_down(claim.account_id, decision.pause, decision.kind.value)
            )
            deferred = {
                "error_kind": decision.kind.value,
                "detail": decision.message,
                "pause": round(decision.pause, 1),
                "excused": error.excused is not None,  # an excuse (counted: excuses.py)
            }
            ok = await self._persist(
                lambda: store.requeue(
                    claim,
                    not_before=None,
                    keep_attempt=True,
                    kind=decision.kind,
                    message=msg,
                    code=EventCode.DEFERRED,
                    params=deferred,
                )
            )
            self._report(
                ok, log, claim, msg, level=logging.WARNING, code=EventCode.DEFERRED, params=deferred
            )

    async def _persist(
        self, write: Callable[[], Awaitable[T]], *, hold: Pending | None = None
    ) -> T:
        """Run a store write; while the database is locked by another process (a long import,
        a backup), wait and try again instead of losing the outcome of a finished attempt.

        On a full disk (issue 9 item 3) the outcome is held — the answer stays here, in memory
        — until the disk guard sees space again, with no time limit: an answer received is
        never requested twice. At a shutdown it gets one last try; an answer that still cannot be
        written is handed to the disk guard (``answer``), which keeps it in its reserve for the
        scheduler's last writes or the next start (core/disk/full.py).

        While the team database is away, ``hold``'s outcome is also written to this
        workstation's disk (core/disk/held.py) before the wait: a kill or a power cut loses
        nothing, the next start writes it (fenced). Removed once written or fenced out."""
        deadline = time.monotonic() + PERSIST_FOR_S
        delay = 0.25
        disk, held, last_try, written = self.rt.disk, False, False, False
        link, link_held = self.rt.link, False
        journal, kept = self.rt.held, False
        answer = (
            (hold.outcome.claim, hold.outcome.result)
            if hold is not None and hold.outcome.result is not None
            else None
        )
        try:
            while True:
                try:
                    result = await write()
                    written = True
                    return result
                except OperationalError as exc:
                    if link.absorb(exc):
                        # The team database does not answer: the outcome waits here, in
                        # memory, and is written (fenced) when it does (core/store/link.py).
                        if not link_held:
                            link_held = True
                            link.hold()
                            if hold is not None:
                                hold.by_link = True
                                if journal is not None:
                                    await asyncio.to_thread(journal.keep, hold.outcome)
                                    kept = True
                        if last_try:
                            if answer is not None and not kept:
                                disk.unwritten.append(answer)
                            raise
                        if not await link.wait(self.rt.stopping):
                            last_try = True  # stopping: once more, then beside the store
                        continue
                    if disk.absorb(exc):
                        if not held:
                            held = True
                            disk.hold()
                        if last_try:
                            if answer is not None:
                                disk.unwritten.append(answer)
                            raise
                        if not await disk.wait_for_space(self.rt.stopping):
                            last_try = True  # stopping: once more, in the reserve's room
                        continue
                    if time.monotonic() + delay > deadline:
                        raise
                    logging.getLogger(__name__).warning(
                        "database busy (%s); retrying in %.1f s", exc.orig, delay
                    )
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 5.0)
        finally:
            if held:
                disk.unhold(written=written)
            if link_held:
                link.unhold()
            if kept and written and journal is not None and hold is not None:
                # In the database now, or fenced out (an attempt since run again): never twice.
                await asyncio.to_thread(journal.drop, hold.outcome.claim)

    async def _account_effect(
        self, error: ProviderError, account: AccountConfig, log: LaneLog
    ) -> None:
        problems = {
            ErrorKind.AUTH_REJECTED: AccountProblem.CREDENTIALS_REJECTED,
            ErrorKind.LOGIN_REQUIRED: AccountProblem.NEEDS_LOGIN,
            ErrorKind.CAPTCHA: AccountProblem.NEEDS_ATTENTION,
            ErrorKind.PROFILE_IN_USE: AccountProblem.NEEDS_ATTENTION,
            ErrorKind.BAD_CONFIG: AccountProblem.NEEDS_ATTENTION,
            ErrorKind.SITE_CHANGED: AccountProblem.NEEDS_ATTENTION,
        }
        problem = problems.get(error.kind)
        if problem is not None:
            await self.rt.accounts.set_problem(account.id, problem, error.message, error.kind.value)
            log.warning("account now %s: %s", problem.value, error.message)

    def _report(
        self,
        ok: bool,
        log: LaneLog,
        claim: Claim,
        what: str,
        level: int = logging.INFO,
        *,
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        if ok:
            log.log(level, "%s: %s", claim.task_id, what, extra=log_extra(code, params))
        else:
            log.warning(
                "%s: attempt %d was superseded (reaped or taken over); its outcome (%s) is dropped",
                claim.task_id,
                claim.attempt,
                what,
            )
