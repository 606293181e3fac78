"""An account a verification page holds (issue 32): it waits for a person, and the operator's
*Show browser* puts the page in front of them.

While the account's problem is "captcha" (a challenge the page showed: core/lanes/attempt.py),
its worker does not claim: every :data:`CHALLENGE_POLL_S` it asks the provider whether the page
is past the verification (nothing is sent), and once it is, the problem is cleared and the
account works again by itself.

*Show browser* (the window's account menu) is served by the same worker, between two looks, so
the browser is never relaunched under a look or a task: the provider brings its window forward
(restored if minimised), or — a browser that runs without a window (``[browser] headless =
true``) — closes it and reopens the profile in a window, through the account's proxy, on the
page it was on (providers/web/browser.py ``AccountBrowser.show``). Each asker gets a
:class:`ShownBrowser`.
"""

from __future__ import annotations

import asyncio

from media_assistant.core.config.schema import AccountConfig
from media_assistant.core.files.locks import ProfileLock
from media_assistant.core.lanes.runtime import LaneLog, Runtime
from media_assistant.core.model.clock import wait_event
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.provider import (
    ChallengeWatch,
    Provider,
    ShownBrowser,
    ShowOutcome,
)
from media_assistant.core.model.states import AccountProblem

# How often the page of an account a verification holds is looked at (nothing is sent).
CHALLENGE_POLL_S = 2.0


class ChallengeHolds:
    """The web lane's accounts that wait for a person, and the *Show browser* asks on them."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._asks: dict[str, list[asyncio.Future[ShownBrowser]]] = {}

    def held(self, account_id: str) -> bool:
        """A verification page holds the account (and nothing else keeps it out of work)."""
        status = self.rt.accounts.statuses.get(account_id)
        return (
            status is not None
            and status.problem is AccountProblem.NEEDS_ATTENTION
            and status.problem_code == ErrorKind.CAPTCHA.value
            and status.enabled
        )

    def ask_show(self, account_id: str) -> asyncio.Future[ShownBrowser]:
        future: asyncio.Future[ShownBrowser] = asyncio.get_running_loop().create_future()
        self._asks.setdefault(account_id, []).append(future)
        if not self.held(account_id):
            self.settle(account_id, ShowOutcome.NOT_HELD)
        return future

    def settle(self, account_id: str, outcome: ShowOutcome, detail: str = "") -> None:
        """Every ask on the account gets ``outcome`` (no ask: nothing happens)."""
        self.answer(account_id, ShownBrowser(outcome, detail))

    def answer(self, account_id: str, shown: ShownBrowser) -> None:
        for future in self._asks.pop(account_id, []):
            if not future.done():
                future.set_result(shown)

    def cancel(self, account_id: str | None = None) -> None:
        """The account left, or the lane stops: nobody waits for its browser any more."""
        for key in [account_id] if account_id is not None else list(self._asks):
            for future in self._asks.pop(key, []):
                future.cancel()

    async def wait_for_person(
        self,
        account: AccountConfig,
        provider: Provider | None,
        wake: asyncio.Event,
        log: LaneLog,
        profile_lock: ProfileLock | None,
    ) -> bool:
        """One turn of the account's worker while a verification page holds it: a *Show
        browser* asked meanwhile is served, the page looked at, and the worker rests until the
        next look (or a wake-up). False: no verification holds the account (something else
        does, or nothing): the worker goes on as it would."""
        if not self.held(account.id) or not isinstance(provider, ChallengeWatch):
            self.settle(account.id, ShowOutcome.NOT_HELD)
            return False
        if self._asks.get(account.id):
            self.answer(account.id, await self._show(account, provider, log, profile_lock))
        try:
            passed = await provider.challenge_passed()
        except Exception:  # a browser gone meanwhile: the operator's Reset or Sign in helps
            log.debug("looking at the verification page failed", exc_info=True)
            passed = False
        if passed:
            await self.rt.accounts.clear_problem(account.id, cool_down_too=True)
            self.settle(account.id, ShowOutcome.PASSED)
            log.info("the verification page is past: the account works again")
            return True
        await wait_event(wake, CHALLENGE_POLL_S, self.rt.clock)
        return True

    async def _show(
        self,
        account: AccountConfig,
        provider: ChallengeWatch,
        log: LaneLog,
        profile_lock: ProfileLock | None,
    ) -> ShownBrowser:
        if profile_lock is not None and not profile_lock.held and not profile_lock.try_acquire():
            why = f"its browser profile {profile_lock.profile_dir} is in use by another program"
            return ShownBrowser(ShowOutcome.FAILED, why)
        try:
            shown = await provider.show_browser()
        except Exception as exc:  # a browser that cannot start here (no display, say)
            text = str(exc).strip()
            detail = text.splitlines()[0] if text else type(exc).__name__
            log.warning("could not show the browser for the verification page: %s", detail)
            return ShownBrowser(ShowOutcome.FAILED, detail)
        log.info(
            "browser shown for the verification page (%s)%s",
            shown.outcome.value,
            f": {shown.detail}" if shown.detail else "",
        )
        return shown
