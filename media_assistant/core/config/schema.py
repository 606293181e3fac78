"""The one typed, validated configuration schema (TOML). Unknown keys are errors.

Every default is documented on its field; ``media-assistant config --defaults`` could print them.
Errors name the file and the key: ``config.toml: accounts[1] (ds-api).concurrency: ...``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from media_assistant.core.config.metrics import AlarmsConfig, MetricsConfig
from media_assistant.core.config.notifications import NotificationsConfig, WebhookConfig
from media_assistant.core.config.proxy import (
    WEB_SOCKS_PASSWORD,
    NetworkConfig,
    checked_env_name,
    checked_no_proxy,
    checked_proxy,
    effective_proxy,
    user_needed,
)
from media_assistant.core.config.team import checked_store_url
from media_assistant.core.files.diagnostics import (
    DEFAULT_KEEP_DAYS,
    DEFAULT_MAX_MB,
    DiagnosticsRetention,
)
from media_assistant.core.model.accounts import AccountDeclaration
from media_assistant.core.model.errors import ConfigError, RuleBroken
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.pacing import PacingConfig
from media_assistant.core.rules.quality import QualityConfig

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)

PositiveSeconds = Annotated[float, Field(gt=0)]
# Kinds come from TOML as strings; everything else is type-strict ("3" is not a concurrency).
Kind = Annotated[ModelKind, Field(strict=False)]


class BrowserConfig(BaseModel):
    model_config = _STRICT
    executable: str | None = Field(
        None, description="Browser binary. Default: Playwright's Chromium, Chrome/Edge, chromium."
    )
    headless: bool = Field(False, description="Run web-model browsers without a window.")
    recycle_after_tasks: int = Field(
        50, ge=1, description="Restart an account's browser after this many tasks."
    )


class DiagnosticsConfig(BaseModel):
    """Screenshots and DOM dumps of failed web tasks, in ``<data-dir>/diagnostics``."""

    model_config = _STRICT
    keep_days: float = Field(
        DEFAULT_KEEP_DAYS, gt=0, description="Files older than this many days are removed."
    )
    max_mb: float = Field(
        DEFAULT_MAX_MB, gt=0, description="The oldest files go while the folder holds more."
    )

    def retention(self) -> DiagnosticsRetention:
        return DiagnosticsRetention(self.keep_days, self.max_mb)


class UiConfig(BaseModel):
    model_config = _STRICT
    language: Literal["auto", "zh_CN", "en"] = Field(
        "auto", description="The desktop app's language; auto follows the system locale."
    )


class SitesConfig(BaseModel):
    model_config = _STRICT
    auto_repair: bool = Field(
        False,
        description="Night runs: a 'site changed' verdict is repaired from the page by the "
        "running scheduler and a proven repair installed by itself (as `sites repair --yes`); "
        "an unproven one never.",
    )
    recheck_first_s: float = Field(
        60.0,
        ge=0,
        description="A web account held by 'the site's page changed' is re-checked by itself "
        "(one short prompt through its page) this long after the verdict, then after twice "
        "as long each time it still fails, up to recheck_max_s; every step passing lifts the "
        "verdict. 0: never (the operator's Check site, Reset or a fixed adapter lift it).",
    )
    recheck_max_s: PositiveSeconds = Field(
        1800.0, description="The longest wait between two re-checks of a held account."
    )


class SchedulerConfig(BaseModel):
    model_config = _STRICT
    heartbeat_s: PositiveSeconds = Field(15.0, description="Heartbeat interval of running tasks.")
    dead_after_s: PositiveSeconds = Field(
        90.0, description="A running task without a heartbeat this long is declared dead."
    )
    max_attempts: int = Field(3, ge=1, le=10, description="Attempts per task (1 + retries).")

    @model_validator(mode="after")
    def _dead_after_covers_heartbeats(self) -> SchedulerConfig:
        if self.dead_after_s < 2 * self.heartbeat_s:
            raise RuleBroken("dead_after_short", "dead_after_s must be at least twice heartbeat_s")
        return self


class StoreConfig(BaseModel):
    """Where the task queue lives (team mode, issue 19). No ``url``: the SQLite file in the data
    dir, this workstation's alone. A ``postgresql://`` URL: a database the team shares."""

    model_config = _STRICT
    url: str | None = Field(
        None,
        description="A team database, postgresql://USER@HOST:5432/DATABASE (libpq parameters "
        "such as sslmode may follow after '?'). Never with a password: PGPASSWORD, ~/.pgpass, a "
        "service file, or 'media-assistant store set-password' (the OS keyring). Overridden by "
        "--store-url and MEDIA_ASSISTANT_STORE_URL. Default: the SQLite file in the data dir.",
    )
    # Issue 28: a workstation's share of the team database's connections, and LISTEN.
    connections: int = Field(
        2,
        ge=1,
        le=20,
        description="Team database: the most connections this workstation holds at once (one "
        "stays open while idle; the window's LISTEN is on it, and an export borrows one). "
        "Sizing: workstations x connections <= the server's max_connections - 3 (or put "
        "PgBouncer in front).",
    )
    notify: bool = Field(
        True,
        description="Team database: the window wakes on the server's notifications (LISTEN). "
        "false: it polls every second instead (changes show within 2 s); set it behind a pooler "
        "that LISTEN does not get through (it is also detected).",
    )

    @field_validator("url")
    @classmethod
    def _a_team_database(cls, url: str | None) -> str | None:
        if url is None:
            return None
        return checked_store_url(url)


class TeamConfig(BaseModel):
    """This workstation in a team (team mode)."""

    model_config = _STRICT
    workstation: str | None = Field(
        None,
        description="This workstation's name in the team: its web accounts belong to it, and "
        "the window shows it beside the tasks it ran. Default: the host name.",
        min_length=1,
        max_length=64,
        pattern=r"^[^\x00-\x1f]+$",
    )
    operator: str | None = Field(
        None,
        description="The operator this workstation submits for: a tenant of the fair share "
        "(each tenant gets an equal part of the team's capacity, whatever the number of its "
        "batches). Default: the workstation's name.",
        min_length=1,
        max_length=64,
        pattern=r"^[^\x00-\x1f]+$",
    )


class SchedulingConfig(BaseModel):
    """Fair share between the priority classes (issue 30; core/rules/fair.py): each class's
    weight while every class has work waiting; a class alone takes everything, and one with
    nothing to do lends its part to the others. A task's class is its priority: > 0 urgent,
    0 normal, < 0 low (>= 1000, "move to top": runs first, outside the shares)."""

    model_config = _STRICT
    urgent: float = Field(70.0, gt=0, le=1000, description="Weight of urgent work (priority > 0).")
    normal: float = Field(25.0, gt=0, le=1000, description="Weight of normal work (priority 0).")
    low: float = Field(5.0, gt=0, le=1000, description="Weight of low work (priority < 0).")

    def weights(self) -> dict[str, float]:
        return {"urgent": self.urgent, "normal": self.normal, "low": self.low}


class LaneConfig(BaseModel):
    model_config = _STRICT
    task_timeout_s: PositiveSeconds
    backoff_base_s: PositiveSeconds
    backoff_cap_s: PositiveSeconds
    deadline_s: PositiveSeconds = Field(
        description="Overall time from a task's first start after which deferrals stop."
    )
    cooldown_s: PositiveSeconds = Field(
        description="Pause of an account after a rate-limit or busy signal without Retry-After."
    )


class WebLaneConfig(LaneConfig):
    task_timeout_s: PositiveSeconds = 480.0
    backoff_base_s: PositiveSeconds = 5.0
    backoff_cap_s: PositiveSeconds = 120.0
    deadline_s: PositiveSeconds = 7200.0
    cooldown_s: PositiveSeconds = 600.0


class ApiLaneConfig(LaneConfig):
    task_timeout_s: PositiveSeconds = 300.0
    backoff_base_s: PositiveSeconds = 2.0
    backoff_cap_s: PositiveSeconds = 60.0
    deadline_s: PositiveSeconds = 1800.0
    cooldown_s: PositiveSeconds = 30.0
    connect_timeout_s: PositiveSeconds = Field(10.0, description="TCP/TLS connect timeout.")
    idle_timeout_s: PositiveSeconds = Field(
        60.0, description="Longest silence from the server (no byte) before the attempt fails."
    )


class LanesConfig(BaseModel):
    model_config = _STRICT
    web: WebLaneConfig = WebLaneConfig()
    api: ApiLaneConfig = ApiLaneConfig()


# ``site = "fake"``: the in-process simulated chat (demos, tests), no browser involved.
FAKE_SITE = "fake"


class SimulationConfig(BaseModel):
    """Only for accounts with ``site = "fake"`` (in-process simulated web chat: demos, tests)."""

    model_config = _STRICT
    web_latency_s: Annotated[tuple[PositiveSeconds, PositiveSeconds], Field(strict=False)] = (
        31.0,
        370.0,
    )
    seed: int | None = None


class ModelConfig(BaseModel):
    model_config = _STRICT
    name: str = Field(min_length=1)
    kind: Kind
    need_empty_prompt: bool = Field(
        False, description="Reasoning models: send only the user's content, no system/preset text."
    )
    upstream: str | None = Field(None, description="The provider's own model name, if different.")
    system_prompt: str | None = Field(None, description="Default system prompt for its tasks.")
    quality: QualityConfig | None = Field(
        None,
        description="Rules an answer must pass to count (core/rules/quality.py; README "
        "'Quality gate').",
    )


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ACCOUNT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# Windows' reserved device names: "con" or "nul.txt" opens the device, never a folder.
_WINDOWS_DEVICE = re.compile(r"(?i)con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]")


class FieldProblem(RuleBroken):
    """A rule about one key of a table, raised by a table's own validator: the problem is
    reported at that key (``accounts[1] (ds-api).base_url``), so an editor can show it there."""

    def __init__(self, key: str, code: str, message: str, **params: Any) -> None:
        super().__init__(code, message, **params)
        self.key = key


def api_key_env_problem(value: str) -> str | None:
    """Why ``api_key_env`` is not the name of an environment variable, or None.

    Pasting the key itself there (``api_key_env = "sk-…"``) is an easy mistake, and the value
    would then travel into logs, the database, ``status --json`` and exports. So anything that
    is not a plain variable name, or looks like a secret (20+ characters of lower-case letters
    and digits without an underscore — variable names are written ``DEEPSEEK_API_KEY``), is
    refused. The message never repeats the value.
    """
    looks_secret = (
        len(value) >= 20
        and "_" not in value
        and any(c.isdigit() for c in value)
        and any(c.islower() for c in value)
    )
    if _ENV_NAME.fullmatch(value) and not looks_secret and len(value) <= 100:
        return None
    hint = (
        "it looks like an API key was pasted there (the value is not shown)"
        if looks_secret or value.lower().startswith(("sk-", "sk_")) or len(value) > 100
        else "the value is not a variable name (letters, digits and _, not starting with a digit)"
    )
    return (
        "'api_key_env' must name an environment variable that holds the key, e.g. "
        f'api_key_env = "DEEPSEEK_API_KEY"; {hint}. Put the key in that variable, or store it '
        "with 'media-assistant accounts set-key ID'"
    )


class AccountConfig(BaseModel):
    model_config = _STRICT
    id: str = Field(
        min_length=1,
        description="Letters, digits and - _ . (names the account's profile folder and key).",
    )
    kind: Kind
    models: list[str] = Field(description="The models this account serves (at least one).")
    enabled: bool = Field(True, description="Initial state; the operator's toggle then wins.")
    # web
    site: str | None = Field(
        None,
        pattern=r"^[a-z0-9][a-z0-9_-]*$",
        description="Site adapter id (web accounts): built-in, or <data-dir>/sites/<id>.toml.",
    )
    site_file: str | None = Field(None, description="Path to a site adapter TOML (web accounts).")
    origin: str | None = Field(
        None, description="Overrides the adapter's origin (self-hosted chat, the simulator)."
    )
    pacing: PacingConfig | None = Field(
        None,
        description="Pacing of this web account; each key overrides its adapter's [pacing] "
        "default (core/rules/pacing.py; README 'Pacing').",
    )
    # api
    base_url: str | None = Field(None, description="OpenAI-compatible base URL, e.g. .../v1.")
    api_key_env: str | None = Field(
        None, description="Environment variable holding the key; else the OS keyring."
    )
    concurrency: int = Field(3, ge=1, le=5, description="Requests in flight (API accounts).")
    rpm: int | None = Field(None, ge=1, description="Requests per minute (API accounts).")
    tpm: int | None = Field(None, ge=1, description="Tokens per minute (API accounts).")
    # both kinds (issue 32; core/config/proxy.py)
    proxy: str | None = Field(
        None,
        description='This account\'s proxy: http://, https:// or socks5:// [USER@]HOST:PORT; "" '
        "= direct. Default: [network] proxy.",
    )
    proxy_password_env: str | None = Field(
        None, description="Environment variable holding the proxy's password; else the keyring."
    )
    no_proxy: list[str] | None = Field(
        None, description="Hosts this account reaches without its proxy. Default: [network]'s."
    )

    @field_validator("proxy")
    @classmethod
    def _a_proxy(cls, value: str | None) -> str | None:
        return None if value is None else checked_proxy(value)

    @field_validator("proxy_password_env")
    @classmethod
    def _an_env_name(cls, value: str | None) -> str | None:
        return checked_env_name(value)

    @field_validator("no_proxy")
    @classmethod
    def _hosts(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else checked_no_proxy(value)

    @field_validator("id")
    @classmethod
    def _id_is_a_plain_name(cls, value: str) -> str:
        if not _ACCOUNT_ID.fullmatch(value):
            raise RuleBroken(
                "account_id_chars",
                "an account id is letters, digits and - _ . only (no spaces), starting with a "
                "letter or digit",
            )
        if value.endswith(".") or _WINDOWS_DEVICE.fullmatch(value.split(".", maxsplit=1)[0]):
            raise RuleBroken(
                "account_id_windows",
                f"{value!r} cannot name a folder on Windows (the account's browser profile and "
                "diagnostics are folders named by it): not CON, PRN, AUX, NUL, COM1-9 or LPT1-9, "
                "with or without an extension, and not ending in a dot",
            )
        return value

    @field_validator("models")
    @classmethod
    def _serves_a_model(cls, value: list[str]) -> list[str]:
        if not value:
            raise RuleBroken(
                "account_without_model", "an account needs at least one model (list it in 'models')"
            )
        return value

    @model_validator(mode="after")
    def _kind_specific(self) -> AccountConfig:
        try:
            user_needed(self.proxy, self.proxy_password_env)
        except RuleBroken as exc:
            raise FieldProblem("proxy_password_env", exc.code, str(exc)) from None
        if self.kind is ModelKind.WEB:
            if (self.site is None) == (self.site_file is None):
                raise FieldProblem(
                    "site",
                    "site_one_of",
                    "a web account needs exactly one of 'site' or 'site_file'",
                )
            if self.origin is not None and not self.origin.startswith(("http://", "https://")):
                raise FieldProblem(
                    "origin", "url_scheme", "'origin' must start with http:// or https://"
                )
            for key in ("base_url", "api_key_env", "rpm", "tpm"):
                if getattr(self, key) is not None:
                    raise FieldProblem(
                        key, "api_only_key", f"'{key}' is for API accounts, not web accounts"
                    )
        else:
            if self.api_key_env is not None and (problem := api_key_env_problem(self.api_key_env)):
                raise FieldProblem(
                    "api_key_env",
                    "api_key_env_pasted" if "pasted" in problem else "api_key_env_name",
                    problem,
                )
            if not self.base_url:
                raise FieldProblem(
                    "base_url", "base_url_missing", "an API account needs 'base_url'"
                )
            if not self.base_url.startswith(("http://", "https://")):
                raise FieldProblem(
                    "base_url", "url_scheme", "'base_url' must start with http:// or https://"
                )
            for key in ("site", "site_file", "origin", "pacing"):
                if getattr(self, key) is not None:
                    raise FieldProblem(
                        key, "web_only_key", f"'{key}' is for web accounts, not API accounts"
                    )
        return self


class AppConfig(BaseModel):
    model_config = _STRICT
    browser: BrowserConfig = BrowserConfig()
    diagnostics: DiagnosticsConfig = DiagnosticsConfig()
    ui: UiConfig = UiConfig()
    scheduler: SchedulerConfig = SchedulerConfig()
    sites: SitesConfig = SitesConfig()
    lanes: LanesConfig = LanesConfig()
    simulation: SimulationConfig = SimulationConfig()
    store: StoreConfig = StoreConfig()
    team: TeamConfig = TeamConfig()
    scheduling: SchedulingConfig = SchedulingConfig()
    network: NetworkConfig = NetworkConfig()
    models: list[ModelConfig] = Field(default_factory=list)
    accounts: list[AccountConfig] = Field(default_factory=list)
    # Issue 12 item 5 (core/config/notifications.py): notices and the webhooks that carry them.
    notifications: NotificationsConfig = NotificationsConfig()
    webhooks: list[WebhookConfig] = Field(default_factory=list)
    # Issue 31 (core/config/metrics.py): the Prometheus endpoint and the alarms' thresholds.
    metrics: MetricsConfig = MetricsConfig()
    alarms: AlarmsConfig = AlarmsConfig()

    def model(self, name: str) -> ModelConfig | None:
        return next((m for m in self.models if m.name == name), None)

    def account(self, account_id: str) -> AccountConfig | None:
        return next((a for a in self.accounts if a.id == account_id), None)

    def lane(self, kind: ModelKind) -> LaneConfig:
        return self.lanes.web if kind is ModelKind.WEB else self.lanes.api

    def accounts_for(self, model: str) -> list[AccountConfig]:
        return [a for a in self.accounts if model in a.models]

    def account_declarations(self) -> list[AccountDeclaration]:
        """What this config says of its accounts, as the account rows take it."""
        return [
            AccountDeclaration(a.id, a.kind, a.enabled, a.concurrency, a.rpm, a.tpm)
            if a.kind is ModelKind.API
            else AccountDeclaration(a.id, a.kind, a.enabled)
            for a in self.accounts
        ]


def _cross_check(cfg: AppConfig) -> list[ConfigProblem]:
    """Rules spanning tables."""
    problems: list[ConfigProblem] = []
    seen_models: dict[str, int] = {}
    for i, m in enumerate(cfg.models):
        if m.name in seen_models:
            problems.append(
                ConfigProblem(
                    ("models", i, "name"),
                    f"duplicate model name {m.name!r}",
                    "duplicate_model",
                    {"name": m.name},
                )
            )
        seen_models[m.name] = i
    for i, m in enumerate(cfg.models):
        fallback = m.quality.fallback_model if m.quality else None
        if fallback is None:
            continue
        where: tuple[str | int, ...] = ("models", i, "quality", "fallback_model")
        if fallback == m.name:
            problems.append(
                ConfigProblem(where, "a model cannot fall back to itself", "fallback_self")
            )
        elif cfg.model(fallback) is None:
            problems.append(
                ConfigProblem(
                    where,
                    f"unknown model {fallback!r} (declare it under [[models]])",
                    "unknown_model",
                    {"name": fallback},
                )
            )
        elif _falls_back_to(cfg, fallback, m.name):
            problems.append(
                ConfigProblem(
                    where,
                    f"{m.name!r} and {fallback!r} fall back to each other",
                    "fallback_loop",
                    {"name": m.name, "other": fallback},
                )
            )
    seen_accounts: dict[str, str] = {}  # case-folded -> as written
    served: set[str] = set()
    for i, a in enumerate(cfg.accounts):
        earlier = seen_accounts.get(a.id.casefold())
        if earlier == a.id:
            problems.append(
                ConfigProblem(
                    ("accounts", i, "id"),
                    f"duplicate account id {a.id!r}",
                    "duplicate_account",
                    {"name": a.id},
                )
            )
        elif earlier is not None:
            problems.append(
                ConfigProblem(
                    ("accounts", i, "id"),
                    f"account ids {earlier!r} and {a.id!r} differ only in letter case: on "
                    "Windows and macOS they would share one browser profile folder",
                    "account_case",
                    {"name": a.id, "other": earlier},
                )
            )
        seen_accounts.setdefault(a.id.casefold(), a.id)
        proxy = effective_proxy(cfg.network, a)
        if a.kind is ModelKind.WEB and proxy and proxy.scheme == "socks5" and proxy.username:
            problems.append(
                ConfigProblem(
                    ("accounts", i, "proxy" if a.proxy is not None else "id"),
                    WEB_SOCKS_PASSWORD
                    + ("" if a.proxy is not None else " (the proxy is [network] proxy)"),
                    "web_socks_password",
                )
            )
        for name in a.models:
            model = cfg.model(name)
            if model is None:
                problems.append(
                    ConfigProblem(
                        ("accounts", i, "models"),
                        f"unknown model {name!r} (declare it under [[models]])",
                        "unknown_model",
                        {"name": name},
                    )
                )
            elif model.kind is not a.kind:
                problems.append(
                    ConfigProblem(
                        ("accounts", i, "models"),
                        f"model {name!r} is a {model.kind.value} model; "
                        f"this account is kind = {a.kind.value!r}",
                        "model_kind",
                        {"name": name, "kind": model.kind.value},
                    )
                )
            else:
                served.add(name)
    for i, m in enumerate(cfg.models):
        if m.name not in served:
            problems.append(
                ConfigProblem(
                    ("models", i),
                    "no account serves this model (add it to an account)",
                    "model_unserved",
                    {"name": m.name},
                )
            )
    return problems


def _falls_back_to(cfg: AppConfig, start: str, target: str) -> bool:
    """Following fallback models from ``start`` reaches ``target`` (a loop)."""
    seen: set[str] = set()
    name: str | None = start
    while name is not None and name not in seen:
        if name == target:
            return True
        seen.add(name)
        model = cfg.model(name)
        name = model.quality.fallback_model if model and model.quality else None
    return False


def _format_loc(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    parts: list[str] = []
    node: Any = data
    for item in loc:
        if isinstance(item, int):
            label = f"[{item}]"
            if isinstance(node, list) and item < len(node):
                node = node[item]
                if isinstance(node, dict):
                    ident = node.get("id") or node.get("name")
                    if isinstance(ident, str):
                        label += f" ({ident})"
            parts.append(label)
        else:
            parts.append(("." if parts else "") + item)
            node = node.get(item) if isinstance(node, dict) else None
    return "".join(parts) or "(top level)"


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """One thing wrong in a configuration, at a path of keys and indexes
    (``("accounts", 1, "concurrency")``): the CLI prints it as ``accounts[1] (ds-api).concurrency``,
    the set-up window shows it next to that field."""

    path: tuple[str | int, ...]
    message: str  # English, for the CLI and the log
    # What it is, for the set-up window's words (gui/accounts/config_text.py): a rule's code
    # (core/model/errors.py RuleBroken) or pydantic's error type ("missing", "less_than_equal",
    # ...).
    code: str = field(default="", compare=False)
    params: dict[str, Any] = field(default_factory=dict, compare=False)

    def where(self, data: dict[str, Any]) -> str:
        return _format_loc(self.path, data)


def check_config(data: dict[str, Any]) -> tuple[AppConfig | None, list[ConfigProblem]]:
    """The configuration ``data`` describes, or every problem in it (the one schema: the CLI,
    the settings and the set-up window all check through here)."""
    try:
        cfg = AppConfig.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc: tuple[str | int, ...] = tuple(
                p for p in err["loc"] if not str(p).startswith("function-after")
            )
            msg = err["msg"].removeprefix("Value error, ")
            ctx = err.get("ctx") or {}
            cause = ctx.get("error")
            code: str = err["type"]
            params = {k: v for k, v in ctx.items() if isinstance(v, str | int | float)}
            if isinstance(cause, RuleBroken):
                code, params, msg = cause.code, dict(cause.params), str(cause)
                if isinstance(cause, FieldProblem):
                    loc = (*loc, cause.key)
            elif err["type"] == "extra_forbidden":
                msg = "unknown key"
            elif (
                err["type"] != "missing"
                and "input" in err
                and not isinstance(err["input"], dict | list)
            ):
                msg += f" (got {err['input']!r})"
                params["input"] = str(err["input"])
            problems.append(ConfigProblem(loc, msg, code, params))
        return None, problems
    problems = _cross_check(cfg)
    return (None, problems) if problems else (cfg, [])


def parse_config(data: dict[str, Any], origin: str) -> AppConfig:
    cfg, problems = check_config(data)
    if cfg is None:
        raise ConfigError("\n".join(f"{origin}: {p.where(data)}: {p.message}" for p in problems))
    return cfg


def load_config(path: Path) -> AppConfig:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: no configuration file (create one: see README, 'Configuration')"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    return parse_config(data, str(path))
