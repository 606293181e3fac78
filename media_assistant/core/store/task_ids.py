"""Task ids the app makes up, and how they never collide with earlier ones.

A batch without a ``task_id`` column (and every paste) gets ids ``<batch_id>-NNNNN``: the file's
row number (so a task leads back to its row), or the pasted line's. The store used to skip any
id already present, which is right for ids the operator supplied (re-importing a file adds
nothing twice) and wrong for made-up ones: a second file under the same batch id, or two paste
dialogs opened in the same second, silently lost prompts.

So a generated id is only a proposal (``NewTask.generated_id``). Inside the submit transaction
— under the batch's submit lock (core/store/submits.py; SQLite's write lock on a file), so
two processes submitting into one batch at once cannot both take a number —
:func:`settle_generated_ids` checks them: if any generated id of a batch is taken (by
an earlier task, or by an id supplied in the same submission), all of this submission's
generated ids for that batch are numbered on from the highest ``<batch_id>-N`` that exists,
in their order. A first import keeps its row numbers; a later one continues after them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from sqlalchemy import Connection, select

from media_assistant.core.model.records import NewTask
from media_assistant.core.store.schema import TaskRow

T = TaskRow.__table__  # type: ignore[attr-defined]

DIGITS = 5
_NUMBER = re.compile(r"[0-9]+")


def generated_task_id(batch_id: str, number: int) -> str:
    return f"{batch_id}-{number:0{DIGITS}d}"


def settle_generated_ids(conn: Connection, tasks: Sequence[NewTask]) -> list[NewTask]:
    """``tasks`` with every generated id free; supplied ids are left as they are (the caller
    skips those already present). Call inside the write transaction that inserts them."""
    by_batch: dict[str, list[int]] = {}
    for i, task in enumerate(tasks):
        if task.generated_id:
            by_batch.setdefault(task.batch_id, []).append(i)
    if not by_batch:
        return list(tasks)
    supplied = {t.task_id for t in tasks if not t.generated_id}
    settled = list(tasks)
    for batch_id, indexes in by_batch.items():
        prefix = f"{batch_id}-"
        stored = _ids_with_prefix(conn, prefix)
        proposed = [tasks[i].task_id for i in indexes]
        if not (set(proposed) & (stored | supplied)) and len(set(proposed)) == len(proposed):
            continue
        number = max((_number_after(prefix, task_id) for task_id in stored | supplied), default=0)
        for i in indexes:
            number += 1
            settled[i] = dataclasses.replace(tasks[i], task_id=generated_task_id(batch_id, number))
    return settled


def _ids_with_prefix(conn: Connection, prefix: str) -> set[str]:
    # A range on the primary key (an index seek), not LIKE (case-insensitive on SQLite, and
    # "_" / "%" in a batch id would be wildcards). "-" is followed by "." in code point order.
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    rows = conn.execute(select(T.c.task_id).where(T.c.task_id >= prefix, T.c.task_id < upper))
    return set(rows.scalars())


def _number_after(prefix: str, task_id: str) -> int:
    """N for ``<prefix>N`` (digits only), else 0."""
    if not task_id.startswith(prefix):
        return 0
    rest = task_id[len(prefix) :]
    return int(rest) if _NUMBER.fullmatch(rest) else 0
