"""Plain records passed between the store and its callers (no ORM objects leak out)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import RowMapping

from media_assistant.core.model.accounts import ApiLimits
from media_assistant.core.model.states import ModelKind, TaskState


@dataclass(frozen=True, slots=True)
class NewTask:
    """One task to submit. A ``task_id`` the operator supplied makes re-imports idempotent (an
    id already present is skipped). One the app made up (``generated_id``, ``<batch>-00001``) is
    only a proposal: if it is taken, the store numbers the submission's generated ids on from
    the batch's highest (see :mod:`media_assistant.core.store.task_ids`), so nothing is dropped."""

    task_id: str
    model: str
    model_kind: ModelKind
    prompt: str
    batch_id: str
    system_prompt: str | None = None
    title: str | None = None
    priority: int = 0
    generated_id: bool = False
    # The batch file's source row beside the task's own fields: (column, value) pairs in the
    # file's order, template variables included (stored as tasks.inputs_json; exports show it).
    inputs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """A task row as read (all columns)."""

    task_id: str
    seq: int
    batch_id: str
    title: str | None
    model: str
    model_kind: str
    account_id: str | None
    prompt: str
    system_prompt: str | None
    priority: int
    state: str
    attempt: int
    max_attempts: int
    keep_attempt: bool
    lease: int
    lost_count: int
    created_at: float
    started_at: float | None
    heartbeat_at: float | None
    finished_at: float | None
    not_before: float | None
    deadline_at: float | None
    cancel_requested: bool
    owner_id: str | None
    progress_chars: int
    result_text: str | None
    reasoning_text: str | None
    usage_json: str | None
    error_kind: str | None
    error_message: str | None
    # Web answers: the page's plain text beside the Markdown in result_text (schema v5).
    result_plain: str | None = None
    # Attempts used before the operator's last retry, and how many retries they asked for
    # (schema v6): this round's attempt is ``attempt - attempt_base`` of
    # ``max_attempts - attempt_base``.
    attempt_base: int = 0
    operator_retries: int = 0
    # The batch file's source row as JSON {column: value} (schema v7); None for pasted prompts.
    inputs_json: str | None = None
    # The workstation that claimed it last (team mode, schema v10).
    workstation: str | None = None

    @classmethod
    def from_mapping(cls, row: Mapping[str, Any] | RowMapping) -> TaskRecord:
        return cls(**{name: row[name] for name in TASK_COLUMNS})

    @property
    def task_state(self) -> TaskState:
        return TaskState(self.state)

    @property
    def kind(self) -> ModelKind:
        return ModelKind(self.model_kind)


TASK_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(TaskRecord))


@dataclass(frozen=True, slots=True)
class Claim:
    """A task claimed by one attempt; every later write from that attempt is fenced by it."""

    task_id: str
    attempt: int
    lease: int
    max_attempts: int
    model: str
    model_kind: ModelKind
    account_id: str
    owner_id: str
    prompt: str
    system_prompt: str | None
    started_at: float
    deadline_at: float
    created_at: float
    attempt_base: int = 0  # attempts used before the operator's last retry
    # Fair share (core/rules/fair.py): the (class, tenant, batch) nodes the claim charged, and
    # the estimated seconds it charged them; the attempt's end corrects them with the real ones.
    fair_keys: tuple[str, ...] = ()
    fair_charge: float = 0.0
    # The workstation whose counters (``fair_charges`` rows, a team's database) it charged:
    # the correction goes to the same ones ('' for none).
    fair_shard: str = ""


@dataclass(frozen=True, slots=True)
class ClaimRequest:
    """The arguments of :meth:`~media_assistant.core.store.Store.claim_next`, for a claim
    run on the writer right after an answer's write (``AsyncStore.finish_success_then_claim``)."""

    kind: ModelKind
    account_id: str
    models: tuple[str, ...]
    owner_id: str
    deadline_s: float
    provider_generation: int | None = None
    workstation: str | None = None
    api_limits: ApiLimits | None = None


@dataclass(frozen=True, slots=True)
class Handover:
    """An attempt's final write and the claim that followed it in the same writer job: the
    write's answer (False: the attempt was superseded), the next task for the slot it freed
    (None: nothing to take), or what stopped that claim (``claim_error``: it is not the
    write's error — the outcome is written)."""

    finished: bool
    next_claim: Claim | None = None
    claim_error: Exception | None = None


@dataclass(frozen=True, slots=True)
class SubmitResult:
    added: tuple[str, ...]
    skipped: tuple[str, ...]  # operator-supplied task ids already present (idempotent re-import)
    batch_id: str


@dataclass(frozen=True, slots=True)
class CancelResult:
    canceled: tuple[str, ...]  # were pending: canceled at once
    requested: tuple[str, ...]  # were running: flagged, the attempt stops at its next checkpoint
    unchanged: tuple[str, ...]  # already terminal (or unknown)


@dataclass(frozen=True, slots=True)
class ReleasedTask:
    """A running row the reaper or orphan recovery took back from a dead attempt."""

    task_id: str
    owner_id: str | None
    attempt: int
    new_state: TaskState
    lease: int = 0  # the taken-back attempt's fencing token: only that attempt is interrupted


@dataclass(frozen=True, slots=True)
class TaskEventRecord:
    id: int
    task_id: str
    at: float
    kind: str
    lane: str | None
    account_id: str | None
    attempt: int | None
    message: str  # the English line (CLI, logs, exports)
    origin: str | None = None  # the Store that wrote it (see StoreBase.origin)
    # What happened, as a kind with parameters (core/model/event_codes.py; schema v6): the window
    # says it in the operator's language. None for lines older than version 6.
    code: str | None = None
    params_json: str | None = None

    @property
    def params(self) -> dict[str, Any]:
        if not self.params_json:
            return {}
        try:
            value = json.loads(self.params_json)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True, slots=True)
class BatchInfo:
    """What the operator said about a batch when submitting it (the ``batches`` row).

    ``start_at`` (epoch seconds) and ``active_hours`` ("22:00-06:00", local time) hold every
    task of the batch back: none starts earlier, or outside those hours."""

    batch_id: str
    name: str | None = None
    source_file: str | None = None
    template: str | None = None
    title_column: str | None = None
    start_at: float | None = None
    active_hours: str | None = None
    # Fair share: the batch's own weight among its tenant's batches (``--share N``; None: 1)
    # and the tenant it is submitted as (None: the store's operator).
    share: float | None = None
    tenant: str | None = None


@dataclass(frozen=True, slots=True)
class BatchRecord:
    batch_id: str
    name: str | None
    source_file: str | None
    created_at: float
    template: str | None
    title_column: str | None
    start_at: float | None
    active_hours: str | None
    active_from: int | None
    active_until: int | None
    updated_at: float
    tenant: str | None = None
    share: float | None = None

    @property
    def label(self) -> str:
        return self.name or self.batch_id


@dataclass(frozen=True, slots=True, order=True)
class Pause:
    """A pause of the queue (``scope`` "all", ``target`` ""), a lane ("lane", "web"|"api"), a
    batch ("batch", id) or an account ("account", id)."""

    scope: str
    target: str
    paused_at: float = 0.0


@dataclass(frozen=True, slots=True)
class PriorityResult:
    changed: tuple[str, ...]  # pending or running tasks that got the priority
    priority: int
    finished: tuple[str, ...]  # named, but already ended: left as they were
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WorkstationInfo:
    """One workstation of a team as the store sees it (``store info``, ``status``, the window's
    accounts panel and status bar): online while one of its schedulers beats within the dead
    threshold; the web accounts it holds; the tasks it runs now."""

    workstation: str
    online: bool
    last_seen_s: float | None  # seconds since its last heartbeat (None: never ran here)
    version: str | None  # the app version of its latest session
    web_accounts: tuple[str, ...]
    running: int
