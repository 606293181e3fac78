"""The task store: every state change is one transaction, fenced, logged, then published.

The store is split into rooms, each a small module a newcomer can name:

========================  =======================================================================
``queue.py``              submit; claim the head of the queue; what is claimable and when
                          (``submits.py``: how a submission holds up nobody; ``task_seq.py``:
                          submission numbers)
``outcomes.py``           an attempt's fenced outcome (success, failure, cancel, requeue),
                          heartbeats, log lines
``reaper.py``             running rows whose attempt is gone (stale heartbeat, orphans)
``operator.py``           the operator's cancel and retry
``batches.py``            batch rows and schedules, pauses, priorities (``holds.py``: how the
                          claim statement skips paused and scheduled work)
``reads.py``              read models for the window, ``status`` and ``export``
``exports.py``            exports: tasks by id in a given order, a scope's input columns
``batch_ends.py``         which batches still have work; state counts behind "batch ended"
``fair_store.py``         the fair share's nodes, charges and the claim's choice of batch
                          (``fair_reads.py``: each batch's share and ETA)
``facade.py``             :class:`AsyncStore`: how the event loop reaches all of the above — every
                          statement runs on a database thread (``core/store/threads.py``)
========================  =======================================================================

:class:`Store` is all rooms in one object, with plain synchronous methods: commands without an
event loop (``status``, ``export``…) and tests call it directly; code on the event loop (the
scheduler, lanes, the window) only ever awaits :class:`AsyncStore`.
"""

from __future__ import annotations

from media_assistant.core.store.batch_ends import BatchEndReads
from media_assistant.core.store.batches import BatchRoom
from media_assistant.core.store.exports import ExportReads
from media_assistant.core.store.fair_reads import FairReads
from media_assistant.core.store.operator import OperatorRoom
from media_assistant.core.store.outcomes import OutcomeRoom
from media_assistant.core.store.queue import QueueRoom
from media_assistant.core.store.reads import ReadModel
from media_assistant.core.store.reaper import ReaperRoom


class Store(
    QueueRoom,
    OutcomeRoom,
    ReaperRoom,
    OperatorRoom,
    BatchRoom,
    ReadModel,
    ExportReads,
    BatchEndReads,
    FairReads,
):
    """Every room of the task store (synchronous; see the module docstring)."""


__all__ = ["Store"]
