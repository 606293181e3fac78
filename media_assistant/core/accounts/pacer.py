"""The web lane's pacing of each account: the pure rules of :mod:`core.rules.pacing`, with state
kept in memory and on disk (:mod:`core.store.pacing`), one instance per scheduler.

The web lane asks :meth:`Pacer.wait_s` before it claims a task for an account and tells
:meth:`Pacer.started` / :meth:`Pacer.ended` around each attempt. A paced account simply does
not claim: its tasks stay in the queue for the other accounts, and the API lane never asks.
Accounts whose policy limits nothing are never written to disk (the simulator, the demo).

The lane asks on the event loop, so with database threads (``db``) nothing here waits for the
database: the state is read once at start (:meth:`Pacer.load`), saves are queued on the writer,
and a held account's row is re-read on the writer too (after the saves queued before it, so a
re-read never brings back a state older than one this process saved) and applied when it comes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import logging
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from media_assistant.core.config.schema import AccountConfig
from media_assistant.core.model.clock import Clock
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import AccountChanged, EventBus
from media_assistant.core.rules.pacing import (
    NO_PACING,
    Gate,
    Hold,
    PacingPlanner,
    PacingPolicy,
    PacingState,
    PacingView,
    RiskNote,
    clear_holds,
    describe,
    gate,
    minutes_text,
    rebase,
    record_end,
    record_start,
    resolve_policy,
    time_of_day,
    view,
)
from media_assistant.core.store.pacing import PacingStore
from media_assistant.core.store.threads import DbThreads

log = logging.getLogger("media_assistant.lanes.web")

# While a cooldown or pause holds an account, its row is re-read at most this often, so an
# operator's `accounts clear-pacing` from another process takes effect.
RELOAD_EVERY_S = 1.0

# (task_id, account_id, message, code, params)
TaskLogger = Callable[[str, str, str, EventCode | None, Mapping[str, Any] | None], None]


class Pacer:
    def __init__(
        self,
        policies: Mapping[str, PacingPolicy],
        clock: Clock,
        store: PacingStore | None = None,
        *,
        rng: random.Random | None = None,
        bus: EventBus | None = None,
        task_log: TaskLogger | None = None,
        tz: dt.tzinfo | None = None,
        db: DbThreads | None = None,
    ) -> None:
        self.policies = {k: v for k, v in policies.items() if v.limits_anything}
        self.clock = clock
        self.store = store
        self.rng = rng or random.Random()
        self.bus = bus
        self.task_log = task_log
        self.tz = tz
        self.db = db
        self.states: dict[str, PacingState] = {}
        self._reloaded: dict[str, float] = {}
        self._saves: dict[str, int] = {}  # per account: saves asked for (a re-read older than
        self._reloading: set[str] = set()  # the last one is not applied)
        if store is not None and self.policies and db is None:
            self._loaded(self._read_all())

    def _read_all(self) -> dict[str, PacingState]:
        assert self.store is not None
        try:
            return self.store.load_all()
        except SQLAlchemyError as exc:
            log.warning("[web] pacing state not read (%s): starting from none", exc)
            return {}

    def _loaded(self, loaded: Mapping[str, PacingState]) -> None:
        self.states = {k: v for k, v in loaded.items() if k in self.policies}

    async def load(self) -> None:
        """Read the saved states (with database threads: on a reader, awaited)."""
        if self.store is not None and self.policies and self.db is not None:
            self._loaded(await self.db.read(self._read_all))

    def set_policy(self, account_id: str, policy: PacingPolicy) -> None:
        """An account added or edited while the scheduler runs (or its adapter fixed)."""
        if not policy.limits_anything:
            self.forget(account_id)
            return
        known = account_id in self.policies
        self.policies[account_id] = policy
        if not known and self.store is not None:
            self._reload(account_id, force=True)  # what an earlier run saved (caps, pauses)

    def forget(self, account_id: str) -> None:
        """No pacing for this account any more (removed, or nothing limits it)."""
        self.policies.pop(account_id, None)
        self.states.pop(account_id, None)

    def policy(self, account_id: str) -> PacingPolicy:
        return self.policies.get(account_id, NO_PACING)

    def paced(self, account_id: str) -> bool:
        return account_id in self.policies

    def _state(self, account_id: str) -> PacingState:
        """The account's state, its times moved back first if the clock moved back since they
        were recorded (:func:`~media_assistant.core.rules.pacing.rebase`)."""
        state = self.states.get(account_id)
        if state is None:
            state = self.states[account_id] = PacingState()
        step = rebase(state, self.clock.now(), self.tz)
        if step > 0:
            log.warning(
                "[web %s] the clock moved back %.0f s since the account's last prompt: its "
                "pacing times moved back with it",
                account_id,
                step,
            )
            self._save(account_id, state)
        return state

    @classmethod
    def for_accounts(
        cls,
        accounts: Sequence[AccountConfig],
        adapter_defaults: Callable[[str], Any],
        *,
        headless: bool,
        clock: Clock,
        store: PacingStore | None,
        rng: random.Random | None = None,
        bus: EventBus | None = None,
        task_log: TaskLogger | None = None,
        db: DbThreads | None = None,
    ) -> Pacer:
        """``accounts``: web AccountConfigs; ``adapter_defaults(id)``: the adapter's [pacing]
        (a PacingConfig or None) of that account."""
        policies = {
            a.id: resolve_policy(adapter_defaults(a.id), a.pacing, headless=headless)
            for a in accounts
        }
        return cls(policies, clock, store, rng=rng, bus=bus, task_log=task_log, db=db)

    # ---------------------------------------------------------------- the lane's three calls

    def gate(self, account_id: str) -> Gate:
        now = self.clock.now()
        if account_id not in self.policies:
            return Gate(now, Hold.READY)
        g = gate(self.policy(account_id), self._state(account_id), now, self.tz)
        if g.hold in (Hold.COOLDOWN, Hold.PAUSED) and self._reload(account_id):
            g = gate(self.policy(account_id), self._state(account_id), now, self.tz)
        return g

    def wait_s(self, account_id: str) -> float:
        """Seconds until the account may send its next prompt (0: now)."""
        return self.gate(account_id).wait_s(self.clock.now())

    def started(self, account_id: str) -> None:
        if account_id not in self.policies:
            return
        state = self._state(account_id)
        record_start(self.policy(account_id), state, self.clock.now(), self.tz)
        self._save(account_id, state)

    def ended(self, account_id: str, task_id: str, outcome: Any) -> RiskNote | None:
        """``outcome``: the attempt runner's Outcome (None if the attempt crashed)."""
        if account_id not in self.policies:
            return None
        success = outcome is not None and getattr(outcome, "result", None) is not None
        error = getattr(outcome, "error", None)
        kind: ErrorKind | None = getattr(error, "kind", None)
        policy, state, now = self.policy(account_id), self._state(account_id), self.clock.now()
        note = record_end(policy, state, now, success=success, error=kind, rng=self.rng)
        self._save(account_id, state)
        if note is not None:
            self._tell(account_id, task_id, note, now)
        return note

    # ---------------------------------------------------------------- operator and views

    def clear(self, account_id: str) -> bool:
        """End the account's cooldown and risk pause now (counts and the gap stay)."""
        if account_id not in self.policies:
            return False
        self._reload(account_id, force=True)
        state = self._state(account_id)
        clear_holds(state)
        self._save(account_id, state)
        return True

    def view(self, account_id: str) -> PacingView | None:
        """None for an account that is not paced."""
        if account_id not in self.policies:
            return None
        return view(self.policy(account_id), self._state(account_id), self.clock.now(), self.tz)

    def describe(self, account_id: str) -> str:
        v = self.view(account_id)
        return "" if v is None else describe(v, self.clock.now(), self.tz)

    def planner(self, account_id: str) -> PacingPlanner | None:
        if account_id not in self.policies:
            return None
        return PacingPlanner(self.policy(account_id), self._state(account_id), self.tz)

    # ---------------------------------------------------------------- internals

    def _reload(self, account_id: str, *, force: bool = False) -> bool:
        if self.store is None:
            return False
        mono = self.clock.monotonic()
        if not force and mono - self._reloaded.get(account_id, float("-inf")) < RELOAD_EVERY_S:
            return False
        self._reloaded[account_id] = mono
        if self.db is not None:
            self._reload_soon(account_id)
            return False
        try:
            fresh = self.store.load(account_id)
        except SQLAlchemyError:
            return False
        if fresh is None:
            return False
        self.states[account_id] = fresh
        return True

    def _reload_soon(self, account_id: str) -> None:
        assert self.db is not None and self.store is not None
        if account_id in self._reloading:
            return
        self._reloading.add(account_id)
        loop = asyncio.get_running_loop()
        asked_after = self._saves.get(account_id, 0)
        future = self.db.submit_write(self.store.load, account_id)  # ordered after our saves

        def done(f: concurrent.futures.Future[PacingState | None]) -> None:
            self._reloading.discard(account_id)
            if f.cancelled() or f.exception() is not None:
                return
            fresh = f.result()
            if fresh is not None and self._saves.get(account_id, 0) == asked_after:
                self.states[account_id] = fresh

        future.add_done_callback(lambda f: loop.call_soon_threadsafe(done, f))

    def _save(self, account_id: str, state: PacingState) -> None:
        if self.store is None:
            return
        self._saves[account_id] = self._saves.get(account_id, 0) + 1
        if self.db is not None:  # a copy: the loop goes on changing the state meanwhile
            snapshot = PacingState.from_json(state.to_json())
            self.db.write_soon(self.store.save, account_id, snapshot, self.clock.now())
            return
        try:
            self.store.save(account_id, state, self.clock.now())
        except SQLAlchemyError as exc:  # pacing goes on in memory; the next write may succeed
            log.warning("[web %s] pacing state not saved (%s)", account_id, exc)

    def _tell(self, account_id: str, task_id: str, note: RiskNote, now: float) -> None:
        policy = self.policy(account_id)
        params: dict[str, Any]
        if note.paused_until is not None:
            message = (
                f"risk guard: {len(note.streak)} risk signals in a row "
                f"({', '.join(note.streak[-policy.risk_events :])}): account paused until "
                f"{time_of_day(note.paused_until, now, self.tz)} "
                f"({minutes_text(note.paused_until - now)}); look at it in its browser"
            )
            level = logging.ERROR
            code, params = (
                EventCode.RISK_PAUSE,
                {
                    "count": len(note.streak),
                    "until": note.paused_until,
                    "seconds": round(note.paused_until - now),
                },
            )
        elif note.cooldown_s > 0:
            again = f" (repeat {note.repeats + 1} in a row)" if note.repeats else ""
            message = f"pacing: {note.kind}{again}: cooling down {minutes_text(note.cooldown_s)}"
            level = logging.WARNING
            code, params = (
                EventCode.PACING_COOLDOWN,
                {"risk": note.kind, "repeats": note.repeats, "seconds": round(note.cooldown_s)},
            )
        else:
            return
        log.log(level, "[web %s] %s: %s", account_id, task_id, message)
        if self.task_log is not None:
            try:
                self.task_log(task_id, account_id, message, code, params)
            except SQLAlchemyError:
                pass
        if self.bus is not None:
            self.bus.publish(AccountChanged(account_id))
