"""No task loops forever (issue 25): how often a failure may be excused, and the poison pill.

**Excuses.** A deferral that excuses a failure — a leftover generation taken for the failure's
cause (providers/web/leftover.py): the task waits, its attempt not used up — is a guess, and a
wrong guess repeated is a loop: the prompt sent again and again, never counted. So a task is
excused at most :data:`MAX_EXCUSED_IN_A_ROW` times — in a row, and in all: a used attempt does
not start the count afresh, so its prompt is sent at most ``max_attempts`` + that many times;
only its end does. Its next failure is the failure it is (``ProviderError.excused``) and uses
an attempt like any other. The count is per task, kept in memory by the process that runs it
and, for a task it first sees excused, read back from the task's event log (each excuse's
``deferred`` line says ``excused``: :func:`excused_before`) — so a restart does not start it
afresh (it did: every restart of ``run`` allowed that many more sends). Deferrals that are the
site's own "not now" (rate limited, busy) excuse nothing: the task's ``deadline_s`` bounds them.

**Poison pills.** A task whose every attempt of this round failed with the same error kind has
not met bad luck: its prompt is what fails, on every account it tried. When its attempts run
out it fails with that kind and says so — ":func:`poison_words`" — so the operator knows
retrying it elsewhere will not help; nothing retries a failed task by itself. Non-retryable
kinds (content policy, prompt too long) fail at their first attempt, as ever.

Pure rules, no I/O: the lane hands in the task's earlier failures (its event log).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from media_assistant.core.model.errors import ProviderError
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.records import Claim, TaskEventRecord

# A task's failures excused in a row before the next one uses an attempt.
MAX_EXCUSED_IN_A_ROW = 2


class ExcuseCount:
    """Excuses in a row, per task (one per process, on the lane's loop)."""

    def __init__(self, limit: int = MAX_EXCUSED_IN_A_ROW) -> None:
        self.limit = limit
        self._in_a_row: dict[str, int] = {}

    def bound(self, task_id: str, error: ProviderError) -> ProviderError:
        """``error`` as it is, or — an excuse beyond the limit — the failure it excuses."""
        cause = error.excused
        if cause is None:
            return error
        spent = self._in_a_row.get(task_id, 0)
        if spent < self.limit:
            return error
        return ProviderError(
            cause.kind,
            f"{cause.message} (excused {spent} times in a row already: this failure uses an "
            "attempt)",
            retry_after=cause.retry_after,
            status=cause.status,
            code=cause.code,
            params=cause.params,
            step=cause.step,
            selector=cause.selector,
        )

    def excused(self, task_id: str) -> None:
        """The task was deferred on an excuse."""
        self._in_a_row[task_id] = self._in_a_row.get(task_id, 0) + 1

    def reset(self, task_id: str) -> None:
        """The task ended (an answer, a failure, a cancel) or waits for a person."""
        self._in_a_row.pop(task_id, None)

    def spent(self, task_id: str) -> int:
        return self._in_a_row.get(task_id, 0)

    def knows(self, task_id: str) -> bool:
        """This process counted the task's excuses since it last ended or was held."""
        return task_id in self._in_a_row

    def seed(self, task_id: str, spent: int) -> None:
        """What an earlier process granted the task (:func:`excused_before`)."""
        self._in_a_row[task_id] = spent


def excused_before(events: Iterable[TaskEventRecord], attempt_base: int) -> int:
    """The excuses of the task's current round (after the operator's last retry) that its
    event log records — since it last waited for a person (a hold starts the count afresh, as
    in memory)."""
    spent = 0
    for e in events:
        if (e.attempt or 0) <= attempt_base:
            continue
        if e.code == EventCode.HELD_SITE_CHANGED.value:
            spent = 0
        elif e.code == EventCode.DEFERRED.value and e.params.get("excused"):
            spent += 1
    return spent


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed attempt of a task: where, and with which error kind."""

    account_id: str
    kind: str


@dataclass(frozen=True, slots=True)
class PoisonPill:
    kind: str
    accounts: int  # distinct accounts it failed on
    attempts: int


def poison_pill(failures: Iterable[Failure]) -> PoisonPill | None:
    """Every failure (two or more) the same kind: the task is a poison pill."""
    seen = list(failures)
    if len(seen) < 2 or len({f.kind for f in seen}) != 1:
        return None
    return PoisonPill(seen[0].kind, len({f.account_id for f in seen}), len(seen))


def poison_words(pill: PoisonPill) -> str:
    """The English words the failure's message ends with (the window words it itself)."""
    where = "account" if pill.accounts == 1 else "accounts"
    return (
        f"failed the same way on {pill.accounts} {where}: {pill.attempts} attempts, all "
        f"{pill.kind}; not retried again"
    )


_WORDS = re.compile(r"failed the same way on (\d+) accounts?")


def poison_accounts(message: str | None) -> int | None:
    """How many accounts a failure's message says the task failed the same way on."""
    found = _WORDS.search(message or "")
    return int(found.group(1)) if found else None


def failures_of(
    events: Iterable[TaskEventRecord], attempt_base: int, now: Failure
) -> list[Failure]:
    """The failed attempts of this round (after the operator's last retry, ``attempt_base``)
    as the task's event log tells them (each retry's line), then ``now``, the last one. A lost
    attempt (killed, its heartbeat gone) is no failure of the prompt's and is not among them."""
    found = [
        Failure(e.account_id or "", str(e.params.get("error_kind", "")))
        for e in events
        if e.code == EventCode.RETRY_SCHEDULED.value and (e.attempt or 0) > attempt_base
    ]
    return [*found, now]


def ran_out(
    events: Iterable[TaskEventRecord], claim: Claim, error: ProviderError, message: str
) -> tuple[str, EventCode, dict[str, Any]]:
    """The final failure of a task whose attempts ran out (``message``: the retry rule's),
    as (message, event code, its parameters): a poison pill when every attempt of the round
    failed the same way, else an ordinary failure."""
    failures = failures_of(events, claim.attempt_base, Failure(claim.account_id, error.kind.value))
    pill = poison_pill(failures)
    if pill is None:
        return message, EventCode.FAILED, {"error_kind": error.kind.value, "detail": message}
    said = f"{error.message} ({poison_words(pill)})"
    params = {
        "error_kind": error.kind.value,
        "detail": said,
        "accounts": pill.accounts,
        "attempts": pill.attempts,
    }
    return said, EventCode.POISON_PILL, params
