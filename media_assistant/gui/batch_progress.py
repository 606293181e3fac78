"""Which batches are still running, for the window title and the "batch finished" notice."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from media_assistant.gui.task_model import Row

TERMINAL = frozenset({"success", "failed", "canceled"})


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

    def update(self, rows: Sequence[Row]) -> tuple[int, int, list[FinishedBatch]]:
        """(done, total) over the batches still running, and the batches that just ended."""
        counts = {b: [0, 0, 0] for b in self._open}  # done, total, not successful
        for r in rows:
            c = counts.get(r.batch_id)
            if c is not None:
                c[1] += 1
                c[0] += r.state in TERMINAL
                c[2] += r.state in TERMINAL and r.state != "success"
        finished = []
        done = total = 0
        for batch, (d, t, bad) in counts.items():
            if t and d == t:
                self._open.discard(batch)
                finished.append(FinishedBatch(batch, t, bad))
            else:
                done, total = done + d, total + t
        return done, total, finished
