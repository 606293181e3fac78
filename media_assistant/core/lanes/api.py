"""The API lane: per account, up to ``concurrency`` requests in flight within rpm/tpm limits."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping

from media_assistant.core.accounts.ratelimit import ApiAccountGate
from media_assistant.core.config.schema import AccountConfig
from media_assistant.core.lanes.attempt import AttemptRunner
from media_assistant.core.lanes.base import STOP_WAIT_S, Lane
from media_assistant.core.lanes.runtime import LaneLog, Runtime
from media_assistant.core.model.clock import wait_event
from media_assistant.core.model.provider import Provider
from media_assistant.core.model.records import Claim, ClaimRequest, Handover
from media_assistant.core.model.states import ModelKind

# Cancel checkpoints come with every streamed chunk; past this the request is simply dropped.
API_CANCEL_GRACE_S = 1.0
# Waiting for the rate budget, the worker looks again at least this often.
RATE_RECHECK_S = 5.0


class ApiLane(Lane):
    kind = ModelKind.API

    def __init__(
        self, runtime: Runtime, runner: AttemptRunner, providers: Mapping[str, Provider]
    ) -> None:
        super().__init__(runtime, runner, providers)
        self.gates: dict[str, ApiAccountGate] = {}
        for a in self.accounts:
            self.gates[a.id] = self._gate(a)
        self._attempts: set[asyncio.Task[None]] = set()
        self._attempts_of: dict[str, set[asyncio.Task[None]]] = {}

    def _wanted_concurrency(self, account: AccountConfig) -> int:
        """The account's concurrency for the whole team (the account row: the operator's
        override, else the configs'), else this config's."""
        status = self.rt.accounts.statuses.get(account.id)
        if status is None:
            return account.concurrency
        return status.concurrency or status.limit_concurrency or account.concurrency

    def _gate(self, account: AccountConfig) -> ApiAccountGate:
        return ApiAccountGate(self._wanted_concurrency(account))

    def apply_account_settings(self) -> None:
        """Follow concurrency changes made by the operator (GUI or another process)."""
        for a in self.accounts:
            wanted = self._wanted_concurrency(a)
            if self.gates[a.id].concurrency != wanted:
                self.gates[a.id].concurrency = wanted
                self.account_log(a).info("concurrency now %d", wanted)
                self.wake(a.id)

    # ---------------------------------------------------------------- live configuration

    def add_account(self, account: AccountConfig) -> None:
        self._regate(account)
        super().add_account(account)

    def update_account(self, account: AccountConfig) -> None:
        self._regate(account)
        super().update_account(account)

    def _regate(self, account: AccountConfig) -> None:
        old = self.gates.get(account.id)
        if old is None:
            self.gates[account.id] = self._gate(account)
        else:
            old.concurrency = self._wanted_concurrency(account)

    async def _account_attempts_done(self, account_id: str) -> None:
        running = self._attempts_of.get(account_id)
        if running:
            await asyncio.wait(set(running))

    async def stop(self) -> None:
        await super().stop()
        if self._attempts:
            _, stuck = await asyncio.wait(self._attempts, timeout=STOP_WAIT_S)
            if stuck:
                self.log.error("%d attempt(s) did not end within %.0f s", len(stuck), STOP_WAIT_S)

    async def _account_loop(self, account: AccountConfig) -> None:
        log = self.account_log(account)
        wake = self._wakes[account.id]
        while self.working(account.id):
            account = self.current(account)  # the operator may have edited it
            gate = self.gates[account.id]
            wake.clear()
            await self.reap()
            if not self.rt.accounts.available(account.id):
                await self.wait_available(account, wake)
                continue
            if not gate.has_free_slot:
                await self.wait_for_wake(wake)  # a finishing attempt sets `wake`
                continue
            claim = await self.claim(account)
            if claim is None:
                await self._wait_for_budget(account, wake)
                continue
            gate.take_slot()
            task = asyncio.get_running_loop().create_task(
                self._run(claim, account, log), name=f"api:{claim.task_id}"
            )
            self._attempts.add(task)
            task.add_done_callback(self._attempts.discard)
            mine = self._attempts_of.setdefault(account.id, set())
            mine.add(task)
            task.add_done_callback(mine.discard)

    async def _wait_for_budget(self, account: AccountConfig, wake: asyncio.Event) -> None:
        """Nothing claimed: no work, or the account's team-wide limits said not now (every
        slot in use on some workstation, or the rate budget spent). With a rate limit and work
        waiting, wait until the budget allows the head task (or a wake); else as for no work."""
        status = self.rt.accounts.statuses.get(account.id)
        if status is not None and (status.limit_rpm or status.limit_tpm):
            head = await self.rt.store.peek_next(
                account.models,
                lane=self.kind.value,
                account_id=account.id,
                provider_generation=self.rt.accounts.built_generation(account.id),
                workstation=self.rt.workstation,
            )
            if head is not None:
                ready = await self.rt.store.api_ready_at(account.id, head[1])
                left = (ready or 0.0) - self.rt.clock.now()
                if left > 0:
                    # Other tasks' changes would only wake us to be denied again: wait out the
                    # budget (a few seconds at a time, so an operator's change is seen), or a stop.
                    await wait_event(self.rt.stopping, min(left, RATE_RECHECK_S), self.rt.clock)
                    return
                # Work waits and the budget allows it: refused for a slot another workstation
                # holds, or by a claim a moment ahead of ours. Look again within a poll (the
                # queue watch's wake-ups come only with a change, issue 28).
                await wait_event(wake, self.rt.idle_poll_s, self.rt.clock)
                return
        await self.wait_for_work(account, wake)

    async def _run(self, claim: Claim, account: AccountConfig, log: LaneLog) -> None:
        """Attempts in one slot: this claim's, then those of the tasks claimed for the slot
        right after each answer was written (:meth:`_follow_up`), until none is."""
        next_claim: Claim | None = claim
        while next_claim is not None:
            claim, next_claim = next_claim, None
            account = self.current(account)  # the operator may have edited it
            provider = self.provider_for(account.id)
            try:
                outcome = await self.runner.run(
                    claim,
                    provider,
                    account,
                    log,
                    cancel_grace_s=API_CANCEL_GRACE_S,
                    then_claim=functools.partial(self._follow_up, account),
                )
                if outcome.handover is not None:
                    next_claim = await self._taken_over(outcome.handover, account, log)
            except Exception:
                log.exception("%s: attempt crashed", claim.task_id)
            finally:
                if next_claim is None:
                    self._free_slot(account)
                try:
                    # A replaced provider closes after its last attempt.
                    await self.done_with(provider)
                except BaseException:
                    if next_claim is not None:  # cancelled with the next task in hand
                        self._free_slot(account)
                        self.rt.store.give_back_soon(next_claim)
                    raise

    def _free_slot(self, account: AccountConfig) -> None:
        # The account's gate now (a replaced gate took over the count of running attempts).
        self.gates[account.id].release_slot()
        self.wake(account.id)

    def _follow_up(self, account: AccountConfig) -> ClaimRequest | None:
        """The claim to make for this attempt's slot as its answer is written, or None to free
        the slot and leave the next claim to the account's worker. Only what the worker would
        do without waiting: a free slot once this attempt ends (the operator may have lowered
        the concurrency), the account working and available, room on the disk. The team's slots
        and rate budget, pauses, schedules and rebuild requests are clauses of the claim
        itself."""
        gate = self.gates.get(account.id)
        if (
            gate is None
            or gate.in_flight > gate.concurrency
            or self.rt.disk.full
            or not self.claiming(account.id)
            or not self.rt.accounts.available(account.id)
        ):
            return None
        return ClaimRequest(
            kind=self.kind,
            account_id=account.id,
            models=tuple(account.models),
            owner_id=self.rt.owner_id,
            deadline_s=self.rt.config.lane(self.kind).deadline_s,
            provider_generation=self.rt.accounts.built_generation(account.id),
            workstation=self.rt.workstation,
            api_limits=self.rt.accounts.api_limits(account.id),
        )

    async def _taken_over(
        self, handover: Handover, account: AccountConfig, log: LaneLog
    ) -> Claim | None:
        """The task claimed for the slot after an answer's write, if it is to run here."""
        if handover.claim_error is not None:
            # A full disk or an unreachable team database is said once, by its guard.
            error = handover.claim_error
            if not self.rt.disk.absorb(error) and not self.rt.link.absorb(error):
                log.error("claiming the next task failed: %s", error)
            return None
        claim = handover.next_claim
        if claim is not None and (
            not self.claiming(account.id) or not self.rt.accounts.available(account.id)
        ):
            await self.give_back_switched_off(claim, account)
            return None
        return claim
