"""What the lanes share: the store, the accounts' live state, the clock, this session's id."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Coroutine, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from media_assistant.core.config.schema import AppConfig
from media_assistant.core.disk.full import DiskGuard
from media_assistant.core.disk.held import HeldOutcomes
from media_assistant.core.model.accounts import AccountStatus, ApiLimits
from media_assistant.core.model.clock import Clock, SystemClock
from media_assistant.core.model.states import AccountProblem, ModelKind
from media_assistant.core.store.facade import AsyncAccounts, AsyncStore
from media_assistant.core.store.link import StoreLink

# How often an idle worker looks for work another process may have submitted, at the latest.
IDLE_POLL_S = 1.0
# Under a scheduler's queue watch (core/lanes/queue_watch.py), which wakes the workers whenever
# something they would act on changed, they look by themselves only this many polls apart.
WATCHED_POLLS = 30


class LaneLog(logging.LoggerAdapter[logging.Logger]):
    """Every lane line starts with its lane and account: ``[web ds-web-1] ...``."""

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, Any]:
        return f"{self.extra['prefix'] if self.extra else ''} {msg}", kwargs


def lane_log(kind: str, account_id: str | None = None) -> LaneLog:
    prefix = f"[{kind} {account_id}]" if account_id else f"[{kind}]"
    return LaneLog(logging.getLogger(f"media_assistant.lanes.{kind}"), {"prefix": prefix})


@dataclass
class AccountView:
    """The scheduler's cached view of account states: lanes ask it many times a second without
    a statement. It is reloaded on every account change (ours at once, other processes' within
    a housekeeping tick).

    Reads of it can land out of order — two reader threads, a refresh that started before a
    cool-down committed and returned after the cool-down's own event — so each account's
    entry is replaced only by a state at least as new (``AccountStatus.version``, raised by
    every change of the row): an older read never undoes a newer one, and the lanes never
    claim into a 429 cool-down they already heard about."""

    store: AsyncAccounts
    clock: Clock
    statuses: dict[str, AccountStatus] = field(default_factory=dict)
    # This scheduler's workstation (team mode): a web account another one holds is not ours.
    workstation: str | None = None
    # The rebuild generation each account's provider was built at (core/lanes/live_accounts.py):
    # while its row asks for a newer one, the account gets no work.
    built: dict[str, int] = field(default_factory=dict)

    async def refresh(self) -> bool:
        """Reload from the database; True if anything changed."""
        fresh = await self.store.all()
        merged = {
            account_id: self.newer(self.statuses.get(account_id), status)
            for account_id, status in fresh.items()
        }
        changed = merged != self.statuses
        self.statuses = merged
        return changed

    def apply(self, status: AccountStatus) -> bool:
        """A state read with a change (an ``AccountChanged`` event): kept if not older than the
        one held. True if it was."""
        kept = self.newer(self.statuses.get(status.account_id), status)
        self.statuses[status.account_id] = kept
        return kept is status

    @staticmethod
    def newer(held: AccountStatus | None, read: AccountStatus) -> AccountStatus:
        return held if held is not None and held.version > read.version else read

    def provider_built(self, account_id: str, generation: int) -> None:
        """The account's provider now answers for requests up to ``generation``."""
        self.built[account_id] = max(generation, self.built.get(account_id, generation))

    def needs_rebuild(self, account_id: str) -> bool:
        status = self.statuses.get(account_id)
        return status is not None and status.rebuild_generation > self.built.get(
            account_id, status.rebuild_generation
        )

    def api_limits(self, account_id: str) -> ApiLimits | None:
        """An API account's limits for the whole team, as its row says (None: not an API
        account, or no row yet)."""
        status = self.statuses.get(account_id)
        if status is None or status.kind is not ModelKind.API:
            return None
        return status.api_limits()

    def built_generation(self, account_id: str) -> int | None:
        """For the claim statement: the generation this account's provider was built at."""
        return self.built.get(account_id)

    async def set_problem(
        self, account_id: str, problem: AccountProblem, detail: str, code: str | None = None
    ) -> None:
        """Record a problem and see it at once: the lane must not claim again before it knows."""
        await self.store.set_problem(account_id, problem, detail, code)
        await self.refresh()

    async def clear_problem(self, account_id: str, *, cool_down_too: bool = False) -> None:
        await self.store.clear_problem(account_id, cool_down_too=cool_down_too)
        await self.refresh()

    async def cool_down(self, account_id: str, seconds: float, reason: str) -> bool:
        slowed = await self.store.cool_down(account_id, seconds, reason)
        await self.refresh()
        return slowed

    def available(self, account_id: str) -> bool:
        status = self.statuses.get(account_id)
        return (
            status is not None
            and status.state(self.clock.now()).gets_work
            # A fresh provider is on its way: the old one must not take the next task.
            and not self.needs_rebuild(account_id)
            and not self.held_elsewhere(account_id)
        )

    def held_elsewhere(self, account_id: str) -> str | None:
        """The workstation that holds this web account, when it is not ours."""
        status = self.statuses.get(account_id)
        if status is None or self.workstation is None:
            return None
        return status.workstation if status.belongs_elsewhere(self.workstation) else None

    def seconds_until_available(self, account_id: str) -> float | None:
        """Cool-down left, or None when only the operator can bring the account back."""
        status = self.statuses.get(account_id)
        if status is None:
            return None
        if self.needs_rebuild(account_id) or self.held_elsewhere(account_id):
            return None  # no countdown: a rebuild wakes the lane; another's account is theirs
        now = self.clock.now()
        if status.state(now).gets_work:
            return 0.0
        if status.state(now).recovers_by_itself and status.cooldown_until is not None:
            return max(0.0, status.cooldown_until - now)
        return None


@dataclass
class Runtime:
    config: AppConfig
    store: AsyncStore
    accounts: AccountView
    clock: Clock
    owner_id: str
    rng: random.Random
    workstation: str | None = None  # team mode: ours (core/config/team.py workstation_name)
    idle_poll_s: float = IDLE_POLL_S
    reap_every_s: float = 1.0
    # Set by a scheduler that runs the queue watch (core/lanes/queue_watch.py): the workers and
    # the idle check wait for its wake-ups and poll only every ``watched_poll_s`` themselves;
    # they reap when the watch saw a stale row (``stale_seen``, clock.monotonic()).
    watched: bool = False
    stale_seen: float = float("-inf")
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    # Set as soon as the app begins to close (Scheduler.close_claims), before the stop itself:
    # a closing workstation claims nothing more (issue 26: tasks another workstation released
    # were claimed by one that was itself closing, and their paid requests were dropped).
    claims_closed: bool = False
    # Set by the scheduler's housekeeping tick (clock.monotonic() and clock.now()).
    last_tick: float = 0.0
    last_tick_wall: float = 0.0
    reap_hold_until: float = 0.0
    # Background coroutines (a log line's slow-down, an account refresh): strong references
    # until they end, so none is garbage-collected mid-flight.
    background: set[asyncio.Task[Any]] = field(default_factory=set)
    # The data dir's disk: while it is full no claim is made and finished answers are held
    # (core/disk/full.py). The scheduler gives the real one; this default only says "not full".
    disk: DiskGuard = field(default_factory=lambda: DiskGuard(Path.cwd()))
    # The team database (core/store/link.py): while it does not answer no claim is made and
    # finished answers are held. The default never goes down (a SQLite file).
    link: StoreLink = field(default_factory=lambda: StoreLink(clock=SystemClock()))
    # Outcomes held while the team database is away, kept on disk (core/disk/held.py); None
    # without a data dir (tests that build a runtime by hand).
    held: HeldOutcomes | None = None

    @property
    def poll_s(self) -> float:
        """How long an idle worker waits before it looks again by itself."""
        return self.idle_poll_s * WATCHED_POLLS if self.watched else self.idle_poll_s

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        task.add_done_callback(_log_crash)
        return task

    def reap_allowed(self) -> bool:
        """False right after the event loop itself stalled (laptop sleep, a long GC pause):
        everyone's heartbeats look old then, ours included, and nothing should die for the
        app's own pause. Reaping resumes one heartbeat interval after the stall was noticed."""
        now = self.clock.monotonic()
        if now < self.reap_hold_until:
            return False
        # Both clocks: Linux and macOS stop the monotonic clock during suspend, the wall clock
        # does not — and heartbeats are compared in wall-clock time.
        limit = self.config.scheduler.heartbeat_s
        return now - self.last_tick <= limit and self.clock.now() - self.last_tick_wall <= limit


def _log_crash(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        logging.getLogger(__name__).error("%s failed", task.get_name(), exc_info=exc)
