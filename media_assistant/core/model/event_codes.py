"""What a task's event log says, as kinds with parameters (``task_events.code``, ``params_json``).

The core records *what happened* — "attempt 2 of 3 started on ds-web-1" is
``started {"attempt": 2, "max_attempts": 3, "base": 0, "account": "ds-web-1"}`` — and keeps the
English ``message`` beside it for the CLI, the log files and exports. The window turns the code
into the operator's language through its catalogue (``gui/common/event_text.py``); a code it does
not know, and every line written before schema version 6, is shown as its message. Text that comes
from a site or an API (an error message, a self-check's description) travels as a parameter
named ``detail`` and is shown as it came, in a tooltip, never spliced into a sentence.

Parameters are plain JSON values; the names below are the contract between the two sides.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class EventCode(StrEnum):
    # the queue and the operator
    SUBMITTED = "submitted"  # batch
    CANCELED_PENDING = "canceled_pending"
    CANCEL_REQUESTED = "cancel_requested"
    RETRY_REQUESTED = "retry_requested"  # round (1, 2…), edited (the prompt was changed)
    PRIORITY_SET = "priority_set"  # priority
    # an attempt
    STARTED = "started"  # attempt, max_attempts, base, account
    SUCCEEDED = "succeeded"  # chars, seconds
    FAILED = "failed"  # error_kind, detail
    # every attempt failed with the same error kind (issue 25): not retried again
    POISON_PILL = "poison_pill"  # error_kind, detail, accounts, attempts
    RETRY_SCHEDULED = "retry_scheduled"  # attempt, max_attempts, base, error_kind, detail, delay
    DEFERRED = "deferred"  # error_kind, detail, pause, excused (an excuse: core/rules/excuses.py)
    # the account's adapter no longer matches its site: back in the queue, no attempt used
    HELD_SITE_CHANGED = "held_site_changed"  # step, account, detail (what the step looked for)
    CANCELED = "canceled"  # the operator's cancel ended a running attempt
    RETURNED_SHUTDOWN = "returned_shutdown"  # the app closed: back in the queue
    # the team database was away past the dead threshold: back in the queue, attempt kept
    RETURNED_OUTAGE = "returned_outage"  # seconds
    ANSWER_HELD = "answer_held"  # seconds: an answer kept while the team database was away
    RETURNED_SWITCHED_OFF = "returned_switched_off"  # account: switched off as it took the task
    RETURNED_STOPPING = "returned_stopping"  # claimed while the lane stopped
    LOST = "lost"  # attempt, cause (heartbeat | orphan), seconds, state
    QUALITY_REJECTED = "quality_rejected"  # rule, detail, then (retry|fallback|fail), model
    # lines from the providers and the pacer
    BROWSER_STARTED = "browser_started"  # pid, detail
    NEW_CHAT_FALLBACK = "new_chat_fallback"  # seconds, detail
    CANCEL_STOP_CLICKED = "cancel_stop_clicked"
    CANCEL_NO_STOP = "cancel_no_stop"
    SITE_KEPT_GENERATING = "site_kept_generating"
    ACCEPTED_WITHOUT_DONE = "accepted_without_done"  # adapter
    MARKDOWN_SOURCE_EMPTY = "markdown_source_empty"  # detail
    DIAGNOSTICS_SAVED = "diagnostics_saved"  # files, step (when a step failed), detail
    STEP_FAILED = "step_failed"  # step, detail: an adapter step found nothing (issue 21)
    LEFTOVER_FOUND = "leftover_found"  # seconds, task, attempt: looked at before sending
    LEFTOVER_UNLOCATED = "leftover_unlocated"  # why (conversation_unknown | no_indicator)
    LEFTOVER_SETTLED = "leftover_settled"  # state (stopped | idle | unknown), detail (its URL)
    LEFTOVER_UNSEEN = "leftover_unseen"  # detail: the page could not be looked at
    SELFCHECK = "selfcheck"  # finding (FindingKind value), account, detail
    API_REQUEST = "api_request"  # model, system (with | left_out | none)
    API_ANSWER = "api_answer"  # chars, reasoning_chars, truncated, detail (token counts)
    PACING_COOLDOWN = "pacing_cooldown"  # risk, repeats, seconds
    RISK_PAUSE = "risk_pause"  # count, until, seconds


# A log record of a line that has a code carries it too (``extra=log_extra(...)``): the window's
# log tab says it in the operator's language, like the task's own event log; the log file and
# the terminal keep the English message.
LOG_CODE = "event_code"
LOG_PARAMS = "event_params"


def log_extra(code: EventCode | None, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``extra`` for a ``logging`` call whose message is the English form of ``code``."""
    if code is None:
        return {}
    return {LOG_CODE: code.value, LOG_PARAMS: dict(params or {})}


def params_json(params: Mapping[str, Any] | None) -> str | None:
    if not params:
        return None
    return json.dumps(dict(params), ensure_ascii=False, default=str)
