"""Config validation: every bad value is named with its file and key; nothing is guessed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from media_assistant.core.config.schema import load_config, parse_config
from media_assistant.core.model.errors import ConfigError
from tests.conftest import config_dict

GOOD = """
[browser]
headless = true

[lanes.web]
task_timeout_s = 480

[[models]]
name = "deepseek-r1-web"
kind = "web"
need_empty_prompt = true

[[models]]
name = "deepseek-chat"
kind = "api"

[[accounts]]
id = "ds-web-1"
kind = "web"
site = "deepseek"
models = ["deepseek-r1-web"]

[[accounts]]
id = "ds-api"
kind = "api"
base_url = "https://api.example.com/v1"
api_key_env = "DS_KEY"
models = ["deepseek-chat"]
concurrency = 3
rpm = 60
tpm = 100000
"""


def test_the_design_example_loads(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(GOOD, encoding="utf-8")
    cfg = load_config(path)
    assert cfg.browser.headless is True
    assert cfg.scheduler.heartbeat_s == 15 and cfg.scheduler.dead_after_s == 90
    assert cfg.model("deepseek-r1-web").need_empty_prompt  # type: ignore[union-attr]
    api = cfg.account("ds-api")
    assert api is not None and (api.concurrency, api.rpm, api.tpm) == (3, 60, 100000)


def mutate(**changes: Any) -> dict[str, Any]:
    data = config_dict(web_accounts=1, api_accounts=1)
    for key, value in changes.items():
        if key == "api":
            data["accounts"][1].update(value)
        elif key == "web":
            data["accounts"][0].update(value)
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (mutate(api={"concurrency": 0}), "accounts[1] (api-1).concurrency"),
        (mutate(api={"concurrency": 6}), "less than or equal to 5 (got 6)"),
        (mutate(api={"concurrency": "abc"}), "valid integer (got 'abc')"),
        (mutate(api={"concurency": 3}), "accounts[1] (api-1).concurency: unknown key"),
        (mutate(surprise=True), "surprise: unknown key"),
        (mutate(api={"models": ["web-model"]}), "is a web model; this account is kind = 'api'"),
        (mutate(api={"models": ["nope"]}), "unknown model 'nope'"),
        (mutate(api={"base_url": "ftp://x"}), "must start with http:// or https://"),
        (mutate(web={"site": None}), "needs exactly one of 'site' or 'site_file'"),
        (mutate(web={"rpm": 3}), "'rpm' is for API accounts"),
        (
            mutate(
                models=[
                    {"name": "web-model", "kind": "web"},
                    {"name": "api-model", "kind": "api"},
                    {"name": "orphan", "kind": "api"},
                ]
            ),
            "models[2] (orphan): no account serves this model",
        ),
        (mutate(scheduler={"heartbeat_s": 60, "dead_after_s": 90}), "at least twice heartbeat_s"),
    ],
)
def test_bad_config_names_the_key(data: dict[str, Any], expected: str) -> None:
    with pytest.raises(ConfigError) as exc:
        parse_config(data, "conf.toml")
    assert "conf.toml: " in str(exc.value)
    assert expected in str(exc.value)


def test_unreadable_or_invalid_files_say_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no configuration file"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[accounts]\nid=", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.toml: invalid TOML"):
        load_config(bad)


@pytest.mark.parametrize("account_id", ["con", "NUL", "com1", "Lpt9", "aux.web", "kimi."])
def test_an_account_id_windows_cannot_make_a_folder_of_is_refused(account_id: str) -> None:
    """The account's browser profile and diagnostics are folders named by its id: on Windows
    ``con`` or ``nul.x`` opens a device and ``kimi.`` loses its dot (issue 29)."""
    data = config_dict(web_accounts=1, api_accounts=0)
    data["accounts"][0]["id"] = account_id
    with pytest.raises(ConfigError) as exc:
        parse_config(data, "conf.toml")
    assert f"{account_id!r} cannot name a folder on Windows" in str(exc.value)


@pytest.mark.parametrize("account_id", ["console", "nul-1", "com10", "kimi.2", "lpt"])
def test_names_that_only_look_like_windows_devices_are_kept(account_id: str) -> None:
    data = config_dict(web_accounts=1, api_accounts=0)
    data["accounts"][0]["id"] = account_id
    assert parse_config(data, "conf.toml").accounts[0].id == account_id
