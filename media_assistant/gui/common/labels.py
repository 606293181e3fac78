"""The words for what the core returns as kinds: task states, error kinds, account states, lanes
and task event kinds. One place, so every view names a state the same way.

The tables only mark the words for lupdate (``QT_TRANSLATE_NOOP``, one context per kind, so a
translator sees what a word is about); the lookups translate when called, with whatever
translator is installed. A value the table does not know is shown as it came.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QLocale

from media_assistant.core.model.accounts import AccountStatus
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.states import AccountProblem, AccountState, ModelKind, TaskState
from media_assistant.core.rules.site_breakage import AdapterStep
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
    ErrorKind.SITE_CHANGED: QT_TRANSLATE_NOOP("ErrorKind", "The site's page changed"),
    ErrorKind.PROXY_UNREACHABLE: QT_TRANSLATE_NOOP("ErrorKind", "Proxy unreachable"),
    ErrorKind.PROXY_AUTH: QT_TRANSLATE_NOOP("ErrorKind", "Proxy refused the password"),
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

# The steps of a prompt through a chat page (core/rules/site_breakage.py): a verdict, a task's
# log and the site check name them.
_ADAPTER_STEPS: dict[str, object] = {
    AdapterStep.THROUGH_PROXY: QT_TRANSLATE_NOOP("AdapterStep", "through the proxy"),
    AdapterStep.PAGE_LOADED: QT_TRANSLATE_NOOP("AdapterStep", "page loaded"),
    AdapterStep.SIGNED_IN: QT_TRANSLATE_NOOP("AdapterStep", "signed in"),
    AdapterStep.COMPOSER_FOUND: QT_TRANSLATE_NOOP("AdapterStep", "composer found"),
    AdapterStep.TEXT_ENTERED: QT_TRANSLATE_NOOP("AdapterStep", "text entered and read back"),
    AdapterStep.SENT: QT_TRANSLATE_NOOP("AdapterStep", "sent"),
    AdapterStep.GENERATING_SEEN: QT_TRANSLATE_NOOP("AdapterStep", "generating seen"),
    AdapterStep.DONE_SEEN: QT_TRANSLATE_NOOP("AdapterStep", "done seen"),
    AdapterStep.ANSWER_READ: QT_TRANSLATE_NOOP("AdapterStep", "answer read"),
    AdapterStep.MARKDOWN_REBUILT: QT_TRANSLATE_NOOP("AdapterStep", "Markdown rebuilt"),
    AdapterStep.NEW_CHAT: QT_TRANSLATE_NOOP("AdapterStep", "new chat"),
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
        "AccountProblem",
        "A captcha or challenge needs a person: solve it in its browser (right-click the "
        "account: Show browser)",
    ),
    ErrorKind.PROFILE_IN_USE: QT_TRANSLATE_NOOP(
        "AccountProblem", "Its browser profile is in use by another program"
    ),
    ErrorKind.PROXY_UNREACHABLE: QT_TRANSLATE_NOOP(
        "AccountProblem",
        "Its proxy cannot be reached (or cannot reach the site): it waits and tries again by "
        "itself",
    ),
    ErrorKind.PROXY_AUTH: QT_TRANSLATE_NOOP(
        "AccountProblem",
        "Its proxy refused the user name or password (407): store the right proxy password",
    ),
    "no_proxy_password": QT_TRANSLATE_NOOP(
        "AccountProblem", "Its proxy needs a password: store it in the account's settings"
    ),
    ErrorKind.BAD_CONFIG: QT_TRANSLATE_NOOP(
        "AccountProblem", "It cannot start: check its settings (see the tooltip)"
    ),
    ErrorKind.SITE_CHANGED: QT_TRANSLATE_NOOP(
        "AccountProblem",
        "The site's page changed (see the tooltip): install a fixed adapter file, then Reset",
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

# Our own reasons, by the code the core or a provider gives them (ProviderError.code,
# AccountUnavailable.code → accounts.problem_code): the English message behind them is ours too,
# so the words here replace it rather than sit beside it.
_REASONS: dict[str, object] = {
    "connect_failed": QT_TRANSLATE_NOOP(
        "Reason", "Cannot reach the server: nothing answered at that address"
    ),
    "connect_timeout": QT_TRANSLATE_NOOP("Reason", "The server did not answer within %1 s"),
    "idle_timeout": QT_TRANSLATE_NOOP("Reason", "The server sent nothing for %1 s"),
    "send_timeout": QT_TRANSLATE_NOOP("Reason", "Sending the request took too long"),
    "dropped": QT_TRANSLATE_NOOP("Reason", "The connection was cut off"),
    "invalid_http": QT_TRANSLATE_NOOP("Reason", "The server's answer was not valid HTTP"),
    "url_scheme": QT_TRANSLATE_NOOP("Reason", "The address must start with http:// or https://"),
    "no_api_key": QT_TRANSLATE_NOOP(
        "Reason",
        "No API key: open Accounts…, edit the account and paste its key, or name an "
        "environment variable that holds it",
    ),
    "key_env_unset": QT_TRANSLATE_NOOP(
        "Reason",
        "The variable %2 that should hold the API key is not set in this app's environment: "
        "set it for your user, then quit Media Assistant and start it again",
    ),
    "no_simulated_site": QT_TRANSLATE_NOOP(
        "Reason", "It needs the built-in simulated site, which this start does not have"
    ),
    "adapter_unreadable": QT_TRANSLATE_NOOP(
        "Reason", "Its site adapter cannot be used (see the tooltip)"
    ),
    "model_choice_missing": QT_TRANSLATE_NOOP(
        "Reason",
        "A model of it names the site's own model, but its site adapter cannot choose models "
        "(see the tooltip)",
    ),
    "provider_failed": QT_TRANSLATE_NOOP(
        "Reason", "It could not be started: an internal error (see the tooltip and the log)"
    ),
}
# Reasons whose words say everything: the English detail (which may tell a terminal user what
# to type) is not shown in the window. The others point to it in the tooltip.
_COMPLETE_REASONS = frozenset(
    {
        "connect_failed",
        "connect_timeout",
        "idle_timeout",
        "send_timeout",
        "dropped",
        "invalid_http",
        "url_scheme",
        "no_api_key",
        "key_env_unset",
        "no_simulated_site",
    }
)
# Error kinds whose message is our own description (English), not a site's or an API's words:
# the window names the kind and keeps the message for the tooltip and the details.
_OWN_MESSAGE_KINDS = frozenset(
    {
        ErrorKind.NETWORK,
        ErrorKind.TIMEOUT,
        ErrorKind.PROTOCOL,
        ErrorKind.LOST,
        ErrorKind.DEADLINE,
        ErrorKind.NO_ACCOUNT,
        ErrorKind.BROWSER_CRASHED,
        ErrorKind.INTERNAL,
        ErrorKind.CANCELED,
        ErrorKind.LEFTOVER_GENERATION,
        ErrorKind.SESSION_CONFLICT,
        ErrorKind.SITE_CHANGED,  # our verdict (the step that failed): the tooltip has it
        ErrorKind.PROFILE_IN_USE,
        ErrorKind.BAD_CONFIG,
        ErrorKind.LOGIN_REQUIRED,
        ErrorKind.CAPTCHA,
        ErrorKind.PROXY_UNREACHABLE,  # ours: "cannot reach the proxy …; since 14:02 …"
        ErrorKind.PROXY_AUTH,
    }
)

_ERROR_KIND_VALUES = frozenset(k.value for k in ErrorKind)


def reason_text(code: str | None, params: Mapping[str, object] | None = None) -> str | None:
    """One of our own reasons in the operator's words (None: not a code of ours)."""
    source = _REASONS.get(code or "")
    if source is None:
        return None
    text = QCoreApplication.translate("Reason", str(source))
    seconds = (params or {}).get("seconds")
    text = text.replace("%2", str((params or {}).get("variable") or "?"))
    return text.replace("%1", f"{seconds:g}" if isinstance(seconds, int | float) else "?")


_UNSET_VARIABLE = re.compile(r"environment variable (\S+) \(not set\)")


def _problem_params(status: AccountStatus) -> dict[str, object]:
    """The parameters a stored problem's words need (its English detail names them)."""
    found = _UNSET_VARIABLE.search(status.problem_detail or "")
    return {"variable": found.group(1)} if found else {}


def reason_is_complete(code: str | None) -> bool:
    """The words of ``code`` say all there is: its English detail stays out of the window."""
    return code in _COMPLETE_REASONS


def provider_error_text(
    kind: str, message: str, code: str | None, params: Mapping[str, object]
) -> str:
    """A provider's error as the set-up window shows it: our words for our own reasons, else
    the kind and the site's or API's own message."""
    words = reason_text(code, params)
    if words is not None:
        return words
    return error_text(kind, message)


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
    words = reason_text(status.problem_code, _problem_params(status))
    if words is not None:
        return words
    key = status.problem_code if status.problem_code in _PROBLEMS else status.problem.value
    return _lookup("AccountProblem", _PROBLEMS, key or "")


def problem_words(code: str, state: str) -> str:
    """Why an account needs the operator, from a notice's code and state: the problem's words
    when there are any, else the state's."""
    words = reason_text(code)
    if words is not None:
        return words
    source = _PROBLEMS.get(code) or _PROBLEMS.get(_STATE_PROBLEMS.get(state, ""))
    if source is not None:
        return QCoreApplication.translate("AccountProblem", str(source))
    return account_state(state)


_STATE_PROBLEMS = {
    AccountState.NEEDS_LOGIN.value: AccountProblem.NEEDS_LOGIN.value,
    AccountState.CREDENTIALS_REJECTED.value: AccountProblem.CREDENTIALS_REJECTED.value,
    AccountState.NEEDS_ATTENTION.value: AccountProblem.NEEDS_ATTENTION.value,
}


def problem_codes() -> list[str]:
    """Every problem code the window has words for (a test walks them)."""
    return [*_PROBLEMS, *_REASONS]


def _lookup(context: str, table: dict[str, object], key: str) -> str:
    source = table.get(key)
    return key if source is None else QCoreApplication.translate(context, str(source))


def adapter_step(step: str) -> str:
    return _lookup("AdapterStep", _ADAPTER_STEPS, step)


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
    if not message or kind in _OWN_MESSAGE_KINDS:  # our English: the tooltip has it
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
    if status.problem is not AccountProblem.NONE and state is not AccountState.DISABLED:
        recheck = status.recheck_in(now)
        if recheck is None:
            return problem_text(status)
        return (
            QCoreApplication.translate(
                "Labels", "%1; re-checked by itself in %2", "a held account's own site check"
            )
            .replace("%1", problem_text(status))
            .replace("%2", format_duration(recheck))
        )
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


def site_name(name: str, name_zh: str | None) -> str:
    """A site adapter's name in the window's language (its ``name_zh`` in a Chinese window)."""
    if name_zh and QLocale().language() is QLocale.Language.Chinese:
        return name_zh
    return name


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
