"""The web lane: one worker per web account, each running exactly one task at a time."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping
from pathlib import Path

from media_assistant.core.clock import wait_event
from media_assistant.core.config import AccountConfig
from media_assistant.core.errors import ErrorKind
from media_assistant.core.lanes.attempt import AttemptRunner
from media_assistant.core.lanes.base import Lane
from media_assistant.core.lanes.runtime import LaneLog, Runtime
from media_assistant.core.locks import ProfileLock
from media_assistant.core.pacer import lane_pacer
from media_assistant.core.provider import Provider
from media_assistant.core.states import AccountProblem, ModelKind

# The provider gets this long to stop at a checkpoint (and click the page's stop control)
# before its coroutine is cancelled.
WEB_CANCEL_GRACE_S = 4.0


class WebLane(Lane):
    kind = ModelKind.WEB

    def __init__(
        self,
        runtime: Runtime,
        runner: AttemptRunner,
        providers: Mapping[str, Provider],
        profile_dir: Callable[[str], Path] | None = None,
    ) -> None:
        super().__init__(runtime, runner, providers)
        self._profile_dir = profile_dir
        # Exclusivity, held three ways: this lock in the process, a file lock across processes
        # (ProfileLock), and the database's partial unique index on running web rows.
        self.account_locks: dict[str, asyncio.Lock] = {a.id: asyncio.Lock() for a in self.accounts}
        self.running: dict[str, str] = {}  # account id → task id
        # Pacing per account (min gap, window, daily cap, active hours, risk cooldowns):
        # a paced account does not claim, so its work waits for the other accounts.
        self.pacer = lane_pacer(runtime, self.accounts, providers)

    async def _account_loop(self, account: AccountConfig) -> None:
        log = self.account_log(account)
        wake = self._wakes[account.id]
        provider = self.providers[account.id]
        profile_lock = ProfileLock(self._profile_dir(account.id)) if self._profile_dir else None
        try:
            async with self.account_locks[account.id]:
                while not self.rt.stopping.is_set():
                    wake.clear()
                    await self.reap()
                    if not self.rt.accounts.available(account.id):
                        if (
                            profile_lock is not None
                            and profile_lock.held
                            and (self.rt.accounts.seconds_until_available(account.id) is None)
                        ):
                            # Only the operator can bring it back (log in, solve a captcha,
                            # enable it): close the browser and let go of the profile, so
                            # `accounts login` can open it meanwhile.
                            await self._release(provider, log)
                            profile_lock.release()
                        await self.wait_available(account, wake)
                        continue
                    if profile_lock is not None and not profile_lock.held:
                        if not profile_lock.try_acquire():
                            detail = (
                                f"profile {profile_lock.profile_dir} is in use by another "
                                "Media Assistant instance"
                            )
                            await self.rt.accounts.set_problem(
                                account.id,
                                AccountProblem.NEEDS_ATTENTION,
                                detail,
                                ErrorKind.PROFILE_IN_USE.value,
                            )
                            log.error("%s", detail)
                            continue
                    paced = self.pacer.wait_s(account.id)
                    if paced > 0:
                        await wait_event(wake, min(paced, self.rt.idle_poll_s), self.rt.clock)
                        continue
                    claim = await self.claim(account)
                    if claim is None:
                        await self.wait_for_work(account, wake)
                        continue
                    # EXACTLY ONE running task per web account, by construction: this loop awaits
                    # the attempt to its very end before it claims again. A chat session breaks
                    # both generations when a second one starts; raising this to two broke
                    # production twice (web failures 7 % → 34 %). Not a setting, on purpose.
                    self.running[account.id] = claim.task_id
                    self.pacer.started(account.id)
                    outcome = None
                    try:
                        outcome = await self.runner.run(
                            claim,
                            provider,
                            account,
                            log,
                            cancel_grace_s=WEB_CANCEL_GRACE_S,
                            # A generation that ignores cancellation still drives the page:
                            # close the browser under it before the next claim.
                            on_stuck=functools.partial(self._release, provider, log),
                        )
                    except Exception:  # a bug or a database error: the reaper will see to it
                        log.exception("%s: attempt crashed", claim.task_id)
                        await self.rt.clock.sleep(self.rt.idle_poll_s)
                    finally:
                        self.pacer.ended(account.id, claim.task_id, outcome)
                        del self.running[account.id]
        finally:
            if profile_lock is not None:
                profile_lock.release()

    async def _release(self, provider: Provider, log: LaneLog) -> None:
        release = getattr(provider, "release", None)  # optional: providers holding a browser
        if release is None:
            return
        try:
            await release()
        except Exception:
            log.exception("releasing the browser failed")
