"""Site checks asked of a running scheduler (the window's *Check site*, issue 21 item 1).

A check sends a prompt through the account's own page, so it goes where every prompt of that
account goes: into the account's worker in the web lane, which runs it between two tasks (never
while the account works: one generation per account), once the account's pacing lets a prompt
go and a cool-down is over. An account waiting for the operator (the site's page changed, a
login to redo) or switched off is checked all the same: that is when a check is wanted. A
rebuild under way (a fixed adapter installed) is waited for, so the check uses the new file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from media_assistant.core.rules.site_breakage import (
    AdapterStep,
    SiteCheckReport,
    StepResult,
    StepStatus,
    full_report,
)

# A provider's check: ``WebProvider.check_site`` (the report, and an outcome for the pacer).
CheckSite = Callable[[], Awaitable[tuple[SiteCheckReport, Any]]]


class SiteChecks:
    """The checks waiting for each account's worker; each asker gets the report."""

    def __init__(self) -> None:
        self._pending: dict[str, list[asyncio.Future[SiteCheckReport]]] = {}

    def ask(self, account_id: str) -> asyncio.Future[SiteCheckReport]:
        future: asyncio.Future[SiteCheckReport] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(account_id, []).append(future)
        return future

    def pending(self, account_id: str) -> bool:
        waiting = self._pending.get(account_id, [])
        waiting[:] = [f for f in waiting if not f.done()]  # an asker that gave up
        return bool(waiting)

    def finish(self, account_id: str, report: SiteCheckReport) -> None:
        """Every check asked of the account so far gets this report (one prompt serves all)."""
        for future in self._pending.pop(account_id, []):
            if not future.done():
                future.set_result(report)

    def cancel(self, account_id: str | None = None) -> None:
        """The account left, or the scheduler stops: nobody waits for a check any more."""
        for key in [account_id] if account_id is not None else list(self._pending):
            for future in self._pending.pop(key, []):
                future.cancel()


class SiteRepairs:
    """Repairs asked of an account's worker (the window's *Repair…*, issue 33): served like a
    check, between two tasks, by the provider's ``repair_site`` (several short prompts); each
    asker gets the provider's result (a ``providers.web.repair.RepairResult``), or None when
    the account's provider cannot repair its page."""

    def __init__(self) -> None:
        self._pending: dict[str, list[asyncio.Future[Any]]] = {}

    def ask(self, account_id: str) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(account_id, []).append(future)
        return future

    def pending(self, account_id: str) -> bool:
        waiting = self._pending.get(account_id, [])
        waiting[:] = [f for f in waiting if not f.done()]
        return bool(waiting)

    def finish(self, account_id: str, result: Any) -> None:
        for future in self._pending.pop(account_id, []):
            if not future.done():
                future.set_result(result)

    def cancel(self, account_id: str | None = None) -> None:
        for key in [account_id] if account_id is not None else list(self._pending):
            for future in self._pending.pop(key, []):
                future.cancel()


def not_run(account_id: str, site: str, why: str) -> SiteCheckReport:
    """A check that could not send its prompt (the profile held elsewhere, no page driver)."""
    failed = StepResult(AdapterStep.PAGE_LOADED, StepStatus.FAILED, why, 0.0)
    return full_report(account_id, site, [failed], reason=why)
