"""What the window can ask of the app: one object between the widgets and the services.

Widgets call these methods (``@asyncSlot`` handlers stay thin); nothing here knows a widget.
Every read and write is awaited: statements run on the database threads (core/store/threads.py),
long work (an export) on a job's worker thread (gui/bridge/jobs.py); the loop only waits.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from media_assistant.core.accounts.pacer import Pacer
from media_assistant.core.config.schema import FAKE_SITE, AccountConfig, AppConfig
from media_assistant.core.exports.child import export_borrowing
from media_assistant.core.exports.fields import Headers
from media_assistant.core.exports.write import ExportScope
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.accounts import AccountStatus
from media_assistant.core.model.events import AccountChanged, Event
from media_assistant.core.model.provider import ShownBrowser
from media_assistant.core.model.records import (
    BatchInfo,
    BatchRecord,
    CancelResult,
    NewTask,
    Pause,
    PriorityResult,
    SubmitResult,
    TaskEventRecord,
    TaskRecord,
)
from media_assistant.core.model.states import AccountState, ModelKind
from media_assistant.core.rules.eta import Slot
from media_assistant.core.rules.pacing import PacingView
from media_assistant.core.rules.site_breakage import SiteCheckReport
from media_assistant.core.store.backends.postgres import app_name
from media_assistant.gui.bridge.bus import QtEventBridge
from media_assistant.gui.bridge.jobs import JobControl
from media_assistant.gui.bridge.team_watch import TeamWatch
from media_assistant.services import Services

if TYPE_CHECKING:
    from media_assistant.providers.web.adapter_files import Installed
    from media_assistant.providers.web.signin import LoginState

log = logging.getLogger(__name__)

PROFILE_WAIT_S = 10.0  # how long a sign-in waits for the web lane to let go of the profile


class AppController(QObject):
    # The set-up window saved a new configuration and the scheduler runs on it: views that
    # list accounts or models rebuild.
    config_applied = Signal()
    sign_in_changed = Signal(str)  # an account's sign-in window opened or closed

    def __init__(
        self, services: Services, scheduler: Scheduler, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.services = services
        self.scheduler = scheduler
        self.store = services.async_store
        self.accounts_db = services.async_accounts
        self.bridge = QtEventBridge(services.bus, self)
        # Account states as last committed (ours at once, other processes' via the follower):
        # panels ask many times a second and must not wait for a statement.
        self.statuses: dict[str, AccountStatus] = {}
        self._unsubscribe: Callable[[], None] | None = services.bus.subscribe(self._on_event)
        self.follower = services.follower()
        self._sign_ins: dict[str, asyncio.Task[Any]] = {}  # account id → the sign-in under way
        self.login_timeout_s: float | None = None  # None: signin.LOGIN_TIMEOUT_S (15 min)
        # Team mode: the workstations, for the status bar and the accounts panel (started by
        # the window); a look that finds the database away shows the banner at once.
        self.team = TeamWatch(services, self)
        self.team.on_unreachable = scheduler.link.absorb

    async def load_accounts(self) -> None:
        self.statuses = await self.accounts_db.all()

    def _on_event(self, event: Event) -> None:
        if isinstance(event, AccountChanged) and event.status is not None:
            self.statuses[event.account_id] = event.status

    async def close(self) -> None:
        await self.stop_sign_ins()
        self.team.stop()
        await self.follower.stop()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.bridge.close()

    # ---------------------------------------------------------------- reads

    @property
    def accounts(self) -> Sequence[AccountConfig]:
        return self.services.config.accounts

    def account_status(self, account_id: str) -> AccountStatus | None:
        return self.statuses.get(account_id)

    def pacing(self, account_id: str) -> PacingView | None:
        """A web account's pacing now (None: not paced, or the scheduler has not started)."""
        pacer = getattr(self.scheduler.lanes.get(ModelKind.WEB), "pacer", None)
        return pacer.view(account_id) if isinstance(pacer, Pacer) else None

    def models(self) -> list[tuple[str, str]]:
        return [(m.name, m.kind.value) for m in self.services.config.models]

    def user_content_only_models(self) -> list[str]:
        return [m.name for m in self.services.config.models if m.need_empty_prompt]

    async def task(self, task_id: str) -> TaskRecord | None:
        return await self.store.get(task_id)

    async def events(self, task_id: str) -> list[TaskEventRecord]:
        return await self.store.events(task_id)

    def now(self) -> float:
        return self.services.clock.now()

    def team_database_away(self, exc: BaseException) -> bool:
        """``exc`` came from the team database not answering (said now, or the banner already
        shows it: an export's own process reports its error as text)."""
        if self.scheduler.link.absorb(exc):
            return True
        return self.services.store_url is not None and self.scheduler.link.down

    # ---------------------------------------------------------------- actions

    async def submit(
        self, tasks: Sequence[NewTask], batch: BatchInfo | None = None
    ) -> SubmitResult:
        return await self.scheduler.submit(tasks, batch=batch)

    # the operator's hold on the queue (core/store/batches.py)

    async def batches(self) -> list[BatchRecord]:
        return await self.store.batches()

    async def pauses(self) -> list[Pause]:
        return await self.store.pauses()

    async def pause(self, scope: str, target: str = "") -> int:
        """Pause a scope; returns how many of its tasks still run (they finish)."""
        await self.store.pause(scope, target)
        return await self.store.running_in(scope, target)

    async def resume(self, scope: str, target: str = "") -> bool:
        return await self.store.resume(scope, target)

    async def set_priority(
        self,
        task_ids: Sequence[str] | None = None,
        *,
        batch_id: str | None = None,
        priority: int | None = None,
        where: str | None = None,
    ) -> PriorityResult:
        return await self.store.set_priority(
            task_ids, batch_id=batch_id, priority=priority, where=where
        )

    async def failed_counts(self, batch_id: str | None) -> tuple[int, int]:
        """(failed tasks "retry failed" would run again, those it leaves out)."""
        return await self.store.failed_counts(batch_id)

    async def poison_pills(self, batch_id: str | None) -> int:
        """Failed tasks "retry failed" leaves out because every attempt failed the same way."""
        return await self.store.poison_pills(batch_id)

    async def retry_with_prompt(self, task_id: str, prompt: str) -> list[str]:
        return await self.store.retry(
            [task_id], prompt=prompt, extra_attempts=self.services.config.scheduler.max_attempts
        )

    async def cancel(self, task_ids: Sequence[str]) -> CancelResult:
        return await self.scheduler.cancel(task_ids)

    async def cancel_batch(self, batch_id: str) -> CancelResult:
        return await self.scheduler.cancel(batch_id=batch_id)

    async def retry(self, task_ids: Sequence[str]) -> list[str]:
        return await self.scheduler.retry(task_ids)

    async def retry_failed(self, batch_id: str | None = None) -> list[str]:
        """Failed tasks (of one batch) back in the queue, except those that would fail the same
        way again (content policy, prompt too long, bad input; poison pills)."""
        return await self.store.retry(
            all_failed=True,
            batch_id=batch_id,
            extra_attempts=self.services.config.scheduler.max_attempts,
        )

    async def set_account_enabled(self, account_id: str, enabled: bool) -> None:
        await self.accounts_db.set_enabled(account_id, enabled)

    async def set_concurrency(self, account_id: str, concurrency: int) -> None:
        await self.accounts_db.set_concurrency(account_id, concurrency)

    async def reset_account(self, account_id: str) -> None:
        """Clear the account's problem and cool-down; the scheduler rebuilds its provider."""
        await self.accounts_db.reset(account_id)

    async def check_site(self, account_id: str) -> SiteCheckReport:
        """A site check through the scheduler: the account's worker runs it after its current
        task, when its pacing allows a prompt (core/lanes/site_checks.py)."""
        return await self.scheduler.check_site(account_id)

    async def show_browser(self, account_id: str) -> ShownBrowser:
        """*Show browser* for an account a verification page holds (issue 32), through the
        scheduler: its browser's window in front, or the profile reopened in a window."""
        return await self.scheduler.show_browser(account_id)

    async def repair_site(self, account_id: str) -> Any:
        """A repair of the account's adapter from its page, through the scheduler (issue 33):
        a ``RepairResult`` (proven or not), or None when its page cannot be repaired."""
        return await self.scheduler.repair_site(account_id)

    async def install_adapter(self, path: Path) -> tuple[Installed, list[str]]:
        """Validate and install an adapter file (off the loop: file I/O); the accounts of its
        site get fresh providers from every scheduler serving them (their next task uses it,
        and a verdict "the site's page changed" on them is lifted). Raises ConfigError naming
        the key and the reason, or InputError."""
        from media_assistant.providers.web.adapter_files import accounts_on, install_adapter

        installed = await asyncio.to_thread(install_adapter, path, self.services.paths.sites)
        here = self.services.workstation if self.services.store_url is not None else None
        users = [
            a.id
            for a in accounts_on(self.services.config, installed.site)
            # Team mode: only the accounts this workstation runs have the new file.
            if await self.accounts_db.adapter_replaced(a.id, workstation=here)
        ]
        return installed, users

    async def apply_config(self, config: AppConfig) -> None:
        """A configuration the set-up window saved: the scheduler switches to it (no restart),
        then the views follow (config_applied). Where the queue lives and this workstation's
        name stay as the app started with them (they take effect at the next start)."""
        running = self.services.config
        config = config.model_copy(update={"store": running.store, "team": running.team})
        self.services.config = config
        await self.scheduler.apply_config(config)
        await self.load_accounts()
        self.config_applied.emit()

    def export_work(
        self,
        path: Path,
        fmt: str | None,
        scope: ExportScope | None = None,
        headers: Headers = "en",
    ) -> Callable[[JobControl], int]:
        """An export as a job (gui/bridge/jobs.py) with progress and Cancel (a canceled export
        leaves no file behind): read and written in a child process (core/exports/child.py),
        which the job's worker thread waits for, on a connection the window lends it; a store
        in memory, or a team database with no connection to lend, is exported on that thread."""
        store = self.services.store  # the synchronous store: this runs off the loop
        scope = scope or ExportScope()
        password = self.services.store_password  # team mode: from the OS keyring, if there
        name = app_name(self.services.workstation)  # the child's connection is the team's

        def work(control: JobControl) -> int:
            return export_borrowing(
                store,
                scope,
                path,
                fmt,
                headers,
                control,
                password=password,
                application_name=name,
            )

        return work

    # ---------------------------------------------------------------- signing in

    def signing_in(self, account_id: str) -> bool:
        return account_id in self._sign_ins

    async def login(self, account_id: str) -> LoginState:
        """Open the account's profile in a visible window so the operator can sign in.

        The web lane lends the profile for it (closes its warm browser, lets go of the profile
        lock, takes no work meanwhile); nothing is written to the account, so pressing *Log in*
        raises no notice, and a restart forgets it. Only what the site showed changes the
        account: a sign-in that worked ends its problem (needs login, a captcha); a window
        closed early, a sign-in that timed out or a site that cannot be reached leave it as it
        was. The adapter, the browser's look-up and the browser itself run off the loop;
        closing the app cancels the sign-in (:meth:`close`), which closes its browser.
        """
        from media_assistant.providers.web.signin import LoginOutcome, LoginState

        account = self.services.config.account(account_id)
        if account is None or account.kind is not ModelKind.WEB or account.site == FAKE_SITE:
            return LoginState(LoginOutcome.FAILED, "this account has no browser to sign in with")
        if account_id in self._sign_ins:
            return LoginState(LoginOutcome.ALREADY_OPEN, "a sign-in window is already open")
        task = asyncio.current_task()
        assert task is not None
        self._sign_ins[account_id] = task
        self.sign_in_changed.emit(account_id)
        try:
            state = await self._sign_in(account)
        finally:
            del self._sign_ins[account_id]
            self.sign_in_changed.emit(account_id)
        log.info("[web %s] sign-in: %s (%s)", account_id, state.outcome.value, state.detail)
        if state.logged_in:
            status = await self.accounts_db.get(account_id)
            if status is not None and status.problem.sticky:
                await self.accounts_db.clear_problem(account_id)
        return state

    async def _sign_in(self, account: AccountConfig) -> LoginState:
        from media_assistant.core.files.locks import ProfileLock
        from media_assistant.providers.web.signin import (
            LOGIN_TIMEOUT_S,
            LoginOutcome,
            LoginState,
            login_apart,
            short_error,
        )

        profile = self.services.paths.profile(account.id)
        lock = ProfileLock(profile)
        self.scheduler.lend_profile(account.id)
        try:
            # The lane lets go at its next turn; a task running on the account finishes first.
            loop = asyncio.get_running_loop()
            deadline = loop.time() + PROFILE_WAIT_S
            while not await asyncio.to_thread(lock.try_acquire):
                if loop.time() >= deadline:
                    return LoginState(
                        LoginOutcome.BUSY, "the profile is still in use (a task runs on it)"
                    )
                await asyncio.sleep(0.1)
            try:
                adapter, choice = await asyncio.to_thread(self._browser_for, account)
                from media_assistant.providers.proxy import route_for

                proxy = await asyncio.to_thread(route_for, self.services.config, account)
                return await login_apart(
                    profile,
                    choice,
                    adapter,
                    account.origin,
                    timeout_s=self.login_timeout_s or LOGIN_TIMEOUT_S,
                    proxy=proxy,
                )
            except Exception as exc:  # no browser, a broken adapter, a browser that died
                log.warning("[web %s] sign-in failed", account.id, exc_info=True)
                return LoginState(LoginOutcome.FAILED, short_error(exc))
        finally:
            lock.release()
            self.scheduler.return_profile(account.id)

    def _browser_for(self, account: AccountConfig) -> tuple[Any, Any]:
        """The account's site adapter and the browser to open it with (reads files: off the
        loop)."""
        from media_assistant.providers.web.adapter import load_adapter
        from media_assistant.providers.web.executable import resolve_browser

        adapter = load_adapter(
            site=account.site, site_file=account.site_file, user_dir=self.services.paths.sites
        )
        return adapter, resolve_browser(self.services.config.browser.executable)

    async def stop_sign_ins(self) -> None:
        """The app closes: every sign-in window closes (its browser within its bound)."""
        tasks = list(self._sign_ins.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    def lane_slots(
        self, lane: str, seen_serving: Mapping[str, Iterable[str]] | None = None
    ) -> list[Slot]:
        """The lane's capacity: one slot per web account, ``concurrency`` per API account —
        in team mode also the web accounts other workstations hold (issue 26: a model one of
        them serves is served, not "no account can take it"), with the models the window has
        seen them run (``seen_serving``: account id → models), while their workstation is
        online."""
        out = self._own_slots(lane)
        if lane == ModelKind.WEB.value and seen_serving:
            out += self._team_slots(seen_serving)
        return out

    def served_elsewhere(self, account_id: str) -> str | None:
        """The workstation that holds ``account_id`` if it is another one (team mode)."""
        status = self.statuses.get(account_id)
        if status is None or not status.belongs_elsewhere(self.services.workstation):
            return None
        return status.workstation

    def _team_slots(self, seen_serving: Mapping[str, Iterable[str]]) -> list[Slot]:
        now = self.now()
        mine = {a.id for a in self.accounts}
        out = []
        for account_id, models in seen_serving.items():
            where = self.served_elsewhere(account_id)
            status = self.statuses.get(account_id)
            if where is None or status is None or account_id in mine or not models:
                continue
            info = self.team.info(where)
            online = info is not None and info.online
            available = online and status.state(now).recovers_by_itself
            out.append(Slot(account_id, frozenset(models), 1, available, None))
        return out

    def _own_slots(self, lane: str) -> list[Slot]:
        now = self.now()
        out = []
        pacer = getattr(self.scheduler.lanes.get(ModelKind.WEB), "pacer", None)
        for a in self.accounts:
            if a.kind.value != lane:
                continue
            status = self.account_status(a.id)
            state = status.state(now) if status else AccountState.DISABLED
            slots = (
                1
                if a.kind is ModelKind.WEB
                else ((status.concurrency if status else None) or a.concurrency)
            )
            planner = pacer.planner(a.id) if isinstance(pacer, Pacer) else None
            out.append(Slot(a.id, frozenset(a.models), slots, state.recovers_by_itself, planner))
        return out
