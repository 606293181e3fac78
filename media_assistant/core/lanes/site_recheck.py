"""The canary: a web account held by "the site's page changed" re-checks its site by itself
(issue 27 item 8), with back-off (core/rules/recheck.py), and works again once the check's every
step passes.

Its worker does it, between nothing — the account takes no task while held — so the rule "one
generation per account" holds; the check is a prompt like any other, so the account's pacing
lets it go first. While a re-check is due, the account's row says when (a cool-down with reason
``site_recheck``, under the verdict): ``status`` and the window show it. Between checks the
browser is closed and the profile let go of, as for any held account (``accounts login`` may
open it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from media_assistant.core.model.clock import Clock, wait_event
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.states import AccountProblem
from media_assistant.core.rules.recheck import RECHECK_REASON, Recheck

if TYPE_CHECKING:
    from media_assistant.core.accounts.pacer import Pacer
    from media_assistant.core.config.schema import AccountConfig
    from media_assistant.core.files.locks import ProfileLock
    from media_assistant.core.lanes.runtime import LaneLog, Runtime
    from media_assistant.core.model.provider import Provider

log = logging.getLogger(__name__)


class RecheckLane(Protocol):
    """What the re-checks use of the web lane (core/lanes/web.py, which owns them: a protocol,
    so the two modules do not import each other)."""

    rt: Runtime
    providers: Mapping[str, Provider]
    pacer: Pacer
    _wakes: dict[str, asyncio.Event]

    def provider_for(self, account_id: str) -> Provider: ...

    async def done_with(self, provider: Provider) -> None: ...

    async def _release(self, provider: Provider, log: LaneLog) -> None: ...


class SiteRechecks:
    """Each held account's re-checks, for one web lane. ``clock``: the back-off's (the lane's
    runtime clock unless a test injects one)."""

    def __init__(self, lane: RecheckLane, clock: Clock | None = None) -> None:
        self.lane = lane
        self.clock = clock
        self._held: dict[str, Recheck] = {}

    def _clock(self) -> Clock:
        return self.clock or self.lane.rt.clock

    def held(self, account_id: str) -> bool:
        """The account waits for the operator because its site's page changed, and a re-check
        can be run (its provider has a site check; re-checks are on)."""
        status = self.lane.rt.accounts.statuses.get(account_id)
        provider = self.lane.providers.get(account_id)
        return (
            status is not None
            and status.enabled
            and status.problem is AccountProblem.NEEDS_ATTENTION
            and status.problem_code == ErrorKind.SITE_CHANGED.value
            and self.lane.rt.config.sites.recheck_first_s > 0
            and getattr(provider, "check_site", None) is not None
        )

    async def serve(
        self, account: AccountConfig, profile_lock: ProfileLock | None, lane_log: LaneLog
    ) -> bool:
        """Wait for the account's next re-check, or run it; False when the account is not
        held by a site verdict (the caller waits as for any unavailable account)."""
        if not self.held(account.id):
            self._held.pop(account.id, None)
            return False
        clock, wake = self._clock(), self.lane._wakes[account.id]
        recheck = self._held.get(account.id)
        if recheck is None:
            sites = self.lane.rt.config.sites
            recheck = Recheck(clock.monotonic(), sites.recheck_first_s, sites.recheck_max_s)
            self._held[account.id] = recheck
            await self._due_in(account.id, recheck.wait_s, lane_log)
        left = recheck.due - clock.monotonic()
        if left > 0:
            await wait_event(wake, left, clock)
            return True
        paced = self.lane.pacer.wait_s(account.id)
        if paced > 0:
            await wait_event(wake, min(paced, self.lane.rt.idle_poll_s), self.lane.rt.clock)
            return True
        if profile_lock is not None and not profile_lock.held and not profile_lock.try_acquire():
            lane_log.info("site re-check: the profile is in use by another process; later")
            await self._due_in(account.id, recheck.failed(clock.monotonic()), lane_log)
            return True
        if await self._check(account, lane_log):
            self._held.pop(account.id, None)
            await self.lane.rt.accounts.clear_problem(account.id, cool_down_too=True)
            lane_log.warning(
                "notice: the site check passed every step: the verdict \"the site's page "
                'changed" is lifted and the account works again'
            )
            return True
        await self._due_in(account.id, recheck.failed(clock.monotonic()), lane_log)
        if profile_lock is not None and profile_lock.held:
            await self.lane._release(self.lane.providers[account.id], lane_log)
            profile_lock.release()
        return True

    async def _check(self, account: AccountConfig, lane_log: LaneLog) -> bool:
        """The site check's prompt through the account's page: True if every step passed."""
        lane = self.lane
        provider = lane.provider_for(account.id)
        check = getattr(provider, "check_site", None)
        if check is None:
            return False
        lane_log.info("site re-check: one short prompt through the page")
        outcome: object = None
        lane.pacer.started(account.id)
        try:
            report, outcome = await check()
        except Exception:  # a browser gone, a page that would not load: still failing
            lane_log.warning("site re-check could not run", exc_info=True)
            return False
        finally:
            lane.pacer.ended(account.id, f"site-recheck:{account.id}", outcome)
            await lane.done_with(provider)
        if not report.ok:
            lane_log.warning("site re-check: %s", report.lines()[0])
        return bool(report.ok)

    async def _due_in(self, account_id: str, seconds: float, lane_log: LaneLog) -> None:
        """Said on the account's row (``status``, the window) and in the log."""
        await self.lane.rt.accounts.cool_down(account_id, seconds, RECHECK_REASON)
        lane_log.warning(
            "the site's page changed: the account re-checks it by itself in %s",
            _minutes(seconds),
        )


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.0f} s"
