"""What every room of the store shares: the tables, the fence, the event log line, publishing.

Writes from a running attempt carry its :class:`Claim` and change a row only while it is still
``running`` with the same ``attempt`` and ``lease``: zero rows changed means the attempt is a
zombie (reaped, canceled, or taken over) and its result is dropped.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, and_, insert, literal_column

from media_assistant.core.model.clock import Clock
from media_assistant.core.model.event_codes import EventCode, params_json
from media_assistant.core.model.events import BatchesChanged, EventBus, TaskChange, TasksChanged
from media_assistant.core.model.records import BatchRecord, Claim
from media_assistant.core.model.states import TaskState
from media_assistant.core.store.schema import TaskEventRow, TaskRow

T = TaskRow.__table__  # type: ignore[attr-defined]
E = TaskEventRow.__table__  # type: ignore[attr-defined]

RUNNING = TaskState.RUNNING.value
PENDING = TaskState.PENDING.value
_CHUNK = 500  # ids per IN (...) list, well under every backend's parameter limit


def state_is(state: TaskState) -> ColumnElement[bool]:
    """``tasks.state = '<state>'`` with the state written into the SQL, not bound. SQLite
    decides whether a partial index (``WHERE state = 'pending'``, ``'running'``) fits a bound
    value by looking at the value, and then marks the statement to be compiled again whenever
    that parameter is bound anew — at every execution: the claim's head query cost 195 µs
    instead of 16 µs (bound vs inline, 2,000 pending rows), on the writer thread every task
    waits for."""
    inline: ColumnElement[str] = literal_column(f"'{state.value}'")
    clause: ColumnElement[bool] = T.c.state == inline
    return clause


IS_PENDING = state_is(TaskState.PENDING)
IS_RUNNING = state_is(TaskState.RUNNING)

INSERT_EVENT = insert(E)

# What a task table shows: no heavy texts, a prompt head instead of the prompt.
VIEW_COLUMNS = (
    "task_id",
    "seq",
    "batch_id",
    "title",
    "model",
    "model_kind",
    "account_id",
    "state",
    "attempt",
    "max_attempts",
    "started_at",
    "heartbeat_at",
    "finished_at",
    "not_before",
    "cancel_requested",
    "progress_chars",
    "error_kind",
    "error_message",
    "created_at",
    "priority",
    "attempt_base",
    "operator_retries",
    "workstation",  # team mode: where it was claimed last (the window's Workstation column)
)
PROMPT_HEAD_CHARS = 160


def view_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The view of a full row (as written): :data:`VIEW_COLUMNS` plus ``prompt_head``."""
    out = {name: row.get(name) for name in VIEW_COLUMNS}
    out["prompt_head"] = str(row["prompt"])[:PROMPT_HEAD_CHARS]
    return out


def chunks(items: Sequence[str], size: int = _CHUNK) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def claim_fence(claim: Claim) -> ColumnElement[bool]:
    return and_(
        T.c.task_id == claim.task_id,
        IS_RUNNING,
        T.c.attempt == claim.attempt,
        T.c.lease == claim.lease,
    )


class StoreBase:
    """The engine, the clock and the bus every room works with. Each room's methods are plain
    synchronous functions of the database: call them from a database thread (``AsyncStore``
    does) or from a command that has no event loop."""

    def __init__(self, engine: Engine, clock: Clock, bus: EventBus | None = None) -> None:
        self.engine = engine
        self.clock = clock
        self.bus = bus or EventBus()
        # models → whether the last claim for them found a task (see claim_next).
        self._backlog: dict[tuple[str, ...], bool] = {}
        # Written into every event row: a reader following the event log can tell this
        # process's own changes (it already published them) from other processes'.
        self.origin = uuid.uuid4().hex[:16]
        # A team's database (PostgreSQL): several workstations' schedulers claim from it.
        self.team = engine.dialect.name == "postgresql"
        # Fair share (core/rules/fair.py): the tenant this process submits as ([team]
        # operator, else the workstation; "" on a PC of its own), and model → the seconds a
        # task of it is expected to take (the claim's estimate, followed at every success).
        self.operator = ""
        self._durations: dict[str, float] = {}

    def _event(
        self,
        conn: Connection,
        task_id: str,
        kind: str,
        message: str,
        *,
        lane: str | None = None,
        account_id: str | None = None,
        attempt: int | None = None,
        at: float | None = None,
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        """One line of a task's event log: ``message`` in English for the CLI and logs,
        ``code`` and ``params`` for the window to say it in the operator's language."""
        conn.execute(
            INSERT_EVENT,
            self._event_row(task_id, kind, message, lane, account_id, attempt, at, code, params),
        )

    def _event_row(
        self,
        task_id: str,
        kind: str,
        message: str,
        lane: str | None = None,
        account_id: str | None = None,
        attempt: int | None = None,
        at: float | None = None,
        code: EventCode | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The values of an event row (:meth:`_event`), for a statement that inserts it along
        with other work (core/store/fair_store.py ``charge``)."""
        return {
            "task_id": task_id,
            "at": self.clock.now() if at is None else at,
            "kind": kind,
            "lane": lane,
            "account_id": account_id,
            "attempt": attempt,
            "message": message,
            "origin": self.origin,
            "code": None if code is None else code.value,
            "params_json": params_json(params),
        }

    def _publish_changes(self, changes: Iterable[TaskChange], *, heartbeat: bool = False) -> None:
        batch = tuple(changes)
        if batch:
            self.bus.publish(TasksChanged(batch, heartbeat=heartbeat))

    def _publish_batches(self, records: Iterable[BatchRecord]) -> None:
        batch = tuple(records)
        if batch:
            self.bus.publish(BatchesChanged(batch))
