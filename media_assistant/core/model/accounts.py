"""An account's runtime state as the store keeps it (the operator's toggle, a cool-down, a sticky
problem) and what it means at a given moment. The rows are the store's
(``core/store/accounts.py``); this record is what every reader gets."""

from __future__ import annotations

from dataclasses import dataclass

from media_assistant.core.model.states import AccountProblem, AccountState, ModelKind

MIN_CONCURRENCY = 1
MAX_CONCURRENCY = 5
# The cool-down reason under a "site changed" verdict while the account's own re-check of its
# site is due (core/lanes/site_recheck.py): the verdict holds it; this says when it looks again.
RECHECK_REASON = "site_recheck"


@dataclass(frozen=True, slots=True)
class AccountStatus:
    account_id: str
    kind: ModelKind
    enabled: bool
    problem: AccountProblem
    problem_detail: str | None
    cooldown_until: float | None
    cooldown_reason: str | None
    concurrency: int | None
    browser_pid: int | None
    browser_started_at: float | None
    # The error kind behind ``problem`` (captcha, profile_in_use, bad_config…; schema v6), so
    # a window can name it in words and keep ``problem_detail`` (the site's text) for a tooltip.
    problem_code: str | None = None
    # Raised by every change of the row: of two reads of one account, the newer wins.
    version: int = 0
    # Raised by each request for a fresh provider (enable, reset, a new key): a scheduler whose
    # provider was built at an older generation gives the account no work until it has built
    # one at this generation (core/lanes/live_accounts.py).
    rebuild_generation: int = 0
    # Team mode: the workstation a web account belongs to (its browser profile is there); None
    # for API accounts, which every workstation serves.
    workstation: str | None = None
    # An API account's limits for the whole team (the configs' values; ``concurrency`` above
    # is the operator's override of ``limit_concurrency``).
    limit_concurrency: int | None = None
    limit_rpm: int | None = None
    limit_tpm: int | None = None
    # The API key's identity (a keyed hash, core/store/key_gate.py): what the team-wide gate is
    # keyed by; None: the account's id.
    key_id: str | None = None

    def belongs_elsewhere(self, workstation: str) -> bool:
        """A web account another workstation holds: not ours to run."""
        return (
            self.kind is ModelKind.WEB
            and self.workstation is not None
            and self.workstation != workstation
        )

    @property
    def team_concurrency(self) -> int:
        """Requests in flight the whole team may have on this API account."""
        return self.concurrency or self.limit_concurrency or 3

    def api_limits(self) -> ApiLimits:
        """What a claim for this API account holds for the whole team (core/store/api_gate.py)."""
        return ApiLimits(
            min(self.team_concurrency, MAX_CONCURRENCY),
            self.limit_rpm,
            self.limit_tpm,
            gate=self.key_id,
        )

    def recheck_in(self, now: float) -> float | None:
        """Seconds until the account re-checks its changed site by itself, if it will."""
        if self.cooldown_reason != RECHECK_REASON or self.cooldown_until is None:
            return None
        return max(0.0, self.cooldown_until - now)

    def state(self, now: float) -> AccountState:
        if not self.enabled:
            return AccountState.DISABLED
        if self.problem is AccountProblem.NEEDS_LOGIN:
            return AccountState.NEEDS_LOGIN
        if self.problem is AccountProblem.CREDENTIALS_REJECTED:
            return AccountState.CREDENTIALS_REJECTED
        if self.problem is AccountProblem.NEEDS_ATTENTION:
            return AccountState.NEEDS_ATTENTION
        if self.cooldown_until is not None and self.cooldown_until > now:
            return AccountState.COOLING_DOWN
        return AccountState.ENABLED

    def reason(self, now: float) -> str:
        state = self.state(now)
        if state is AccountState.DISABLED:
            return "disabled by the operator"
        if self.problem.sticky:
            recheck = self.recheck_in(now)
            said = self.problem_detail or state.value
            if recheck is None:
                return said
            return f"{said}; re-checked by itself in {recheck / 60:.0f} min"
        if state is AccountState.COOLING_DOWN:
            left = (self.cooldown_until or now) - now
            return f"{self.cooldown_reason or 'cooling down'} ({left:.0f} s left)"
        return ""


@dataclass(frozen=True, slots=True)
class AccountDeclaration:
    """An account as a workstation's config declares it, for the account rows: what a new row
    starts with, and (API accounts) the limits the team shares."""

    account_id: str
    kind: ModelKind
    enabled: bool = True
    concurrency: int | None = None
    rpm: int | None = None
    tpm: int | None = None
    # API accounts in team mode: the key's identity (a keyed hash of the key and base URL,
    # core/store/key_gate.py), never the key; None when no key was found.
    key_id: str | None = None


@dataclass(frozen=True, slots=True)
class ApiLimits:
    """An API account's limits for every workstation together: requests in flight, requests
    and tokens per minute (None: no limit). ``gate``: what the slot and rate rows are keyed by
    (the key's identity; None: the account's id)."""

    concurrency: int
    rpm: int | None = None
    tpm: int | None = None
    gate: str | None = None
