"""A task's event log line in the operator's language: the core records a kind with parameters
(core/model/event_codes.py), the words are here, in the catalogue ("EventText" context).

A line without a code (written before schema version 6) or with one this version does not know
is shown as its English message. Text that came from a site or an API travels as ``detail`` and
is never spliced into a sentence: it is shown in the tooltip, with the English line.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from media_assistant.core.model.records import TaskEventRecord
from media_assistant.gui.common import labels
from media_assistant.gui.common.pacing_labels import minutes, risk_kind
from media_assistant.gui.common.style import format_duration

_CTX = "EventText"


def _t(text: object, disambiguation: str | None = None) -> str:
    """Translate a string marked with QT_TRANSLATE_NOOP("EventText", …) (so lupdate sees it)."""
    return QCoreApplication.translate(_CTX, str(text), disambiguation)


def _fill(text: str, *values: object) -> str:
    for i, value in enumerate(values, start=1):
        text = text.replace(f"%{i}", str(value))
    return text


def attempt_text(attempt: int, max_attempts: int, base: int = 0, retries: int = 0) -> str:
    """ "attempt 1 of 3", or after an operator retry "attempt 1 of 3 (retry 1)": this round's
    attempts, never the row's running count (a retried 1/3 is not "2/4")."""
    number, of = max(attempt - base, 0), max(max_attempts - base, 1)
    if retries:
        return _fill(
            _t(QT_TRANSLATE_NOOP("EventText", "attempt %1 of %2 (retry %3)")), number, of, retries
        )
    return _fill(_t(QT_TRANSLATE_NOOP("EventText", "attempt %1 of %2")), number, of)


def attempt_of(attempt: int, max_attempts: int, base: int = 0, retries: int = 0) -> str:
    """ "2 of 3", or "1 of 3 (retry 1)": for a field already labelled "Attempt"."""
    number, of = max(attempt - base, 0), max(max_attempts - base, 1)
    if not number:
        if retries:
            return _fill(_t(QT_TRANSLATE_NOOP("EventText", "not started yet (retry %1)")), retries)
        return _t(QT_TRANSLATE_NOOP("EventText", "not started yet"))
    if retries:
        return _fill(_t(QT_TRANSLATE_NOOP("EventText", "%1 of %2 (retry %3)")), number, of, retries)
    return _fill(_t(QT_TRANSLATE_NOOP("EventText", "%1 of %2")), number, of)


def attempt_cell(attempt: int, max_attempts: int, base: int = 0, retries: int = 0) -> str:
    """The table's short form: "1/3", or "1/3 · retry 1" after an operator retry."""
    number, of = max(attempt - base, 0), max(max_attempts - base, 1)
    if not number:  # this round has not started an attempt yet
        return _fill(_t(QT_TRANSLATE_NOOP("EventText", "retry %1")), retries) if retries else ""
    if retries:
        return _fill(
            _t(QT_TRANSLATE_NOOP("EventText", "%1/%2 · retry %3")),
            number,
            of,
            retries,
        )
    return f"{number}/{of}"


def _clock(ts: Any) -> str:
    try:
        return dt.datetime.fromtimestamp(float(ts)).strftime("%H:%M")
    except (TypeError, ValueError, OverflowError, OSError):
        return "?"


def _seconds(value: Any) -> str:
    try:
        return format_duration(float(value))
    except (TypeError, ValueError):
        return "?"


def _lost(p: Mapping[str, Any]) -> str:
    after = {
        "pending": _t(QT_TRANSLATE_NOOP("EventText", "back in the queue")),
        "failed": _t(QT_TRANSLATE_NOOP("EventText", "no attempts left: the task failed")),
        "canceled": _t(QT_TRANSLATE_NOOP("EventText", "canceled, as you asked")),
    }.get(str(p.get("state")), str(p.get("state")))
    if p.get("cause") == "orphan":
        return _fill(
            _t(
                QT_TRANSLATE_NOOP(
                    "EventText", "Attempt %1 lost: the app that ran it stopped unexpectedly; %2"
                )
            ),
            p.get("attempt"),
            after,
        )
    return _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Attempt %1 lost: no heartbeat for %2; %3")),
        p.get("attempt"),
        _seconds(p.get("seconds")),
        after,
    )


def _quality(p: Mapping[str, Any]) -> str:
    then = {
        "retry": _t(QT_TRANSLATE_NOOP("EventText", "another attempt follows")),
        "fallback": _fill(
            _t(QT_TRANSLATE_NOOP("EventText", "the task goes to %1")), p.get("model")
        ),
        "fail": _t(QT_TRANSLATE_NOOP("EventText", "no attempts left: the task failed")),
    }.get(str(p.get("then")), "")
    return _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Answer turned down by the quality gate: %1; %2")),
        labels.quality_rule(str(p.get("rule"))),
        then,
    )


def _selfcheck(p: Mapping[str, Any]) -> str:
    return {
        "leftover_stopped": _t(
            QT_TRANSLATE_NOOP("EventText", "Self-check: stopped a leftover browser")
        ),
        "leftover_failed_to_stop": _t(
            QT_TRANSLATE_NOOP("EventText", "Self-check: could not stop a leftover browser")
        ),
        "stale_lock_cleared": _t(
            QT_TRANSLATE_NOOP("EventText", "Self-check: cleared a stale profile lock")
        ),
        "foreign_holder": _t(
            QT_TRANSLATE_NOOP(
                "EventText", "Self-check: the browser profile is held by another program"
            )
        ),
        "lock_other_host": _t(
            QT_TRANSLATE_NOOP(
                "EventText", "Self-check: the browser profile is locked by another computer"
            )
        ),
    }.get(str(p.get("finding")), _t(QT_TRANSLATE_NOOP("EventText", "Self-check: see the details")))


def _api_request(p: Mapping[str, Any]) -> str:
    text = {
        "with": _t(QT_TRANSLATE_NOOP("EventText", "Request sent to %1 (with a system prompt)")),
        "left_out": _t(
            QT_TRANSLATE_NOOP(
                "EventText", "Request sent to %1 (system prompt left out for this model)"
            )
        ),
    }.get(str(p.get("system")), _t(QT_TRANSLATE_NOOP("EventText", "Request sent to %1")))
    return _fill(text, p.get("model"))


def _api_answer(p: Mapping[str, Any]) -> str:
    text = _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Answer received: %1 characters")), p.get("chars")
    )
    if p.get("truncated"):
        text += _t(QT_TRANSLATE_NOOP("EventText", "; cut at the model's length limit"))
    return text


def _started(p: Mapping[str, Any]) -> str:
    attempt = attempt_text(
        int(p.get("attempt") or 0),
        int(p.get("max_attempts") or 1),
        int(p.get("base") or 0),
        int(p.get("retries") or 0),
    )
    return _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "%1 started on %2")),
        attempt,
        p.get("account"),
    )


def _retry_scheduled(p: Mapping[str, Any]) -> str:
    attempt = attempt_text(
        int(p.get("attempt") or 0), int(p.get("max_attempts") or 1), int(p.get("base") or 0)
    )
    return _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "%1 failed (%2); next attempt in %3")),
        attempt,
        labels.error_kind(str(p.get("error_kind"))),
        _seconds(p.get("delay")),
    )


_TEXTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "submitted": lambda p: _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Submitted in batch %1")), p.get("batch")
    ),
    "canceled_pending": lambda p: _t(QT_TRANSLATE_NOOP("EventText", "Canceled before it started")),
    "cancel_requested": lambda p: _t(
        QT_TRANSLATE_NOOP("EventText", "Cancel requested: it stops at its next checkpoint")
    ),
    "retry_requested": lambda p: _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Retry requested with an edited prompt (retry %1)"))
        if p.get("edited")
        else _t(QT_TRANSLATE_NOOP("EventText", "Retry requested (retry %1)")),
        p.get("round"),
    ),
    "priority_set": lambda p: _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Priority set to %1")), p.get("priority")
    ),
    "started": _started,
    "succeeded": lambda p: _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Succeeded: %1 characters in %2")),
        p.get("chars"),
        _seconds(p.get("seconds")),
    ),
    "failed": lambda p: _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Failed: %1")),
        labels.error_kind(str(p.get("error_kind"))),
    ),
    "poison_pill": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText",
                "Failed: %1 on every attempt (%2 attempts on %3 account(s)); not retried again",
            )
        ),
        labels.error_kind(str(p.get("error_kind"))),
        p.get("attempts"),
        p.get("accounts"),
    ),
    "retry_scheduled": _retry_scheduled,
    "deferred": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText", "%1: the account rests %2; the task waits (no attempt used)"
            )
        ),
        labels.error_kind(str(p.get("error_kind"))),
        _seconds(p.get("pause")),
    ),
    "canceled": lambda p: _t(
        QT_TRANSLATE_NOOP("EventText", "Canceled while running, as you asked")
    ),
    "returned_shutdown": lambda p: _t(
        QT_TRANSLATE_NOOP("EventText", "Back in the queue: the app was closed (no attempt used)")
    ),
    "returned_outage": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText",
                "Back in the queue: the team database could not be reached for %1 (no attempt "
                "used)",
            )
        ),
        _seconds(p.get("seconds")),
    ),
    "answer_held": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP("EventText", "Answer held %1 while the team database was unreachable")
        ),
        _seconds(p.get("seconds")),
    ),
    "returned_switched_off": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText", "Back in the queue: %1 was switched off as it took the task"
            )
        ),
        p.get("account"),
    ),
    "returned_stopping": lambda p: _t(
        QT_TRANSLATE_NOOP("EventText", "Back in the queue: the lane was stopping")
    ),
    "lost": _lost,
    "leftover_found": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText",
                "An answer this account started %1 ago (task %2) may still be generating on the "
                "site: looking before sending",
            )
        ),
        _seconds(p.get("seconds")),
        p.get("task"),
    ),
    "leftover_unlocated": lambda p: (
        _t(
            QT_TRANSLATE_NOOP(
                "EventText",
                "Its conversation is unknown; going on (until it can have ended, a failure does "
                "not use an attempt)",
            )
        )
        if p.get("why") == "conversation_unknown"
        else _t(
            QT_TRANSLATE_NOOP(
                "EventText",
                "The site adapter cannot tell whether it still runs; going on (until it can have "
                "ended, a failure does not use an attempt)",
            )
        )
    ),
    "leftover_settled": lambda p: {
        "stopped": _t(QT_TRANSLATE_NOOP("EventText", "It was still generating: stopped it")),
        "idle": _t(QT_TRANSLATE_NOOP("EventText", "It had ended")),
    }.get(
        str(p.get("state")),
        _t(QT_TRANSLATE_NOOP("EventText", "Its page shows no conversation; going on")),
    ),
    "leftover_unseen": lambda p: _t(
        QT_TRANSLATE_NOOP("EventText", "Could not look at its page; going on")
    ),
    "quality_rejected": _quality,
    "browser_started": lambda p: _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Browser started (process %1)")), p.get("pid")
    ),
    "new_chat_fallback": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText",
                "The new-chat button gave no empty chat within %1: the page was loaded instead "
                "(slower; check the site adapter)",
            )
        ),
        _seconds(p.get("seconds")),
    ),
    "cancel_stop_clicked": lambda p: _t(
        QT_TRANSLATE_NOOP("EventText", "Cancel: clicked the page's stop button")
    ),
    "cancel_no_stop": lambda p: _t(
        QT_TRANSLATE_NOOP("EventText", "Cancel: the page showed no stop button")
    ),
    "site_kept_generating": lambda p: _t(
        QT_TRANSLATE_NOOP("EventText", "The site kept generating: its browser was closed")
    ),
    "accepted_without_done": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText", "Answer taken without a done marker: site adapter %1 may be outdated"
            )
        ),
        p.get("adapter"),
    ),
    "markdown_source_empty": lambda p: _t(
        QT_TRANSLATE_NOOP(
            "EventText",
            "The adapter's Markdown source was empty: the answer was rebuilt from the page",
        )
    ),
    "diagnostics_saved": lambda p: (
        _fill(
            _t(
                QT_TRANSLATE_NOOP(
                    "EventText",
                    "A screenshot and the page at step “%1” were saved for diagnosis (redacted)",
                )
            ),
            labels.adapter_step(str(p.get("step"))),
        )
        if p.get("step")
        else _t(
            QT_TRANSLATE_NOOP("EventText", "A screenshot and the page were saved for diagnosis")
        )
    ),
    "step_failed": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText",
                "Site adapter step “%1” failed (%2 in a row; the second pauses the account)",
            )
        ),
        labels.adapter_step(str(p.get("step"))),
        p.get("count"),
    ),
    "held_site_changed": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText",
                "The site's page changed at step “%1”: %2 waits for you; the task waits (no "
                "attempt used)",
            )
        ),
        labels.adapter_step(str(p.get("step"))),
        p.get("account"),
    ),
    "selfcheck": _selfcheck,
    "api_request": _api_request,
    "api_answer": _api_answer,
    "pacing_cooldown": lambda p: _fill(
        _t(QT_TRANSLATE_NOOP("EventText", "Pacing: %1; the account rests %2")),
        risk_kind(str(p.get("risk"))),
        minutes(float(p.get("seconds") or 0)),
    ),
    "risk_pause": lambda p: _fill(
        _t(
            QT_TRANSLATE_NOOP(
                "EventText", "Risk guard: %1 risk signals in a row; the account is paused until %2"
            )
        ),
        p.get("count"),
        _clock(p.get("until")),
    ),
}


def event_text(event: TaskEventRecord) -> str:
    """The line in the operator's language (its English message when the code is unknown)."""
    return coded_text(event.code, event.params, event.message)


def coded_text(code: str | None, params: Mapping[str, Any], message: str) -> str:
    """A line with a code in the operator's language: a task's event, or the same line in the
    app's log (core/model/event_codes.py ``log_extra``); ``message`` when the code is unknown."""
    render = _TEXTS.get(code or "")
    if render is None:
        return message
    try:
        return render(params)
    except (TypeError, ValueError):  # parameters of a shape this version does not expect
        return message


def event_tooltip(event: TaskEventRecord) -> str:
    """The site's or API's own words (``detail``) and the English line, for the curious."""
    detail = str(event.params.get("detail") or "")
    answer = str(event.params.get("answer") or "")
    parts = [detail, answer and f"“{answer}”", event.message]
    return "\n".join(p for p in parts if p)
