"""How a submission goes into a shared queue without holding up the team (issue 28 item 5).

A submission reads, then writes: the next submission numbers, the free generated ids, the ids
already there, the batch row, the fair share's nodes. It used to do all of that under one
team-wide lock held for its whole transaction, so a 60,000-task import (a minute on a busy
server) or a ``store copy`` made every other workstation's import wait — and fail on the 10 s
lock timeout. Now each part is protected only as far as it needs, and the long part (inserting
the tasks and their event lines) holds nothing anybody else waits for:

1. **Numbers** come from a counter reserved in a transaction of its own, committed before the
   long one (core/store/task_seq.py): one round trip under a row lock.
2. **Generated ids** (``<batch>-00001``) are settled under a lock of their batch only
   (:func:`lock_batches`: a transaction-scoped advisory lock per batch id, taken in sorted
   order so two submissions never wait for each other in a circle). Imports into different
   batches never wait for each other; two into the same batch still take turns, so their
   generated ids cannot collide — the second waits up to :data:`SAME_BATCH_WAIT_MS`, not the
   10 s lock timeout (it waits for an import, not for a stuck statement). Supplied ids take no
   lock: ``INSERT … ON CONFLICT (task_id) DO NOTHING RETURNING task_id`` decides which rows went
   in (:func:`insert_new`); the others are skipped, as an id already there always was, and only
   rows that went in get their "submitted" line. A generated id taken meanwhile by an id another
   batch's submission supplied is numbered on and tried again.
3. **The end** — the batch row, the fair share's activation (row locks on ``fair_nodes``, which
   every claim charges) — comes last, after every insert, under a short team-wide lock
   (:data:`END_LOCK`): ends of submissions touch several shared rows (a class node, a tenant
   node, batch rows) in an order no single statement fixes, and one at a time they cannot
   deadlock. A claim waits at most for this end and the commit, never for the import.

On this workstation, the window's and ``run``'s import runs on a thread of its own, not the
writer thread its heartbeats and claims use; its end runs in order with that thread's jobs
(core/store/threads.py).

On SQLite the locks are no-ops and the numbers are taken inside the submission's own
transaction: the write lock serialises every writer for the whole transaction anyway (a second
process's import waits on the busy timeout; a workstation of its own has no team).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.dialects import postgresql, sqlite

from media_assistant.core.model.event_codes import EventCode, params_json
from media_assistant.core.model.records import NewTask
from media_assistant.core.store import task_seq
from media_assistant.core.store.backends.postgres import advisory_xact_lock
from media_assistant.core.store.base import PENDING, T
from media_assistant.core.store.db import serialize, write_tx
from media_assistant.core.store.task_ids import settle_generated_ids

BATCH_LOCK = "media-assistant:submit:"  # + the batch id
END_LOCK = "media-assistant:submit-end"
# A submission into a batch another workstation is importing into waits for that import (its
# generated ids continue after the other's), up to this long.
SAME_BATCH_WAIT_MS = 600_000
# A generated id taken by a supplied one of a concurrent submission: numbered on this often.
RENUMBER_TRIES = 5


def reserve_alone(engine: Engine, n: int) -> int:
    """``n`` submission numbers in a short transaction of their own (committed on return);
    the first of them."""
    with write_tx(engine) as conn:
        return task_seq.reserve(conn, n)


def lock_batches(conn: Connection, batch_ids: Sequence[str]) -> None:
    """Inside the submission's transaction: wait until no other submission generating ids for
    one of these batches runs (PostgreSQL; SQLite's write lock already serialises)."""
    if conn.dialect.name != "postgresql":
        return
    for batch_id in sorted(set(batch_ids)):
        advisory_xact_lock(conn, BATCH_LOCK + batch_id, timeout_ms=SAME_BATCH_WAIT_MS)


def serialize_end(conn: Connection) -> None:
    """The end of a submission or copy (batch rows, fair share): one at a time, till commit."""
    serialize(conn, END_LOCK)


def task_row(task: NewTask, seq: int, max_attempts: int, now: float) -> dict[str, Any]:
    """A new task's row as inserted."""
    return {
        "task_id": task.task_id,
        "seq": seq,
        "batch_id": task.batch_id,
        "title": task.title,
        "model": task.model,
        "model_kind": task.model_kind.value,
        "prompt": task.prompt,
        "system_prompt": task.system_prompt,
        "priority": task.priority,
        "state": PENDING,
        "attempt": 0,
        "max_attempts": max_attempts,
        "keep_attempt": False,
        "lease": 0,
        "lost_count": 0,
        "created_at": now,
        "cancel_requested": False,
        "progress_chars": 0,
        # The batch file's source row (an export puts it beside the result).
        "inputs_json": (json.dumps(dict(task.inputs), ensure_ascii=False) if task.inputs else None),
    }


def insert_new(
    conn: Connection, tasks: Sequence[NewTask], first_seq: int, max_attempts: int, now: float
) -> list[dict[str, Any]]:
    """Insert ``tasks`` (distinct ids) numbered from ``first_seq``; the rows that went in, in
    their order. A supplied id already there (committed meanwhile by another submission) is
    left out; a generated one is numbered on (core/store/task_ids.py) and tried again."""
    rows = [task_row(t, first_seq + i, max_attempts, now) for i, t in enumerate(tasks)]
    inserted: set[int] = set()
    trying = list(range(len(rows)))
    for _ in range(RENUMBER_TRIES):
        went_in = insert_or_skip(conn, [rows[i] for i in trying])
        inserted.update(i for i in trying if rows[i]["task_id"] in went_in)
        taken = [i for i in trying if i not in inserted and tasks[i].generated_id]
        if not taken:
            return [rows[i] for i in sorted(inserted)]
        current = [dataclasses.replace(tasks[i], task_id=rows[i]["task_id"]) for i in taken]
        for i, task in zip(taken, settle_generated_ids(conn, current), strict=True):
            rows[i]["task_id"] = task.task_id
        trying = taken
    raise RuntimeError(f"generated task ids still taken after {RENUMBER_TRIES} tries")


def insert_or_skip(conn: Connection, rows: Sequence[dict[str, Any]]) -> set[str]:
    """Insert task rows whose id is not there yet (committed, or committed meanwhile by a
    transaction this one waited for); the ids that went in."""
    if not rows:
        return set()
    dialect_insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = (
        dialect_insert(T)
        .on_conflict_do_nothing(index_elements=[T.c.task_id])
        .returning(T.c.task_id)
    )
    return set(conn.execute(stmt, list(rows)).scalars())


def submitted_lines(
    rows: Sequence[dict[str, Any]], origin: str, now: float
) -> list[dict[str, Any]]:
    """Each new task's first event line."""
    return [
        {
            "task_id": r["task_id"],
            "at": now,
            "kind": "state",
            "lane": r["model_kind"],
            "message": f"submitted in batch {r['batch_id']}",
            "origin": origin,
            "code": EventCode.SUBMITTED.value,
            "params_json": params_json({"batch": r["batch_id"]}),
        }
        for r in rows
    ]
