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
"""

from __future__ import annotations

import asyncio
import logging

from media_assistant.core.model.accounts import AccountStatus
from media_assistant.core.model.events import (
    AccountChanged,
    BatchesChanged,
    PausesChanged,
    TasksSynced,
)
from media_assistant.core.model.records import Pause
from media_assistant.core.store.base import chunks
from media_assistant.core.store.facade import AsyncAccounts, AsyncStore

log = logging.getLogger(__name__)

FOLLOW_EVERY_S = 0.25  # another process's change is on screen within this, plus a flush
SYNC_SLICE = 500  # rows per published event: a 10k-row submit reaches views in slices


class DatabaseFollower:
    def __init__(
        self, store: AsyncStore, accounts: AsyncAccounts, interval_s: float = FOLLOW_EVERY_S
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.interval_s = interval_s
        self.cursor = 0
        self._accounts: dict[str, AccountStatus] | None = None
        self._pauses: tuple[Pause, ...] | None = None
        self._batches_seen: dict[str, float] = {}  # batch id → updated_at last published
        self._batch_cursor = 0.0
        self._task: asyncio.Task[None] | None = None

    async def start(self, cursor: int | None = None) -> None:
        """Follow from ``cursor`` (the last event id the caller's view already reflects)."""
        self.cursor = await self.store.last_event_id() if cursor is None else cursor
        await self.store.db.write(self._baseline)
        self._task = asyncio.get_running_loop().create_task(self._run(), name="db-follower")

    async def stop(self) -> None:
        """Cancel the tick and wait for it; an error it died of is logged, never re-raised
        (a shutdown must go on)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.wait({task})
            if not task.cancelled() and task.exception() is not None:
                log.warning("the database follower had stopped: %r", task.exception())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                await self.poll()
            except Exception as exc:  # a locked or busy database: next tick
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
        self.cursor, ids = store.changes_since(self.cursor, exclude_origin=store.origin)
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
