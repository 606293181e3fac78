"""An API account's limits held by the database, for every workstation together: concurrency
slots and rpm/tpm budgets, taken in the claim's own transaction.

**Slots** (``api_slots``): ``MAX_CONCURRENCY`` rows per API account. A claim locks the first
free slot below the account's concurrency (``FOR UPDATE SKIP LOCKED``: two workstations
claiming at once lock different rows, or one finds none), tests it again in a fresh statement
(:func:`take_slot` says why) and writes the claimed task and lease into it. A slot is free
when the task it names is no longer running with that lease — finished,
handed back, reaped — so there is no release to forget, and a dead workstation's slots come
back with its rows. Counting running rows inside a claim instead is racy across processes (two
counts see the same number; pgqueuer's global limit was exceeded that way): the row lock is
what holds.

**Rates** (``api_rates``): GCRA without a burst on the database's clock (each workstation's
aligned clock, core/store/team.py), one row for requests and one for tokens per minute: a
request of ``c`` requests (tokens) may start once the previous one's share of the minute has
passed (``tat``), and pushes ``tat`` by ``c × 60 / limit`` seconds. Without a burst, no window
of 60 s ever holds more than ``rpm`` requests — what a provider counting requests in a sliding
minute allows (a bucket with a burst of ``rpm`` would let twice that through in the worst
minute). A claim spends ``1`` request and the claimed task's estimated tokens in one statement
each, or nothing: an ``UPDATE … WHERE`` whose condition is the limit. A denied claim is rolled
back whole (no slot, no budget spent); a claim spends the budget of exactly the task it takes.
Once the answer's real usage is known, the token row is corrected by the difference
(:func:`correct_tokens`).

Slot and rate rows are keyed by the account's **key** (:func:`gate_id`: a keyed hash of the key
and base URL, core/store/key_gate.py), so accounts of one key under different names share them;
``account_id`` below is that gate id. The account row holds the limits (``concurrency``, the
operator's override, else ``limit_concurrency``; ``limit_rpm``; ``limit_tpm``:
core/store/accounts.py ``sync``, the stricter of the team's configs); the claiming lane passes
them as its view of the row has them (:class:`ApiLimits`, refreshed within a tick).
A claim without them (a test's bare claim) is not gated.

On a workstation's own SQLite file only one scheduler runs (the data dir's lock), so its
in-memory gate (core/accounts/ratelimit.py) already holds the concurrency exactly and the slot
rows are left out (they cost each claim a statement: B3); the rate rows are used everywhere,
so no budget is ever spent without a request.
"""

from __future__ import annotations

import math

from sqlalchemy import Connection, exists, not_, select, update

from media_assistant.core.model.accounts import MAX_CONCURRENCY, ApiLimits
from media_assistant.core.store.base import IS_RUNNING, T
from media_assistant.core.store.schema import AccountRow, ApiRateRow, ApiSlotRow
from media_assistant.core.store.upsert import upsert

A = AccountRow.__table__  # type: ignore[attr-defined]
SLOTS = ApiSlotRow.__table__  # type: ignore[attr-defined]
RATES = ApiRateRow.__table__  # type: ignore[attr-defined]

WINDOW_S = 60.0  # rpm and tpm: per minute
DEFAULT_CONCURRENCY = 3
# Rough token estimate before the provider reports real usage.
CHARS_PER_TOKEN = 3.0
EXPECTED_COMPLETION_TOKENS = 800


def estimate_tokens(prompt_chars: int) -> int:
    return math.ceil(prompt_chars / CHARS_PER_TOKEN) + EXPECTED_COMPLETION_TOKENS


def gate_id(account_id: str, limits_: ApiLimits | None) -> str:
    """What an account's slot and rate rows are keyed by: its key's identity when known
    (core/store/key_gate.py: accounts of one key share them, whatever each config names it),
    else its id."""
    return (limits_.gate if limits_ is not None else None) or account_id


def ensure_rows(conn: Connection, account_ids: list[str]) -> None:
    """Every API account has its slot and rate rows (created once; kept). ``account_ids``:
    the gate ids (:func:`gate_id`)."""
    if not account_ids:
        return
    upsert(
        conn,
        SLOTS,
        [
            {"account_id": a, "slot": s, "task_id": None, "lease": 0}
            for a in account_ids
            for s in range(MAX_CONCURRENCY)
        ],
        key=["account_id", "slot"],
    )
    upsert(
        conn,
        RATES,
        [{"account_id": a, "kind": k, "tat": 0.0} for a in account_ids for k in ("rpm", "tpm")],
        key=["account_id", "kind"],
    )


def limits(conn: Connection, account_id: str) -> ApiLimits | None:
    row = conn.execute(
        select(
            A.c.concurrency, A.c.limit_concurrency, A.c.limit_rpm, A.c.limit_tpm, A.c.key_id
        ).where(A.c.account_id == account_id)
    ).first()
    if row is None:
        return None
    concurrency = row.concurrency or row.limit_concurrency or DEFAULT_CONCURRENCY
    return ApiLimits(
        min(concurrency, MAX_CONCURRENCY), row.limit_rpm, row.limit_tpm, gate=row.key_id
    )


# Taking a slot is two statements (issue 27 item 5). Under READ COMMITTED one statement sees
# the database as it was when it began: a claim that took a slot and committed after that, but
# before this statement reached the slot's row, left the row unlocked — the lock is granted and
# PostgreSQL re-checks the row's own columns, but "is its task still running with that lease?"
# is answered from the old snapshot, where the other claim's task is not running yet. Two
# workstations then shared one slot. So: (1) lock a slot that looks free (skipping slots another
# claim holds), then (2) test it again in a fresh statement, which sees every claim committed
# before the lock was granted; a slot in use after all is left and the next one tried.
_free = exists().where(T.c.task_id == SLOTS.c.task_id, IS_RUNNING, T.c.lease == SLOTS.c.lease)


def _lock_candidate(
    conn: Connection, account_id: str, concurrency: int, tried: list[int], *, skip: bool = True
) -> int | None:
    """Lock the first slot below ``concurrency`` that looks free and was not tried yet.
    ``skip=False`` waits for a slot another claim holds (the tests use it to reach the race
    above deterministically)."""
    query = (
        select(SLOTS.c.slot)
        .where(
            SLOTS.c.account_id == account_id,
            SLOTS.c.slot < concurrency,
            SLOTS.c.slot.not_in(tried),
            not_(_free),
        )
        .order_by(SLOTS.c.slot)
        .limit(1)
        .with_for_update(of=SLOTS, skip_locked=skip)
    )
    return conn.execute(query).scalar()


def slot_in_use(conn: Connection, account_id: str, slot: int) -> bool:
    """Whether ``slot``'s task runs with its lease — as of now (a statement of its own)."""
    return bool(
        conn.execute(
            select(_free).where(SLOTS.c.account_id == account_id, SLOTS.c.slot == slot)
        ).scalar()
    )


def take_slot(
    conn: Connection,
    account_id: str,
    concurrency: int,
    task_id: str,
    lease: int,
    *,
    skip: bool = True,
) -> int | None:
    """A free slot of the account below ``concurrency`` now holds ``task_id`` at ``lease``; None
    when every one is in use. Lock, then re-test in a fresh statement (see above). ``skip``:
    see :func:`_lock_candidate` (False only in tests)."""
    tried: list[int] = []
    while (slot := _lock_candidate(conn, account_id, concurrency, tried, skip=skip)) is not None:
        if not slot_in_use(conn, account_id, slot):
            conn.execute(
                update(SLOTS)
                .where(SLOTS.c.account_id == account_id, SLOTS.c.slot == slot)
                .values(task_id=task_id, lease=lease)
            )
            return slot
        tried.append(slot)  # taken by a claim that committed meanwhile: the next one
    return None


def spend(
    conn: Connection, account_id: str, kind: str, cost: float, limit: int, now: float
) -> bool:
    """Spend ``cost`` of a per-minute budget of ``limit``; False, nothing spent, when the
    previous request's share of the minute has not passed yet."""
    step = min(cost, float(limit)) * (WINDOW_S / limit)  # a request larger than the budget
    spent = conn.execute(
        update(RATES)
        .where(RATES.c.account_id == account_id, RATES.c.kind == kind, RATES.c.tat <= now)
        .values(tat=now + step)
    ).rowcount
    return bool(spent)


def spend_for_claim(
    conn: Connection, account_id: str, limits_: ApiLimits, prompt_chars: int, now: float
) -> bool:
    """One request and the task's estimated tokens, both or neither (the caller rolls back
    a partial spend by returning before its transaction commits anything else: see
    ``QueueRoom.claim_next``)."""
    if limits_.rpm and not spend(conn, account_id, "rpm", 1.0, limits_.rpm, now):
        return False
    return not (
        limits_.tpm
        and not spend(conn, account_id, "tpm", estimate_tokens(prompt_chars), limits_.tpm, now)
    )


def ready_at(conn: Connection, account_id: str, prompt_chars: int, now: float) -> float | None:
    """When the rate budgets allow the next request (None: no limit). ``prompt_chars``: the
    next task's size (it does not change when it may start, only what it spends)."""
    lim = limits(conn, account_id)
    if lim is None or not (lim.rpm or lim.tpm):
        return None
    gate = gate_id(account_id, lim)
    rows = {
        r.kind: r.tat
        for r in conn.execute(select(RATES.c.kind, RATES.c.tat).where(RATES.c.account_id == gate))
    }
    at = now
    for kind, limit in (("rpm", lim.rpm), ("tpm", lim.tpm)):
        if limit:
            at = max(at, rows.get(kind, 0.0))
    return at


def correct_tokens(conn: Connection, account_id: str, estimated: int, used: int) -> None:
    """The answer's real token count replaces the estimate spent at the claim."""
    lim = limits(conn, account_id)
    if lim is None or not lim.tpm or used == estimated:
        return
    conn.execute(
        update(RATES)
        .where(RATES.c.account_id == gate_id(account_id, lim), RATES.c.kind == "tpm")
        .values(tat=RATES.c.tat + (used - estimated) * (WINDOW_S / lim.tpm))
    )
