"""The words for what the core returns as kinds: task states, error kinds, account states, lanes
and task event kinds. One place, so every view names a state the same way.

The tables only mark the words for lupdate (``QT_TRANSLATE_NOOP``, one context per kind, so a
translator sees what a word is about); the lookups translate when called, with whatever
translator is installed. A value the table does not know is shown as it came.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from media_assistant.core.model.accounts import AccountStatus
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.states import AccountProblem, AccountState, ModelKind, TaskState
from media_assistant.gui.common.style import format_duration

_TASK_STATES: dict[str, object] = {
    TaskState.PENDING: QT_TRANSLATE_NOOP("TaskState", "Pending"),
    TaskState.RUNNING: QT_TRANSLATE_NOOP("TaskState", "Running"),
    TaskState.SUCCESS: QT_TRANSLATE_NOOP("TaskState", "Succeeded"),
    TaskState.FAILED: QT_TRANSLATE_NOOP("TaskState", "Failed"),
    TaskState.CANCELED: QT_TRANSLATE_NOOP("TaskState", "Canceled"),
}

_ERROR_KINDS: dict[str, object] = {
    ErrorKind.AUTH_REJECTED: QT_TRANSLATE_NOOP("ErrorKind", "API key rejected"),
    ErrorKind.BAD_REQUEST: QT_TRANSLATE_NOOP("ErrorKind", "Request refused as invalid"),
    ErrorKind.CONTEXT_TOO_LONG: QT_TRANSLATE_NOOP("ErrorKind", "Prompt too long for the model"),
    ErrorKind.CONTENT_POLICY: QT_TRANSLATE_NOOP("ErrorKind", "Blocked by the content policy"),
    ErrorKind.INSUFFICIENT_QUOTA: QT_TRANSLATE_NOOP("ErrorKind", "Quota used up"),
    ErrorKind.LOGIN_REQUIRED: QT_TRANSLATE_NOOP("ErrorKind", "Login required"),
    ErrorKind.BAD_INPUT: QT_TRANSLATE_NOOP("ErrorKind", "Bad input"),
    ErrorKind.BAD_CONFIG: QT_TRANSLATE_NOOP("ErrorKind", "Configuration problem"),
    ErrorKind.PROFILE_IN_USE: QT_TRANSLATE_NOOP(
        "ErrorKind", "Browser profile in use by another program"
    ),
    ErrorKind.NO_ACCOUNT: QT_TRANSLATE_NOOP("ErrorKind", "No enabled account serves this model"),
    ErrorKind.DEADLINE: QT_TRANSLATE_NOOP("ErrorKind", "Deadline passed while waiting"),
    ErrorKind.RATE_LIMITED: QT_TRANSLATE_NOOP("ErrorKind", "Rate limited"),
    ErrorKind.SITE_BUSY: QT_TRANSLATE_NOOP("ErrorKind", "Site busy"),
    ErrorKind.CAPTCHA: QT_TRANSLATE_NOOP("ErrorKind", "Captcha to solve"),
    ErrorKind.LEFTOVER_GENERATION: QT_TRANSLATE_NOOP(
        "ErrorKind", "An earlier answer of this account is still running on the site"
    ),
    ErrorKind.SERVER_ERROR: QT_TRANSLATE_NOOP("ErrorKind", "Server error"),
    ErrorKind.NETWORK: QT_TRANSLATE_NOOP("ErrorKind", "Network error"),
    ErrorKind.TIMEOUT: QT_TRANSLATE_NOOP("ErrorKind", "Timed out"),
    ErrorKind.PROTOCOL: QT_TRANSLATE_NOOP("ErrorKind", "Malformed response"),
    ErrorKind.SESSION_CONFLICT: QT_TRANSLATE_NOOP(
        "ErrorKind", "Two answers overlapped in one chat session"
    ),
    ErrorKind.BROWSER_CRASHED: QT_TRANSLATE_NOOP("ErrorKind", "Browser crashed"),
    ErrorKind.LOST: QT_TRANSLATE_NOOP("ErrorKind", "Heartbeat lost"),
    ErrorKind.QUALITY_REJECTED: QT_TRANSLATE_NOOP(
        "ErrorKind", "Answer turned down by the quality gate"
    ),
    ErrorKind.INTERNAL: QT_TRANSLATE_NOOP("ErrorKind", "Internal error"),
    ErrorKind.CANCELED: QT_TRANSLATE_NOOP("ErrorKind", "Canceled"),
}

_ACCOUNT_STATES: dict[str, object] = {
    AccountState.ENABLED: QT_TRANSLATE_NOOP("AccountState", "Working"),
    AccountState.DISABLED: QT_TRANSLATE_NOOP("AccountState", "Switched off"),
    AccountState.COOLING_DOWN: QT_TRANSLATE_NOOP("AccountState", "Cooling down"),
    AccountState.NEEDS_LOGIN: QT_TRANSLATE_NOOP("AccountState", "Needs login"),
    AccountState.CREDENTIALS_REJECTED: QT_TRANSLATE_NOOP("AccountState", "Key rejected"),
    AccountState.NEEDS_ATTENTION: QT_TRANSLATE_NOOP("AccountState", "Needs attention"),
}

_LANES: dict[str, object] = {
    ModelKind.WEB: QT_TRANSLATE_NOOP("Lane", "Web"),
    ModelKind.API: QT_TRANSLATE_NOOP("Lane", "API"),
}

_LANE_TITLES: dict[str, object] = {
    ModelKind.WEB: QT_TRANSLATE_NOOP("Lane", "Web lane"),
    ModelKind.API: QT_TRANSLATE_NOOP("Lane", "API lane"),
}

# The kinds of a task's event log lines (store.log_event).
_EVENT_KINDS: dict[str, object] = {
    "state": QT_TRANSLATE_NOOP("TaskEventKind", "State"),
    "retry": QT_TRANSLATE_NOOP("TaskEventKind", "Retry"),
    "selfcheck": QT_TRANSLATE_NOOP("TaskEventKind", "Self-check"),
    "log": QT_TRANSLATE_NOOP("TaskEventKind", "Log"),
    "error": QT_TRANSLATE_NOOP("TaskEventKind", "Error"),
    "cancel": QT_TRANSLATE_NOOP("TaskEventKind", "Cancel"),
}

# The quality gate's rules (core/rules/quality.py).
_QUALITY_RULES: dict[str, object] = {
    "too_short": QT_TRANSLATE_NOOP("QualityRule", "answer too short"),
    "refusal": QT_TRANSLATE_NOOP("QualityRule", "the model refused"),
    "truncated": QT_TRANSLATE_NOOP("QualityRule", "answer cut at the length limit"),
}

# Why an account needs the operator, by the error kind behind its problem (or the problem).
_PROBLEMS: dict[str, object] = {
    ErrorKind.CAPTCHA: QT_TRANSLATE_NOOP(
        "AccountProblem", "A captcha or challenge needs a person: solve it in its browser"
    ),
    ErrorKind.PROFILE_IN_USE: QT_TRANSLATE_NOOP(
        "AccountProblem", "Its browser profile is in use by another program"
    ),
    ErrorKind.BAD_CONFIG: QT_TRANSLATE_NOOP(
        "AccountProblem", "It cannot start: check its settings (see the tooltip)"
    ),
    ErrorKind.LOGIN_REQUIRED: QT_TRANSLATE_NOOP(
        "AccountProblem", "Signed out: press Log in and sign in again"
    ),
    ErrorKind.AUTH_REJECTED: QT_TRANSLATE_NOOP(
        "AccountProblem", "The API key was rejected: store a valid key"
    ),
    AccountProblem.NEEDS_LOGIN: QT_TRANSLATE_NOOP(
        "AccountProblem", "Signed out: press Log in and sign in again"
    ),
    AccountProblem.CREDENTIALS_REJECTED: QT_TRANSLATE_NOOP(
        "AccountProblem", "The API key was rejected: store a valid key"
    ),
    AccountProblem.NEEDS_ATTENTION: QT_TRANSLATE_NOOP(
        "AccountProblem", "Needs a look (see the tooltip)"
    ),
}

_ERROR_KIND_VALUES = frozenset(k.value for k in ErrorKind)


def quality_rule(rule: str) -> str:
    return _lookup("QualityRule", _QUALITY_RULES, rule)


def _quality_rule_of(message: str) -> str | None:
    """``quality gate: refusal: …`` (the core's message) → "refusal"."""
    head, _, rest = message.partition(": ")
    if head != "quality gate":
        return None
    rule = rest.partition(":")[0].strip()
    return rule if rule in _QUALITY_RULES else None


def problem_text(status: AccountStatus) -> str:
    """An account problem in the operator's words (the site's own detail goes in a tooltip)."""
    key = status.problem_code if status.problem_code in _PROBLEMS else status.problem.value
    return _lookup("AccountProblem", _PROBLEMS, key or "")


def _lookup(context: str, table: dict[str, object], key: str) -> str:
    source = table.get(key)
    return key if source is None else QCoreApplication.translate(context, str(source))


def task_state(state: str) -> str:
    return _lookup("TaskState", _TASK_STATES, state)


def task_states() -> dict[str, str]:
    """Every task state's label, for a view that looks them up on each paint."""
    return {state: task_state(state) for state in _TASK_STATES}


def error_kind(kind: str) -> str:
    return _lookup("ErrorKind", _ERROR_KINDS, kind)


def is_error_kind(value: str | None) -> bool:
    return value in _ERROR_KIND_VALUES


def error_text(kind: str | None, message: str | None) -> str:
    """``<kind label>: <message>``; the message is the site's or API's own text, untranslated.
    The quality gate's own message is said in words: "<kind label>: <rule>"."""
    if not kind:
        return message or ""
    if not message:
        return error_kind(kind)
    message = error_detail(kind, message)
    return (
        QCoreApplication.translate("Labels", "%1: %2", "error kind: the site's error message")
        .replace("%1", error_kind(kind))
        .replace("%2", message)
    )


def error_detail(kind: str | None, message: str | None) -> str:
    """The message under an error kind: the site's or API's own text as it came, or, for the
    quality gate, the rule that fired in words."""
    if kind == ErrorKind.QUALITY_REJECTED and message and (rule := _quality_rule_of(message)):
        return quality_rule(rule)
    return message or ""


def account_state(state: str) -> str:
    return _lookup("AccountState", _ACCOUNT_STATES, state)


def account_reason(status: AccountStatus | None, now: float) -> str:
    """Why the account is in its state, in the operator's language where the core gave a kind.

    A sticky problem is named by its kind (``problem_code``) in the operator's words; the site's
    or API's own text (``problem_detail``: a CSS selector, an HTTP body) is for the tooltip. A
    cool-down names its kind and counts down. An account that was switched off needs no
    reason: its toggle says it.
    """
    if status is None:
        return ""
    state = status.state(now)
    if (
        status.problem not in (AccountProblem.NONE, AccountProblem.REBUILD)
        and state is not AccountState.DISABLED
    ):
        # (REBUILD is a request to the scheduler, not a problem: core/store/accounts.py)
        return problem_text(status)
    if state is AccountState.COOLING_DOWN:
        reason = status.cooldown_reason
        kind = (
            error_kind(reason)
            if reason is not None and is_error_kind(reason)
            # The API's rate-limit headers said the window is nearly used up (free text).
            else QCoreApplication.translate("Labels", "Near the rate limit")
        )
        left = format_duration(max(0.0, (status.cooldown_until or now) - now))
        return (
            QCoreApplication.translate("Labels", "%1, %2 left", "cool-down reason, time left")
            .replace("%1", kind)
            .replace("%2", left)
        )
    return ""


def lane(kind: str) -> str:
    """The short lane name, for table cells and tags: Web / API."""
    return _lookup("Lane", _LANES, kind)


def lane_title(kind: str) -> str:
    """The lane as a heading or a filter choice: Web lane / API lane."""
    return _lookup("Lane", _LANE_TITLES, kind)


def event_kind(kind: str) -> str:
    return _lookup("TaskEventKind", _EVENT_KINDS, kind)


def event_kinds() -> list[str]:
    return [event_kind(kind) for kind in _EVENT_KINDS]


# What came of a sign-in (providers/web/signin.py LoginOutcome), in the status line: %1 the
# account, %2 the page's address (signed in), the site's host (unreachable) or the reason.
_SIGN_IN: dict[str, object] = {
    "signed_in": QT_TRANSLATE_NOOP("SignIn", "%1: signed in (%2)"),
    "signed_out": QT_TRANSLATE_NOOP("SignIn", "%1: not signed in: the site shows its sign-in"),
    "not_finished": QT_TRANSLATE_NOOP(
        "SignIn", "%1: the sign-in window was closed before signing in; nothing changed"
    ),
    "timed_out": QT_TRANSLATE_NOOP(
        "SignIn", "%1: no sign-in in time; the window was closed, nothing changed"
    ),
    "unreachable": QT_TRANSLATE_NOOP(
        "SignIn", "%1: cannot reach %2 (check the network); its login is unchanged"
    ),
    "failed": QT_TRANSLATE_NOOP("SignIn", "%1: the sign-in window could not be opened (%2)"),
    "busy": QT_TRANSLATE_NOOP(
        "SignIn", "%1: its browser is still busy with a task; try again when it has finished"
    ),
    "already_open": QT_TRANSLATE_NOOP("SignIn", "%1: its sign-in window is already open"),
}
_SIGN_IN_WITH_REASON = {"failed"}


def sign_in_result(account_id: str, outcome: str, where: str, detail: str) -> str:
    """One line for the status bar: what came of signing in to ``account_id``."""
    source = _SIGN_IN.get(outcome)
    if source is None:
        return f"{account_id}: {detail}"
    second = detail if outcome in _SIGN_IN_WITH_REASON else where
    return (
        QCoreApplication.translate("SignIn", str(source))
        .replace("%1", account_id)
        .replace("%2", second)
    )


def signing_in() -> str:
    return QCoreApplication.translate("SignIn", "Signing in…")
