"""The API lane: per account, up to ``concurrency`` requests in flight within rpm/tpm limits."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from media_assistant.core.config import AccountConfig
from media_assistant.core.lanes.attempt import AttemptRunner
from media_assistant.core.lanes.base import STOP_WAIT_S, Lane
from media_assistant.core.lanes.runtime import LaneLog, Runtime
from media_assistant.core.provider import Provider
from media_assistant.core.ratelimit import ApiAccountGate, estimate_tokens
from media_assistant.core.records import Claim
from media_assistant.core.states import ModelKind

# Cancel checkpoints come with every streamed chunk; past this the request is simply dropped.
API_CANCEL_GRACE_S = 1.0


class ApiLane(Lane):
    kind = ModelKind.API

    def __init__(
        self, runtime: Runtime, runner: AttemptRunner, providers: Mapping[str, Provider]
    ) -> None:
        super().__init__(runtime, runner, providers)
        self.gates: dict[str, ApiAccountGate] = {}
        for a in self.accounts:
            status = runtime.accounts.statuses.get(a.id)
            override = status.concurrency if status else None
            self.gates[a.id] = ApiAccountGate(override or a.concurrency, a.rpm, a.tpm)
        self._attempts: set[asyncio.Task[None]] = set()

    def apply_account_settings(self) -> None:
        """Follow concurrency changes made by the operator (GUI or another process)."""
        for a in self.accounts:
            status = self.rt.accounts.statuses.get(a.id)
            wanted = (status.concurrency if status else None) or a.concurrency
            if self.gates[a.id].concurrency != wanted:
                self.gates[a.id].concurrency = wanted
                self.account_log(a).info("concurrency now %d", wanted)
                self.wake(a.id)

    async def stop(self) -> None:
        await super().stop()
        if self._attempts:
            _, stuck = await asyncio.wait(self._attempts, timeout=STOP_WAIT_S)
            if stuck:
                self.log.error("%d attempt(s) did not end within %.0f s", len(stuck), STOP_WAIT_S)

    async def _account_loop(self, account: AccountConfig) -> None:
        log = self.account_log(account)
        wake = self._wakes[account.id]
        gate = self.gates[account.id]
        while not self.rt.stopping.is_set():
            wake.clear()
            await self.reap()
            if not self.rt.accounts.available(account.id):
                await self.wait_available(account, wake)
                continue
            if not gate.has_free_slot:
                await self.wait_for_wake(wake)  # a finishing attempt sets `wake`
                continue
            if gate.limits_rate:
                head = await self.rt.store.peek_next(
                    account.models, lane=self.kind.value, account_id=account.id
                )
                if head is None:
                    await self.wait_for_work(account, wake)
                    continue
                await gate.admit(estimate_tokens(head[1]))
                # The wait may have been long: a 429 may have paused the account meanwhile.
                if self.rt.stopping.is_set() or not self.rt.accounts.available(account.id):
                    continue
            claim = await self.claim(account)
            if claim is None:
                await self.wait_for_work(account, wake)
                continue
            gate.take_slot()
            task = asyncio.get_running_loop().create_task(
                self._run(claim, account, gate, log), name=f"api:{claim.task_id}"
            )
            self._attempts.add(task)
            task.add_done_callback(self._attempts.discard)

    async def _run(
        self, claim: Claim, account: AccountConfig, gate: ApiAccountGate, log: LaneLog
    ) -> None:
        try:
            await self.runner.run(
                claim, self.providers[account.id], account, log, cancel_grace_s=API_CANCEL_GRACE_S
            )
        except Exception:
            log.exception("%s: attempt crashed", claim.task_id)
        finally:
            gate.release_slot()
            self.wake(account.id)
