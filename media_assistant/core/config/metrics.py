"""Config of the lanes' figures (issue 31): ``[metrics]`` (the Prometheus endpoint) and
``[alarms]`` (the thresholds, defaults from the incident accounts: timeouts over 5 % or failures
and deferrals over 10 % of a lane's attempts in 10 minutes, an API account's quota at 85 % for 5
minutes, a backlog that grows for 10 minutes while an account of its lane sits idle)."""

from __future__ import annotations

import ipaddress

from pydantic import BaseModel, ConfigDict, Field, field_validator

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)
DEFAULT_LISTEN = "127.0.0.1:9464"


def parse_listen(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (an IPv6 host in brackets) → (host, port); ValueError says what is wrong."""
    host, sep, port_text = value.strip().rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"'{value}' is not HOST:PORT (e.g. {DEFAULT_LISTEN})")
    host = host.removeprefix("[").removesuffix("]")
    if host != "localhost":
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(f"'{value}': the host must be an IP address or localhost") from None
    return host, int(port_text)


def is_loopback(host: str) -> bool:
    return host == "localhost" or ipaddress.ip_address(host).is_loopback


class MetricsConfig(BaseModel):
    model_config = _STRICT
    listen: str | None = Field(
        None,
        description="Serve the figures for Prometheus at HOST:PORT while the window or 'run' "
        f'is open (e.g. "{DEFAULT_LISTEN}"); unset: not served. An address other than '
        "loopback exposes them to the network: only when you mean it.",
    )

    @field_validator("listen")
    @classmethod
    def _listen(cls, value: str | None) -> str | None:
        if value is not None:
            parse_listen(value)
        return value


class AlarmsConfig(BaseModel):
    model_config = _STRICT
    enabled: bool = Field(True, description="Raise alarms at all.")
    window_min: float = Field(
        10.0, gt=0, le=1440, description="Minutes the rates and the backlog are looked at over."
    )
    timeout_rate: float = Field(0.05, gt=0, le=1, description="A lane's timeouts ÷ attempts.")
    failure_rate: float = Field(
        0.10, gt=0, le=1, description="A lane's failures + deferrals ÷ attempts."
    )
    min_attempts: int = Field(
        10, ge=1, description="Rates are judged from this many attempts in the window on."
    )
    quota_use: float = Field(
        0.85, gt=0, le=1, description="An API account's requests or tokens per minute ÷ its limit."
    )
    quota_min: float = Field(
        5.0, gt=0, le=1440, description="Minutes in a row the quota use must stay at or above it."
    )
    backlog_growth: bool = Field(
        True,
        description="Alarm when a lane's backlog grows all window long while an account "
        "of the lane sits idle.",
    )
    p90_total_s: float | None = Field(
        None, gt=0, description="A lane's p90 end-to-end seconds over the window (unset: off)."
    )
