"""Site adapters: how to drive one chat site, as data (TOML). No code in adapters.

Built-in adapters live in ``resources/sites/<id>.toml`` (found by media_assistant/assets.py); an
operator's own files in ``<data-dir>/sites/<id>.toml`` override them; an account may name a file
with ``site_file``.
Every selector is an ordered list of CSS fallbacks: the first one that matches anything wins.
Text markers (rate limits, busy banners) are matched only inside ``alert_regions`` — never in
the conversation, where a prompt could contain the same words.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from media_assistant.assets import sites_dir
from media_assistant.core.config.schema import ConfigProblem
from media_assistant.core.model.errors import ConfigError
from media_assistant.core.rules.pacing import PacingConfig

# The [answer] table and its built-in lists (error boxes and texts, code editors) are in
# adapter_answer.py; imported here, where every adapter's key is.
from media_assistant.providers.web.adapter_answer import (
    _STRICT,
    BUILTIN_CODE_EDITORS,
    GENERIC_ERROR_SELECTORS,
    GENERIC_ERROR_TEXTS,
    AdapterAnswer,
    CodeEditor,
)

__all__ = [
    "BUILTIN_CODE_EDITORS",
    "GENERIC_ERROR_SELECTORS",
    "GENERIC_ERROR_TEXTS",
    "PLAYWRIGHT_ONLY",
    "STALE_AFTER_DAYS",
    "adapter_path",
    "AdapterAnswer",
    "AdapterInput",
    "AdapterMarkers",
    "AdapterSelectors",
    "AdapterTiming",
    "CodeEditor",
    "Marker",
    "ModelChoice",
    "NewChatSteps",
    "SiteAdapter",
    "builtin_ids",
    "load_adapter",
    "parse_adapter",
]


PLAYWRIGHT_ONLY = re.compile(r":has-text\(|:text\(|^text=|>>|:visible|^xpath=|^//")

# An adapter not checked against its live site for this long gets a warning in the log/GUI.
STALE_AFTER_DAYS = 60


class AdapterSelectors(BaseModel):
    model_config = _STRICT
    input: list[str] = Field(min_length=1, description="The composer (textarea or editor).")
    send: list[str] = Field(
        default_factory=list, description="Send control; empty: press the send key."
    )
    stop: list[str] = Field(
        default_factory=list, description="Stop control while generating (used to cancel)."
    )
    generating: list[str] = Field(
        default_factory=list, description="Present (visible) only while generating."
    )
    done: list[str] = Field(
        default_factory=list, description="Appears once per finished answer (e.g. a Copy button)."
    )
    answer: list[str] = Field(min_length=1, description="Assistant answers; the last is read.")
    reasoning: list[str] = Field(
        default_factory=list, description="Reasoning blocks to keep apart from the answer."
    )
    user_message: list[str] = Field(
        default_factory=list, description="Sent user messages (confirms a send landed)."
    )
    new_chat: list[str] = Field(
        default_factory=list,
        description="New-chat control: clicked instead of loading new_chat_url (much faster on "
        "heavy pages); an empty chat is confirmed, else new_chat_url is loaded. One click: a "
        "New chat that asks to confirm is declared as [new_chat] steps instead.",
    )
    conversation: list[str] = Field(
        default_factory=list,
        description="Elements holding the conversation; text markers never read inside them "
        "(answer, reasoning and user_message elements are excluded as well).",
    )


class NewChatSteps(BaseModel):
    """A New chat that takes more than one click: the control, then a confirm dialog's button
    ("Create New Chat — this will clear your current chat history … Cancel / Confirm")."""

    model_config = _STRICT
    steps: list[list[str]] = Field(
        min_length=1,
        description="Clicks in order; each is a list of fallback selectors. A step after the "
        "first is awaited (the dialog opening); a chat that is already empty skips the rest.",
    )

    @model_validator(mode="after")
    def _no_empty_step(self) -> NewChatSteps:
        for i, step in enumerate(self.steps, 1):
            if not step:
                raise ValueError(f"new_chat.steps: step {i} names no selector")
        return self


class ModelChoice(BaseModel):
    """How a web model's ``upstream`` picks the site's own model (``{model}`` is replaced)."""

    model_config = _STRICT
    names: dict[str, str] = Field(
        default_factory=dict, description="upstream value → the site's name (default: as is)."
    )
    url: str | None = Field(
        None, description='New chats open at this URL, e.g. "/chat?model={model}".'
    )
    steps: list[list[str]] = Field(
        default_factory=list,
        description="UI steps, in order; each is a list of fallback selectors to click.",
    )
    confirm: list[str] = Field(
        default_factory=list,
        description="Present once the model is chosen; when already present, steps are skipped.",
    )

    @model_validator(mode="after")
    def _one_way(self) -> ModelChoice:
        if self.url is None and not self.steps:
            raise ValueError("model_choice needs 'url' or 'steps'")
        if self.url is not None and "{model}" not in self.url:
            raise ValueError("model_choice.url must contain {model}")
        return self

    def site_name(self, upstream: str) -> str:
        return self.names.get(upstream, upstream)


class Marker(BaseModel):
    model_config = _STRICT
    selectors: list[str] = Field(
        default_factory=list, description="Present and visible = the condition holds."
    )
    texts: list[str] = Field(
        default_factory=list, description="Substrings looked for inside alert_regions."
    )
    url: list[str] = Field(
        default_factory=list, description="Substrings of the page URL (login routes)."
    )
    buttons: list[str] = Field(
        default_factory=list, description="Exact text of a visible button or link (登录)."
    )


class AdapterMarkers(BaseModel):
    model_config = _STRICT
    alert_regions: list[str] = Field(
        default_factory=lambda: ["[role=alert]", "[aria-live=assertive]", "[aria-live=polite]"]
    )
    login_lost: Marker = Marker()
    rate_limited: Marker = Marker()
    busy: Marker = Marker()
    captcha: Marker = Marker()
    conflict: Marker = Marker()
    error: Marker = Marker()


class AdapterInput(BaseModel):
    model_config = _STRICT
    method: Literal["insert_text", "type", "fill"] = Field(
        "insert_text",
        description="insert_text: one input event (rich editors: ProseMirror, Lexical, Quill); "
        "type: key by key (slow, for fussy editors); fill: plain textarea/input only.",
    )
    send_with: Literal["click", "enter"] = "click"
    newline: Literal["shift+enter", "insert"] = Field(
        "insert", description="How line breaks are entered: inserted text, or Shift+Enter."
    )
    verify: bool = Field(True, description="Read the composer back before sending.")


class AdapterTiming(BaseModel):
    model_config = _STRICT
    poll_ms: int = Field(500, ge=100, le=5000)
    stable_polls: int = Field(3, ge=1, le=20, description="Without a done marker.")
    confirm_ms: int = Field(
        150, ge=0, le=5000, description="With a done marker: one re-read after this long."
    )
    page_load_timeout_s: float = Field(30.0, gt=0)
    send_timeout_s: float = Field(15.0, gt=0, description="Until the send is visibly accepted.")
    first_token_timeout_s: float = Field(
        120.0, gt=0, description="Until the answer's first text (a page that never starts)."
    )
    silent_stop_s: float = Field(
        3.0,
        gt=0,
        description="The page showed it was generating, then nothing generates, no new answer, "
        "no error: the attempt fails once that has lasted this long.",
    )
    idle_timeout_s: float = Field(120.0, gt=0, description="Text unchanged while generating.")
    hard_timeout_s: float = Field(450.0, gt=0)
    done_grace_s: float = Field(
        8.0, gt=0, description="Generating gone, text stable, no done marker: accept after this."
    )
    marker_persist_s: float = Field(
        3.0,
        ge=0,
        description="A login or captcha marker must hold this long before it fails anything "
        "(a sign-in screen flashing while a page loads is not a lost login).",
    )
    new_chat_timeout_s: float = Field(
        5.0, gt=0, description="Clicking new_chat must show an empty chat within this long."
    )


class SiteAdapter(BaseModel):
    model_config = _STRICT
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    name: str
    name_zh: str | None = Field(None, description="The name a Chinese window shows.")
    origin: str = Field(pattern=r"^https?://")
    new_chat_url: str = Field("/", description="Relative to origin, or absolute.")
    login_url: str | None = None
    verified_at: dt.date | None = Field(
        None, strict=False, description="Last day someone checked it against the live site."
    )
    source: str = Field(description="Where its selectors come from.")
    version: str = Field(
        "",
        max_length=40,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]*$|^$",
        description='This file\'s version ("2026.12.02", "3"): shown by `sites list`; an '
        "adapter installed with `sites install` must have one.",
    )
    notes: str = ""
    selectors: AdapterSelectors
    markers: AdapterMarkers = AdapterMarkers()
    input: AdapterInput = AdapterInput()
    timing: AdapterTiming = AdapterTiming()
    answer: AdapterAnswer = AdapterAnswer()
    model_choice: ModelChoice | None = None
    new_chat: NewChatSteps | None = Field(
        None, description="A New chat of several clicks; instead of selectors.new_chat."
    )
    pacing: PacingConfig | None = Field(
        None, description="Per-site pacing defaults; an account's `pacing` overrides each key."
    )

    @model_validator(mode="after")
    def _poll_selectors_are_css(self) -> SiteAdapter:
        """Polling reads the page in one script (one round trip per poll), so the selectors it
        uses must be plain CSS; Playwright-only syntax is allowed only for actions."""
        s, m = self.selectors, self.markers
        polled = {
            "selectors.generating": s.generating,
            "selectors.done": s.done,
            "selectors.answer": s.answer,
            "selectors.reasoning": s.reasoning,
            "selectors.user_message": s.user_message,
            "selectors.conversation": s.conversation,
            "markers.alert_regions": m.alert_regions,
            "answer.container": self.answer.container,
            "answer.exclude": self.answer.exclude,
            "answer.code_language": self.answer.code_language,
            "answer.markdown_source": self.answer.markdown_source,
            "answer.error_selectors": self.answer.error_selectors,
        }
        for name in ("login_lost", "rate_limited", "busy", "captcha", "conflict", "error"):
            polled[f"markers.{name}.selectors"] = getattr(m, name).selectors
        for i, editor in enumerate(self.answer.code_editors):
            polled[f"answer.code_editors[{i}]"] = [editor.root, editor.line]
        for key, selectors in polled.items():
            for sel in selectors:
                if PLAYWRIGHT_ONLY.search(sel):
                    raise ValueError(
                        f"{key}: {sel!r} uses Playwright-only syntax; polled selectors must be "
                        "plain CSS (use markers.*.buttons / texts for text matches)"
                    )
        return self

    @model_validator(mode="after")
    def _one_new_chat(self) -> SiteAdapter:
        if self.new_chat is not None and self.selectors.new_chat:
            raise ValueError(
                "selectors.new_chat and [new_chat] steps both declare the New chat control: "
                "keep one (a single click: selectors.new_chat; several: [new_chat] steps)"
            )
        return self

    @property
    def new_chat_steps(self) -> list[list[str]]:
        """The New chat clicks in order (empty: the adapter declares no control)."""
        if self.new_chat is not None:
            return self.new_chat.steps
        return [self.selectors.new_chat] if self.selectors.new_chat else []

    def url(self, path_or_url: str, origin: str | None = None) -> str:
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return (origin or self.origin).rstrip("/") + "/" + path_or_url.lstrip("/")

    def staleness_warning(self, today: dt.date | None = None) -> str | None:
        """What "stale" means and what to do, or None while the adapter is fresh."""
        today = today or dt.date.today()
        if self.verified_at is None:
            what = f"site adapter {self.id!r} has never been checked against the live site"
        elif (age := (today - self.verified_at).days) > STALE_AFTER_DAYS:
            what = (
                f"site adapter {self.id!r} is stale: last checked against the live site on "
                f"{self.verified_at.isoformat()}, {age} days ago (sites redesign every few "
                "months)"
            )
        else:
            return None
        return (
            f"{what}. It keeps working unless the site changed its page; if this site's tasks "
            "start failing (timeouts, no answer found), the adapter needs updating: "
            f"`media-assistant sites check` names the step that broke, `media-assistant sites "
            f"probe {self.url(self.new_chat_url)}` lists the page's current composer and "
            "buttons; install the fixed copy with `media-assistant sites install FILE` (it "
            f"goes to <data-dir>/sites/{self.id}.toml and overrides the built-in one), or ask "
            "for an updated Media Assistant."
        )


def _builtin_dir() -> Path:
    return sites_dir()


def builtin_ids() -> list[str]:
    return sorted(
        p.name.removesuffix(".toml") for p in _builtin_dir().iterdir() if p.name.endswith(".toml")
    )


def parse_adapter(text: str, origin: str) -> SiteAdapter:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: invalid TOML: {exc}") from None
    try:
        return SiteAdapter.model_validate(data)
    except ValidationError as exc:
        lines, problems = [], []
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"]) or "(top level)"
            msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
            msg = msg.removeprefix("Value error, ")
            lines.append(f"{origin}: {key}: {msg}")
            ctx = err.get("ctx") or {}
            problems.append(
                ConfigProblem(
                    (origin, key),
                    msg,
                    code=str(getattr(ctx.get("error"), "code", "") or err["type"]),
                    params={k: v for k, v in ctx.items() if k != "error"},
                )
            )
        raise AdapterInvalid("\n".join(lines), problems) from None


class AdapterInvalid(ConfigError):
    """An adapter file the schema refused: the English lines (the CLI), and each problem with
    its pydantic type or rule code, which the window words in the operator's language."""

    def __init__(self, message: str, problems: list[ConfigProblem]) -> None:
        super().__init__(message)
        self.problems = problems


def adapter_path(
    *, site: str | None = None, site_file: str | None = None, user_dir: Path | None = None
) -> Path:
    """The file :func:`load_adapter` reads for these arguments."""
    if site_file is not None:
        return Path(site_file).expanduser()
    if user_dir is not None and (user_dir / f"{site}.toml").exists():
        return user_dir / f"{site}.toml"
    return _builtin_dir() / f"{site}.toml"


def load_adapter(
    *, site: str | None = None, site_file: str | None = None, user_dir: Path | None = None
) -> SiteAdapter:
    """An account's adapter: its ``site_file``, else ``<user_dir>/<site>.toml``, else built-in."""
    if site_file is not None:
        path = Path(site_file).expanduser()
        try:
            return parse_adapter(path.read_text(encoding="utf-8-sig"), str(path))
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read site adapter: {exc.strerror}") from None
    assert site is not None
    if user_dir is not None:
        path = user_dir / f"{site}.toml"
        if path.exists():
            return parse_adapter(path.read_text(encoding="utf-8-sig"), str(path))
    builtin = _builtin_dir() / f"{site}.toml"
    if not builtin.is_file():
        known = ", ".join(builtin_ids())
        raise ConfigError(f"unknown site {site!r} (built-in: {known}; or use site_file)")
    return parse_adapter(builtin.read_text(encoding="utf-8"), f"built-in site {site}")
