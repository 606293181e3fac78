"""Applying a model's quality gate (core/rules/quality.py) to an answer before it is accepted.

Called by the attempt runner's one write (``AttemptRunner._settle``) when the provider returned
an answer. A rejected answer is not the task's result; the row goes, in this order:

1. to the model's ``fallback_model``, at once (a new attempt there; if the row had none left it
   gets one, so a fallback always runs at least once — fallbacks cannot loop: the config
   refuses cycles);
2. else back to the queue for another attempt on the same model, while it has attempts left;
3. else it fails with ``quality_rejected``, the rule named in its error.

Every step writes a ``quality_rejected`` event naming the rule, what happens next and the
answer's opening, so the operator sees what was turned down and why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import GenerationResult
from media_assistant.core.model.records import Claim
from media_assistant.core.rules.quality import check

if TYPE_CHECKING:
    from media_assistant.core.lanes.runtime import LaneLog, Runtime

ANSWER_HEAD = 300  # characters of a rejected answer kept in its event


async def reject_if_poor(
    rt: Runtime,
    claim: Claim,
    result: GenerationResult,
    log: LaneLog,
    persist: Callable[[Callable[[], Awaitable[bool]]], Awaitable[bool]],
) -> bool:
    """True when the gate turned the answer down (and the row has been written)."""
    model = rt.config.model(claim.model)
    rules = model.quality if model is not None else None
    verdict = check(rules, result)
    if verdict is None or rules is None:
        return False
    store = rt.store
    params: dict[str, Any] = {
        "rule": verdict.rule,
        "detail": verdict.detail,
        "answer": result.text.strip()[:ANSWER_HEAD],
        "chars": len(result.text.strip()),
    }
    fallback = rt.config.model(rules.fallback_model) if rules.fallback_model else None
    again: dict[str, Any] | None = None  # requeue's extra arguments, when it goes again
    if fallback is not None and fallback.name != claim.model:
        params.update(then="fallback", model=fallback.name)
        message = f"{verdict.message}; the task goes to {fallback.name}"
        again = {
            "model": (fallback.name, fallback.kind.value),
            "max_attempts": max(claim.max_attempts, claim.attempt + 1),
        }
    elif claim.attempt < claim.max_attempts:
        params.update(then="retry", model=claim.model)
        message = f"{verdict.message}; another attempt follows"
        again = {}
    if again is not None:
        extra = again
        ok = await persist(
            lambda: store.requeue(
                claim,
                not_before=None,
                keep_attempt=False,
                kind=ErrorKind.QUALITY_REJECTED,
                message=message,
                code=EventCode.QUALITY_REJECTED,
                params=params,
                **extra,
            )
        )
    else:
        params.update(then="fail", model=claim.model)
        message = verdict.message
        ok = await persist(
            lambda: store.finish_failed(
                claim,
                ErrorKind.QUALITY_REJECTED,
                message,
                code=EventCode.QUALITY_REJECTED,
                params=params,
            )
        )
    if ok:
        log.warning("%s: %s", claim.task_id, message)
    else:
        log.warning("%s: attempt %d was superseded; %s", claim.task_id, claim.attempt, message)
    # A row back in the queue wakes the lanes (the scheduler hears its state change), the
    # fallback model's lane included.
    return True
