"""Notices wired to a running app (the window, ``run``): the core's :class:`NoticeCenter`
listening to the store, and the webhook sender when webhooks are configured. One object to
start after the scheduler and to stop before it, so both composition roots do the same."""

from __future__ import annotations

from collections.abc import Callable

from media_assistant.core.notices.center import Notice, NoticeCenter, message_language
from media_assistant.providers.webhooks import WebhookSender
from media_assistant.services import Services


class Notices:
    def __init__(self, services: Services) -> None:
        config = services.config
        self.center = NoticeCenter(
            services.async_store,
            disk_path=services.paths.data_dir,
            disk_low_mb=config.notifications.disk_low_mb,
        )
        self.language = message_language(config.ui.language)
        self.sender = (
            WebhookSender(config.webhooks, language=self.language) if config.webhooks else None
        )
        if self.sender is not None:
            self.center.subscribe(self.sender.send_soon)

    def subscribe(self, listener: Callable[[Notice], None]) -> None:
        self.center.subscribe(listener)

    async def start(self) -> None:
        await self.center.start()

    async def stop(self, wait_s: float = 15.0) -> None:
        """Announce what already happened, let webhook deliveries finish (up to ``wait_s``)."""
        await self.center.stop()
        if self.sender is not None:
            await self.sender.close(wait_s)
