"""Builds the provider for each account from the configuration (the scheduler's factory)."""

from __future__ import annotations

from media_assistant.core.config import AccountConfig, AppConfig
from media_assistant.core.errors import AccountUnavailable, ProviderError
from media_assistant.core.paths import Paths
from media_assistant.core.provider import Provider
from media_assistant.core.states import ModelKind
from media_assistant.sim.fake_web import FakeChatSite, FakeWebProvider

FAKE_SITE = "fake"  # in-process simulated chat (demos, tests): no browser involved


class ProviderRegistry:
    def __init__(self, config: AppConfig, paths: Paths) -> None:
        self.config = config
        self.paths = paths
        self._fake_site: FakeChatSite | None = None

    @property
    def fake_site(self) -> FakeChatSite:
        if self._fake_site is None:
            sim = self.config.simulation
            self._fake_site = FakeChatSite(latency_s=sim.web_latency_s, seed=sim.seed)
        return self._fake_site

    def __call__(self, account: AccountConfig) -> Provider:
        if account.kind is ModelKind.API:
            from media_assistant.providers.api.provider import ApiProvider

            try:
                return ApiProvider.from_config(self.config, account.id)
            except ProviderError as exc:
                raise AccountUnavailable(exc.message) from None
        if account.site == FAKE_SITE:
            return FakeWebProvider(self.fake_site, account.id)
        raise AccountUnavailable(
            f"web account {account.id}: site {account.site or account.site_file!r} "
            "needs the browser driver (not available in this build)"
        )
