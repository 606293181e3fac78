"""How far the work the window shows has come, for its title: the chosen batch, or with *All
batches* every batch that still has work (a batch that ended long ago does not dilute it, and
the newest batch alone does not stand for all of them)."""

from __future__ import annotations

from media_assistant.gui.tasks.rows import BatchCounts


def progress(counts: BatchCounts, batch_id: str = "") -> tuple[int, int]:
    """(ended, total) of ``batch_id``, or over every batch with unfinished tasks ("")."""
    if batch_id:
        ended, total, _bad = counts.of(batch_id)
        return ended, total
    ended = total = 0
    for batch in counts.counts:
        tally = counts.tally(batch)
        if tally.pending or tally.running:
            ended, total = ended + tally.ended, total + tally.total
    return ended, total
