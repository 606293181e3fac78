"""Builds the provider for each account from the configuration (the scheduler's factory)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from media_assistant.core.config.schema import FAKE_SITE, AccountConfig, AppConfig
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import AccountUnavailable, ConfigError, ProviderError
from media_assistant.core.model.provider import Provider
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store.facade import AsyncAccounts

if TYPE_CHECKING:
    from media_assistant.providers.web.browser import WebDriver
    from media_assistant.providers.web.selfcheck import RecordedBrowser

# Builds the provider of a web account on the in-process simulated site (``site = "fake"``):
# given by the composition root (services.py), so production code never imports the simulators.
FakeWebFactory = Callable[[AppConfig, str], Provider]


class ProviderRegistry:
    def __init__(
        self,
        config: AppConfig,
        paths: Paths,
        accounts: AsyncAccounts | None = None,
        fake_web: FakeWebFactory | None = None,
    ) -> None:
        self.config = config
        self.paths = paths
        self.accounts = accounts
        self.fake_web = fake_web
        self._driver: WebDriver | None = None

    @property
    def driver(self) -> WebDriver:
        """The one browser driver (thread + Playwright), started on first use."""
        if self._driver is None:
            from media_assistant.providers.web.browser import WebDriver

            b = self.config.browser
            self._driver = WebDriver(
                executable=b.executable, headless=b.headless, recycle_after=b.recycle_after_tasks
            )
            self._driver.start()
        return self._driver

    def reconfigure(self, config: AppConfig) -> None:
        """Providers built from now on use ``config`` (the scheduler applied a new one). The
        browser driver keeps its settings until the next start."""
        self.config = config

    async def aclose(self) -> None:
        if self._driver is not None:
            await self._driver.aclose()
            self._driver = None

    def _record_browser(self, account_id: str, pid: int | None, started: float | None) -> None:
        if self.accounts is not None:  # queued on the database's writer; nobody waits for it
            self.accounts.db.write_soon(self.accounts.sync.set_browser, account_id, pid, started)

    async def _recorded_browser(self, account_id: str) -> RecordedBrowser | None:
        from media_assistant.providers.web.selfcheck import RecordedBrowser

        status = await self.accounts.get(account_id) if self.accounts is not None else None
        if status is None or status.browser_pid is None:
            return None
        return RecordedBrowser(status.browser_pid, status.browser_started_at)

    def __call__(self, account: AccountConfig) -> Provider:
        if account.kind is ModelKind.API:
            from media_assistant.providers.api.provider import ApiProvider

            try:
                return ApiProvider.from_config(self.config, account.id)
            except ProviderError as exc:
                raise AccountUnavailable(exc.message, exc.code or exc.kind.value) from None
        if account.site == FAKE_SITE:
            if self.fake_web is None:
                raise AccountUnavailable(
                    f"web account {account.id}: no simulated site here", "no_simulated_site"
                )
            return self.fake_web(self.config, account.id)
        from media_assistant.providers.web.adapter import adapter_path, load_adapter
        from media_assistant.providers.web.fingerprint import FingerprintStore
        from media_assistant.providers.web.provider import WebProvider

        try:
            adapter = load_adapter(
                site=account.site, site_file=account.site_file, user_dir=self.paths.sites
            )
        except ConfigError as exc:
            raise AccountUnavailable(
                f"web account {account.id}: {exc}", "adapter_unreadable"
            ) from None
        for name in account.models:
            model = self.config.model(name)
            if model is not None and model.upstream and adapter.model_choice is None:
                raise AccountUnavailable(
                    f"web account {account.id}: model {name!r} sets upstream = "
                    f"{model.upstream!r}, but site adapter {adapter.id!r} has no [model_choice] "
                    "saying how to pick the site's model (see docs/ADAPTERS.md)",
                    "model_choice_missing",
                )
        from media_assistant.providers.proxy import route_for

        try:
            proxy = route_for(self.config, account)
        except ProviderError as exc:
            raise AccountUnavailable(exc.message, exc.code or exc.kind.value) from None
        return WebProvider(
            self.driver,
            account.id,
            self.paths.profile(account.id),
            adapter,
            origin=account.origin,
            diagnostics_dir=self.paths.diagnostics,
            fingerprints=FingerprintStore(self.paths.data_dir / "fingerprints"),
            sites_dir=self.paths.sites if account.site_file is None else None,
            adapter_file=adapter_path(
                site=account.site, site_file=account.site_file, user_dir=self.paths.sites
            ),
            diagnostics_retention=self.config.diagnostics.retention(),
            record_browser=self._record_browser,
            recorded_browser=self._recorded_browser,
            proxy=proxy,
        )
