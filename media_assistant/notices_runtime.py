"""Notices wired to a running app (the window, ``run``): the core's :class:`NoticeCenter`
listening to the store, and the webhook sender when webhooks are configured. One object to
start after the scheduler and to stop before it, so both composition roots do the same.

In a team every workstation's app derives the same notices from the shared queue: each shows
them, and only the first to claim a notice's key in the team database sends it to the webhooks
(``Store.claim_notice``), so a group chat hears of a batch once, not once per PC. The key is made
of what every workstation reads alike (the batch's counts and when its last task ended; the
account's state and row version). A notice about this workstation's own disk is its own."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from media_assistant.core.metrics.alarms import Alarm, evaluate
from media_assistant.core.metrics.watch import AlarmWatch, team_keys
from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice, NoticeCenter, message_language
from media_assistant.core.store.db import one_read
from media_assistant.core.store.metrics_reads import MetricsReads
from media_assistant.providers.webhooks import WebhookSender
from media_assistant.services import Services

log = logging.getLogger(__name__)


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
        self.services = services
        self._claims: set[asyncio.Task[None]] = set()
        if self.sender is not None:
            self.center.subscribe(self._to_webhooks)
        alarms = config.alarms
        reads = MetricsReads(services.engine)

        def evaluate_in_one_read(at: float) -> list[Alarm]:
            with one_read(services.engine):  # one transaction, not a dozen (issue 28)
                return evaluate(reads, alarms, at)

        async def judge(at: float) -> list[Alarm]:
            return await services.db.read(evaluate_in_one_read, at)

        # [alarms]: each episode once, on this loop; the figures on a database reader thread
        self.alarms = (
            AlarmWatch(judge, self.center.post, services.clock) if alarms.enabled else None
        )

    def _to_webhooks(self, notice: Notice) -> None:
        assert self.sender is not None
        if self.services.store_url is None or notice.kind is NoticeKind.DISK_LOW:
            self.sender.send_soon(notice)  # this workstation's own: nobody else sends it
            return
        task = asyncio.ensure_future(self._send_once(notice))
        self._claims.add(task)
        task.add_done_callback(self._claims.discard)

    async def _send_once(self, notice: Notice) -> None:
        assert self.sender is not None
        store = self.services.async_store
        try:
            if notice.kind in (NoticeKind.ALARM, NoticeKind.ALARM_CLEARED):
                slot = self.services.config.alarms.window_min * 60.0
                won = [
                    await store.claim_notice(k, self.services.workstation)
                    for k in team_keys(notice, slot)
                ]
                if not all(won):
                    log.info("notice %s: sent by another workstation", notice.kind.value)
                    return
                self.sender.send_soon(notice)
                return
            key = await team_key(notice, store.batch_finished_at)
            if not await store.claim_notice(key, self.services.workstation):
                log.info("notice %s: sent by another workstation", notice.kind.value)
                return
        except Exception as exc:  # the team database is away: better twice than never
            log.warning("notice %s: could not check who sends it (%s)", notice.kind.value, exc)
        self.sender.send_soon(notice)

    def subscribe(self, listener: Callable[[Notice], None]) -> None:
        self.center.subscribe(listener)

    async def start(self) -> None:
        await self.center.start()
        if self.alarms is not None:
            self.alarms.start()

    async def stop(self, wait_s: float = 15.0) -> None:
        """Announce what already happened, let webhook deliveries finish (up to ``wait_s``)."""
        if self.alarms is not None:
            await self.alarms.stop()
        await self.center.stop()
        if self._claims:
            await asyncio.wait(set(self._claims), timeout=wait_s)
        if self.sender is not None:
            await self.sender.close(wait_s)


async def team_key(
    notice: Notice, batch_finished_at: Callable[[str], Awaitable[float | None]]
) -> str:
    """The notice's name on every workstation alike."""
    p = notice.params
    if notice.kind in (NoticeKind.BATCH_DONE, NoticeKind.BATCH_FAILED):
        finished = await batch_finished_at(notice.subject)
        counts = "|".join(str(p.get(k, 0)) for k in ("total", "succeeded", "failed", "canceled"))
        return f"{notice.kind.value}|{notice.subject}|{counts}|{finished or 0:.3f}"
    if notice.kind is NoticeKind.ACCOUNT_ATTENTION:
        return f"{notice.kind.value}|{notice.subject}|{p.get('state', '')}|{p.get('version', '')}"
    return f"{notice.kind.value}|{notice.subject}|{notice.at:.0f}"
