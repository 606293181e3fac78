"""Alarms as episodes (issue 31 item 3): the alarms that hold (core/metrics/alarms.py) are looked
at every :data:`EVERY_S` on a database reader thread; an alarm that starts to hold raises one
``alarm`` notice, and one ``alarm_cleared`` when it no longer does — not one per look. The
notices go where every notice goes (the window's list, the tray, ``run``'s output, the webhooks:
notices_runtime.py), so a team sends each to its group chat once (:func:`team_keys`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from media_assistant.core.metrics.alarms import Alarm
from media_assistant.core.model.clock import Clock
from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice

log = logging.getLogger(__name__)

EVERY_S = 30.0


def alarm_notice(alarm: Alarm, at: float, *, cleared: bool = False) -> Notice:
    minutes = (at - alarm.since) / 60.0
    return Notice(
        NoticeKind.ALARM_CLEARED if cleared else NoticeKind.ALARM,
        alarm.subject,
        at,
        {
            "alarm": alarm.kind,
            "value": round(alarm.value, 4),
            "threshold": alarm.threshold,
            "minutes": round(minutes, 1),
        },
    )


def team_keys(notice: Notice, slot_s: float) -> tuple[str, str]:
    """The names a team's workstations claim before one of them sends an alarm notice: the
    slot of ``slot_s`` it fell in and the one before. Each workstation sees the alarm within a
    look or two of the others (they judge the same rows), so whoever claims both first sends it,
    and a workstation one slot later finds the earlier slot taken."""
    kind = f"{notice.kind.value}|{notice.params.get('alarm', '')}|{notice.subject}"
    slot = int(notice.at // slot_s)
    return f"{kind}|{slot}", f"{kind}|{slot - 1}"


class AlarmWatch:
    """Looks at the alarms now and then and posts each episode's start and end once."""

    def __init__(
        self,
        evaluate: Callable[[float], Awaitable[list[Alarm]]],
        post: Callable[[Notice], None],
        clock: Clock,
        *,
        every_s: float = EVERY_S,
    ) -> None:
        self.evaluate = evaluate
        self.post = post
        self.clock = clock
        self.every_s = every_s
        self.active: dict[tuple[str, str], Alarm] = {}
        self._task: asyncio.Task[None] | None = None

    async def check(self) -> list[Notice]:
        """One look: the notices of alarms that started or ended since the last."""
        now = self.clock.now()
        holding = {a.key: a for a in await self.evaluate(now)}
        posted: list[Notice] = []
        for key, alarm in holding.items():
            if key not in self.active:
                posted.append(alarm_notice(alarm, now))
        for key, alarm in self.active.items():
            if key not in holding:
                posted.append(alarm_notice(alarm, now, cleared=True))
        self.active = {k: self.active.get(k, a) for k, a in holding.items()}
        for notice in posted:
            self.post(notice)
        return posted

    async def _loop(self) -> None:
        while True:
            try:
                await self.check()
            except Exception as exc:  # a busy or distant database: look again next time
                log.warning("could not judge the alarms: %s", exc)
            await self.clock.sleep(self.every_s)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
