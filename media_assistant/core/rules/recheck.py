"""When a web account held by "the site's page changed" is re-checked by itself (issue 27
item 8): the canary. A verdict holds the account for the operator; a site that was only down
or half-updated for a while comes back by itself, and the account should too. Its worker sends
the site check's one short prompt (providers/web/canary.py) ``first_s`` after the verdict, then
after twice the wait each time the check still fails, up to ``cap_s`` (by default 1, 2, 4, 8,
16, 30, 30 … minutes); a check whose every step passes lifts the verdict. Pure: the caller
gives the times (its clock, injectable: core/model/clock.py)."""

from __future__ import annotations

from media_assistant.core.model.accounts import RECHECK_REASON

__all__ = ["RECHECK_REASON", "Recheck"]


class Recheck:
    """One held account's re-checks: when the next is due."""

    def __init__(self, now: float, first_s: float, cap_s: float) -> None:
        self.first_s = first_s
        self.cap_s = max(cap_s, first_s)
        self.failures = 0
        self.due = now + self.wait_s

    @property
    def wait_s(self) -> float:
        """The wait before the next check: ``first_s`` doubled by each failed check, capped."""
        return min(self.first_s * 2.0**self.failures, self.cap_s)

    def failed(self, now: float) -> float:
        """A check failed at ``now``: the next one waits twice as long (capped); its wait."""
        self.failures += 1
        self.due = now + self.wait_s
        return self.wait_s
