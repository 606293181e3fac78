"""The quality gate: rules an answer must pass before it counts as a success (per model).

A model's ``quality = { … }`` table in the config switches rules on; an answer that breaks one
is not recorded as the task's result. The task goes back for another attempt on the same row
(while it has attempts left), or to the model's ``fallback_model`` at once; the event log, the
details window and the error column name the rule that fired.

Rules (all optional):

- ``min_chars``: the answer, trimmed, has fewer characters → ``too_short``.
- ``refusals = true``: the answer opens with a refusal (a built-in list in Chinese and English,
  plus ``refusal_phrases``) → ``refusal``. Only the first :data:`REFUSAL_WINDOW` characters
  are looked at: an article may quote "I can't" further down, a refusal says so at once.
- ``reject_truncated = true``: the model stopped at its length limit (the API's
  ``finish_reason = "length"``) → ``truncated``.

Pure: no I/O; the lanes apply the verdict (core/lanes/quality_gate.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, field_validator

from media_assistant.core.model.provider import GenerationResult

REFUSAL_WINDOW = 80  # characters: a refusal says so in its first sentence

# Openings of answers that decline instead of answering (compared after normalising case,
# apostrophes, full-width commas and spaces). Chinese first: most of the operators' models are.
BUILTIN_REFUSALS: tuple[str, ...] = (
    "抱歉，我无法",
    "抱歉，我不能",
    "很抱歉，我无法",
    "很抱歉，我不能",
    "对不起，我无法",
    "对不起，我不能",
    "我无法提供",
    "我不能提供",
    "我无法协助",
    "我无法帮助",
    "我无法回答",
    "我不能回答",
    "作为一个人工智能",
    "作为一个ai",
    "作为人工智能",
    "i'm sorry, but i can't",
    "i'm sorry, but i cannot",
    "i am sorry, but i cannot",
    "i'm sorry, i can't",
    "sorry, i can't",
    "i can't help with",
    "i cannot help with",
    "i can't assist with",
    "i cannot assist with",
    "i'm unable to help",
    "i am unable to help",
    "i can't comply",
    "i cannot comply",
    "as an ai language model",
)


class QualityConfig(BaseModel):
    """``[[models]] quality = { … }`` (README "Quality gate")."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    min_chars: int | None = Field(
        None, ge=1, description="Answers shorter than this (trimmed) are sent back."
    )
    refusals: bool = Field(
        False, description="Answers that open with a refusal (built-in zh/en phrases) go back."
    )
    refusal_phrases: tuple[str, ...] = Field(
        (), description="More refusal openings (any language; case and spacing ignored)."
    )
    reject_truncated: bool = Field(
        False, description="Answers cut at the model's length limit are sent back."
    )
    fallback_model: str | None = Field(
        None, min_length=1, description="A rejected answer's task goes to this model at once."
    )

    @field_validator("refusal_phrases", mode="before")
    @classmethod
    def _phrases(cls, value: object) -> object:
        if isinstance(value, list):  # TOML arrays arrive as lists
            value = tuple(value)
        if isinstance(value, tuple) and any(not str(v).strip() for v in value):
            raise ValueError("refusal_phrases must not contain empty phrases")
        return value


@dataclass(frozen=True, slots=True)
class Verdict:
    rule: str  # too_short | refusal | truncated
    detail: str  # in English, for the log; the window words the rule itself

    @property
    def message(self) -> str:
        return f"quality gate: {self.rule}: {self.detail}"


def _normalise(text: str) -> str:
    text = text.casefold().replace("’", "'").replace("‘", "'").replace(",", "，")
    return re.sub(r"\s+", "", text)


def _opening_refusal(text: str, phrases: tuple[str, ...]) -> str | None:
    head = _normalise(text.strip()[:REFUSAL_WINDOW])
    for phrase in phrases:
        if _normalise(phrase) in head:
            return phrase
    return None


def check(rules: QualityConfig | None, result: GenerationResult) -> Verdict | None:
    """The first rule the answer breaks (truncated, then refusal, then length), or None."""
    if rules is None:
        return None
    text = result.text.strip()
    if rules.reject_truncated and result.truncated:
        return Verdict("truncated", "the answer was cut at the model's length limit")
    phrases = (BUILTIN_REFUSALS if rules.refusals else ()) + rules.refusal_phrases
    if phrases and (found := _opening_refusal(text, phrases)) is not None:
        return Verdict("refusal", f"the answer opens with a refusal ({found!r})")
    if rules.min_chars and len(text) < rules.min_chars:
        return Verdict("too_short", f"{len(text)} characters, fewer than {rules.min_chars}")
    return None
