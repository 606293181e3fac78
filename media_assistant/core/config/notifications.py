"""Config of notices (issue 12 item 5): ``[notifications]`` and ``[[webhooks]]``.

A webhook's address is a credential (anyone holding it can post into the group), and so is its
signing secret: the config names the environment variable (or keyring entry, see
providers/webhooks.py) that holds each, never the value. A value pasted there by mistake is
refused without being repeated.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from media_assistant.core.model.states import NOTICE_KINDS

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
WebhookKind = Literal["wecom", "dingtalk", "feishu", "json"]
NoticeKindName = Literal[
    "batch_done",
    "batch_failed",
    "account_attention",
    "disk_low",
    "poison_pill",
    "alarm",
    "alarm_cleared",
]
DEFAULT_EVENTS: tuple[NoticeKindName, ...] = (
    "batch_done",
    "batch_failed",
    "account_attention",
    "poison_pill",
    "alarm",
    "alarm_cleared",
)
assert set(NOTICE_KINDS) >= set(DEFAULT_EVENTS)


def env_name_problem(key: str, value: str) -> str | None:
    if _ENV_NAME.fullmatch(value) and not value.lower().startswith(("http", "sec")):
        return None
    looks = (
        "a web address"
        if "://" in value or value.lower().startswith("http")
        else "a secret"
        if value.startswith(("SEC", "sec")) or len(value) > 40
        else "not a variable name"
    )
    return (
        f"'{key}' must name an environment variable (or keyring entry) that holds the value, "
        f'e.g. {key} = "MA_DINGTALK_URL"; this looks like {looks} (the value is not shown). '
        "Put it in that variable, or store it with 'media-assistant webhooks set NAME'"
    )


class NotificationsConfig(BaseModel):
    model_config = _STRICT
    disk_low_mb: float = Field(
        1024.0,
        ge=0,
        description="Notice when the data folder's disk has less free space than this (0: off).",
    )


class WebhookConfig(BaseModel):
    model_config = _STRICT
    kind: WebhookKind = Field(
        description="wecom (企业微信 group robot), dingtalk (钉钉 custom robot), feishu (飞书 "
        "custom bot) or json (a plain JSON POST)."
    )
    url_env: str = Field(description="Environment variable (or keyring entry) with the URL.")
    secret_env: str | None = Field(
        None,
        description="Variable (or keyring entry) with the signing secret (dingtalk, feishu, json).",
    )
    events: list[NoticeKindName] = Field(
        default_factory=lambda: list(DEFAULT_EVENTS), min_length=1, description="What to send."
    )

    @model_validator(mode="after")
    def _names_not_values(self) -> WebhookConfig:
        if problem := env_name_problem("url_env", self.url_env):
            raise ValueError(problem)
        if self.secret_env is not None:
            if problem := env_name_problem("secret_env", self.secret_env):
                raise ValueError(problem)
            if self.kind == "wecom":
                raise ValueError(
                    "a WeCom (企业微信) group robot has no signing secret: remove 'secret_env'"
                )
        if len(set(self.events)) != len(self.events):
            raise ValueError("'events' lists an event twice")
        return self
