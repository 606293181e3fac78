"""The config.toml of one headless web account ``web-1`` on the loopback chat site, as the
command-line tests write it (``extra``: lines added at the end, e.g. the account's pacing)."""

from __future__ import annotations

CHROMIUM = "/usr/lib/chromium/chromium"


def one_web_account_toml(origin: str, extra: str = "") -> str:
    return f"""
[browser]
executable = "{CHROMIUM}"
headless = true

[[models]]
name = "web-model"
kind = "web"

[[accounts]]
id = "web-1"
kind = "web"
site = "sim"
origin = "{origin}"
models = ["web-model"]
{extra}"""
