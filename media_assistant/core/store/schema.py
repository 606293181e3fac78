"""Database tables (DESIGN §3, §7). Portable SQL: SQLite for a workstation of its own, PostgreSQL
for a team sharing one queue (team mode, schema version 10).

Timestamps are seconds since the epoch (REAL/double precision): cheap to compare in SQL, and
every reader converts them for display.
"""

from __future__ import annotations

from sqlalchemy import Column, Index, Integer, LargeBinary, Text, text
from sqlmodel import Field, SQLModel

SCHEMA_VERSION = 18


class TaskRow(SQLModel, table=True):
    __tablename__ = "tasks"

    task_id: str = Field(primary_key=True)
    seq: int = Field(description="Submission order; breaks ties between tasks of equal age.")
    batch_id: str = Field(index=True)
    title: str | None = None
    model: str
    model_kind: str  # web | api
    account_id: str | None = None  # set at claim
    # The workstation that claimed it last (team mode; schema version 10): exports and the
    # window say where a task ran.
    workstation: str | None = None
    prompt: str = Field(sa_column=Column(Text, nullable=False))
    system_prompt: str | None = Field(default=None, sa_column=Column(Text))
    priority: int = 0
    state: str = "pending"
    attempt: int = 0  # attempts started, counted against max_attempts
    max_attempts: int = 3
    # The next claim continues the current attempt instead of starting a new one: set when a run
    # was deferred (429, site busy) or interrupted by a graceful shutdown, which must not burn one.
    keep_attempt: bool = False
    # Fencing token, +1 on every claim. Writes from an attempt carry (attempt, lease); a row that
    # has moved on changes nothing, so a zombie attempt's late result is dropped.
    lease: int = 0
    lost_count: int = 0
    created_at: float
    started_at: float | None = None
    heartbeat_at: float | None = None
    finished_at: float | None = None
    not_before: float | None = None  # delayed retry / deferral
    deadline_at: float | None = None  # set at the first claim; deferrals stop after it
    cancel_requested: bool = False
    owner_id: str | None = None  # the scheduler session that claimed it
    progress_chars: int = 0
    result_text: str | None = Field(default=None, sa_column=Column(Text))
    reasoning_text: str | None = Field(default=None, sa_column=Column(Text))
    # Web answers: result_text is the Markdown rebuilt from the page; this is the text as the
    # page showed it (innerText), kept for whoever needs it (schema version 5).
    result_plain: str | None = Field(default=None, sa_column=Column(Text))
    usage_json: str | None = None
    # The source row of a batch file, as JSON {column: value} in the file's order: every column
    # not taken as the task's own field (template variables included), so an export can put a
    # task's inputs beside its result (schema version 7). None for pasted prompts.
    inputs_json: str | None = Field(default=None, sa_column=Column(Text))
    error_kind: str | None = None
    error_message: str | None = Field(default=None, sa_column=Column(Text))
    # Schema version 6. ``attempt`` never goes down (it fences zombie attempts), so an operator
    # retry remembers where its round began: the window shows "attempt 1 of 3 (retry 1)"
    # rather than "2/4".
    attempt_base: int = Field(
        default=0, sa_column=Column(Integer, nullable=False, server_default=text("0"))
    )
    operator_retries: int = Field(
        default=0, sa_column=Column(Integer, nullable=False, server_default=text("0"))
    )

    __table_args__ = (
        # The database itself refuses a second running task on one web account.
        Index(
            "ux_tasks_web_account_running",
            "account_id",
            unique=True,
            sqlite_where=text("state = 'running' AND model_kind = 'web'"),
            postgresql_where=text("state = 'running' AND model_kind = 'web'"),
        ),
        # Claims: head of the queue per model (priority, then age).
        Index(
            "ix_tasks_pending_head",
            "model",
            text("priority DESC"),
            "seq",
            sqlite_where=text("state = 'pending'"),
            postgresql_where=text("state = 'pending'"),
        ),
        Index(
            "ix_tasks_running",
            "owner_id",
            "heartbeat_at",
            sqlite_where=text("state = 'running'"),
            postgresql_where=text("state = 'running'"),
        ),
        Index("ix_tasks_state", "state", "model_kind"),
        # Idle workers ask when the next delayed retry is due (schema version 2). A plain
        # (state, not_before) index: SQLite's planner picks it for that range, where it passed
        # over a partial index in favour of ix_tasks_state.
        Index("ix_tasks_state_not_before", "state", "not_before"),
        # Submission order (schema version 3): the task table's pages of history walk it
        # newest first instead of sorting every finished row (100k tasks: 0.55 s → 0.02 s).
        Index("ix_tasks_seq", "seq"),
        # The lanes' figures (schema version 12, core/store/metrics_reads.py): what ended in a
        # window, what ran on past its end, what was submitted in it, without reading every task.
        Index("ix_tasks_finished", "finished_at"),
        Index(
            "ix_tasks_unanswered_end",
            "finished_at",
            sqlite_where=text("state IN ('failed', 'canceled')"),
            postgresql_where=text("state IN ('failed', 'canceled')"),
        ),
        Index("ix_tasks_created", "model_kind", "created_at"),
        # Fair share (schema version 13): the head of one batch's pending tasks, for the claim
        # that has chosen the batch (core/store/fair_store.py).
        Index(
            "ix_tasks_pending_batch",
            "batch_id",
            text("priority DESC"),
            "seq",
            sqlite_where=text("state = 'pending'"),
            postgresql_where=text("state = 'pending'"),
        ),
    )


class TaskEventRow(SQLModel, table=True):
    """Append-only: transitions, self-check findings, retries, lane-prefixed log lines.

    Its id also serves as a change cursor: a reader that remembers the last id it saw can ask
    which tasks another process changed since.
    """

    __tablename__ = "task_events"

    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True))
    task_id: str = Field(index=True)
    at: float
    kind: str  # state | retry | selfcheck | log | error | cancel | import
    lane: str | None = None
    account_id: str | None = None
    attempt: int | None = None
    message: str = Field(sa_column=Column(Text, nullable=False))
    # Which Store wrote it (schema version 4): a window following the log skips its own lines.
    origin: str | None = None
    # What happened as a kind with parameters (schema version 6): the window says it in the
    # operator's language (gui/common/event_text.py); ``message`` stays the English line for the
    # CLI, logs and exports. NULL for lines written before version 6 (shown as their message).
    code: str | None = None
    params_json: str | None = Field(default=None, sa_column=Column(Text))


class AccountRow(SQLModel, table=True):
    """Runtime state of an account; its definition lives in the config file."""

    __tablename__ = "accounts"

    account_id: str = Field(primary_key=True)
    kind: str
    enabled: bool = True  # the operator's toggle
    problem: str = ""  # needs_login | credentials_rejected | needs_attention (sticky)
    problem_detail: str | None = None
    # The error kind behind the problem (captcha, profile_in_use…; schema version 6): the window
    # names it in words and keeps the site's own detail for a tooltip.
    problem_code: str | None = None
    cooldown_until: float | None = None
    cooldown_reason: str | None = None
    concurrency: int | None = None  # operator override of the config (API accounts, 1..5)
    browser_pid: int | None = None  # web: the browser we launched, for later self-checks
    browser_started_at: float | None = None
    updated_at: float = 0.0
    # Raised by every change of the row (schema version 9): a reader keeps the newest of two
    # reads of one account, whichever thread or process answered first (core/lanes/runtime.py).
    version: int = Field(
        default=0, sa_column=Column(Integer, nullable=False, server_default=text("0"))
    )
    # Raised by each request for a fresh provider (the operator re-enabled the account, reset
    # it, stored a new key; schema version 9). Each scheduler builds a provider at the
    # generation it read and claims nothing for the account while the row's is newer: a request
    # reaches every scheduler serving the account, and none is cleared by another's rebuild.
    rebuild_generation: int = Field(
        default=0, sa_column=Column(Integer, nullable=False, server_default=text("0"))
    )
    # Team mode (schema version 10). A web account belongs to the workstation whose browser
    # profile holds it: only that one's scheduler claims for it. NULL for API accounts (every
    # workstation serves them) and for web accounts no workstation has declared yet.
    workstation: str | None = None
    # An API account's limits as the configs say (the latest workstation to start wrote them):
    # they hold for the whole team together (core/store/api_gate.py). ``concurrency`` above is
    # the operator's override of ``limit_concurrency``.
    limit_concurrency: int | None = None
    limit_rpm: int | None = None
    limit_tpm: int | None = None
    # An API account's key, as its identity (schema version 11): a keyed hash of the key and
    # base URL (core/store/key_gate.py), never the key. Accounts of one key — under one name or
    # several, on one workstation or many — share its slots and rate rows. NULL: the account's
    # own id keys them (no key found at the start, a workstation's own SQLite file).
    key_id: str | None = None


class ApiKeyLimitRow(SQLModel, table=True):
    """What one workstation's config says of a shared API key's limits (schema version 11), so
    two configs that disagree are seen, named and the stricter one held
    (core/store/key_gate.py). Rewritten by each start of that workstation."""

    __tablename__ = "api_key_limits"

    key_id: str = Field(primary_key=True)
    workstation: str = Field(primary_key=True)
    account_id: str  # the key's name in that workstation's config
    concurrency: int | None = None
    rpm: int | None = None
    tpm: int | None = None
    updated_at: float = 0.0


class AccountPacingRow(SQLModel, table=True):
    """What pacing remembers per web account (schema version 5): prompt times in the window,
    today's count, the last answer's end, cooldowns and pauses, as JSON (core/rules/pacing.py's
    PacingState). A row of its own, so a restart keeps a daily cap and a 6-hour pause."""

    __tablename__ = "account_pacing"

    account_id: str = Field(primary_key=True)
    state_json: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: float = 0.0


class BatchRow(SQLModel, table=True):
    """What a batch is (schema version 6): written at submit, in the submit's transaction.

    A schedule holds every task of the batch back: none is claimed before ``start_at``, nor
    outside ``active_hours`` (kept as minutes of the local day, so the claim statement itself
    can compare them with the minute it is given).
    """

    __tablename__ = "batches"

    batch_id: str = Field(primary_key=True)
    name: str | None = None
    source_file: str | None = Field(default=None, sa_column=Column(Text))
    created_at: float
    template: str | None = Field(default=None, sa_column=Column(Text))
    title_column: str | None = None
    start_at: float | None = None  # epoch seconds
    active_hours: str | None = None  # "22:00-06:00", as the operator wrote it
    active_from: int | None = None  # minute of the local day the window opens
    active_until: int | None = None  # ... and closes (may be smaller: wraps midnight)
    updated_at: float = Field(default=0.0, index=True)  # a follower's cursor
    # Fair share (schema version 13): who submitted it (``[team] operator``, else the
    # workstation) and its own weight among that tenant's batches (``--share N``).
    tenant: str | None = None
    share: float | None = None

    # Schema version 14: every claim and the queue watch ask which batches are held (a start
    # still ahead, active hours): from indexes, not a scan of every batch ever submitted.
    __table_args__ = (
        Index("ix_batches_start_at", "start_at"),
        Index("ix_batches_active_from", "active_from"),
    )


class QueuePauseRow(SQLModel, table=True):
    """A pause of the whole queue, a lane, a batch or an account (schema version 6). Running
    tasks finish; no claim is made in a paused scope. A row per pause: resuming deletes it."""

    __tablename__ = "queue_pauses"

    scope: str = Field(primary_key=True)  # all | lane | batch | account
    target: str = Field(primary_key=True)  # "" for all; web|api; the batch or account id
    paused_at: float


class SessionRow(SQLModel, table=True):
    """One row per scheduler run; ``owner_id`` of running tasks points here."""

    __tablename__ = "sessions"

    session_id: str = Field(primary_key=True)
    pid: int
    host: str
    started_at: float
    heartbeat_at: float
    ended_at: float | None = None
    # Team mode (schema version 10): which workstation ran it ([team] workstation, default the
    # host name) and with which version of the app.
    workstation: str | None = None
    app_version: str | None = None

    # Schema version 14: a start looks for a live session under its name; old ones are pruned
    # (core/store/sessions.py PRUNE_AFTER_S).
    __table_args__ = (Index("ix_sessions_workstation", "workstation", "heartbeat_at"),)


class MetaRow(SQLModel, table=True):
    __tablename__ = "meta"

    key: str = Field(primary_key=True)
    value: str


class CounterRow(SQLModel, table=True):
    """A number handed out in ranges (schema version 16): ``task_seq``, the next submission
    numbers (core/store/task_seq.py). A table of its own, not a ``meta`` row: a workstation's
    role may update it without being able to restamp the schema version."""

    __tablename__ = "counters"

    name: str = Field(primary_key=True)
    value: int


class ApiSlotRow(SQLModel, table=True):
    """One of an API account's concurrency slots (schema version 10). A claim takes a free slot
    in its own transaction (locked, SKIP LOCKED), so every workstation together never has more
    requests in flight on an account than its concurrency: a slot is held while the task it
    names runs with that lease, and free again as soon as it does not (finished, returned,
    reaped) — no separate release can be forgotten. Slots ``0..MAX_CONCURRENCY-1`` exist per
    API account; those at or above the account's concurrency are never taken."""

    __tablename__ = "api_slots"

    account_id: str = Field(primary_key=True)
    slot: int = Field(primary_key=True)
    task_id: str | None = None
    lease: int = Field(
        default=0, sa_column=Column(Integer, nullable=False, server_default=text("0"))
    )


class ApiRateRow(SQLModel, table=True):
    """An API account's rate budget (schema version 10): one row for requests per minute, one
    for tokens per minute, as a GCRA "theoretical arrival time" on the database's clock. A claim
    spends it in its own transaction, sized to the task it claims; a denied claim spends
    nothing (core/store/api_gate.py)."""

    __tablename__ = "api_rates"

    account_id: str = Field(primary_key=True)
    kind: str = Field(primary_key=True)  # rpm | tpm
    tat: float = 0.0


class NoticeSentRow(SQLModel, table=True):
    """A notice a webhook already carried (schema version 10): in a team every workstation's
    app derives the same notices from the shared queue, and only the one that writes the
    notice's key here first sends it, so a group chat hears of a batch once, not once per PC."""

    __tablename__ = "notices_sent"

    key: str = Field(primary_key=True)
    sent_at: float
    workstation: str | None = None


class TaskSlotRow(SQLModel, table=True):
    """The answered tasks of ten minutes, per lane, model, account and workstation (schema
    version 12): kept by triggers in the transaction that changes a task (core/store/rollups.py
    says what an entry holds and why), read by the lanes' figures instead of every task."""

    __tablename__ = "task_slots"

    slot: int = Field(primary_key=True)  # floor(finished_at / 600)
    lane: str = Field(primary_key=True)
    model: str = Field(primary_key=True)
    account_id: str = Field(primary_key=True)  # '' for none
    workstation: str = Field(primary_key=True)  # '' for none
    n: int = 0
    answers: bytes = Field(default=b"", sa_column=Column(LargeBinary, nullable=False))


class AttemptSlotRow(SQLModel, table=True):
    """The attempts that started or ended in ten minutes, per lane, account, event code and error
    kind (schema version 12): kept by a trigger on the event log (core/store/rollups.py)."""

    __tablename__ = "attempt_slots"

    slot: int = Field(primary_key=True)  # floor(at / 600)
    lane: str = Field(primary_key=True)  # '' for none
    account_id: str = Field(primary_key=True)  # '' for none
    code: str = Field(primary_key=True)
    kind: str = Field(primary_key=True)  # the line's error kind, '' for none
    n: int = 0
    spans: bytes = Field(default=b"", sa_column=Column(LargeBinary, nullable=False))


class FairNodeRow(SQLModel, table=True):
    """A node of the fair share (schema version 13; core/rules/fair.py): a class, a tenant in a
    class or a batch in a class, with its weight, its virtual time (charged generation seconds
    ÷ weight) and its service (generation seconds). Charged in the claim's transaction with an
    estimate, corrected in the finish's with the real seconds (core/store/fair_store.py). A row
    of its own, not a column of ``batches``: that table wakes every window on a change."""

    __tablename__ = "fair_nodes"
    __table_args__ = (
        # The active nodes (schema version 18): every claim's choice, floor and share reads
        # them — a handful — while a row stays for every batch ever run (62,000 a year for a
        # team of 50): without it each claim read them all (B14b).
        Index(
            "ix_fair_nodes_active",
            "level",
            "parent",
            sqlite_where=text("active = 1"),
            postgresql_where=text("active"),
        ),
    )

    node: str = Field(primary_key=True)  # c:<class> | t:<class>:<tenant> | b:<class>:<batch>
    level: int  # 0 class, 1 tenant, 2 batch
    cls: str
    tenant: str | None = None
    batch_id: str | None = None
    parent: str | None = None
    rank: int = 0  # the class's rank (urgent 0, normal 1, low 2): ties go to the higher class
    weight: float = 1.0
    vtime: float = 0.0
    service: float = 0.0
    # Estimated seconds of its tasks running now (charged at their claims, not yet settled):
    # a node that becomes active starts level with what its siblings have *finished*, so a new
    # batch takes the next task of every account (start-time fair queuing).
    inflight: float = 0.0
    active: bool = False  # has pending or running work (set at submit and claim)
    created_at: float = 0.0  # ties of virtual time go to the older node (first come, first)
    updated_at: float = 0.0


class FairChargeRow(SQLModel, table=True):
    """One workstation's part of a fair-share node's counters (schema version 17, PostgreSQL;
    core/store/fair_store.py): the claims and finishes of a team's workstation add to their own
    row, so a claim never waits for another workstation's commit on the shared ``fair_nodes``
    row. A node's virtual time, service and seconds in flight are its ``fair_nodes`` values
    plus the sum of its rows here. (SQLite, one writer, charges ``fair_nodes`` directly.)"""

    __tablename__ = "fair_charges"

    node: str = Field(primary_key=True)  # a fair_nodes.node
    shard: str = Field(primary_key=True)  # the charging workstation ('' for none)
    vtime: float = 0.0
    service: float = 0.0
    inflight: float = 0.0
    updated_at: float = 0.0
