"""Composition shared by the CLI and the GUI: paths, config, database, store, scheduler.

``store`` and ``accounts`` are the synchronous store, for commands that have no event loop
(``status``, ``export``…). Code on an event loop uses ``async_store`` and ``async_accounts``:
the same operations, run on the database threads (``db``), awaited.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from media_assistant.core.config.schema import AppConfig, load_config
from media_assistant.core.config.team import store_url as team_store_url
from media_assistant.core.config.team import workstation_name
from media_assistant.core.disk.store_file import open_store
from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.live_accounts import ProviderFactory
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.accounts import AccountDeclaration
from media_assistant.core.model.clock import Clock, ServerAlignedClock, SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.provider import Provider
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.backends.postgres import app_name, clock_offset
from media_assistant.core.store.backends.postgres_listen import ChangeListener
from media_assistant.core.store.facade import AsyncAccounts, AsyncStore
from media_assistant.core.store.follower import DatabaseFollower
from media_assistant.core.store.key_gate import key_identity
from media_assistant.core.store.team import open_team_store
from media_assistant.core.store.threads import DbThreads
from media_assistant.providers.adapter_check import check_site_adapters

if TYPE_CHECKING:
    from media_assistant.providers.registry import FakeWebFactory

log = logging.getLogger(__name__)


@dataclass
class Services:
    paths: Paths
    config: AppConfig
    engine: Engine
    store: Store
    accounts: AccountStore
    clock: Clock
    bus: EventBus = field(default_factory=EventBus)
    db: DbThreads = field(default_factory=DbThreads)
    # Team mode: the team database's URL (None: the SQLite file) and the password found for it
    # in the OS keyring (kept in memory only: the change listener connects with it).
    store_url: str | None = None
    store_password: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._metrics_server: Any = None
        self.async_store = AsyncStore(self.store, self.db)
        self.async_accounts = AsyncAccounts(self.accounts, self.db)

    @classmethod
    def open(
        cls,
        paths: Paths,
        *,
        require_config: bool = True,
        clock: Clock | None = None,
        read_only: bool = False,
        db_wait_s: float | None = None,
        notify: Callable[[str], None] | None = None,
        store_url: str | None = None,
        team: bool = True,
    ) -> Services:
        """Load and validate the config and every web account's site adapter (ConfigError →
        exit 2), then open the task store.

        The SQLite file in the data dir (core/disk/store_file.py): checked first (StoreDamaged →
        exit 5, the file untouched), waited for while another process holds it (with
        ``db_wait_s``; StoreLocked → exit 7). Or, in team mode (``store_url`` — the
        ``--store-url`` flag —, ``$MEDIA_ASSISTANT_STORE_URL`` or ``[store] url``; never for the
        demo: ``team=False``), the team database (core/store/team.py): waited for while it cannot
        be reached (StoreUnreachable → exit 8), its password from the OS keyring when libpq has
        none, and this workstation's clock aligned with the server's. ``read_only`` (status,
        export, lists) writes nothing: no account sync, no migration, read-only connections."""
        if require_config or paths.config_file.exists():
            config = load_config(paths.config_file)
            check_site_adapters(config, paths)
        else:
            config = AppConfig()
        paths.ensure()
        clock = clock or SystemClock()
        bus = EventBus()
        url = team_store_url(store_url, config.store.url, paths.config_file.name) if team else None
        password: str | None = None
        if url is None:
            engine = open_store(
                paths.database,
                read_only=read_only,
                backups=paths.backups,
                wait_s=db_wait_s,
                notify=notify,
            )
        else:
            from media_assistant.providers.secrets import read_store_password

            password = read_store_password(url)
            engine = open_team_store(
                url,
                password=password,
                read_only=read_only,
                wait_s=db_wait_s,
                notify=notify,
                connections=config.store.connections,
                application_name=app_name(workstation_name(config.team.workstation)),
            )
            clock = ServerAlignedClock(clock, clock_offset(engine))
        store = Store(engine, clock, bus)
        store.operator = config.team.operator or workstation_name(config.team.workstation)
        accounts = AccountStore(engine, clock, bus)
        if not read_only:
            store.set_class_weights(config.scheduling.weights())
            declared = config.account_declarations()
            if url is not None:
                declared = with_key_identities(config, declared)
            # Disagreements about a key's limits are said by the scheduler's start (its log).
            accounts.sync(
                declared,
                workstation=workstation_name(config.team.workstation),
                take_over=url is None,
                dead_after=config.scheduler.dead_after_s,
            )
        services = cls(paths, config, engine, store, accounts, clock, bus, DbThreads())
        services.store_url = url
        services.store_password = password
        return services

    @property
    def workstation(self) -> str:
        return workstation_name(self.config.team.workstation)

    def follower(self) -> DatabaseFollower:
        """What a window follows other processes' changes with: on a team database, woken by
        its NOTIFY channel (core/store/follower.py), listened for on the engine's own idle
        connection (no connection more: issue 28 item 1)."""
        url, engine = self.store_url, self.engine
        listener = None
        poll_only = url is not None and not self.config.store.notify
        if url is not None and not poll_only:

            def listener(wake: Callable[[], None], reload: Callable[[], None]) -> ChangeListener:
                return ChangeListener(engine, on_change=wake, on_reconnect=reload)

        return DatabaseFollower(
            self.async_store, self.async_accounts, listener=listener, poll_only=poll_only
        )

    def scheduler(self, provider_factory: ProviderFactory | None = None) -> Scheduler:
        if provider_factory is None:
            from media_assistant.providers.registry import ProviderRegistry

            provider_factory = ProviderRegistry(
                self.config, self.paths, self.async_accounts, fake_web=_simulated_web()
            )
        scheduler = Scheduler(
            self.config,
            self.async_store,
            self.clock,
            provider_factory,
            profile_dir=self.paths.profile,
            data_dir=self.paths.data_dir,
        )
        if self.store_url is not None:
            scheduler.declarations = lambda config: with_key_identities(
                config, config.account_declarations()
            )
        return scheduler

    def bind_loop(self) -> None:
        """Called on the event loop that will use ``async_store``: events are delivered there,
        and a statement that still runs on its thread is reported (core/store/threads.py)."""
        import asyncio

        from media_assistant.core.store.db import mark_loop_thread

        self.bus.bind_loop(asyncio.get_running_loop())
        mark_loop_thread()

    def serve_metrics(self) -> None:
        """``[metrics] listen``: the lanes' figures for Prometheus while the window or ``run``
        is open (core/metrics/prometheus.py), each scrape's reads on a database reader thread.
        An address that cannot be had is logged; the app runs on without it."""
        listen = self.config.metrics.listen
        if listen is None or self._metrics_server is not None:
            return
        from media_assistant.core.config.metrics import parse_listen
        from media_assistant.core.metrics.prometheus import serve
        from media_assistant.core.store.metrics_reads import MetricsReads

        def on_reader(fn: Callable[..., object], *args: object) -> object:
            return self.db.submit_read(fn, *args).result(timeout=60)

        host, port = parse_listen(listen)
        try:
            self._metrics_server, _ = serve(
                host, port, MetricsReads(self.engine), self.clock, on_reader
            )
        except OSError as exc:
            log.warning("[metrics] listen = %s: cannot serve the metrics there: %s", listen, exc)
            return
        log.info("serving the lanes' figures for Prometheus at http://%s/metrics", listen)

    def close(self) -> None:
        from media_assistant.core.store.db import unmark_loop_thread

        if self._metrics_server is not None:
            self._metrics_server.shutdown()
            self._metrics_server.server_close()
            self._metrics_server = None
        unmark_loop_thread()
        self.db.close()
        self.engine.dispose()


def _simulated_web() -> FakeWebFactory:
    """Providers for accounts on ``site = "fake"`` (demos, tests): the simulator is imported at
    the first such account, never by a configuration without one."""
    made: FakeWebFactory | None = None

    def provider(config: AppConfig, account_id: str) -> Provider:
        nonlocal made
        if made is None:
            from media_assistant.sim.fake_web import fake_web_factory

            made = fake_web_factory()
        return made(config, account_id)

    return provider


def with_key_identities(
    config: AppConfig, declared: list[AccountDeclaration]
) -> list[AccountDeclaration]:
    """Team mode: each API account's declaration carries its key's identity (a keyed hash of
    the key and base URL, core/store/key_gate.py), so the team-wide gate holds the key's limits
    whatever each config names it. An account whose key is not found here keeps its id as the
    gate's key (its provider will say what is missing)."""
    from media_assistant.providers.secrets import API_KEY, lookup

    out = []
    for d in declared:
        account = config.account(d.account_id)
        key = None
        if d.kind is ModelKind.API and account is not None and account.base_url:
            key = lookup(API_KEY, account.id, account.api_key_env).value
        if key and account is not None and account.base_url:
            out.append(dataclasses.replace(d, key_id=key_identity(key, account.base_url)))
        else:
            out.append(d)
    return out
