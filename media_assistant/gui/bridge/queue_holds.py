"""What holds the queue back, as the window knows it: pauses and batch schedules.

Plain Python (no Qt), fed by the bus (``PausesChanged``, ``BatchesChanged``: ours at once,
other processes' through the database follower). The views ask it many times a second — what
a pending task waits for, whether a lane, batch or account is paused — without a statement.
The claim statement in the core decides; this only describes (core/store/holds.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from media_assistant.core.model.records import BatchRecord, Pause
from media_assistant.core.rules.schedules import held_until


@dataclass(frozen=True, slots=True)
class Hold:
    kind: str  # "paused" | "scheduled"
    until: float | None = None  # scheduled: when it may start


class QueueHolds:
    def __init__(self) -> None:
        self.pauses: frozenset[tuple[str, str]] = frozenset()
        self.batches: dict[str, BatchRecord] = {}
        self.version = 0  # bumped on every change: views recompute only when it moved

    def set_pauses(self, pauses: Iterable[Pause]) -> None:
        fresh = frozenset((p.scope, p.target) for p in pauses)
        if fresh != self.pauses:
            self.pauses = fresh
            self.version += 1

    def upsert_batches(self, batches: Iterable[BatchRecord]) -> None:
        for batch in batches:
            self.batches[batch.batch_id] = batch
        self.version += 1

    # ---------------------------------------------------------------- questions

    def paused(self, scope: str, target: str = "") -> bool:
        return (scope, target) in self.pauses

    @property
    def all_paused(self) -> bool:
        return ("all", "") in self.pauses

    def batch_hold(self, batch_id: str, lane: str | None, now: float) -> Hold | None:
        """Why a pending task of this batch (in this lane) cannot start now, if it cannot."""
        if self.all_paused or self.paused("batch", batch_id):
            return Hold("paused")
        if lane is not None and self.paused("lane", lane):
            return Hold("paused")
        batch = self.batches.get(batch_id)
        if batch is not None:
            until = held_until(batch, now)
            if until is not None:
                return Hold("scheduled", until)
        return None

    def label(self, batch_id: str) -> str:
        batch = self.batches.get(batch_id)
        return batch.label if batch is not None else batch_id
