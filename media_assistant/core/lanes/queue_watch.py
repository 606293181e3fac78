"""The scheduler's one look a second at the queue (issue 28 item 3: idle load ≤ 2 transactions a
second per workstation, changes still acted on within a second).

Each look is one statement (core/store/watch.py ``read_marks``). Only when a mark moved does the
scheduler ask the question behind it: the accounts reloaded when an account row changed, the
cancel flags read when one of its running tasks has one, the lanes woken when a task event, a
pause or a batch changed, when a delayed task or a scheduled batch came due, at a minute
boundary while a batch has active hours, and when a running row stopped beating (the lanes
reap then). Meanwhile the lanes and ``run``'s idle check sleep: they no longer poll the
database every second each (``Runtime.watched``), only as a fallback every
``Runtime.watched_poll_s``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from media_assistant.core.lanes.runtime import Runtime
from media_assistant.core.store.watch import Marks, read_marks


class QueueWatch:
    def __init__(
        self,
        rt: Runtime,
        *,
        on_accounts: Callable[[], Awaitable[None]],
        on_cancel: Callable[[set[str]], None],
        on_work: Callable[[], None],
    ) -> None:
        self.rt = rt
        self._on_accounts = on_accounts
        self._on_cancel = on_cancel
        self._on_work = on_work
        self.marks: Marks | None = None
        # Raised whenever the marks of tasks (events) or pauses moved: ``run`` reads its tasks'
        # states or the pauses only then (commands/run.py).
        self.events_generation = 0
        self.pauses_generation = 0
        self._minute: int | None = None
        self._woken_for: float | None = None  # the due time tick() last woke the lanes for

    async def look(self) -> Marks:
        rt = self.rt
        store = rt.store
        now = rt.clock.now()
        marks = await store.db.read(
            read_marks, store.engine, rt.owner_id, now, rt.config.scheduler.dead_after_s
        )
        older, self.marks = self.marks, marks
        if older is None or marks.accounts != older.accounts:
            await self._on_accounts()
        if marks.flagged:
            flagged = await store.cancel_flags(rt.owner_id)
            if flagged:
                self._on_cancel(flagged)
        if older is None or marks.events != older.events:
            self.events_generation += 1
        if older is None or marks.pauses != older.pauses:
            self.pauses_generation += 1
        minute = int(now // 60)
        due = older is not None and older.next_due is not None and older.next_due <= now
        if marks.stale:
            rt.stale_seen = rt.clock.monotonic()
        if (
            older is None
            or marks.work_changed(older)
            or due
            or marks.stale
            or (marks.hours and minute != self._minute)
        ):
            self._on_work()
        self._minute = minute
        return marks

    def tick(self) -> None:
        """Every housekeeping tick, no statement: wake the lanes as soon as the delayed task or
        scheduled batch the last look saw comes due (not up to a look later)."""
        due = self.marks.next_due if self.marks is not None else None
        if due is not None and due <= self.rt.clock.now() and due != self._woken_for:
            self._woken_for = due
            self._on_work()
