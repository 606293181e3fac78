"""Pacing and risk guard for web accounts: how often one account may send a prompt.

Pure logic: no I/O, no clock of its own (``now`` is passed in), so the same functions serve the
web lane (:mod:`media_assistant.core.accounts.pacer`), ``status``, the accounts panel and the lane
ETA, and unit tests run a day of pacing in milliseconds.

Why: users of comparable tools lose whole pools of web accounts after a night of back-to-back
prompts; the public douzhi-chat tool (``src/core/risk-guard.ts``) paces every site it drives.
Its rules, which the built-in adapters' ``[pacing]`` tables follow (numbers and sources there):

- a minimum gap between prompts (ours is measured from the *end* of one answer to the next
  prompt, so a long answer does not eat the pause), longer with a headless browser;
- at most N prompts per sliding window; optionally a daily cap and active hours (local time);
- risk signals (captcha, rate-limit, busy / "generation paused", login lost, site conflict)
  start a cooldown of their own length; a repeat of the same kind without a success in between
  multiplies it by ``escalation`` (capped at ``max_cooldown_s``);
- ``risk_events`` risk signals in a row (no successful answer between them) within
  ``risk_window_s`` pause the account for ``risk_pause_s`` and the operator is told.

Every limit is optional: a key left out (in the account's ``pacing`` and in its adapter's
``[pacing]``) is no limit; ``0`` switches off a limit an adapter sets.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from media_assistant.core.model.errors import ErrorKind, RuleBroken

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)

# Risk signals, by the error kind a web attempt ended with.
RISK_KINDS: dict[ErrorKind, str] = {
    ErrorKind.CAPTCHA: "captcha",
    ErrorKind.RATE_LIMITED: "rate_limited",
    ErrorKind.SITE_BUSY: "busy",
    ErrorKind.LOGIN_REQUIRED: "login_lost",
    ErrorKind.SESSION_CONFLICT: "conflict",
}
RISK_KIND_NAMES = tuple(RISK_KINDS.values())

DEFAULT_WINDOW_S = 1800.0  # when max_per_window is set without window_s (douzhi-chat: 30 min)
DEFAULT_RISK_WINDOW_S = 86400.0  # douzhi-chat keeps risk events for 24 h
DEFAULT_RISK_PAUSE_S = 6 * 3600.0  # douzhi-chat breakerDurationMs: 6 h
DAY_S = 86400.0

_HOURS = re.compile(r"^([01]\d|2[0-4]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$")


class CooldownsConfig(BaseModel):
    """Seconds an account rests after each kind of risk signal (0: no cooldown)."""

    model_config = _STRICT
    captcha: float | None = Field(None, ge=0)
    rate_limited: float | None = Field(None, ge=0)
    busy: float | None = Field(None, ge=0)
    login_lost: float | None = Field(None, ge=0)
    conflict: float | None = Field(None, ge=0)


class PacingConfig(BaseModel):
    """The ``pacing`` keys, as an account (``pacing = {...}``) or an adapter (``[pacing]``) sets
    them. Every key is optional; the account's value wins over the adapter's, key by key."""

    model_config = _STRICT
    min_gap_s: float | None = Field(
        None, ge=0, description="From the end of one answer to the next prompt."
    )
    min_gap_headless_s: float | None = Field(
        None, ge=0, description="Instead of min_gap_s when [browser] headless = true."
    )
    jitter_s: float | None = Field(
        None, ge=0, description="A random 0..jitter_s added to every gap (no fixed rhythm)."
    )
    max_per_window: int | None = Field(None, ge=0, description="Prompts per sliding window.")
    window_s: float | None = Field(None, gt=0, description="The window (default 1800 s).")
    daily_cap: int | None = Field(None, ge=0, description="Prompts per local calendar day.")
    active_hours: str | None = Field(
        None, description='Local time, e.g. "08:00-23:00" (may wrap midnight: "22:00-06:00").'
    )
    cooldowns: CooldownsConfig | None = None
    escalation: float | None = Field(
        None, ge=1, description="Each repeat of a risk kind in a row multiplies its cooldown."
    )
    max_cooldown_s: float | None = Field(None, gt=0, description="Cap of escalated cooldowns.")
    risk_events: int | None = Field(
        None, ge=0, description="This many risk signals in a row pause the account."
    )
    risk_window_s: float | None = Field(None, gt=0, description="...within this long.")
    risk_pause_s: float | None = Field(None, ge=0, description="The pause (default 6 h).")

    @field_validator("active_hours")
    @classmethod
    def _hours(cls, value: str | None) -> str | None:
        if value is not None:
            parse_active_hours(value)
        return value


def parse_active_hours(text: str) -> tuple[int, int]:
    """``"08:00-23:00"`` → minutes of the day (480, 1380). Start == end is refused."""
    m = _HOURS.match(text.strip())
    if m is None:
        raise RuleBroken(
            "active_hours_format", 'active_hours must look like "08:00-23:00" (local time, 24-hour)'
        )
    start, end = int(m[1]) * 60 + int(m[2]), int(m[3]) * 60 + int(m[4])
    if start > 1440 or end > 1440:
        raise RuleBroken("active_hours_late", "active_hours: 24:00 is the latest time")
    if start == end:
        raise RuleBroken("active_hours_empty", "active_hours: start and end are the same")
    return start, end


@dataclass(frozen=True, slots=True)
class PacingPolicy:
    """The limits in force for one account (adapter defaults + the account's own keys)."""

    min_gap_s: float = 0.0
    jitter_s: float = 0.0
    max_per_window: int = 0  # 0: no window limit
    window_s: float = DEFAULT_WINDOW_S
    daily_cap: int = 0  # 0: no cap
    active_hours: tuple[int, int] | None = None  # minutes of the day, local time
    active_hours_text: str | None = None
    cooldowns: dict[str, float] = field(default_factory=dict)
    escalation: float = 1.0
    max_cooldown_s: float = DEFAULT_RISK_PAUSE_S
    risk_events: int = 0  # 0: never pause
    risk_window_s: float = DEFAULT_RISK_WINDOW_S
    risk_pause_s: float = DEFAULT_RISK_PAUSE_S

    @property
    def limits_anything(self) -> bool:
        return bool(
            self.min_gap_s
            or self.jitter_s
            or self.max_per_window
            or self.daily_cap
            or self.active_hours
            or any(self.cooldowns.values())
            or self.risk_events
        )

    @property
    def mean_gap_s(self) -> float:
        return self.min_gap_s + self.jitter_s / 2


NO_PACING = PacingPolicy()


def resolve_policy(
    adapter: PacingConfig | None, account: PacingConfig | None, *, headless: bool
) -> PacingPolicy:
    """Merge key by key: the account's value, else the adapter's, else no limit."""

    def pick(name: str) -> Any:
        for layer in (account, adapter):
            if layer is not None and getattr(layer, name) is not None:
                return getattr(layer, name)
        return None

    gap = pick("min_gap_headless_s") if headless else None
    if gap is None:
        gap = pick("min_gap_s")
    cooldowns: dict[str, float] = {}
    for kind in RISK_KIND_NAMES:
        for layer in (account, adapter):
            value = getattr(layer.cooldowns, kind) if layer and layer.cooldowns else None
            if value is not None:
                cooldowns[kind] = float(value)
                break
    hours = pick("active_hours")
    window = pick("window_s")
    return PacingPolicy(
        min_gap_s=float(gap or 0.0),
        jitter_s=float(pick("jitter_s") or 0.0),
        max_per_window=int(pick("max_per_window") or 0),
        window_s=float(window) if window is not None else DEFAULT_WINDOW_S,
        daily_cap=int(pick("daily_cap") or 0),
        active_hours=parse_active_hours(hours) if hours else None,
        active_hours_text=hours,
        cooldowns={k: v for k, v in cooldowns.items() if v > 0},
        escalation=float(pick("escalation") or 1.0),
        max_cooldown_s=float(pick("max_cooldown_s") or DEFAULT_RISK_PAUSE_S),
        risk_events=int(pick("risk_events") or 0),
        risk_window_s=float(pick("risk_window_s") or DEFAULT_RISK_WINDOW_S),
        risk_pause_s=float(
            pick("risk_pause_s") if pick("risk_pause_s") is not None else DEFAULT_RISK_PAUSE_S
        ),
    )


# ------------------------------------------------------------------------------------- state


@dataclass(slots=True)
class PacingState:
    """What pacing remembers about one account (persisted as JSON; survives a restart)."""

    last_end_at: float | None = None
    next_gap_s: float = 0.0  # the gap (jitter included) chosen when the last answer ended
    starts: list[float] = field(default_factory=list)  # prompt times inside the window
    day: str | None = None  # local date of day_count ("2026-12-01")
    day_count: int = 0
    cooldown_kind: str | None = None
    cooldown_until: float | None = None
    streak: list[tuple[float, str]] = field(default_factory=list)  # risk events since a success
    paused_until: float | None = None
    pause_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "last_end_at": self.last_end_at,
            "next_gap_s": self.next_gap_s,
            "starts": self.starts,
            "day": self.day,
            "day_count": self.day_count,
            "cooldown_kind": self.cooldown_kind,
            "cooldown_until": self.cooldown_until,
            "streak": [[at, kind] for at, kind in self.streak],
            "paused_until": self.paused_until,
            "pause_reason": self.pause_reason,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PacingState:
        """Tolerant: a value of the wrong type is dropped, not trusted (the row is ours, but a
        damaged one must not stop the account)."""

        def num(key: str) -> float | None:
            value = data.get(key)
            return float(value) if isinstance(value, int | float) else None

        def text(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        starts = data.get("starts")
        streak = data.get("streak")
        count = data.get("day_count")
        return cls(
            last_end_at=num("last_end_at"),
            next_gap_s=num("next_gap_s") or 0.0,
            starts=[float(s) for s in starts if isinstance(s, int | float)]
            if isinstance(starts, list)
            else [],
            day=text("day"),
            day_count=count if isinstance(count, int) else 0,
            cooldown_kind=text("cooldown_kind"),
            cooldown_until=num("cooldown_until"),
            streak=[
                (float(e[0]), str(e[1]))
                for e in streak
                if isinstance(e, list) and len(e) == 2 and isinstance(e[0], int | float)
            ]
            if isinstance(streak, list)
            else [],
            paused_until=num("paused_until"),
            pause_reason=text("pause_reason"),
        )


class Hold(StrEnum):
    """Why an account may not send its next prompt yet (in order of how long they last)."""

    READY = "ready"
    GAP = "gap"  # min_gap_s (+ jitter) since the last answer ended
    WINDOW = "window"  # max_per_window prompts in the last window_s
    DAILY_CAP = "daily_cap"
    OFF_HOURS = "off_hours"  # outside active_hours
    COOLDOWN = "cooldown"  # after a risk signal
    PAUSED = "paused"  # risk_events in a row: paused for hours


@dataclass(frozen=True, slots=True)
class Gate:
    ready_at: float
    hold: Hold

    def wait_s(self, now: float) -> float:
        return max(0.0, self.ready_at - now)


def local_date(ts: float, tz: dt.tzinfo | None) -> dt.date:
    return dt.datetime.fromtimestamp(ts, tz).date()


def _next_midnight(ts: float, tz: dt.tzinfo | None) -> float:
    day = local_date(ts, tz) + dt.timedelta(days=1)
    return _at(day, 0, tz)


def _at(day: dt.date, minute: int, tz: dt.tzinfo | None) -> float:
    """``minute`` past midnight of ``day`` (tz None: the OS's local time)."""
    moment = dt.datetime(day.year, day.month, day.day, tzinfo=tz) + dt.timedelta(minutes=minute)
    return moment.timestamp()


def in_active_hours(ts: float, hours: tuple[int, int], tz: dt.tzinfo | None) -> bool:
    t = dt.datetime.fromtimestamp(ts, tz)
    minute = t.hour * 60 + t.minute
    start, end = hours
    return start <= minute < end if start < end else (minute >= start or minute < end)


def next_opening(ts: float, hours: tuple[int, int], tz: dt.tzinfo | None) -> float:
    """The first moment at or after ``ts`` inside the active hours."""
    if in_active_hours(ts, hours, tz):
        return ts
    day = local_date(ts, tz)
    for offset in (0, 1, 2):
        opening = _at(day + dt.timedelta(days=offset), hours[0], tz)
        if opening >= ts:
            return opening
    return ts  # unreachable for valid hours


def count_on_day(state: PacingState, ts: float, tz: dt.tzinfo | None) -> int:
    return state.day_count if state.day == local_date(ts, tz).isoformat() else 0


def in_window(starts: list[float], policy: PacingPolicy, ts: float) -> list[float]:
    return [s for s in starts if ts - policy.window_s < s <= ts]


def gate(
    policy: PacingPolicy,
    state: PacingState,
    now: float,
    tz: dt.tzinfo | None = None,
    *,
    extra_starts: list[float] | None = None,
    extra_day: tuple[str, int] | None = None,
) -> Gate:
    """The earliest time the account may send its next prompt, and what holds it until then.

    Constraints are applied until none moves the time any more (getting past a full window may
    land outside the active hours, the next morning may be past the daily cap...).
    """
    starts = state.starts if extra_starts is None else [*state.starts, *extra_starts]
    t, hold = now, Hold.READY
    for _ in range(16):
        moved_to, why = t, hold
        if state.paused_until is not None and state.paused_until > moved_to:
            moved_to, why = state.paused_until, Hold.PAUSED
        if state.cooldown_until is not None and state.cooldown_until > moved_to:
            moved_to, why = state.cooldown_until, Hold.COOLDOWN
        if state.last_end_at is not None and state.last_end_at + state.next_gap_s > moved_to:
            moved_to, why = state.last_end_at + state.next_gap_s, Hold.GAP
        if policy.max_per_window:
            recent = sorted(in_window(starts, policy, moved_to))
            if len(recent) >= policy.max_per_window:
                free_at = recent[len(recent) - policy.max_per_window] + policy.window_s
                if free_at > moved_to:
                    moved_to, why = free_at, Hold.WINDOW
        if policy.daily_cap:
            used = count_on_day(state, moved_to, tz)
            if extra_day is not None and extra_day[0] == local_date(moved_to, tz).isoformat():
                used = extra_day[1]
            if used >= policy.daily_cap:
                moved_to, why = _next_midnight(moved_to, tz), Hold.DAILY_CAP
        if policy.active_hours is not None:
            opening = next_opening(moved_to, policy.active_hours, tz)
            if opening > moved_to:
                moved_to, why = opening, Hold.OFF_HOURS
        if moved_to == t:
            break
        t, hold = moved_to, why
    return Gate(t, hold)


def record_start(
    policy: PacingPolicy, state: PacingState, now: float, tz: dt.tzinfo | None = None
) -> None:
    """A prompt is about to be sent on the account."""
    keep_after = now - max(policy.window_s, 1.0)
    state.starts = [s for s in state.starts if s > keep_after] + [now]
    today = local_date(now, tz).isoformat()
    state.day_count = (state.day_count if state.day == today else 0) + 1
    state.day = today


@dataclass(frozen=True, slots=True)
class RiskNote:
    """What a risk signal did to the account (the lane logs it; a pause is told the operator)."""

    kind: str
    cooldown_s: float
    repeats: int  # earlier signals of this kind in the current streak
    paused_until: float | None  # set when this signal paused the account
    streak: tuple[str, ...]  # the kinds in a row, oldest first


def record_end(
    policy: PacingPolicy,
    state: PacingState,
    now: float,
    *,
    success: bool,
    error: ErrorKind | None,
    rng: random.Random,
) -> RiskNote | None:
    """An attempt on the account ended (answer, failure, cancel or shutdown)."""
    state.last_end_at = now
    jitter = rng.uniform(0.0, policy.jitter_s) if policy.jitter_s else 0.0
    state.next_gap_s = policy.min_gap_s + jitter
    if success:
        state.streak = []
        return None
    kind = RISK_KINDS.get(error) if error is not None else None
    if kind is None:
        return None  # a timeout, a crash: neither a risk signal nor proof that all is well
    state.streak = [(at, k) for at, k in state.streak if at > now - policy.risk_window_s]
    repeats = sum(1 for _, k in state.streak if k == kind)
    state.streak.append((now, kind))
    base = policy.cooldowns.get(kind, 0.0)
    cooldown = min(base * policy.escalation**repeats, max(policy.max_cooldown_s, base))
    if cooldown > 0 and (state.cooldown_until is None or now + cooldown > state.cooldown_until):
        state.cooldown_until = now + cooldown
        state.cooldown_kind = kind
    paused_until = None
    if policy.risk_events and len(state.streak) >= policy.risk_events and policy.risk_pause_s:
        paused_until = now + policy.risk_pause_s
        if state.paused_until is None or paused_until > state.paused_until:
            state.paused_until = paused_until
            state.pause_reason = ", ".join(k for _, k in state.streak[-policy.risk_events :])
    return RiskNote(kind, cooldown, repeats, paused_until, tuple(k for _, k in state.streak))


# A saved time may lie this far ahead of now before the clock is taken to have moved back
# (the server-aligned clock of team mode may move back by its measuring error, milliseconds).
CLOCK_BACK_TOLERANCE_S = 1.0


def rebase(state: PacingState, now: float, tz: dt.tzinfo | None = None) -> float:
    """Move the state's times back by as much as the wall clock moved back since they were
    recorded; return that amount (0.0: nothing to move).

    Every time in the state was ``now`` when it was recorded (or ``now`` plus a cooldown or a
    pause), so one lying ahead of now means the clock stepped back since — an NTP correction of
    a PC that ran fast, a hand fix. Left as they were, the gap would last longer by the step,
    and a step back across midnight would count the day's prompts on tomorrow: an account that
    just filled its daily cap would then wait until the day *after* tomorrow. So every time
    moves back by the step (the latest recorded moment becomes now), cooldowns and pauses keep
    their length, and the day count is dated anew by the last prompt's moved time. Prompts the
    fast clock had already counted on the earlier day are not added back: the count errs low."""
    latest = max(
        [
            *state.starts,
            *(at for at, _ in state.streak),
            *([state.last_end_at] if state.last_end_at is not None else []),
        ],
        default=None,
    )
    if latest is None or latest <= now + CLOCK_BACK_TOLERANCE_S:
        return 0.0
    step = latest - now
    state.starts = [s - step for s in state.starts]
    state.streak = [(at - step, kind) for at, kind in state.streak]
    if state.last_end_at is not None:
        state.last_end_at -= step
    if state.cooldown_until is not None:
        state.cooldown_until -= step
    if state.paused_until is not None:
        state.paused_until -= step
    if state.starts and state.day is not None:
        state.day = local_date(max(state.starts), tz).isoformat()
    return step


def clear_holds(state: PacingState) -> None:
    """The operator's "it is fine now": cooldown and pause end; counts and the gap stay."""
    state.cooldown_until = state.cooldown_kind = None
    state.paused_until = state.pause_reason = None
    state.streak = []


# ------------------------------------------------------------------------------------- views


@dataclass(frozen=True, slots=True)
class PacingView:
    """One account's pacing at ``now``, for the accounts panel, ``status`` and the ETA."""

    hold: Hold
    wait_s: float
    ready_at: float
    window_used: int | None  # None: no window limit
    window_limit: int | None
    window_s: float
    today_used: int
    daily_cap: int | None
    cooldown_kind: str | None
    pause_reason: str | None
    active_hours: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "hold": self.hold.value,
            "wait_s": round(self.wait_s, 1),
            "ready_at": self.ready_at,
            "window": None
            if self.window_limit is None
            else {"used": self.window_used, "limit": self.window_limit, "window_s": self.window_s},
            "today": {"used": self.today_used, "cap": self.daily_cap},
            "cooldown_kind": self.cooldown_kind,
            "pause_reason": self.pause_reason,
            "active_hours": self.active_hours,
        }


def view(
    policy: PacingPolicy, state: PacingState, now: float, tz: dt.tzinfo | None = None
) -> PacingView:
    g = gate(policy, state, now, tz)
    return PacingView(
        hold=g.hold,
        wait_s=g.wait_s(now),
        ready_at=g.ready_at,
        window_used=len(in_window(state.starts, policy, now)) if policy.max_per_window else None,
        window_limit=policy.max_per_window or None,
        window_s=policy.window_s,
        today_used=count_on_day(state, now, tz),
        daily_cap=policy.daily_cap or None,
        cooldown_kind=state.cooldown_kind if g.hold is Hold.COOLDOWN else None,
        pause_reason=state.pause_reason if g.hold is Hold.PAUSED else None,
        active_hours=policy.active_hours_text,
    )


def clock_text(seconds: float) -> str:
    """``1:42``, ``12:05``, ``1:02:05``: a countdown."""
    total = max(0, math.ceil(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def minutes_text(seconds: float) -> str:
    """``44 min``, ``2 h 05 min``: a long wait."""
    minutes = max(1, math.ceil(seconds / 60))
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def window_text(seconds: float) -> str:
    """``30 min``, ``1 h``, ``90 s``: the length of a window."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds % 3600 == 0:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 60:.0f} min"


def time_of_day(ts: float, now: float, tz: dt.tzinfo | None = None) -> str:
    """``08:00`` within the next day, ``12-03 08:00`` beyond."""
    moment = dt.datetime.fromtimestamp(ts, tz)
    if ts - now < DAY_S - 60:
        return moment.strftime("%H:%M")
    return moment.strftime("%m-%d %H:%M")


def describe(v: PacingView, now: float, tz: dt.tzinfo | None = None) -> str:
    """English words for ``status`` and logs (the GUI builds translated ones from the view)."""
    parts: list[str] = []
    if v.hold is Hold.GAP:
        parts.append(f"next task in {clock_text(v.wait_s)}")
    elif v.hold is Hold.WINDOW:
        parts.append(f"window full, next task in {clock_text(v.wait_s)}")
    elif v.hold is Hold.COOLDOWN:
        parts.append(f"cooling down: {v.cooldown_kind}, {minutes_text(v.wait_s)}")
    elif v.hold is Hold.PAUSED:
        parts.append(
            f"paused until {time_of_day(v.ready_at, now, tz)} "
            f"(risk events in a row: {v.pause_reason})"
        )
    elif v.hold is Hold.OFF_HOURS:
        parts.append(
            f"paused until {time_of_day(v.ready_at, now, tz)} (active hours {v.active_hours})"
        )
    elif v.hold is Hold.DAILY_CAP:
        parts.append(f"daily cap reached, paused until {time_of_day(v.ready_at, now, tz)}")
    if v.window_limit is not None:
        parts.append(f"{v.window_used} of {v.window_limit} in {window_text(v.window_s)}")
    if v.daily_cap is not None:
        parts.append(f"{v.today_used} of {v.daily_cap} today")
    return " · ".join(parts)


# ------------------------------------------------------------------------------------- ETA


class PacingPlanner:
    """Pacing on paper, for the lane ETA: when would this account start each next task?

    A copy of the account's state that the ETA's list scheduling advances task by task; gaps
    after the first use the mean jitter. Cooldowns and pauses already running are kept; new
    risk signals are not predicted.
    """

    __slots__ = ("_policy", "_state", "_tz")

    def __init__(
        self, policy: PacingPolicy, state: PacingState, tz: dt.tzinfo | None = None
    ) -> None:
        self._policy = policy
        self._state = PacingState(
            last_end_at=state.last_end_at,
            next_gap_s=state.next_gap_s,
            starts=list(state.starts),
            day=state.day,
            day_count=state.day_count,
            cooldown_kind=state.cooldown_kind,
            cooldown_until=state.cooldown_until,
            paused_until=state.paused_until,
        )
        self._tz = tz

    def fresh(self) -> PacingPlanner:
        """A copy to plan with (planning advances the copy, never this one)."""
        return PacingPlanner(self._policy, self._state, self._tz)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PacingPlanner)
            and self._policy == other._policy
            and self._state == other._state
        )

    __hash__ = None  # type: ignore[assignment]

    def start_after(self, free_at: float) -> float:
        """The start of the next task on an account whose slot is free at ``free_at``."""
        return gate(self._policy, self._state, free_at, self._tz).ready_at

    def running_until(self, end: float) -> None:
        """A task already running ends at ``end``: the next gap counts from there."""
        self._state.last_end_at = end
        self._state.next_gap_s = self._policy.mean_gap_s

    def commit(self, start: float, end: float) -> None:
        """A planned task from ``start`` to ``end``."""
        record_start(self._policy, self._state, start, self._tz)
        self._state.last_end_at = end
        self._state.next_gap_s = self._policy.mean_gap_s
