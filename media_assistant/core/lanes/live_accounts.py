"""Account changes reach a running scheduler without a restart.

Two ways in:

- **A new configuration** (the set-up window saved one): :meth:`LiveAccounts.apply` compares
  it with the running one account by account. A new account gets a provider and a worker at
  once; an edited one gets a fresh provider and its new settings from its worker's next turn;
  a removed one takes no new work, finishes what it runs, and only then is its provider
  closed. Models and lane settings are read from the configuration at every attempt, so they
  need nothing more.
- **A rebuild request in the accounts table** (``accounts.rebuild_generation`` raised: re-enabled,
  ``accounts reset``, a new key), from this process or another one: :meth:`LiveAccounts.notice`
  sees a generation newer than the one this scheduler's provider was built at whenever it
  reloads the account states, and builds the provider anew (its key, its adapter file, read
  again). Nothing is cleared: every scheduler serving the account (every workstation, for a
  team's API account) meets the request for itself.

Building a provider can be slow (a key from the OS keyring may wait on a locked keyring; an
adapter file is read from disk), so it runs on a worker thread, one build at a time. A replaced
provider is closed once no attempt runs on it any more (``Lane.replaced``): a web account's
running task ends on the browser it started on; its next task gets the fresh one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from media_assistant.core.config.schema import AccountConfig, AppConfig
from media_assistant.core.model.accounts import AccountDeclaration
from media_assistant.core.model.errors import AccountUnavailable
from media_assistant.core.model.provider import Provider, UnavailableProvider
from media_assistant.core.model.states import AccountProblem, ModelKind

if TYPE_CHECKING:
    from media_assistant.core.lanes.base import Lane
    from media_assistant.core.lanes.runtime import Runtime
    from media_assistant.core.model.accounts import AccountStatus
    from media_assistant.core.store.facade import AsyncAccounts

ProviderFactory = Callable[[AccountConfig], Provider]


class RunningScheduler(Protocol):
    """What a live change touches in the running scheduler (core/lanes/scheduler.py), which
    owns this object: its config, accounts, lanes and providers."""

    config: AppConfig
    accounts: AsyncAccounts
    workstation: str
    team: bool
    declarations: Callable[[AppConfig], list[AccountDeclaration]]
    providers: dict[str, Provider]
    rt: Runtime | None
    lanes: dict[ModelKind, Lane]

    @property
    def provider_factory(self) -> ProviderFactory: ...

    def wake_all(self) -> None: ...


log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AccountDiff:
    """What changed between two configurations, account by account."""

    added: tuple[AccountConfig, ...] = ()
    removed: tuple[AccountConfig, ...] = ()
    changed: tuple[AccountConfig, ...] = ()  # the new version of each edited account

    @classmethod
    def between(cls, old: AppConfig, new: AppConfig) -> AccountDiff:
        before = {a.id: a for a in old.accounts}
        after = {a.id: a for a in new.accounts}
        added, removed, changed = [], [], []
        for account_id, account in after.items():
            previous = before.get(account_id)
            if previous is None:
                added.append(account)
            elif previous.kind is not account.kind:  # another lane: out of one, into the other
                removed.append(previous)
                added.append(account)
            elif previous != account:
                changed.append(account)
        removed += [a for account_id, a in before.items() if account_id not in after]
        return cls(tuple(added), tuple(removed), tuple(changed))

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


@dataclass
class LiveAccounts:
    scheduler: RunningScheduler
    _build_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _rebuilding: set[str] = field(default_factory=set)
    _removals: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    # ---------------------------------------------------------------- a new configuration

    async def apply(self, config: AppConfig) -> AccountDiff:
        """Switch the running scheduler to ``config`` (already validated). Returns at once
        after new and edited accounts are in place; removed accounts finish in the background
        (:meth:`settled` waits for them)."""
        s = self.scheduler
        diff = AccountDiff.between(s.config, config)
        s.config = config
        if s.rt is not None:
            s.rt.config = config
        reconfigure: Callable[[AppConfig], None] | None = getattr(
            s.provider_factory, "reconfigure", None
        )
        if reconfigure is not None:
            reconfigure(config)
        await s.accounts.sync_config(
            await asyncio.to_thread(s.declarations, config),
            workstation=s.workstation,
            take_over=not s.team,
            dead_after=config.scheduler.dead_after_s,
        )
        if s.rt is None:  # not started: start() builds everything from the new config
            return diff
        await s.rt.accounts.refresh()
        for account in diff.removed:
            self._remove(account)
        for account in (*diff.added, *diff.changed):
            await self._install(account, new=account in diff.added)
        if not diff.empty:
            log.info(
                "[scheduler] configuration applied: %d account(s) added, %d changed, %d removed",
                len(diff.added),
                len(diff.changed),
                len(diff.removed),
            )
        s.wake_all()
        return diff

    def _remove(self, account: AccountConfig) -> None:
        s = self.scheduler
        lane = s.lanes.get(account.kind)
        if lane is None:
            return
        lane_log = lane.account_log(account)
        lane_log.info("removed from the configuration: no new work; a running task finishes")

        async def remove() -> None:
            await lane.remove_account(account.id)
            if lane.account(account.id) is not None:  # added back meanwhile
                return
            provider = s.providers.pop(account.id, None)
            if provider is not None:
                try:
                    await provider.aclose()
                except Exception:
                    lane_log.exception("closing its provider failed")
            lane_log.info("removed")

        task = self._spawn(remove(), f"remove:{account.id}")
        self._removals[account.id] = task

        def forget(done: asyncio.Task[Any]) -> None:
            if self._removals.get(account.id) is done:
                del self._removals[account.id]

        task.add_done_callback(forget)

    async def _install(self, account: AccountConfig, *, new: bool) -> None:
        s = self.scheduler
        lane = s.lanes[account.kind]
        status = s.rt.accounts.statuses.get(account.id) if s.rt is not None else None
        generation = status.rebuild_generation if status is not None else 0
        provider = await self._build(account)
        if s.rt is not None:
            s.rt.accounts.provider_built(account.id, generation)
        old = s.providers.get(account.id)
        s.providers[account.id] = provider
        removal = self._removals.pop(account.id, None)
        if removal is not None:  # removed, then added back before it had finished
            removal.cancel()
        if new or lane.account(account.id) is None:
            lane.add_account(account)
        else:
            lane.update_account(account)
            lane.provider_rebuilt(account)
        if old is not None and old is not provider:
            await lane.replaced(old)

    # ---------------------------------------------------------------- rebuild requests

    def notice(self, statuses: Iterable[AccountStatus]) -> None:
        """Start a rebuild for every account whose row asks for a provider newer than ours
        (not already under way)."""
        view = self.scheduler.rt.accounts if self.scheduler.rt is not None else None
        for status in statuses:
            if view is None or status.account_id in self._rebuilding:
                continue
            if view.needs_rebuild(status.account_id):
                account = self.scheduler.config.account(status.account_id)
                if account is None or account.kind is not status.kind:
                    continue  # not ours (another configuration): not ours to rebuild
                self._rebuilding.add(account.id)
                self._spawn(
                    self._rebuild(account, status.rebuild_generation), f"rebuild:{account.id}"
                )

    async def _rebuild(self, account: AccountConfig, generation: int) -> None:
        """A fresh provider for the requests up to ``generation`` (read before building it: a
        request made meanwhile is newer, and starts another rebuild)."""
        s = self.scheduler
        try:
            lane = s.lanes.get(account.kind)
            if lane is None or lane.account(account.id) is None or s.rt is None:
                return
            provider = await self._build(account)
            old = s.providers.get(account.id)
            s.providers[account.id] = provider
            lane.provider_rebuilt(account)
            s.rt.accounts.provider_built(account.id, generation)
            lane.account_log(account).info("provider rebuilt: the operator asked for a fresh start")
            if old is not None and old is not provider:
                await lane.replaced(old)
            await s.rt.accounts.refresh()
            s.wake_all()
        finally:
            self._rebuilding.discard(account.id)

    # ---------------------------------------------------------------- building

    async def _build(self, account: AccountConfig) -> Provider:
        """The account's provider, built on a worker thread; an account that cannot have one
        (no key, an unreadable adapter) gets a stand-in and shows why."""
        s = self.scheduler
        async with self._build_lock:
            try:
                return await asyncio.to_thread(s.provider_factory, account)
            except AccountUnavailable as exc:
                reason, code = str(exc), exc.code
                log.error("[%s %s] %s", account.kind.value, account.id, reason)
            except Exception as exc:  # a bug: the account must not wait for a rebuild forever
                reason = f"its provider could not be built: {type(exc).__name__}: {exc}"
                code = "provider_failed"
                log.exception("[%s %s] %s", account.kind.value, account.id, reason)
            await s.accounts.set_problem(account.id, AccountProblem.NEEDS_ATTENTION, reason, code)
            return UnavailableProvider(reason)

    # ---------------------------------------------------------------- bookkeeping

    def _spawn(self, coro: Any, name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_log_failure)
        return task

    async def settled(self) -> None:
        """Until every rebuild and removal under way has ended (tests, shutdown)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("[scheduler] %s failed", task.get_name(), exc_info=exc)
