"""Errors are values with a kind. The core returns kinds; the GUI turns them into words."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorKind(StrEnum):
    # Non-retryable: the task fails at once.
    AUTH_REJECTED = "auth_rejected"  # 401/403: the account's credentials are refused
    BAD_REQUEST = "bad_request"
    CONTEXT_TOO_LONG = "context_too_long"
    CONTENT_POLICY = "content_policy"
    INSUFFICIENT_QUOTA = "insufficient_quota"
    LOGIN_REQUIRED = "login_required"  # web: the session is logged out
    BAD_INPUT = "bad_input"
    BAD_CONFIG = "bad_config"
    PROFILE_IN_USE = "profile_in_use"  # web: a process we did not start holds the profile
    NO_ACCOUNT = "no_account"  # nothing enabled serves the model
    DEADLINE = "deadline"  # the task's overall deadline passed while deferred
    # Deferred without burning an attempt.
    RATE_LIMITED = "rate_limited"
    SITE_BUSY = "site_busy"  # web: "server busy" / "too many requests" banner
    CAPTCHA = "captcha"  # web: a challenge a human must solve
    # web: a generation this account started earlier (before a crash, or in a browser closed
    # mid-answer) still runs on the site; the task waits for it instead of breaking both
    LEFTOVER_GENERATION = "leftover_generation"
    # web: the same adapter step failed on consecutive tasks of the account: the site changed
    # its page (core/rules/site_breakage.py). The task goes back to the queue, its attempt not
    # used up; the account waits for the operator (a fixed adapter, then Reset).
    SITE_CHANGED = "site_changed"
    # The account's proxy (issue 32): it does not answer, cannot reach the site
    # (``code`` proxy_down / proxy_no_route), or refused the user name or password (407). Not
    # the site's doing and not the task's: the task goes back (other accounts may take it),
    # the account pauses with a growing back-off and tries again by itself.
    PROXY_UNREACHABLE = "proxy_unreachable"
    PROXY_AUTH = "proxy_auth"
    # Retryable: up to max_attempts.
    SERVER_ERROR = "server_error"  # 5xx, 408, 409
    NETWORK = "network"
    TIMEOUT = "timeout"
    PROTOCOL = "protocol"  # malformed stream or response
    SESSION_CONFLICT = "session_conflict"  # web: two generations overlapped in one session
    BROWSER_CRASHED = "browser_crashed"
    LOST = "lost"  # heartbeat stopped (process died or hung)
    QUALITY_REJECTED = "quality_rejected"  # the model's quality gate sent the answer back
    INTERNAL = "internal"  # a bug: logged with its traceback
    CANCELED = "canceled"


NON_RETRYABLE: frozenset[ErrorKind] = frozenset(
    {
        ErrorKind.AUTH_REJECTED,
        ErrorKind.BAD_REQUEST,
        ErrorKind.CONTEXT_TOO_LONG,
        ErrorKind.CONTENT_POLICY,
        ErrorKind.INSUFFICIENT_QUOTA,
        ErrorKind.LOGIN_REQUIRED,
        ErrorKind.BAD_INPUT,
        ErrorKind.BAD_CONFIG,
        ErrorKind.PROFILE_IN_USE,
        ErrorKind.NO_ACCOUNT,
        ErrorKind.DEADLINE,
        ErrorKind.CANCELED,
    }
)

# These say "not now" rather than "this attempt failed": the task waits without using an attempt,
# bounded by its overall deadline.
DEFERRING: frozenset[ErrorKind] = frozenset(
    {
        ErrorKind.RATE_LIMITED,
        ErrorKind.SITE_BUSY,
        ErrorKind.CAPTCHA,
        ErrorKind.LEFTOVER_GENERATION,
        ErrorKind.SITE_CHANGED,
        ErrorKind.PROXY_UNREACHABLE,
        ErrorKind.PROXY_AUTH,
    }
)


class ProviderError(Exception):
    """A generation failed in a way the provider understood.

    ``code`` (with ``params``, plain values, never a secret) says in a word what our own
    ``message`` says in English — ``connect_failed``, ``no_api_key``, ``url_scheme`` — so a
    window can say it in the operator's language (gui/common/labels.py); without one the message
    is the site's or API's own text, shown as it came."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        retry_after: float | None = None,
        status: int | None = None,
        code: str | None = None,
        params: dict[str, Any] | None = None,
        step: str | None = None,
        selector: str | None = None,
        excused: ProviderError | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after
        self.status = status
        self.code = code
        self.params = params or {}
        # Web: the adapter step that failed (core/rules/site_breakage.py AdapterStep) and what
        # it looked for — how consecutive failures are told to be the same breakage.
        self.step = step
        self.selector = selector
        # A deferral that excuses a failure (a leftover generation's doing): the failure it
        # excuses, which is what the deferral becomes once a task has been excused too often
        # (core/rules/excuses.py).
        self.excused = excused

    @property
    def retryable(self) -> bool:
        return self.kind not in NON_RETRYABLE

    def __repr__(self) -> str:
        return f"ProviderError({self.kind.value!r}, {self.message!r})"


class TaskCanceled(Exception):  # noqa: N818 - reads as what happened
    """Raised at a checkpoint when the operator asked to cancel the running task."""


class UserError(Exception):
    """Bad input or configuration: reported in one clear line, exit code 2, nothing written."""

    exit_code = 2


class ConfigError(UserError):
    pass


class InputError(UserError):
    pass


class RuleBroken(ValueError):  # noqa: N818 (a ValueError pydantic reports at its field)
    """A configuration rule a validator checks, as a kind with parameters besides the English
    message: the CLI prints the message, the set-up window words the ``code`` in the operator's
    language (gui/accounts/config_text.py). Parameters are plain values, never a secret."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class SchedulerBusy(Exception):  # noqa: N818
    """Another scheduler holds the data directory (CLI exit code 3)."""

    exit_code = 3


class AccountUnavailable(Exception):  # noqa: N818
    """A provider cannot be built for an account (no API key, unknown site): the account gets
    no work and shows why, instead of failing its tasks one after another. ``code`` names the
    reason in a word (the account's ``problem_code``: ``no_api_key``, ``adapter_unreadable``…);
    the message is the English detail."""

    def __init__(self, message: str, code: str = "bad_config") -> None:
        super().__init__(message)
        self.code = code


class StoreDamaged(Exception):  # noqa: N818
    """The task store cannot be used as it is: not a database, truncated, or corrupt (CLI exit
    code 5). The file is left untouched; the message names it and what to do."""

    exit_code = 5

    def __init__(self, path: str, detail: str, advice: str) -> None:
        super().__init__(f"the task store {path} is damaged or unreadable: {detail}. {advice}")
        self.path = path
        self.detail = detail
        self.advice = advice


class StoreLocked(Exception):  # noqa: N818
    """Another process held the database longer than we were willing to wait (CLI exit code 7)."""

    exit_code = 7


class StoreUnreachable(Exception):  # noqa: N818
    """The team database could not be reached within ``--db-wait`` (CLI exit code 8): the
    network, the server, or its address is wrong. Nothing was changed."""

    exit_code = 8


class StoreCopyConflict(UserError):
    """``store copy``: task ids that exist in the target with other content (CLI exit code 9).
    Nothing was copied. ``task_ids``: the first of them (``total`` in all)."""

    exit_code = 9

    def __init__(self, task_ids: list[str], total: int) -> None:
        more = f" … and {total - len(task_ids)} more" if total > len(task_ids) else ""
        super().__init__(
            f"{total} task id(s) already exist in the target with other content; nothing was "
            f"copied. Copy into an empty database or a new file, or remove them there first: "
            + ", ".join(task_ids)
            + more
        )
        self.task_ids = task_ids
        self.total = total
