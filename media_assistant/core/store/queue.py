"""Queue and claims: what goes in (submit) and who takes the head of the queue (claim_next)."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, bindparam, case, exists, func, insert, not_, or_, select, update
from sqlalchemy.exc import IntegrityError

from media_assistant.core.model.accounts import ApiLimits
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.events import TaskChange, TasksAdded
from media_assistant.core.model.records import BatchInfo, Claim, NewTask, SubmitResult
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules import fair
from media_assistant.core.store import api_gate, fair_store, submits, task_seq
from media_assistant.core.store.base import (
    IS_PENDING,
    IS_RUNNING,
    RUNNING,
    E,
    StoreBase,
    T,
    chunks,
    view_row,
)
from media_assistant.core.store.batches import save_batch
from media_assistant.core.store.db import read_tx, write_tx
from media_assistant.core.store.holds import B, claimable, minute_of_day
from media_assistant.core.store.task_ids import settle_generated_ids

log = logging.getLogger(__name__)


def _queue_head(stmt: Select[Any]) -> Select[Any]:
    """The claimable head of the queue for the ``models`` at time ``now`` (bind parameters,
    with ``minute``, ``lane`` and ``account`` for pauses and schedules: core/store/holds.py):
    priority first, then submission order."""
    return (
        stmt.where(
            IS_PENDING,
            T.c.model.in_(bindparam("models", expanding=True)),
            or_(T.c.not_before.is_(None), T.c.not_before <= bindparam("now")),
            or_(T.c.keep_attempt, T.c.attempt < T.c.max_attempts),
            *claimable(),
        )
        .order_by(T.c.priority.desc(), T.c.seq)
        .limit(1)
    )


# The statements every task goes through, built once with bind parameters. Building a statement
# and computing its cache key cost SQLAlchemy more than SQLite needs to run it (py-spy over 2,000
# no-op tasks: ~60 % of claim_next and _finish); a reused statement keeps its cache key.
_HEAD = _queue_head(select(T.c.task_id, func.length(T.c.prompt))).with_for_update(
    of=T, skip_locked=True
)
_PEEK = _queue_head(select(T.c.task_id, func.length(T.c.prompt)))
# Fair share (issue 30; core/store/fair_store.py): the chosen batch's head.
_CHOSEN_HEAD = fair_store.chosen_head()
_CLAIM_ANY = (
    update(T)
    .where(IS_PENDING)
    .values(
        state=RUNNING,
        account_id=bindparam("claim_account_id"),
        owner_id=bindparam("claim_owner_id"),
        workstation=bindparam("claim_workstation", type_=T.c.workstation.type),
        attempt=T.c.attempt + case((T.c.keep_attempt, 0), else_=1),
        keep_attempt=False,
        lease=T.c.lease + 1,
        started_at=bindparam("claim_now"),
        heartbeat_at=bindparam("claim_now"),
        progress_chars=0,
        not_before=None,
        deadline_at=func.coalesce(
            T.c.deadline_at, bindparam("claim_deadline_at", type_=T.c.deadline_at.type)
        ),
    )
    .returning(
        T.c.task_id,
        T.c.attempt,
        T.c.lease,
        T.c.max_attempts,
        T.c.model,
        T.c.prompt,
        T.c.system_prompt,
        T.c.deadline_at,
        T.c.created_at,
        T.c.attempt_base,
        T.c.operator_retries,
        T.c.batch_id,
        T.c.priority,
    )
)
_CLAIM = _CLAIM_ANY.where(T.c.task_id == bindparam("candidate"))
# PostgreSQL, no rate budget to spend first: the choice, the head's lock and the claim in one
# statement (core/store/fair_store.py ``claim_chosen``; issue 30 item 3).
_CLAIM_CHOSEN = fair_store.claim_chosen(_CLAIM_ANY)
# Issue 28 item 4: a claim the shared key will refuse is refused before it locks and updates
# the head task (a saturated key's denied workstations did so every second, then rolled back:
# dead tuples, WAL, the head locked for others). Reads only; the claim's own statements
# (api_gate.take_slot, spend_for_claim) still decide under their locks.
_S = api_gate.SLOTS
_R = api_gate.RATES
_NO_FREE_SLOT = not_(
    exists().where(
        _S.c.account_id == bindparam("account"),
        _S.c.slot < bindparam("concurrency"),
        not_(exists().where(T.c.task_id == _S.c.task_id, IS_RUNNING, T.c.lease == _S.c.lease)),
    )
)
_RATE_SPENT = exists().where(
    _R.c.account_id == bindparam("account"),
    _R.c.kind.in_(bindparam("kinds", expanding=True)),
    _R.c.tat > bindparam("now"),
)


def _node(row: Any) -> fair_store.ChosenNode | None:
    """The batch node a claim's head was chosen for (None: a run-first task)."""
    if row.cls == fair.FIRST:
        return None
    return fair_store.ChosenNode(row.cls, row.tenant, row.batch_id)


def _refused_anyway(
    conn: Any, account_id: str, limits: ApiLimits, *, slots: bool, now: float
) -> bool:
    """The shared key has no free slot (team mode) or no rate budget left now."""
    kinds = [k for k, limit in (("rpm", limits.rpm), ("tpm", limits.tpm)) if limit]
    checks = []
    if slots:
        checks.append(_NO_FREE_SLOT)
    if kinds:
        checks.append(_RATE_SPENT)
    if not checks:
        return False
    params = {"account": account_id, "concurrency": limits.concurrency, "kinds": kinds, "now": now}
    return bool(conn.execute(select(or_(*checks)), params).scalar())


# SET comes from the execute parameters (the columns being written); the fence from these.

# ``built`` when the caller holds no provider (a look from the window, a test): no request
# for a fresh one can be newer.
NO_PROVIDER = 2**31 - 1  # the largest INTEGER both engines store


def _hold_params(
    now: float,
    lane: str | None,
    account_id: str | None,
    built: int | None = None,
    workstation: str | None = None,
) -> dict[str, Any]:
    return {
        "now": now,
        "minute": minute_of_day(now),
        "lane": lane or "",
        "account": account_id or "",
        "built": NO_PROVIDER if built is None else built,
        "ws": workstation,
    }


class QueueRoom(StoreBase):
    def submit(
        self,
        tasks: Sequence[NewTask],
        *,
        max_attempts: int = 3,
        batch: BatchInfo | None = None,
        commit_gate: contextlib.AbstractContextManager[Any] | None = None,
    ) -> SubmitResult:
        """Insert new tasks in one transaction. Supplied ids already present are skipped, not
        duplicated; generated ones that are taken get fresh numbers (core/store/task_ids.py).

        Every batch gets its row in ``batches`` in the same transaction (``batch``: what the
        operator said about it — name, source file, template, title column, schedule).

        On a team database nothing the rest of the team waits for is held while the tasks go
        in (core/store/submits.py): the numbers are reserved first, in a transaction of their
        own; the batch rows and the fair share come last. ``commit_gate``: entered before that
        end and left once the commit's events are published — a process whose other writes
        hold it for their whole transaction (core/store/threads.py) hears of the new tasks
        before any change of them."""
        batch_id = tasks[0].batch_id if tasks else ""
        now = self.clock.now()
        first_seq = submits.reserve_alone(self.engine, len(tasks)) if self.team and tasks else None
        with contextlib.ExitStack() as until_published:
            with write_tx(self.engine, durable=True) as conn:
                submits.lock_batches(conn, [t.batch_id for t in tasks if t.generated_id])
                tasks = settle_generated_ids(conn, tasks)
                present: set[str] = set()
                for chunk in chunks([t.task_id for t in tasks if not t.generated_id]):
                    present.update(
                        conn.execute(select(T.c.task_id).where(T.c.task_id.in_(chunk))).scalars()
                    )
                fresh: dict[str, NewTask] = {}  # an id twice in one submission: the first
                for t in tasks:
                    if t.task_id not in present:
                        fresh.setdefault(t.task_id, t)
                new = list(fresh.values())
                if first_seq is None:  # SQLite: its write lock is held already
                    first_seq = task_seq.reserve(conn, len(new)) if new else 0
                rows = submits.insert_new(conn, new, first_seq, max_attempts, now)
                if rows:
                    conn.execute(insert(E), submits.submitted_lines(rows, self.origin, now))
                # The end: rows the rest of the team's claims and submissions use, last.
                if commit_gate is not None:
                    until_published.enter_context(commit_gate)
                submits.serialize_end(conn)
                saved = self._save_batches(conn, tasks, batch, now)
                if rows:
                    self._activate_submitted(conn, rows, batch, now)
            if saved is not None:
                self._publish_batches([saved])
            if rows:
                views = tuple(view_row(r) for r in rows)
                added = tuple(r["task_id"] for r in rows)
                self.bus.publish(TasksAdded(added, batch_id or None, views))
        went_in = {r["task_id"] for r in rows}
        skipped = tuple(  # (a generated id always goes in, numbered on if it must)
            t.task_id
            for t in tasks
            if not t.generated_id and (t.task_id not in went_in or fresh[t.task_id] is not t)
        )
        return SubmitResult(tuple(r["task_id"] for r in rows), skipped, batch_id)

    def _save_batches(
        self, conn: Any, tasks: Sequence[NewTask], batch: BatchInfo | None, now: float
    ) -> Any:
        """Every batch of the submission gets its row; the last one that changed."""
        saved = None
        for new_batch in dict.fromkeys(t.batch_id for t in tasks):
            info = batch if batch is not None and batch.batch_id == new_batch else None
            info = info or BatchInfo(new_batch)
            if info.tenant is None:
                info = dataclasses.replace(info, tenant=self.operator)
            saved = save_batch(conn, info, now) or saved
        return saved

    def _activate_submitted(
        self, conn: Any, rows: list[dict[str, Any]], batch: BatchInfo | None, now: float
    ) -> None:
        """Each (batch, class) that received tasks becomes active in the fair share, level
        with its active siblings less the newcomer's credit: the estimated seconds of the work
        it brings, up to :data:`fair.NEWCOMER_CREDIT_CAP_S` (core/store/fair_store.py
        ``activate``)."""
        work: dict[tuple[str, str], float] = {}
        for r in rows:
            key = (r["batch_id"], fair.class_of(r["priority"]))
            estimate = self._estimate(conn, r["model"], ModelKind(r["model_kind"]))
            work[key] = work.get(key, 0.0) + estimate
        items = []
        for (batch_id, cls), seconds in work.items():
            tenant = conn.execute(select(B.c.tenant).where(B.c.batch_id == batch_id)).scalar()
            share = batch.share if batch is not None and batch.batch_id == batch_id else None
            items.append(
                fair_store.Activation(cls, tenant or "", batch_id, share, fair.credit(seconds))
            )
        fair_store.activate(conn, items, now)

    def claim_next(
        self,
        *,
        kind: ModelKind,
        account_id: str,
        models: Sequence[str],
        owner_id: str,
        deadline_s: float,
        provider_generation: int | None = None,
        workstation: str | None = None,
        api_limits: ApiLimits | None = None,
    ) -> Claim | None:
        """Take the head pending task (priority, then age) for one of ``models``; None if none.

        ``provider_generation``: the rebuild generation the claiming account's provider was
        built at; while the account's row asks for a newer one, nothing is claimed for it
        (core/store/holds.py ``account_held``). ``workstation``: the claiming one (team mode):
        recorded on the task, and a web account another workstation holds gets nothing.

        ``api_limits``: the claiming API account's limits for the whole team; they hold in this
        same transaction (core/store/api_gate.py): the request and its estimated tokens are
        spent and, on a team database, a free slot taken — or nothing is claimed and nothing
        spent.

        The row moves to ``running`` in the same transaction that chose it. On PostgreSQL the
        candidate is locked with SKIP LOCKED; on SQLite the writer lock serialises claims.
        """
        if not models:
            return None
        now = self.clock.now()
        # Idle workers ask every second: look with a read (WAL readers never wait) before
        # taking the write lock another process may be holding. Not while a backlog drains
        # (the last claim found a task): there the look is a wasted read, ~20 % of the CPU of
        # a claim; the claim's own query decides either way.
        backlog = tuple(models)
        if (
            not self._backlog.get(backlog)
            and self.peek_next(
                models,
                lane=kind.value,
                account_id=account_id,
                provider_generation=provider_generation,
                workstation=workstation,
            )
            is None
        ):
            return None
        with write_tx(self.engine) as conn:
            gate = api_limits if kind is ModelKind.API else None
            gate_id = api_gate.gate_id(account_id, gate)  # the key's rows (issue 27 item 5)
            if gate is not None and _refused_anyway(conn, gate_id, gate, slots=self.team, now=now):
                return None  # nothing locked, nothing written (issue 28 item 4)
            params = {
                "models": list(models),
                **_hold_params(now, kind.value, account_id, provider_generation, workstation),
            }
            claim_params = {
                "claim_account_id": account_id,
                "claim_owner_id": owner_id,
                "claim_workstation": workstation,
                "claim_now": now,
                "claim_deadline_at": now + deadline_s,
            }
            spends = gate is not None and bool(gate.rpm or gate.tpm)
            try:
                taken = self._take(conn, params, claim_params, spends)
                self._backlog[backlog] = taken is not None
                if taken is None:
                    return None
                candidate, prompt_chars, row, node = taken
                if row is None:
                    # A rate budget is spent before the claim (api_gate.spend_for_claim), or
                    # SQLite: the head chosen, then claimed.
                    if (
                        spends
                        and gate is not None
                        and not api_gate.spend_for_claim(
                            conn, gate_id, gate, int(prompt_chars or 0), now
                        )
                    ):
                        conn.rollback()  # nothing spent: the budget waits for the next claim
                        return None
                    row = conn.execute(
                        _CLAIM, {"candidate": candidate, **claim_params}
                    ).one_or_none()
            except IntegrityError:
                # The partial unique index refused a second running task on this web account.
                # The lane's lock should make this impossible; the database is the last line.
                log.error("[%s %s] database refused a second running task", kind.value, account_id)
                conn.rollback()
                return None
            if row is None:
                conn.rollback()  # nothing claimed: nothing spent either
                return None
            if (
                gate is not None
                and self.team
                and api_gate.take_slot(conn, gate_id, gate.concurrency, row.task_id, row.lease)
                is None
            ):
                conn.rollback()  # every slot of the account is in use across the team
                return None
            # The fair share's charge: the task's estimated seconds, corrected at its end.
            keys = self._fair_keys(conn, node, row.batch_id, row.priority, now)
            estimate = self._estimate(conn, row.model, kind) if keys else 0.0
            claim = Claim(
                task_id=row.task_id,
                attempt=row.attempt,
                lease=row.lease,
                max_attempts=row.max_attempts,
                model=row.model,
                model_kind=kind,
                account_id=account_id,
                owner_id=owner_id,
                prompt=row.prompt,
                system_prompt=row.system_prompt,
                started_at=now,
                deadline_at=row.deadline_at,
                created_at=row.created_at,
                attempt_base=row.attempt_base,
                fair_keys=keys,
                fair_charge=estimate,
                fair_shard=workstation or "",
            )
            event = self._event_row(
                claim.task_id,
                "state",
                f"attempt {claim.attempt}/{claim.max_attempts} started on {account_id}",
                kind.value,
                account_id,
                claim.attempt,
                now,
                EventCode.STARTED,
                {
                    "attempt": claim.attempt,
                    "max_attempts": claim.max_attempts,
                    "base": row.attempt_base,
                    "retries": row.operator_retries,
                    "account": account_id,
                    # What the fair share charged: a release without a finish takes it back
                    # out of flight (core/store/fair_store.py ``claim_charges``).
                    **({"fair": list(keys), "fair_s": estimate} if keys else {}),
                },
            )
            # Last, with the event row (one statement on PostgreSQL): this workstation's charge
            # rows stay locked only until the commit (core/store/fair_store.py).
            fair_store.charge(conn, keys, estimate, now, event=event, shard=claim.fair_shard)
        self._publish_changes(
            [
                TaskChange(
                    claim.task_id,
                    {
                        "state": RUNNING,
                        "account_id": account_id,
                        "owner_id": owner_id,
                        "workstation": workstation,
                        "attempt": claim.attempt,
                        "lease": claim.lease,
                        "started_at": now,
                        "heartbeat_at": now,
                        "progress_chars": 0,
                        "not_before": None,
                        "deadline_at": claim.deadline_at,
                        "keep_attempt": False,
                    },
                )
            ]
        )
        return claim

    def _take(
        self, conn: Any, params: dict[str, Any], claim_params: dict[str, Any], spends: bool
    ) -> tuple[str, int, Any, fair_store.ChosenNode | None] | None:
        """The task this claim takes, locked (SKIP LOCKED), and the batch node it was chosen
        for: a run-first task, else the head of the batch the fair share picks, else (every
        chosen head locked by other claims just now, or no node) the plain queue head. None:
        nothing to take.

        Returns (task id, prompt length, the claimed row or None, node). On PostgreSQL, with no
        rate budget to spend first (``spends``), one statement chooses, locks and claims
        (:data:`_CLAIM_CHOSEN`) and the row comes back claimed; otherwise the caller claims the
        task with :data:`_CLAIM`."""
        if self.team and not spends:
            row = conn.execute(_CLAIM_CHOSEN, {**params, **claim_params}).one_or_none()
            if row is not None:
                return row.task_id, len(row.prompt), row, _node(row)
        else:
            head = conn.execute(_CHOSEN_HEAD, params).first()
            if head is not None:
                return head[0], head[1], None, _node(head)
        plain = conn.execute(_HEAD, params).first()
        return None if plain is None else (plain[0], plain[1], None, None)

    def _fair_keys(
        self,
        conn: Any,
        node: fair_store.ChosenNode | None,
        batch_id: str,
        priority: int,
        now: float,
    ) -> tuple[str, ...]:
        """The claimed task's (class, tenant, batch) node keys; () for a run-first task."""
        if node is not None:
            return fair.node_keys(node.cls, node.tenant or "", node.batch_id)
        cls = fair.class_of(priority)
        if cls == fair.FIRST:
            return ()
        tenant = conn.execute(select(B.c.tenant).where(B.c.batch_id == batch_id)).scalar()
        return fair_store.ensure_nodes(conn, cls, tenant or "", batch_id, None, now)

    def _estimate(self, conn: Any, model: str, kind: ModelKind) -> float:
        """The seconds a task of ``model`` is expected to take: the mean of its recent
        durations (read once per process, then followed at every success)."""
        if model not in self._durations:
            recent = fair_store.recent_duration(conn, model)
            self._durations[model] = recent or fair_store.DEFAULT_ESTIMATE_S[kind.value]
        return self._durations[model]

    def peek_next(
        self,
        models: Sequence[str],
        *,
        lane: str | None = None,
        account_id: str | None = None,
        provider_generation: int | None = None,
        workstation: str | None = None,
    ) -> tuple[str, int] | None:
        """The task ``claim_next`` would take now, with its prompt length (for rate limits).
        ``lane`` and ``account_id``: whose pauses count (the claiming lane's and account's);
        ``provider_generation`` as for :meth:`claim_next`."""
        now = self.clock.now()
        params = _hold_params(now, lane, account_id, provider_generation, workstation)
        with read_tx(self.engine) as conn:
            row = conn.execute(_PEEK, {"models": list(models), **params}).first()
        return (row[0], int(row[1])) if row else None

    def api_ready_at(self, account_id: str, prompt_chars: int) -> float | None:
        """When the API account's team-wide rate budget next allows a request of
        ``prompt_chars`` (None: it has no rpm/tpm limit)."""
        with read_tx(self.engine) as conn:
            return api_gate.ready_at(conn, account_id, prompt_chars, self.clock.now())

    def next_not_before(self, models: Sequence[str]) -> float | None:
        """Earliest time a delayed pending task for these models becomes claimable."""
        with read_tx(self.engine) as conn:
            return conn.execute(
                select(func.min(T.c.not_before)).where(
                    IS_PENDING,
                    T.c.model.in_(list(models)),
                    T.c.not_before > self.clock.now(),
                )
            ).scalar()

    def pending_models(self) -> dict[str, int]:
        """model → number of pending tasks."""
        with read_tx(self.engine) as conn:
            rows = conn.execute(
                select(T.c.model, func.count()).where(IS_PENDING).group_by(T.c.model)
            ).all()
        return {m: n for m, n in rows}
