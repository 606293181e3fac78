"""Task and account states (DESIGN §3, §4)."""

from __future__ import annotations

from enum import StrEnum


class TaskState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    SUCCESS = "success"
    FAILED = "failed"
    CANCELED = "canceled"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL_STATES


TERMINAL_STATES: frozenset[TaskState] = frozenset(
    {TaskState.SUCCESS, TaskState.FAILED, TaskState.CANCELED}
)

# pending → running → success|failed|canceled; pending → canceled; running → pending (retry).
# Terminal states change only through an explicit operator retry (→ pending, same row).
ALLOWED_TRANSITIONS: frozenset[tuple[TaskState, TaskState]] = frozenset(
    {
        (TaskState.PENDING, TaskState.RUNNING),
        (TaskState.PENDING, TaskState.CANCELED),
        (TaskState.RUNNING, TaskState.SUCCESS),
        (TaskState.RUNNING, TaskState.FAILED),
        (TaskState.RUNNING, TaskState.CANCELED),
        (TaskState.RUNNING, TaskState.PENDING),
    }
)


class ModelKind(StrEnum):
    WEB = "web"
    API = "api"


class AccountState(StrEnum):
    ENABLED = "enabled"
    DISABLED = "disabled"  # by the operator
    COOLING_DOWN = "cooling_down"  # automatic, with a countdown
    NEEDS_LOGIN = "needs_login"  # web: login lost
    CREDENTIALS_REJECTED = "credentials_rejected"  # api: 401/403
    NEEDS_ATTENTION = "needs_attention"  # a captcha to solve, a profile held by another program

    @property
    def gets_work(self) -> bool:
        return self is AccountState.ENABLED

    @property
    def recovers_by_itself(self) -> bool:
        return self in (AccountState.ENABLED, AccountState.COOLING_DOWN)


class AccountProblem(StrEnum):
    """Sticky account conditions set by the lanes, cleared by the operator (or a login check)."""

    NONE = ""
    NEEDS_LOGIN = "needs_login"
    CREDENTIALS_REJECTED = "credentials_rejected"
    NEEDS_ATTENTION = "needs_attention"

    @property
    def sticky(self) -> bool:
        """A condition only the operator (or a login check) ends."""
        return self is not AccountProblem.NONE


# What a notice is about (core/notices/center.py); config names them in [notifications] and
# [[webhooks]] events.
class NoticeKind(StrEnum):
    BATCH_DONE = "batch_done"
    BATCH_FAILED = "batch_failed"
    ACCOUNT_ATTENTION = "account_attention"
    DISK_LOW = "disk_low"
    # a task failed the same way on every attempt (core/rules/excuses.py, issue 25)
    POISON_PILL = "poison_pill"
    # A lane or account crossed an [alarms] threshold, and when it is back (issue 31).
    ALARM = "alarm"
    ALARM_CLEARED = "alarm_cleared"


NOTICE_KINDS = tuple(k.value for k in NoticeKind)
