"""What both lanes do the same way: reap before claiming, wait for work, stop."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import Any

from sqlalchemy.exc import OperationalError

from media_assistant.core.config.schema import AccountConfig
from media_assistant.core.lanes.attempt import AttemptRunner
from media_assistant.core.lanes.runtime import LaneLog, Runtime, lane_log
from media_assistant.core.model.clock import wait_event
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import Provider
from media_assistant.core.model.records import Claim
from media_assistant.core.model.states import ModelKind, TaskState

# Workers and attempts get this long to end at shutdown before the scheduler moves on.
STOP_WAIT_S = 20.0


class Lane:
    kind: ModelKind

    def __init__(
        self, runtime: Runtime, runner: AttemptRunner, providers: Mapping[str, Provider]
    ) -> None:
        self.rt = runtime
        self.runner = runner
        # The scheduler's account → provider map: replaced entries (a rebuilt provider) are
        # picked up at the account's next attempt (see provider_for / replaced).
        self.providers = providers
        self.accounts: list[AccountConfig] = [
            a for a in runtime.config.accounts if a.kind is self.kind
        ]
        self.log = lane_log(self.kind.value)
        self._wakes: dict[str, asyncio.Event] = {a.id: asyncio.Event() for a in self.accounts}
        self._workers: set[asyncio.Task[None]] = set()
        self._account_workers: dict[str, asyncio.Task[None]] = {}
        self._leaving: set[str] = set()  # removed from the config: no new work, then the end
        # Attempts running on each provider (by identity), and the replaced providers that are
        # closed when their last attempt ends.
        self._in_use: dict[int, int] = {}
        self._retired: dict[int, Provider] = {}
        self._last_reap = float("-inf")

    @property
    def models(self) -> set[str]:
        return {m for a in self.accounts for m in a.models}

    def start(self) -> None:
        for account in self.accounts:
            self._start_worker(account)

    def _start_worker(self, account: AccountConfig) -> None:
        self._account_workers[account.id] = self._spawn(
            self._supervised(account), name=f"{self.kind.value}:{account.id}"
        )

    def account(self, account_id: str) -> AccountConfig | None:
        return next((a for a in self.accounts if a.id == account_id), None)

    def current(self, account: AccountConfig) -> AccountConfig:
        """The account's configuration as it is now (the operator may have edited it)."""
        return self.account(account.id) or account

    def working(self, account_id: str) -> bool:
        """The worker of this account should go on (not stopping, not removed)."""
        return not self.rt.stopping.is_set() and account_id not in self._leaving

    def claiming(self, account_id: str) -> bool:
        """The account may start a new task: working, and the scheduler is not closing."""
        return self.working(account_id) and not self.rt.claims_closed

    def taking_work(self, account_id: str) -> bool:
        """False while the operator has the account for something else (web: signing in)."""
        return True

    # ---------------------------------------------------------------- live configuration

    def add_account(self, account: AccountConfig) -> None:
        """A new account of this lane: its worker starts at once (its provider is in place)."""
        self._leaving.discard(account.id)
        if self.account(account.id) is not None:
            self.update_account(account)
            return
        self.accounts.append(account)
        self._wakes.setdefault(account.id, asyncio.Event())
        worker = self._account_workers.get(account.id)
        if worker is None or worker.done():
            self._start_worker(account)

    def update_account(self, account: AccountConfig) -> None:
        """Edited settings (models, limits): the worker uses them from its next turn."""
        self.accounts = [account if a.id == account.id else a for a in self.accounts]
        self.wake(account.id)

    async def remove_account(self, account_id: str) -> None:
        """Removed from the configuration: no new work; a running attempt finishes. Returns
        when the account's worker (and, API, every attempt it started) has ended."""
        self._leaving.add(account_id)
        self.wake(account_id)
        worker = self._account_workers.get(account_id)
        if worker is not None:
            await asyncio.wait({worker})
        await self._account_attempts_done(account_id)
        if account_id in self._leaving:  # not added back meanwhile
            self.accounts = [a for a in self.accounts if a.id != account_id]
            self._account_workers.pop(account_id, None)

    async def _account_attempts_done(self, account_id: str) -> None:
        """Lanes whose attempts outlive a worker's turn (API) wait for them here."""

    def provider_for(self, account_id: str) -> Provider:
        """The account's provider for one attempt; give it back with :meth:`done_with`."""
        provider = self.providers[account_id]
        self._in_use[id(provider)] = self._in_use.get(id(provider), 0) + 1
        return provider

    async def done_with(self, provider: Provider) -> None:
        left = self._in_use.get(id(provider), 1) - 1
        if left > 0:
            self._in_use[id(provider)] = left
            return
        self._in_use.pop(id(provider), None)
        if self._retired.pop(id(provider), None) is not None:
            await self._close(provider)

    async def replaced(self, old: Provider) -> None:
        """The scheduler put a fresh provider in ``old``'s place: close ``old`` now if no
        attempt runs on it, else when its last attempt ends (API attempts run on)."""
        if self._in_use.get(id(old)):
            self._retired[id(old)] = old
        else:
            await self._close(old)

    def provider_rebuilt(self, account: AccountConfig) -> None:
        """Called after the account's provider was replaced (see WebLane: pacing defaults)."""

    async def _close(self, provider: Provider) -> None:
        try:
            await provider.aclose()
        except Exception:
            self.log.exception("closing a replaced provider failed")

    async def _supervised(self, account: AccountConfig) -> None:
        """A worker that meets an error (a database locked for longer than the busy timeout,
        say) restarts after a pause instead of leaving its account idle for good."""
        while self.working(account.id):
            try:
                await self._account_loop(self.current(account))
                return
            except Exception as exc:
                if self.rt.disk.absorb(exc):
                    # A full disk is not this worker's error: said once by the guard, waited
                    # out here (before: a restart with a traceback every second, for hours).
                    await self.rt.disk.wait_for_space(self.rt.stopping)
                    continue
                if self.rt.link.absorb(exc):  # the team database is unreachable: likewise
                    await self.rt.link.wait(self.rt.stopping)
                    continue
                self.account_log(account).exception(
                    "worker error; restarting in %.0f s", self.rt.idle_poll_s
                )
                await self.rt.clock.sleep(self.rt.idle_poll_s)

    def _spawn(self, coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._workers.add(task)  # keep a strong reference until it ends
        task.add_done_callback(self._workers.discard)
        task.add_done_callback(self._report_crash)
        return task

    def _report_crash(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self.log.error("worker %s crashed", task.get_name(), exc_info=task.exception())

    def wake(self, account_id: str | None = None) -> None:
        if account_id is None:
            for event in self._wakes.values():
                event.set()
        elif account_id in self._wakes:
            self._wakes[account_id].set()

    async def stop(self) -> None:
        self.wake()
        workers = list(self._workers)
        for task in workers:
            task.cancel()
        if workers:
            _, stuck = await asyncio.wait(workers, timeout=STOP_WAIT_S)
            for task in stuck:
                self.log.error("worker %s did not stop within %.0f s", task.get_name(), STOP_WAIT_S)

    async def _account_loop(self, account: AccountConfig) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ shared steps

    async def reap(self) -> None:
        """Take back this lane's tasks whose heartbeat stopped (throttled; not after a stall)."""
        now = self.rt.clock.monotonic()
        if now - self._last_reap < self.rt.reap_every_s or not self.rt.reap_allowed():
            return
        if (
            self.rt.watched
            and self.rt.stale_seen <= self._last_reap
            and now - self._last_reap < self.rt.poll_s
        ):
            return  # the queue watch saw no stale row since our last look (issue 28 item 3)
        self._last_reap = now
        alive = {tid: beat[:2] for tid, beat in self.runner.beats().items()}
        released = await self.rt.store.reap_stale(
            dead_after=self.rt.config.scheduler.dead_after_s,
            kind=self.kind,
            alive=alive,
            workstation=self.rt.workstation,
        )
        ours = {(r.task_id, r.attempt, r.lease) for r in released if r.owner_id == self.rt.owner_id}
        if ours:
            self.runner.interrupt(ours, "lost")
        for r in released:
            self.log.warning(
                "%s: heartbeat lost, attempt %d → %s", r.task_id, r.attempt, r.new_state.value
            )
        if any(r.new_state is TaskState.PENDING for r in released):
            self.wake()

    async def claim(self, account: AccountConfig) -> Claim | None:
        """The head of the queue for this account's models, now running on it (or None).

        None while the disk is full: a claim is a write, and a task started now could not
        record its answer (core/disk/full.py); the lane waits a poll for space instead."""
        disk = self.rt.disk
        if not self.claiming(account.id):  # closing, stopping or removed: nothing new starts
            return None
        if disk.full and not await disk.wait_for_space(self.rt.stopping, self.rt.idle_poll_s):
            return None
        try:
            claim = await self.rt.store.claim_next(
                kind=self.kind,
                account_id=account.id,
                models=account.models,
                owner_id=self.rt.owner_id,
                deadline_s=self.rt.config.lane(self.kind).deadline_s,
                provider_generation=self.rt.accounts.built_generation(account.id),
                workstation=self.rt.workstation,
                api_limits=self.rt.accounts.api_limits(account.id),
            )
        except OperationalError as exc:
            if disk.absorb(exc):
                return None
            raise
        if claim is not None and (
            not self.claiming(account.id)
            or not self.rt.accounts.available(account.id)
            or not self.taking_work(account.id)
        ):
            await self.give_back_switched_off(claim, account)
            return None
        return claim

    async def give_back_switched_off(self, claim: Claim, account: AccountConfig) -> None:
        """Switched off or removed (or the app closing) while the claim waited for the
        writer: the operator's word wins. Back to the queue, the attempt not used up; the
        task's history says which it was (a closing app is not a switched-off account)."""
        if self.rt.claims_closed:
            message = "returned to the queue at shutdown (attempt not used up)"
            code, params = EventCode.RETURNED_SHUTDOWN, None
        else:
            message = f"{account.id} was switched off as it took the task; back in the queue"
            code, params = EventCode.RETURNED_SWITCHED_OFF, {"account": account.id}
        await self.rt.store.requeue(
            claim,
            not_before=None,
            keep_attempt=True,
            kind=None,
            message=message,
            event_kind="state",
            code=code,
            params=params,
        )

    async def wait_available(self, account: AccountConfig, wake: asyncio.Event) -> None:
        left = self.rt.accounts.seconds_until_available(account.id)
        timeout = self.rt.poll_s if left is None else min(self.rt.poll_s, left)
        await wait_event(wake, max(timeout, 0.001), self.rt.clock)

    async def wait_for_wake(self, wake: asyncio.Event) -> None:
        """Until something changes (new work, a free slot, an account toggle), or a poll."""
        await wait_event(wake, self.rt.poll_s, self.rt.clock)

    async def wait_for_work(self, account: AccountConfig, wake: asyncio.Event) -> None:
        timeout = self.rt.poll_s
        if not self.rt.watched:  # (the queue watch wakes us when a delayed task comes due)
            next_at = await self.rt.store.next_not_before(account.models)
            if next_at is not None:
                timeout = min(timeout, max(next_at - self.rt.clock.now(), 0.001))
        await wait_event(wake, timeout, self.rt.clock)

    def account_log(self, account: AccountConfig) -> LaneLog:
        return lane_log(self.kind.value, account.id)
