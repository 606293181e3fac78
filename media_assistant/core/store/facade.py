"""How the event loop reaches the database: every operation awaited, run on a database thread.

Each line below names an operation and the thread it runs on: ``_on_writer`` (the one writer
thread, in order) or ``_on_reader`` (a reader thread; with WAL a read never waits for a writer);
a team database's imports run on the bulk thread (:meth:`AsyncStore.submit`).
The operations themselves are the synchronous methods of the store's rooms
(:class:`~media_assistant.core.store.Store`), :class:`AccountStore` and :class:`SessionStore`;
this module adds nothing but the thread hop, so the transaction and fencing rules stay where
they are written. One pair goes in a single hop: an answer's write and the claim for the slot
it frees (:meth:`AsyncStore.finish_success_then_claim`), each still its own transaction.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import Engine

from media_assistant.core.model.clock import Clock
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.records import (
    BatchInfo,
    Claim,
    ClaimRequest,
    Handover,
    NewTask,
    SubmitResult,
)
from media_assistant.core.store import Store
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.backends.postgres import peak_connections
from media_assistant.core.store.db import is_sqlite
from media_assistant.core.store.sessions import SessionStore
from media_assistant.core.store.threads import DbThreads

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


class _Facade:
    def __init__(self, target: Any, db: DbThreads) -> None:
        self._target = target
        self.db = db

    def write_and_wait(self, timeout_s: float, name: str, /, *args: Any) -> Any:
        """The operation ``name`` on the writer thread, this thread blocked until it is done
        (TimeoutError after ``timeout_s``). Only for when the event loop will not run again:
        Windows ending the session (core/lanes/session_end.py)."""
        return self.db.submit_write(getattr(self._target, name), *args).result(timeout_s)


def _bound(self: _Facade, fn: Callable[..., Any]) -> Callable[..., Any]:
    # Looked up on the object at each call: subclasses and test doubles are honoured.
    method: Callable[..., Any] = getattr(self._target, fn.__name__)
    return method


def _on_writer(
    fn: Callable[Concatenate[S, P], R],
) -> Callable[Concatenate[_Facade, P], Awaitable[R]]:
    """The operation, awaited, on the writer thread."""

    async def run(self: _Facade, /, *args: P.args, **kwargs: P.kwargs) -> R:
        result: R = await self.db.write(_bound(self, fn), *args, **kwargs)
        return result

    return functools.wraps(fn)(run)


def _on_reader(
    fn: Callable[Concatenate[S, P], R],
) -> Callable[Concatenate[_Facade, P], Awaitable[R]]:
    """The operation, awaited, on a reader thread."""

    async def run(self: _Facade, /, *args: P.args, **kwargs: P.kwargs) -> R:
        result: R = await self.db.read(_bound(self, fn), *args, **kwargs)
        return result

    return functools.wraps(fn)(run)


def _soon_on_writer(
    fn: Callable[Concatenate[S, P], object],
) -> Callable[Concatenate[_Facade, P], None]:
    """The operation queued on the writer thread, not awaited (its failure is logged)."""

    def run(self: _Facade, /, *args: P.args, **kwargs: P.kwargs) -> None:
        self.db.write_soon(_bound(self, fn), *args, **kwargs)

    return functools.wraps(fn)(run)


def _claiming(
    fn: Callable[Concatenate[S, P], Claim | None],
) -> Callable[Concatenate[AsyncStore, P], Awaitable[Claim | None]]:
    """A claim, awaited, on the writer. A caller cancelled while its claim commits (a lane
    stopping) would leave a running row nobody runs: the claim is handed back, its attempt not
    used up."""

    async def run(self: AsyncStore, /, *args: P.args, **kwargs: P.kwargs) -> Claim | None:
        future = self.db.submit_write(_bound(self, fn), *args, **kwargs)
        try:
            return await asyncio.shield(asyncio.wrap_future(future))
        except asyncio.CancelledError:
            self.db.write_soon(self._give_back, future)
            raise

    return functools.wraps(fn)(run)


class AsyncStore(_Facade):
    """The task store as code on the event loop uses it."""

    def __init__(self, store: Store, db: DbThreads) -> None:
        super().__init__(store, db)
        self.sync = store

    @property
    def engine(self) -> Engine:
        return self.sync.engine

    @property
    def clock(self) -> Clock:
        return self.sync.clock

    @property
    def bus(self) -> EventBus:
        return self.sync.bus

    @property
    def origin(self) -> str:
        return self.sync.origin

    # queue and claims
    async def submit(
        self, tasks: Sequence[NewTask], *, max_attempts: int = 3, batch: BatchInfo | None = None
    ) -> SubmitResult:
        """``Store.submit`` on the writer thread — or, on a team database with room for a
        second connection, on the bulk thread, its end in order with the writer's jobs
        (core/store/threads.py): a 60,000-task import does not hold up this workstation's
        heartbeats and claims."""
        submit: Callable[..., SubmitResult] = _bound(self, Store.submit)
        if is_sqlite(self.engine) or peak_connections(self.engine) < 2:
            return await self.db.write(submit, tasks, max_attempts=max_attempts, batch=batch)
        return await self.db.bulk(
            submit,
            tasks,
            max_attempts=max_attempts,
            batch=batch,
            commit_gate=self.db.commit_order,
        )

    # batches, pauses, priorities (core/store/batches.py)
    batches = _on_reader(Store.batches)
    batch = _on_reader(Store.batch)
    pauses = _on_reader(Store.pauses)
    failed_counts = _on_reader(Store.failed_counts)
    poison_pills = _on_reader(Store.poison_pills)
    running_in = _on_reader(Store.running_in)
    set_schedule = _on_writer(Store.set_schedule)
    pause = _on_writer(Store.pause)
    resume = _on_writer(Store.resume)
    set_priority = _on_writer(Store.set_priority)
    peek_next = _on_reader(Store.peek_next)
    api_ready_at = _on_reader(Store.api_ready_at)
    ping = _on_reader(Store.ping)
    batch_finished_at = _on_reader(Store.batch_finished_at)
    claim_notice = _on_writer(Store.claim_notice)
    workstations = _on_reader(Store.workstations)
    next_not_before = _on_reader(Store.next_not_before)
    pending_models = _on_reader(Store.pending_models)

    claim_next = _claiming(Store.claim_next)

    def _give_back(self, future: concurrent.futures.Future[Claim | None]) -> None:
        self._give_back_claim(future.result())  # done: queued behind it on the same writer

    def _give_back_claim(self, claim: Claim | None) -> None:
        if claim is not None:
            self.sync.requeue(
                claim,
                not_before=None,
                keep_attempt=True,
                kind=None,
                message="claimed while the lane stopped; back in the queue (attempt not used up)",
                event_kind="state",
                code=EventCode.RETURNED_STOPPING,
            )

    # outcomes of attempts (fenced by their claim)
    finish_success = _on_writer(Store.finish_success)

    async def finish_success_then_claim(
        self,
        claim: Claim,
        text: str,
        *,
        reasoning: str | None = None,
        usage: dict[str, int] | None = None,
        plain: str | None = None,
        then: ClaimRequest,
    ) -> Handover:
        """``finish_success``, then the claim of the next task for the slot that outcome frees,
        in one writer job — each in its own transaction, as when awaited one after the other.
        What it saves is the trip to the loop and back between them: the claim would otherwise
        queue behind every write asked for meanwhile (B3: a freed slot idle for ~25 ms while
        10 attempts end together). A caller cancelled meanwhile hands the claim back, as with
        ``claim_next``."""
        future = self.db.submit_write(
            self._finish_success_then_claim, claim, text, reasoning, usage, plain, then
        )
        try:
            return await asyncio.shield(asyncio.wrap_future(future))
        except asyncio.CancelledError:
            self.db.write_soon(self._give_back_handover, future)
            raise

    def _finish_success_then_claim(
        self,
        claim: Claim,
        text: str,
        reasoning: str | None,
        usage: dict[str, int] | None,
        plain: str | None,
        then: ClaimRequest,
    ) -> Handover:
        finish: Callable[..., bool] = _bound(self, Store.finish_success)
        finished = finish(claim, text, reasoning=reasoning, usage=usage, plain=plain)
        claim_next: Callable[..., Claim | None] = _bound(self, Store.claim_next)
        try:
            next_claim = claim_next(
                kind=then.kind,
                account_id=then.account_id,
                models=then.models,
                owner_id=then.owner_id,
                deadline_s=then.deadline_s,
                provider_generation=then.provider_generation,
                workstation=then.workstation,
                api_limits=then.api_limits,
            )
        except Exception as exc:  # the outcome is written: the claim's error is not its error
            return Handover(finished, claim_error=exc)
        return Handover(finished, next_claim)

    def give_back_soon(self, claim: Claim) -> None:
        """A claim its caller cannot run after all (cancelled): back to the queue, its attempt
        not used up, queued on the writer (not awaited)."""
        self.db.write_soon(self._give_back_claim, claim)

    def _give_back_handover(self, future: concurrent.futures.Future[Handover]) -> None:
        if future.exception() is None:  # done: queued behind it on the same writer
            self._give_back_claim(future.result().next_claim)

    finish_failed = _on_writer(Store.finish_failed)
    finish_canceled = _on_writer(Store.finish_canceled)
    requeue = _on_writer(Store.requeue)
    heartbeat = _on_writer(Store.heartbeat)
    log_event = _on_writer(Store.log_event)

    # a log line from code that cannot wait (a provider's ``ctx.log``): queued behind the
    # writes before it; a busy database must not turn a finished answer into a failure
    log_event_soon = _soon_on_writer(Store.log_event)

    # reaper
    reap_stale = _on_writer(Store.reap_stale)
    recover_orphans = _on_writer(Store.recover_orphans)
    release_owned = _on_writer(Store.release_owned)

    # operator actions
    request_cancel = _on_writer(Store.request_cancel)
    retry = _on_writer(Store.retry)

    # read models
    get = _on_reader(Store.get)
    get_many = _on_reader(Store.get_many)
    list_tasks = _on_reader(Store.list_tasks)
    view_rows = _on_reader(Store.view_rows)
    counts = _on_reader(Store.counts)
    active_counts = _on_reader(Store.active_counts)
    running_ids = _on_reader(Store.running_ids)
    cancel_flags = _on_reader(Store.cancel_flags)
    events = _on_reader(Store.events)
    changes_since = _on_reader(Store.changes_since)
    last_event_id = _on_reader(Store.last_event_id)
    # batch ends (notices)
    open_batches = _on_reader(Store.open_batches)
    batch_counts = _on_reader(Store.batch_counts)
    batches_of = _on_reader(Store.batches_of)


class AsyncAccounts(_Facade):
    """Account states as code on the event loop uses them."""

    def __init__(self, accounts: AccountStore, db: DbThreads) -> None:
        super().__init__(accounts, db)
        self.sync = accounts

    all = _on_reader(AccountStore.all)
    get = _on_reader(AccountStore.get)
    sync_config = _on_writer(AccountStore.sync)
    set_enabled = _on_writer(AccountStore.set_enabled)
    set_problem = _on_writer(AccountStore.set_problem)
    clear_problem = _on_writer(AccountStore.clear_problem)
    cool_down = _on_writer(AccountStore.cool_down)
    set_concurrency = _on_writer(AccountStore.set_concurrency)
    set_browser = _on_writer(AccountStore.set_browser)
    reset = _on_writer(AccountStore.reset)
    request_rebuild = _on_writer(AccountStore.request_rebuild)
    adapter_replaced = _on_writer(AccountStore.adapter_replaced)

    cool_down_soon = _soon_on_writer(AccountStore.cool_down)


class AsyncSessions(_Facade):
    """Scheduler sessions (who owns the running rows) as the scheduler uses them."""

    def __init__(self, sessions: SessionStore, db: DbThreads) -> None:
        super().__init__(sessions, db)

    open = _on_writer(SessionStore.open)
    beat = _on_writer(SessionStore.beat)
    close = _on_writer(SessionStore.close)
