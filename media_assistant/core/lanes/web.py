"""The web lane: one worker per web account, each running exactly one task at a time."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from media_assistant.core.accounts.pacer import Pacer
from media_assistant.core.config.schema import AccountConfig
from media_assistant.core.files.locks import ProfileLock
from media_assistant.core.lanes.attempt import AttemptRunner
from media_assistant.core.lanes.base import Lane
from media_assistant.core.lanes.challenge_hold import ChallengeHolds
from media_assistant.core.lanes.runtime import LaneLog, Runtime
from media_assistant.core.lanes.site_checks import CheckSite, SiteChecks, SiteRepairs, not_run
from media_assistant.core.lanes.site_recheck import SiteRechecks
from media_assistant.core.model.clock import wait_event
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import Provider, ShownBrowser, ShowOutcome
from media_assistant.core.model.states import AccountProblem, ModelKind
from media_assistant.core.rules.pacing import resolve_policy
from media_assistant.core.rules.site_breakage import SiteCheckReport
from media_assistant.core.store.pacing import PacingStore

# The provider gets this long to stop at a checkpoint (and click the page's stop control)
# before its coroutine is cancelled.
WEB_CANCEL_GRACE_S = 4.0
# A profile lock held by another process: rest this long, doubling up to the cap, and ask the
# operator only once it has been held this long without a break.
PROFILE_RETRY_S = 5.0
PROFILE_RETRY_CAP_S = 60.0
PROFILE_PATIENCE_S = 600.0


class ProfileConflict:
    """How long another process has held an account's profile, and the next pause."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.tries = 0

    def note(self, now: float) -> float:
        if self.since is None:
            self.since = now
        self.tries += 1
        return now - self.since

    def next_pause(self) -> float:
        return min(PROFILE_RETRY_S * 2.0 ** (self.tries - 1), PROFILE_RETRY_CAP_S)

    def clear(self) -> None:
        self.since, self.tries = None, 0


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
        # Site checks asked by the window, served by each account's worker between two tasks.
        self.checks = SiteChecks()
        self.repairs = SiteRepairs()  # the window's Repair…, served the same way
        # Accounts a verification page holds for a person, and *Show browser* on them.
        self.challenges = ChallengeHolds(runtime)
        self._auto: set[str] = set()  # repairs asked by [sites] auto_repair (installed if proven)
        # Accounts held by "the site's page changed" re-check it by themselves (issue 27).
        self.rechecks = SiteRechecks(self)
        # Accounts whose profile the operator signs in to (the window's *Log in*): their worker
        # has let go of the profile and takes no work until it is given back.
        self._lent: set[str] = set()

    async def _account_loop(self, account: AccountConfig) -> None:
        log = self.account_log(account)
        wake = self._wakes[account.id]
        profile_lock = ProfileLock(self._profile_dir(account.id)) if self._profile_dir else None
        busy_profile = ProfileConflict()
        try:
            async with self.account_locks.setdefault(account.id, asyncio.Lock()):
                while self.working(account.id):
                    account = self.current(account)  # the operator may have edited it
                    wake.clear()
                    await self.reap()
                    if account.id in self._lent:
                        if profile_lock is not None and profile_lock.held:
                            await self._release(self.providers[account.id], log)
                            profile_lock.release()
                        await self.wait_for_wake(wake)
                        continue
                    if self.checks.pending(account.id) or self.repairs.pending(account.id):
                        await self._serve_check(account, profile_lock, log)
                        continue
                    if not self.rt.accounts.available(account.id):
                        if await self.challenges.wait_for_person(
                            account, self.providers.get(account.id), wake, log, profile_lock
                        ):
                            continue
                        if (
                            profile_lock is not None
                            and profile_lock.held
                            and (self.rt.accounts.seconds_until_available(account.id) is None)
                        ):
                            # Only the operator can bring it back (log in, solve a captcha,
                            # enable it): close the browser and let go of the profile, so
                            # `accounts login` can open it meanwhile.
                            await self._release(self.providers[account.id], log)
                            profile_lock.release()
                        if await self.rechecks.serve(account, profile_lock, log):
                            continue
                        await self.wait_available(account, wake)
                        continue
                    self.challenges.settle(account.id, ShowOutcome.NOT_HELD)  # none to show
                    if profile_lock is not None and not profile_lock.held:
                        if not profile_lock.try_acquire():
                            await self._profile_busy(account, profile_lock, busy_profile, log)
                            continue
                        busy_profile.clear()
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
                    provider = self.provider_for(account.id)
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
                        await self.done_with(provider)  # a replaced provider closes here
                    self._auto_repair(account, outcome, log)
        finally:
            if profile_lock is not None:
                profile_lock.release()

    # ---------------------------------------------------------------- verification pages

    def show_browser(self, account_id: str) -> asyncio.Future[ShownBrowser]:
        """*Show browser* for an account a verification page holds (challenge_hold.py), served
        by its worker at its next look at the page; the future gets what was done."""
        future = self.challenges.ask_show(account_id)
        self.wake(account_id)
        return future

    # ---------------------------------------------------------------- site checks

    def check_site(self, account_id: str) -> asyncio.Future[SiteCheckReport]:
        """A site check of the account, run by its worker between two tasks (site_checks.py);
        the future gets the report."""
        future = self.checks.ask(account_id)
        if self.account(account_id) is None:
            self.checks.finish(
                account_id, not_run(account_id, "?", f"{account_id} is not a web account here")
            )
        self.wake(account_id)
        return future

    def repair_site(self, account_id: str) -> asyncio.Future[Any]:
        """A repair of the account's adapter from its page, by its worker between two tasks;
        the future gets the provider's result (None: its page cannot be repaired)."""
        future = self.repairs.ask(account_id)
        if self.account(account_id) is None:
            self.repairs.finish(account_id, None)
        self.wake(account_id)
        return future

    def _auto_repair(self, account: AccountConfig, outcome: Any, log: LaneLog) -> None:
        """``[sites] auto_repair = true`` (night runs): the verdict "the site's page changed"
        asks the account's worker for a repair at once (served before its next claim)."""
        error = getattr(outcome, "error", None)
        if (
            self.rt.config.sites.auto_repair
            and error is not None
            and error.kind is ErrorKind.SITE_CHANGED
            and account.id not in self._auto
        ):
            log.warning("site changed: repairing the adapter from the page ([sites] auto_repair)")
            self._auto.add(account.id)
            self.repairs.ask(account.id)

    async def _install_repair(
        self, account: AccountConfig, provider: Provider, result: Any, log: LaneLog
    ) -> None:
        """A repair asked by auto_repair: a proven one is installed (version + 1; the old one
        kept for rollback) and the site's accounts get fresh providers; never an unproven one."""
        if result is None or not getattr(result, "proven", False):
            why = getattr(result, "why", "its page cannot be repaired")
            log.warning("auto repair: nothing proven (%s); the account waits for the operator", why)
            return
        install = getattr(provider, "install_repair", None)
        version = await install(result) if install is not None else None
        if version is None:
            log.warning("auto repair: proven, but the account's adapter is its own site_file")
            return
        for other in self.accounts:
            if other.site == account.site and other.site_file is None:
                await self.rt.accounts.store.adapter_replaced(
                    other.id, workstation=self.rt.workstation
                )
        log.warning(
            "notice: site %s repaired and installed by itself ([sites] auto_repair): version %s; "
            "`sites rollback %s` puts the previous one back",
            result.site,
            version,
            result.site,
        )

    async def _serve_check(
        self, account: AccountConfig, profile_lock: ProfileLock | None, log: LaneLog
    ) -> None:
        """Run the account's pending check now, or wait a while for what holds it: its pacing
        (a check is a prompt like any other), a cool-down, a fresh provider on its way."""
        wake, accounts = self._wakes[account.id], self.rt.accounts
        paced = self.pacer.wait_s(account.id)
        cooling = accounts.seconds_until_available(account.id)
        if paced > 0:
            await wait_event(wake, min(paced, self.rt.idle_poll_s), self.rt.clock)
            return
        if accounts.needs_rebuild(account.id) or (cooling is not None and cooling > 0):
            await self.wait_available(account, wake)
            return
        adapter = getattr(self.providers.get(account.id), "adapter", None)
        site = str(getattr(adapter, "id", None) or account.site or "?")
        if profile_lock is not None and not profile_lock.held and not profile_lock.try_acquire():
            why = f"profile {profile_lock.profile_dir} is in use by another Media Assistant process"
            self.checks.finish(account.id, not_run(account.id, site, why))
            return
        provider = self.provider_for(account.id)
        check: CheckSite | None = getattr(provider, "check_site", None)
        outcome: object = None
        if self.repairs.pending(account.id):
            repair = getattr(provider, "repair_site", None)
            try:
                log.info("site repair: short prompts through the page")
                self.pacer.started(account.id)
                try:
                    result = await repair() if repair is not None else None
                finally:
                    self.pacer.ended(account.id, f"site-repair:{account.id}", None)
                self.repairs.finish(account.id, result)
                if account.id in self._auto:
                    self._auto.discard(account.id)
                    await self._install_repair(account, provider, result, log)
            finally:
                await self.done_with(provider)
            return
        try:
            if check is None:
                why = str(getattr(provider, "reason", "")) or "its page cannot be checked"
                self.checks.finish(account.id, not_run(account.id, site, why))
                return
            log.info("site check: one prompt through the page")
            self.pacer.started(account.id)
            try:
                report, outcome = await check()
            finally:
                self.pacer.ended(account.id, f"site-check:{account.id}", outcome)
            log.info("site check: %s", "ok" if report.ok else report.lines()[0])
            self.checks.finish(account.id, report)
        finally:
            await self.done_with(provider)

    async def _profile_busy(
        self,
        account: AccountConfig,
        profile_lock: ProfileLock,
        conflict: ProfileConflict,
        log: LaneLog,
    ) -> None:
        """Another process holds the account's profile lock. Usually for a moment (an
        `accounts login` or `check` in a terminal, a window that is closing): the account
        rests a little and tries again, with the reason on show. Only a conflict that lasts
        (another instance really works on this profile) needs the operator."""
        now = self.rt.clock.monotonic()
        held_for = conflict.note(now)
        detail = f"profile {profile_lock.profile_dir} is in use by another Media Assistant process"
        if held_for >= PROFILE_PATIENCE_S:
            detail += f" (for {held_for / 60:.0f} min): close the other instance, then reset it"
            await self.rt.accounts.set_problem(
                account.id, AccountProblem.NEEDS_ATTENTION, detail, ErrorKind.PROFILE_IN_USE.value
            )
            log.error("%s", detail)
            conflict.clear()
            return
        pause = conflict.next_pause()
        if conflict.tries == 1:
            log.warning("%s; trying again in %.0f s", detail, pause)
        await self.rt.accounts.cool_down(account.id, pause, ErrorKind.PROFILE_IN_USE.value)
        await self.wait_available(account, self._wakes[account.id])

    # ---------------------------------------------------------------- signing in

    def lend_profile(self, account_id: str) -> None:
        """The operator signs in to this account in its own browser profile: its worker
        closes the browser and lets go of the profile at its next turn (a running attempt
        finishes first) and takes no work until :meth:`return_profile`. Nothing is written to
        the account: signing in is the operator's own action, not an alert, and a restart
        forgets it."""
        self._lent.add(account_id)
        self.wake(account_id)

    def return_profile(self, account_id: str) -> None:
        self._lent.discard(account_id)
        self.wake(account_id)

    def taking_work(self, account_id: str) -> bool:
        return account_id not in self._lent

    # ---------------------------------------------------------------- live configuration

    def add_account(self, account: AccountConfig) -> None:
        self._pace(account)
        super().add_account(account)

    def update_account(self, account: AccountConfig) -> None:
        self._pace(account)
        super().update_account(account)

    async def remove_account(self, account_id: str) -> None:
        await super().remove_account(account_id)
        if self.account(account_id) is None:
            self.pacer.forget(account_id)
            self.checks.cancel(account_id)
            self.repairs.cancel(account_id)
            self.challenges.cancel(account_id)

    async def stop(self) -> None:
        self.checks.cancel()
        self.repairs.cancel()
        self.challenges.cancel()
        await super().stop()

    def provider_rebuilt(self, account: AccountConfig) -> None:
        """A fresh provider may bring a fixed adapter, and with it new pacing defaults."""
        self._pace(account)

    def _pace(self, account: AccountConfig) -> None:
        defaults = getattr(self.providers.get(account.id), "pacing_defaults", None)
        self.pacer.set_policy(
            account.id,
            resolve_policy(defaults, account.pacing, headless=self.rt.config.browser.headless),
        )

    async def _release(self, provider: Provider, log: LaneLog) -> None:
        release = getattr(provider, "release", None)  # optional: providers holding a browser
        if release is None:
            return
        try:
            await release()
        except Exception:
            log.exception("releasing the browser failed")


def lane_pacer(
    runtime: Runtime, accounts: Sequence[AccountConfig], providers: Mapping[str, Any]
) -> Pacer:
    """The web lane's pacer: each account's policy from its provider's adapter defaults
    (``pacing_defaults``, if the provider has an adapter) and its own ``pacing`` keys."""
    store = runtime.store

    def task_log(
        task_id: str,
        account_id: str,
        message: str,
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        store.log_event_soon(
            task_id,
            "log",
            f"[web {account_id}] {message}",
            lane="web",
            account_id=account_id,
            code=code,
            params=params,
        )

    return Pacer.for_accounts(
        accounts,
        lambda account_id: getattr(providers.get(account_id), "pacing_defaults", None),
        headless=runtime.config.browser.headless,
        clock=runtime.clock,
        store=PacingStore(store.engine),
        rng=runtime.rng,
        bus=store.bus,
        task_log=task_log,
        db=store.db,
    )
