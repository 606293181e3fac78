"""The scheduler: routes tasks to the two lanes, beats, reaps, recovers, cancels, shuts down.

It runs on whatever asyncio loop it is started on (qasync's in the GUI, a plain one for the CLI)
and owns nothing Qt. One scheduler per data directory (the caller holds a DataDirLock).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from media_assistant import __version__
from media_assistant.core.config.schema import AppConfig
from media_assistant.core.config.team import unauthenticated_server, workstation_name
from media_assistant.core.disk.full import DiskGuard
from media_assistant.core.disk.held import HeldOutcomes
from media_assistant.core.disk.last_writes import (
    last_write,
    last_writes_beside_the_store,
    take_in_held,
    take_in_spill,
)
from media_assistant.core.disk.reserve import DiskReserve
from media_assistant.core.lanes.api import ApiLane
from media_assistant.core.lanes.attempt import AttemptRunner
from media_assistant.core.lanes.base import Lane
from media_assistant.core.lanes.live_accounts import AccountDiff, LiveAccounts, ProviderFactory
from media_assistant.core.lanes.queue_watch import QueueWatch
from media_assistant.core.lanes.runtime import AccountView, Runtime
from media_assistant.core.lanes.site_checks import not_run
from media_assistant.core.lanes.web import WebLane
from media_assistant.core.model.accounts import AccountDeclaration
from media_assistant.core.model.clock import Clock, ServerAlignedClock, wait_event
from media_assistant.core.model.errors import AccountUnavailable, ErrorKind
from media_assistant.core.model.events import (
    AccountChanged,
    Event,
    TasksAdded,
    TasksChanged,
    TasksSynced,
)
from media_assistant.core.model.provider import (
    Provider,
    ShownBrowser,
    ShowOutcome,
    UnavailableProvider,
)
from media_assistant.core.model.records import BatchInfo, CancelResult, NewTask, SubmitResult
from media_assistant.core.model.states import AccountProblem, AccountState, ModelKind, TaskState
from media_assistant.core.rules.site_breakage import SiteCheckReport
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.backends.postgres import clock_offset
from media_assistant.core.store.backends.sqlite import checkpoint_truncate
from media_assistant.core.store.facade import AsyncAccounts, AsyncSessions, AsyncStore
from media_assistant.core.store.link import StoreLink
from media_assistant.core.store.sessions import SessionStore
from media_assistant.core.store.team import CLOCK_CHECK_S

log = logging.getLogger(__name__)

# run_until_idle looks at the counts at most this often (real seconds).
IDLE_CHECK_MIN_S = 0.1

# How long a graceful shutdown waits for interrupted attempts to write their state back.
SHUTDOWN_WAIT_S = 15.0


def _data_folder(store: AsyncStore) -> Path | None:
    """The folder of the task store file (its disk is the one watched), if it is a file."""
    database = store.engine.url.database if store.engine.dialect.name == "sqlite" else None
    return Path(database).resolve().parent if database and database != ":memory:" else None


@dataclass(frozen=True, slots=True)
class StuckModel:
    """Pending tasks of a model that no account can serve without the operator."""

    model: str
    pending: int
    reason: str
    # Accounts a verification page holds for a person (captcha, "checking your browser"):
    # the run cannot pass it for them (issue 32).
    held_for_person: tuple[str, ...] = ()
    accounts: int = 0  # the model's accounts, every one out of work

    @property
    def only_a_person(self) -> bool:
        """Every account of the model waits at a verification page: nothing else to fix."""
        return bool(self.held_for_person) and len(self.held_for_person) == self.accounts


class Scheduler:
    def __init__(
        self,
        config: AppConfig,
        store: AsyncStore,
        clock: Clock,
        provider_factory: ProviderFactory,
        *,
        profile_dir: Callable[[str], Path] | None = None,
        seed: int | None = None,
        tick_s: float = 0.5,
        idle_poll_s: float = 1.0,
        data_dir: Path | None = None,
    ) -> None:
        """``data_dir``: this workstation's data dir (team mode: where outcomes held through an
        outage are kept, core/disk/held.py); the SQLite store's folder when not given."""
        self.config = config
        self.store = store
        self.clock = clock
        self.accounts = AsyncAccounts(AccountStore(store.engine, clock, store.bus), store.db)
        self.sessions = AsyncSessions(SessionStore(store.engine, clock), store.db)
        self._provider_factory = provider_factory
        self.workstation = workstation_name(config.team.workstation)
        # A team database: several workstations share the queue (web accounts are owned).
        self.team = store.engine.dialect.name == "postgresql"
        # What the config declares of its accounts for their rows; in a team the app gives each
        # API account its key's identity (services.py ``with_key_identities``, issue 27 item 5).
        self.declarations: Callable[[AppConfig], list[AccountDeclaration]] = (
            AppConfig.account_declarations
        )
        # Whether the team database answers (core/store/link.py); a SQLite file always does.
        self.link = StoreLink(clock=clock, bus=store.bus, probe=self._probe_store)
        self.link.on_back = self._store_back
        self.link.on_down = self._store_down
        self._profile_dir = profile_dir
        self._seed = seed
        self.tick_s = tick_s
        self.idle_poll_s = idle_poll_s
        self.providers: dict[str, Provider] = {}
        self.rt: Runtime | None = None
        self.runner: AttemptRunner | None = None
        self.watch: QueueWatch | None = None
        # How often the queue watch looks (core/lanes/queue_watch.py): every second, sooner for
        # a scheduler told to poll sooner (tests).
        self.watch_s = min(1.0, idle_poll_s)
        self.lanes: dict[ModelKind, Lane] = {}
        self._housekeeping: asyncio.Task[None] | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._activity = asyncio.Event()
        self._accounts_dirty = False
        self._accounts_refresh: asyncio.Task[None] | None = None
        self._clock_checked = float("-inf")
        self.live = LiveAccounts(self)  # a new configuration, rebuild requests: no restart
        folder = _data_folder(store)
        local = data_dir or folder
        self.held = HeldOutcomes(local) if local is not None else None
        self.disk = DiskGuard(
            folder or Path.cwd(),
            bus=store.bus,
            reserve=DiskReserve(folder) if folder is not None else None,
        )
        self.started = False

    # ------------------------------------------------------------------ lifecycle

    @property
    def provider_factory(self) -> ProviderFactory:
        return self._provider_factory

    @property
    def owner_id(self) -> str:
        assert self.rt is not None, "scheduler not started"
        return self.rt.owner_id

    async def start(self) -> None:
        try:
            await self._start()
        except BaseException:
            await self._close_providers()  # a half-started scheduler leaves nothing running
            raise

    async def _start(self) -> None:
        cfg = self.config
        # Statements run on database threads and publish there: deliver events on this loop.
        self.store.bus.bind_loop(asyncio.get_running_loop())
        # Team mode: a workstation name is one live session; a second PC (a cloned image, a
        # config handed out with the name set) is refused here, before it touches anything
        # (core/store/sessions.py, exit 2).
        owner_id = await self.sessions.open(
            self.workstation,
            __version__,
            dead_after=cfg.scheduler.dead_after_s if self.team else None,
        )
        if self.team:  # said in the log (the window's log tab, run's terminal) at each start
            why = unauthenticated_server(self.store.engine.url.render_as_string())
            if why is not None:
                log.warning("[scheduler] %s", why)
        declared = await asyncio.to_thread(self.declarations, cfg)  # a keyring may be slow
        for disagreement in await self.accounts.sync_config(
            declared,
            workstation=self.workstation,
            take_over=not self.team,
            dead_after=cfg.scheduler.dead_after_s,
        ):
            log.warning("[scheduler] %s", disagreement.message())
        # "Needs attention" (a missing key, a held profile, a captcha) is re-detected at once if
        # it is still true; login and rejected credentials stay until the operator acts. Only
        # this configuration's accounts: another workstation's web accounts are its own.
        for status in (await self.accounts.all()).values():
            if (
                status.problem is AccountProblem.NEEDS_ATTENTION
                and cfg.account(status.account_id) is not None
                and not status.belongs_elsewhere(self.workstation)
            ):
                await self.accounts.clear_problem(status.account_id)
        await take_in_spill(self.disk, self.store)  # a stop on a full disk saved some writes
        # A full disk (issue 9 item 3) is noticed by whoever meets it; fire-and-forget writes
        # (log lines) report theirs here, so it is said once, not once per line.
        self.disk.make_room = functools.partial(
            self.store.db.write, checkpoint_truncate, self.store.engine
        )
        await asyncio.to_thread(self.disk.start, asyncio.get_running_loop())
        self.store.db.on_write_error = self.disk.absorb
        view = AccountView(self.accounts, self.clock, workstation=self.workstation)
        await view.refresh()
        self.rt = Runtime(
            config=cfg,
            store=self.store,
            accounts=view,
            clock=self.clock,
            owner_id=owner_id,
            rng=random.Random(self._seed),
            workstation=self.workstation,
            idle_poll_s=self.idle_poll_s,
            last_tick=self.clock.monotonic(),
            last_tick_wall=self.clock.now(),
            disk=self.disk,
            link=self.link,
            held=self.held,
        )
        if self.held is not None:  # an outage's answers kept on disk (a kill while away)
            await take_in_held(self.held, self.store)
        # The caller holds this data dir's scheduler lock, so no other scheduler is alive here:
        # every running row not ours is an orphan of a crashed run. Handle it now, not in 90 s.
        for r in await self.store.recover_orphans(
            [owner_id], self.workstation, dead_after=cfg.scheduler.dead_after_s
        ):
            log.warning(
                "[%s] %s: orphaned attempt %d → %s",
                "scheduler",
                r.task_id,
                r.attempt,
                r.new_state.value,
            )
        self.runner = AttemptRunner(self.rt)
        self.watch = QueueWatch(
            self.rt,
            on_accounts=self._reload_accounts,
            on_cancel=self.runner.request_cancel,
            on_work=self._wake_all,
        )
        self.rt.watched = True
        # Each provider below answers for the rebuild requests made before it was built.
        generations = {a: s.rebuild_generation for a, s in view.statuses.items()}
        for account in cfg.accounts:
            view.provider_built(account.id, generations.get(account.id, 0))
            owner = view.held_elsewhere(account.id)
            if owner is not None:
                reason = (
                    f"web account {account.id} belongs to workstation {owner} (its browser "
                    "profile is there): not used here; 'media-assistant accounts release "
                    f"{account.id}' on {owner} hands it over"
                )
                log.warning("[web %s] %s", account.id, reason)
                self.providers[account.id] = UnavailableProvider(reason)
                continue
            try:
                # Off the loop: building a provider imports Playwright, httpx and the Markdown
                # converter the first time (~0.5 s) and may ask the OS keyring for a key.
                self.providers[account.id] = await asyncio.to_thread(
                    self._provider_factory, account
                )
            except AccountUnavailable as exc:
                await self.accounts.set_problem(
                    account.id, AccountProblem.NEEDS_ATTENTION, str(exc), exc.code
                )
                self.providers[account.id] = UnavailableProvider(str(exc))
                # An account switched off is no error yet: switching it on builds it again
                # (and says so then, if it still cannot start).
                level = logging.ERROR if account.enabled else logging.WARNING
                log.log(level, "[%s %s] %s", account.kind.value, account.id, exc)
        await view.refresh()
        self.lanes = {
            ModelKind.WEB: WebLane(self.rt, self.runner, self.providers, self._profile_dir),
            ModelKind.API: ApiLane(self.rt, self.runner, self.providers),
        }
        web = self.lanes[ModelKind.WEB]
        if isinstance(web, WebLane):
            await web.pacer.load()  # saved pacing state: a restart keeps caps and pauses
        self._unsubscribe = self.store.bus.subscribe(self._on_store_event)
        for lane in self.lanes.values():
            lane.start()
        self._housekeeping = asyncio.get_running_loop().create_task(
            self._housekeeping_loop(), name="scheduler-housekeeping"
        )
        self.started = True

    def close_claims(self) -> None:
        """The app begins to close: from now on nothing new is claimed (a claim under way is
        given back), while what runs goes on until :meth:`stop`."""
        if self.rt is not None:
            self.rt.claims_closed = True

    async def stop(self) -> None:
        """Graceful: running tasks go back to pending without using up an attempt. Whatever
        fails on the way, providers (browsers, HTTP clients, the driver thread) are closed."""
        if not self.started:
            return
        assert self.rt is not None and self.runner is not None
        try:
            self.rt.claims_closed = True
            self.rt.stopping.set()
            # Issue 9 item 9: the session is marked ended as the stop begins, so if this process
            # dies before every row below is written back (a second Ctrl-C, a kill after a
            # service manager's timeout), the next start returns them without using an attempt.
            marked = await last_write(
                self.disk,
                functools.partial(self.sessions.close, self.rt.owner_id),
                "could not mark the session as stopping",
                self.link.absorb,
            )
            self.runner.interrupt_all("shutdown")
            for lane in self.lanes.values():
                lane.wake()
            # Real seconds, whatever the loop does meanwhile: counting turns of sleep(0.02)
            # as 0.02 s each stretched the wait on a busy loop (every turn took longer).
            loop = asyncio.get_running_loop()
            deadline = loop.time() + SHUTDOWN_WAIT_S
            while self.runner.attempts and loop.time() < deadline:
                await asyncio.sleep(0.02)
            for lane in self.lanes.values():
                await lane.stop()
            self.live.cancel()  # rebuilds and removals under way: the providers close below
            if self._housekeeping is not None:
                self._housekeeping.cancel()
                # Waited for, never re-raised: a housekeeping task that died of its own error
                # (seen in tests: Qt events processed outside the running loop stepped it with
                # no loop set) must not stop the rows below from going back to the queue.
                await asyncio.wait({self._housekeeping})
                if not self._housekeeping.cancelled() and self._housekeeping.exception():
                    log.error(
                        "[scheduler] housekeeping had stopped on an error",
                        exc_info=self._housekeeping.exception(),
                    )
            # Every row this session still holds goes back to the queue, the attempt not used
            # up: attempts that outlasted the waits above (a web page that would not stop, a
            # provider ignoring cancellation) were cancelled with their worker and are no
            # longer in the runner's registry, so the sweep is by owner, not by attempt.
            swept = await last_write(
                self.disk,
                self._sweep,
                "could not return the running tasks to the queue",
                self.link.absorb,
            )
            if self.link.down and not self.disk.full and self.held is not None:
                # Team mode, the database still away: the outcomes held are on disk already
                # (core/disk/held.py) and the outage's mark makes the next start return this
                # session's rows with no attempt used.
                log.warning(
                    "[scheduler] the team database is still unreachable: what was received is "
                    "kept in %s; the next start writes it",
                    self.held.folder,
                )
            elif (self.disk.full or self.link.down) and (
                self.disk.unwritten or not marked or not swept
            ):
                await last_writes_beside_the_store(
                    self.disk,
                    self.store,
                    self.rt.owner_id,
                    self.link.absorb,
                    end_session=functools.partial(self.sessions.close, self.rt.owner_id),
                    sweep=None if swept else self._sweep,
                    session_marked=marked,
                )
        finally:
            await self.link.stop()
            await self._close_providers()
            self.started = False

    async def _sweep(self) -> None:
        assert self.rt is not None
        for r in await self.store.release_owned(
            self.rt.owner_id, "returned to the queue at shutdown"
        ):
            log.warning(
                "[scheduler] %s: attempt %d outlasted the shutdown → %s",
                r.task_id,
                r.attempt,
                r.new_state.value,
            )

    async def _close_providers(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for account_id, provider in self.providers.items():
            try:
                await provider.aclose()
            except Exception:
                log.exception("closing the provider of %s failed", account_id)
        closer = getattr(self._provider_factory, "aclose", None)
        if closer is not None:  # e.g. the browser driver's thread
            try:
                await closer()
            except Exception:
                log.exception("closing the provider factory failed")
        if self._accounts_refresh is not None:
            self._accounts_refresh.cancel()
        if self.rt is not None:
            try:
                await self.sessions.close(self.rt.owner_id)
            except Exception as exc:
                if not self.disk.absorb(exc):
                    log.exception("[scheduler] could not mark the session ended")
        if self.store.db.on_write_error == self.disk.absorb:
            self.store.db.on_write_error = None
        self.disk.close()  # the disk reserve is not left behind

    # ------------------------------------------------------------------ live configuration

    def lend_profile(self, account_id: str) -> None:
        """The operator signs in to a web account: its worker lets go of the browser profile
        and takes no work until :meth:`return_profile` (WebLane.lend_profile)."""
        web = self.lanes.get(ModelKind.WEB)
        if isinstance(web, WebLane):
            web.lend_profile(account_id)

    def return_profile(self, account_id: str) -> None:
        web = self.lanes.get(ModelKind.WEB)
        if isinstance(web, WebLane):
            web.return_profile(account_id)

    async def apply_config(self, config: AppConfig) -> AccountDiff:
        """Run on ``config`` from now on, without a restart (core/lanes/live_accounts.py): new and
        edited accounts start working, removed ones finish their running task first."""
        return await self.live.apply(config)

    # ------------------------------------------------------------------ operator actions

    async def submit(
        self, tasks: Sequence[NewTask], *, batch: BatchInfo | None = None
    ) -> SubmitResult:
        return await self.store.submit(
            tasks, max_attempts=self.config.scheduler.max_attempts, batch=batch
        )

    async def cancel(
        self, task_ids: Sequence[str] | None = None, *, batch_id: str | None = None
    ) -> CancelResult:
        result = await self.store.request_cancel(task_ids, batch_id=batch_id)
        if self.runner is not None and result.requested:
            self.runner.request_cancel(set(result.requested))
        return result

    async def check_site(self, account_id: str) -> SiteCheckReport:
        """A site check of a web account through its worker (core/lanes/site_checks.py): after
        its running task, when its pacing allows a prompt."""
        web = self.lanes.get(ModelKind.WEB)
        if not isinstance(web, WebLane):
            return not_run(account_id, "?", "the scheduler has not started its web lane")
        return await web.check_site(account_id)

    async def show_browser(self, account_id: str) -> ShownBrowser:
        """*Show browser* for a web account a verification page holds (issue 32): its worker
        brings the browser's window forward, or reopens the profile in a window
        (core/lanes/challenge_hold.py)."""
        web = self.lanes.get(ModelKind.WEB)
        if not isinstance(web, WebLane):
            return ShownBrowser(ShowOutcome.NOT_HELD)
        return await web.show_browser(account_id)

    async def repair_site(self, account_id: str) -> Any:
        """A repair of a web account's adapter from its page, through its worker (issue 33):
        the provider's ``RepairResult``, or None when its page cannot be repaired here."""
        web = self.lanes.get(ModelKind.WEB)
        if not isinstance(web, WebLane):
            return None
        return await web.repair_site(account_id)

    async def retry(
        self, task_ids: Sequence[str] | None = None, *, all_failed: bool = False
    ) -> list[str]:
        return await self.store.retry(
            task_ids, all_failed=all_failed, extra_attempts=self.config.scheduler.max_attempts
        )

    # ------------------------------------------------------------------ wake-ups

    def _on_store_event(self, event: Event) -> None:
        if isinstance(event, TasksAdded):
            self._wake_all()
        elif isinstance(event, TasksChanged) and not event.heartbeat:
            if any(c.values.get("state") == TaskState.PENDING.value for c in event.changes):
                self._wake_all()
            self._activity.set()
        elif isinstance(event, TasksSynced):  # another process added or changed tasks
            if any(r.get("state") == TaskState.PENDING.value for r in event.rows):
                self._wake_all()
            self._activity.set()
        elif isinstance(event, AccountChanged) and self.rt is not None:
            if event.status is not None:
                if self.rt.accounts.apply(event.status):
                    self._after_account_refresh()
            else:
                self._refresh_accounts_soon()

    def _refresh_accounts_soon(self) -> None:
        """Reload the account view once per burst of changes (a statement, so not inline)."""
        self._accounts_dirty = True
        if self._accounts_refresh is None or self._accounts_refresh.done():
            self._accounts_refresh = asyncio.get_running_loop().create_task(
                self._refresh_accounts(), name="scheduler-accounts"
            )

    async def _refresh_accounts(self) -> None:
        assert self.rt is not None
        while self._accounts_dirty:
            self._accounts_dirty = False
            try:
                await self.rt.accounts.refresh()
            except Exception:  # the housekeeping tick tries again
                log.exception("[scheduler] reloading the accounts failed")
                return
            self._after_account_refresh()

    async def _reload_accounts(self) -> None:
        assert self.rt is not None
        if await self.rt.accounts.refresh():
            self._after_account_refresh()

    def _wake_all(self) -> None:
        for lane in self.lanes.values():
            lane.wake()
        self._activity.set()

    def wake_all(self) -> None:
        self._wake_all()

    def _after_account_refresh(self) -> None:
        api = self.lanes.get(ModelKind.API)
        if isinstance(api, ApiLane):
            api.apply_account_settings()
        if self.rt is not None and self.started:
            self.live.notice(self.rt.accounts.statuses.values())  # fresh providers asked for
        self._wake_all()

    # ------------------------------------------------------------------ the team database

    async def _probe_store(self) -> None:
        await self.store.ping()

    def _store_down(self) -> None:
        """The team database went away: this session is marked on disk (core/disk/held.py), so
        that if this process dies before it answers again, the next start returns the rows it
        was running without using their attempts."""
        if self.held is not None and self.rt is not None:
            self.rt.spawn(
                asyncio.to_thread(self.held.keep_session, self.rt.owner_id, "outage"),
                name="held:outage",
            )

    def _store_back(self) -> None:
        """The team database answers again: every workstation beats before anyone reaps, the
        lanes look for work, the clock's offset is measured again."""
        if self.held is not None and self.rt is not None:
            self.rt.spawn(
                asyncio.to_thread(self.held.drop_session, self.rt.owner_id, "outage"),
                name="held:back",
            )
        if self.rt is not None:
            self.rt.reap_hold_until = self.clock.monotonic() + self.config.scheduler.heartbeat_s
        self._clock_checked = float("-inf")
        self._wake_all()

    async def _check_clock(self) -> None:
        """Team mode: measure this workstation's offset from the server's clock again now and
        then, and at once when this PC's wall clock was stepped (core/model/clock.py)."""
        now = self.clock.monotonic()
        if not isinstance(self.clock, ServerAlignedClock) or (
            now - self._clock_checked < CLOCK_CHECK_S and not self.clock.diverged
        ):
            return
        self._clock_checked = now
        offset = await self.store.db.read(clock_offset, self.store.engine, wall=self.clock.base.now)
        if abs(offset - self.clock.offset) > 1.0:
            log.warning(
                "[scheduler] this workstation's clock moved %.1f s against the team database's",
                offset - self.clock.offset,
            )
        self.clock.offset = offset

    # ------------------------------------------------------------------ housekeeping

    async def _housekeeping_loop(self) -> None:
        assert self.rt is not None and self.runner is not None
        rt, runner = self.rt, self.runner
        heartbeat_s = self.config.scheduler.heartbeat_s
        last_beat = self.clock.monotonic()
        last_look = float("-inf")
        while True:
            before, before_wall = self.clock.monotonic(), self.clock.now()
            await self.clock.sleep(self.tick_s)
            now, wall = self.clock.monotonic(), self.clock.now()
            # Only the sleep's overrun is a stall of the loop. (Measured from the last tick, a
            # tick that had waited 20 s for a database another process held was reported as a
            # frozen loop.) Meanwhile reap_allowed() sees the old last_tick and holds reaping.
            gap = max(now - before, wall - before_wall) - self.tick_s
            rt.last_tick, rt.last_tick_wall = now, wall
            try:
                if gap > heartbeat_s:
                    # The loop itself was frozen (laptop sleep: the wall clock moved, perhaps
                    # not the monotonic one), or the wall clock jumped: beat now and give
                    # everyone one more interval before the reaper may judge anyone.
                    log.warning(
                        "[scheduler] event loop stalled (or the clock jumped) for %.0f s; "
                        "reaping paused",
                        gap,
                    )
                    rt.reap_hold_until = now + heartbeat_s
                    last_beat = float("-inf")
                if self.link.down:
                    # Nothing can be read or written; running generations go on. Past the
                    # point where another workstation may have taken our rows back, their
                    # outcomes would be fenced out: stop them (core/store/link.py).
                    # They go back to the queue fenced, their attempt kept (issue 27 item 3): the
                    # outage is not the task's.
                    going = [ra for ra in runner.attempts.values() if ra.interrupt is None]
                    if going and self.link.beats_lost(
                        self.config.scheduler.dead_after_s, heartbeat_s
                    ):
                        log.warning(
                            "[scheduler] no heartbeat written for %.0f s: stopping %d attempt(s) "
                            "another workstation may take over; they go back to the queue with "
                            "their attempt kept",
                            self.link.down_for(),
                            len(going),
                        )
                        runner.interrupt_all("outage")
                    continue
                await self._check_clock()  # first: a beat after a suspend needs the new offset
                if now - last_beat >= heartbeat_s and not rt.disk.full:
                    # (On a full disk a beat cannot be written; our own attempts are never
                    # reaped by us, and the next beat goes out as soon as there is room.)
                    last_beat = now
                    await self._beat()
                    self.link.beat_written()
                if self.watch is not None and now - last_look >= self.watch_s - self.tick_s / 2:
                    # One statement: accounts, cancel flags and the lanes' wake-ups only when
                    # its marks moved (core/lanes/queue_watch.py).
                    last_look = now
                    await self.watch.look()
                elif self.watch is not None:
                    self.watch.tick()
            except Exception as exc:  # keep beating through a transient database error
                # A full disk, an unreachable team database: said once, by their guards.
                if not rt.disk.absorb(exc) and not self.link.absorb(exc):
                    log.exception("[scheduler] housekeeping failed")

    async def _beat(self) -> None:
        assert self.rt is not None and self.runner is not None
        lost = await self.store.heartbeat(self.rt.owner_id, self.runner.beats())
        if lost:
            self.runner.interrupt(lost, "lost")
        await self.sessions.beat(self.rt.owner_id)

    # ------------------------------------------------------------------ "is there anything left?"

    async def stuck_models(self) -> list[StuckModel]:
        """Models with pending tasks that no account can take without the operator's help."""
        assert self.rt is not None
        now = self.clock.now()
        stuck: list[StuckModel] = []
        for model, pending in sorted((await self.store.pending_models()).items()):
            accounts = self.config.accounts_for(model)
            if not accounts:
                stuck.append(StuckModel(model, pending, "no account in the config serves it"))
                continue
            states, held = [], []
            for a in accounts:
                status = self.rt.accounts.statuses.get(a.id)
                state = status.state(now) if status else AccountState.DISABLED
                if state.recovers_by_itself:
                    break
                if (
                    state is AccountState.NEEDS_ATTENTION
                    and status is not None
                    and status.problem_code == ErrorKind.CAPTCHA.value
                ):
                    held.append(a.id)
                states.append(
                    f"{a.id}: {state.value}"
                    + (f" ({status.problem_detail})" if status and status.problem_detail else "")
                )
            else:
                stuck.append(
                    StuckModel(model, pending, "; ".join(states), tuple(held), len(states))
                )
        return stuck

    async def _claimable_now(self) -> bool:
        """Some account that gets work has a task it could claim this instant."""
        assert self.rt is not None
        for a in self.config.accounts:
            if self.rt.accounts.available(a.id) and await self.store.peek_next(
                a.models, lane=a.kind.value, account_id=a.id
            ):
                return True
        return False

    async def run_until_idle(self) -> list[StuckModel]:
        """Run until no task is pending or running, or what is left cannot progress.

        Returns the models whose tasks are stuck (empty when everything reached an end).
        """
        assert self.rt is not None and self.runner is not None
        while True:
            self._activity.clear()
            try:
                stuck = await self._idle_check()
            except Exception as exc:
                # The team database away: the run waits it out (its --db-wait decides when to
                # give up), it does not end on an error (issue 27 item 3).
                if not self.link.absorb(exc):
                    raise
                await self.link.wait(self.rt.stopping)
                continue
            if stuck is not None:
                return stuck
            # The queue watch sets _activity when something changed (rt.poll_s: its fallback).
            await wait_event(self._activity, self.rt.poll_s, self.clock)
            # Bursts of changes (hundreds of tasks a second) need not each cost a query.
            await asyncio.sleep(IDLE_CHECK_MIN_S)

    async def _idle_check(self) -> list[StuckModel] | None:
        """One look of :meth:`run_until_idle`: the stuck models once nothing can progress
        (empty: everything ended), None while work goes on."""
        assert self.rt is not None and self.runner is not None
        # Cheap questions first. While an attempt runs, a row is running or an available
        # account can claim a task right now, the answer is "not yet" whatever the counts
        # say — and counting scans every pending row (per model for stuck_models: ~45 ms at
        # 100k pending), at moments that come hundreds of times a minute with fast tasks.
        if (
            not self.runner.attempts
            and not await self.store.running_ids()
            and not await self._claimable_now()
        ):
            counts = await self.store.active_counts()
            running = counts.get(TaskState.RUNNING.value, 0)
            pending = counts.get(TaskState.PENDING.value, 0)
            if not running:
                if not pending:
                    return []
                # "Stuck" is said on a fresh read of the accounts, not on the view a
                # housekeeping tick refreshes: another process (`sites install`, `accounts
                # reset`, a teammate) may have freed one a moment ago.
                if await self.rt.accounts.refresh():
                    self._after_account_refresh()
                    return await self._idle_check()
                stuck = await self.stuck_models()
                if sum(s.pending for s in stuck) == pending:
                    return stuck
        return None
