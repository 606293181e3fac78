"""Which batches are still running, for the window title and the "batch finished" notice."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from media_assistant.gui.tasks.rows import BatchCounts


@dataclass(frozen=True, slots=True)
class FinishedBatch:
    batch_id: str
    total: int
    not_successful: int


class BatchProgress:
    def __init__(self) -> None:
        self._open: set[str] = set()

    def watch(self, batch_ids: Iterable[str]) -> None:
        self._open.update(batch_ids)

    def update(self, counts: BatchCounts) -> tuple[int, int, list[FinishedBatch]]:
        """(done, total) over the batches still running, and the batches that just ended."""
        finished = []
        done = total = 0
        for batch in list(self._open):
            d, t, bad = counts.of(batch)
            if t and d == t:
                self._open.discard(batch)
                finished.append(FinishedBatch(batch, t, bad))
            else:
                done, total = done + d, total + t
        return done, total, finished
