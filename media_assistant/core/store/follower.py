"""Follows the database for changes made by other processes and publishes them on the bus.

The in-process bus hears only this process's own writes. A ``media-assistant cancel`` or
``submit`` in a terminal, a second window, or a scheduler on another workstation (one day, on a
shared database) change rows too: every such change appends to ``task_events``, whose id is a
cursor. On a short tick the follower asks which tasks have events past its cursor that another
process wrote (:attr:`StoreBase.origin` tells them apart), reads those rows as a task table shows
them and publishes :class:`TasksSynced`; it also compares the account rows with what it saw
last and publishes :class:`AccountChanged` for those that moved, and does the same for the
pauses (:class:`PausesChanged`, the whole small set) and batch rows written since its last look
(:class:`BatchesChanged`: a submit or a new schedule from a terminal).

It runs on the **writer** thread, not a reader: this process's own commits happen there too,
in order, and their events reach the loop in that order (core/store/threads.py). A row read here
is therefore never older than a change of ours published before it, and never published after
a newer change of ours — a view fed by the bus cannot be sent back in time.

**A team database** (PostgreSQL) is followed the same way, with two differences:

- *No change skipped.* Event ids come from a sequence, and sequence values commit out of order:
  id 41 may commit after id 42 was read, and a cursor at 42 would never see it — nor a
  ``store copy`` that holds 60,000 ids for a minute. So the follower does not follow ids there:
  each look asks for the events committed since the previous look's snapshot
  (core/store/event_feed.py; issue 28 item 7), however long their transaction ran, and those
  below its start too. (:class:`GapCursor`, the ids skipped over asked for again until they show
  or :data:`GAP_TTL_S` passed, is what it did before: SQLite, whose ids commit in order, keeps
  it.)
- *Woken, not only ticking.* Every change to the tables a window shows NOTIFYs a channel
  (triggers: core/store/migrations.py); a listener on the engine's own idle connection
  (core/store/backends/postgres_listen.py ``ChangeListener``) wakes the follower at once, so a
  change on one workstation shows on the others within a round trip. The tick stays as a fallback
  (:data:`TEAM_FOLLOW_EVERY_S`, faster while the listener is reconnecting), and after a
  reconnect the follower looks at once: what it missed meanwhile is in the log.
- *Poll-only* where LISTEN cannot work — behind PgBouncer in transaction mode (the listener
  detects it) or with ``[store] notify = false`` — the tick is :data:`POLL_ONLY_EVERY_S`, so a
  change still shows within 2 s.
- *Debounced*: looks are at least :data:`FOLLOW_DEBOUNCE_S` apart, so a storm of notifications
  (a teammate's 10,000-task submit, fifty busy workstations) costs four looks a second, not one
  per notification; the wake-ups meanwhile are served by the next look.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from media_assistant.core.model.accounts import AccountStatus
from media_assistant.core.model.events import (
    AccountChanged,
    BatchesChanged,
    PausesChanged,
    TasksSynced,
)
from media_assistant.core.model.records import Pause
from media_assistant.core.store.backends.postgres import is_unreachable
from media_assistant.core.store.backends.postgres_listen import ChangeListener
from media_assistant.core.store.base import chunks
from media_assistant.core.store.event_feed import FeedMark, committed_since, feed_mark
from media_assistant.core.store.facade import AsyncAccounts, AsyncStore

log = logging.getLogger(__name__)

FOLLOW_EVERY_S = 0.25  # another process's change is on screen within this, plus a flush
# A team database wakes the follower; the tick is only the fallback.
TEAM_FOLLOW_EVERY_S = 2.0
# A team database without LISTEN (a pooler, or [store] notify = false): a change shows within 2 s.
POLL_ONLY_EVERY_S = 1.0
FOLLOW_DEBOUNCE_S = 0.25  # the least time between two looks, however many wake-ups come
SYNC_SLICE = 500  # rows per published event: a 10k-row submit reaches views in slices
GAP_TTL_S = 30.0  # an event id skipped over is looked for this long
MAX_GAPS = 10_000


class GapCursor:
    """A cursor over event ids that may commit out of order: the highest id seen, and the ids
    below it not seen yet (each with when it was first missed)."""

    def __init__(self, at: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.at = at
        self.missing: dict[int, float] = {}
        self._clock = clock

    def take(self, ids: Sequence[int]) -> set[int]:
        """Record the ids a look returned; the ones that are news (all but repeats)."""
        now = self._clock()
        news = {i for i in ids if i > self.at or i in self.missing}
        for i in news:
            self.missing.pop(i, None)
        top = max(ids, default=self.at)
        if top > self.at:
            seen = set(ids)
            for i in range(self.at + 1, top):
                if i not in seen:
                    self.missing[i] = now
            self.at = top
        for i, since in list(self.missing.items()):
            if now - since > GAP_TTL_S:
                del self.missing[i]
        if len(self.missing) > MAX_GAPS:  # bounded: the oldest go first
            for i in sorted(self.missing)[: len(self.missing) - MAX_GAPS]:
                del self.missing[i]
        return news


class DatabaseFollower:
    def __init__(
        self,
        store: AsyncStore,
        accounts: AsyncAccounts,
        interval_s: float | None = None,
        *,
        listener: Callable[[Callable[[], None], Callable[[], None]], ChangeListener] | None = None,
        poll_only: bool = False,
    ) -> None:
        """``listener``: makes the team database's change listener from a wake-up and a
        reload callback (core/store/backends/postgres_listen.py); None: tick only (SQLite).
        ``poll_only``: a team database followed without LISTEN (``[store] notify = false``)."""
        self.store = store
        self.accounts = accounts
        team = listener is not None
        default = POLL_ONLY_EVERY_S if poll_only else FOLLOW_EVERY_S
        self.interval_s = interval_s or (TEAM_FOLLOW_EVERY_S if team else default)
        self._make_listener = listener
        self._listener: ChangeListener | None = None
        # A wake-up (NOTIFY) before the tick: set from the listener's thread through the loop.
        # A plain future on the loop the follower runs on, not an asyncio.Event: an Event binds
        # to whatever loop is running at its first wait, and Qt may step a task with none.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: asyncio.Future[None] | None = None
        self._woken = False
        self._last_look = float("-inf")  # loop time of the last look's start
        self.gaps = GapCursor(0)
        # PostgreSQL: the snapshot of the last look (core/store/event_feed.py), and an id cursor
        # given to start() that the first look also reads past.
        self._feed: FeedMark | None = None
        self._after: int | None = None
        self._accounts: dict[str, AccountStatus] | None = None
        self._pauses: tuple[Pause, ...] | None = None
        self._batches_seen: dict[str, float] = {}  # batch id → updated_at last published
        self._batch_cursor = 0.0
        self._task: asyncio.Task[None] | None = None

    @property
    def cursor(self) -> int:
        return self.gaps.at

    async def start(self, cursor: int | None = None) -> None:
        """Follow from ``cursor`` (the last event id the caller's view already reflects)."""
        self.gaps = GapCursor(await self.store.last_event_id() if cursor is None else cursor)
        if self.store.engine.dialect.name == "postgresql":
            self._feed = await self.store.db.read(feed_mark, self.store.engine)
            if cursor is not None and cursor < self._feed.event_id:
                self._after = cursor  # the caller's rows are older than the mark
        await self.store.db.write(self._baseline)
        loop = self._loop = asyncio.get_running_loop()
        if self._make_listener is not None:

            def wake() -> None:
                loop.call_soon_threadsafe(self._wake_now)

            self._listener = self._make_listener(wake, wake)
            self._listener.start()
        self._task = loop.create_task(self._run(), name="db-follower")

    async def stop(self) -> None:
        """Cancel the tick and wait for it; an error it died of is logged, never re-raised
        (a shutdown must go on)."""
        listener, self._listener = self._listener, None
        if listener is not None:
            await asyncio.to_thread(listener.stop)
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.wait({task})
            if not task.cancelled() and task.exception() is not None:
                log.warning("the database follower had stopped: %r", task.exception())

    def _wake_now(self) -> None:
        self._woken = True
        waiting = self._waiting
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    async def _run(self) -> None:
        loop = self._loop
        assert loop is not None
        while True:
            interval = self.interval_s
            if self._listener is not None and self._listener.unavailable.is_set():
                interval = min(interval, POLL_ONLY_EVERY_S)  # LISTEN cannot work here
            elif self._listener is not None and not self._listener.connected.is_set():
                interval = min(interval, 0.5)  # no wake-ups while it reconnects
            if not self._woken:
                waiting = self._waiting = loop.create_future()
                timer = loop.call_later(interval, _settle, waiting)
                try:
                    await waiting
                finally:
                    timer.cancel()
                    self._waiting = None
            since = loop.time() - self._last_look
            if since < FOLLOW_DEBOUNCE_S:  # wake-ups meanwhile are served by this look
                await asyncio.sleep(FOLLOW_DEBOUNCE_S - since)
            self._woken = False
            self._last_look = loop.time()
            try:
                await self.poll()
            except Exception as exc:  # a locked or busy database: next tick
                if is_unreachable(exc):  # the team database is away: the banner says so
                    log.debug("following the database: unreachable (%s)", exc)
                else:
                    log.warning("following the database failed: %s", exc)

    async def poll(self) -> None:
        """One look at the database (on the writer thread: see the module docstring)."""
        await self.store.db.write(self._poll)

    def _baseline(self) -> None:
        """Pauses and batch rows as they are now (the caller's view reflects them)."""
        store = self.store.sync
        self._pauses = tuple(store.pauses())
        for batch in store.batches():
            self._batches_seen[batch.batch_id] = batch.updated_at
            self._batch_cursor = max(self._batch_cursor, batch.updated_at)

    def _poll(self) -> None:
        store = self.store.sync
        if self._feed is not None:
            events, self._feed = committed_since(store.engine, self._feed)
            if self._after is not None:  # the first look: also what came after the caller's rows
                known = {e[0] for e in events}
                events += [e for e in store.events_after(self._after) if e[0] not in known]
                events.sort()
                self._after = None
            self.gaps.at = max(self.gaps.at, self._feed.event_id)
            news = {e[0] for e in events}
        else:
            events = store.events_after(self.gaps.at, sorted(self.gaps.missing))
            news = self.gaps.take([e[0] for e in events])
        ids = {
            task_id
            for event_id, task_id, origin in events
            if event_id in news and (origin is None or origin != store.origin)
        }
        for chunk in chunks(sorted(ids), SYNC_SLICE):
            rows = store.view_rows(chunk)
            if rows:
                store.bus.publish(TasksSynced(tuple(rows)))
        statuses = self.accounts.sync.all()
        if self._accounts is not None:
            for account_id, status in statuses.items():
                if self._accounts.get(account_id) != status:
                    store.bus.publish(AccountChanged(account_id, status))
        self._accounts = statuses
        pauses = tuple(store.pauses())
        if self._pauses is not None and pauses != self._pauses:
            store.bus.publish(PausesChanged(pauses))
        self._pauses = pauses
        fresh = [
            b
            for b in store.batches_since(self._batch_cursor)
            if self._batches_seen.get(b.batch_id) != b.updated_at
        ]
        for batch in fresh:
            self._batches_seen[batch.batch_id] = batch.updated_at
            self._batch_cursor = max(self._batch_cursor, batch.updated_at)
        if fresh:
            store.bus.publish(BatchesChanged(tuple(fresh)))


def _settle(waiting: asyncio.Future[None]) -> None:
    if not waiting.done():
        waiting.set_result(None)
