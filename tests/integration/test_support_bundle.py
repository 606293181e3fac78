"""``support-bundle``: logs, task events, the config, versions and the self-check in one zip —
and no secret inside. Fake secrets are put where real ones live (environment, OS keyring via
a file backend, a log line that leaked one, a key pasted into the config); the whole zip is
grepped for each of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.integration.test_cli import write_batch

API_KEY = "sk-test-fake-key-for-the-bundle"
STORED_KEY = "sk-test-fake-stored-key-not-real"
HOOK_URL = "https://oapi.dingtalk.com/robot/send?access_token=fakeDingToken0123456789"
HOOK_SECRET = "SECfakefakefake0123456789abcdef0123"
FEISHU_URL = "https://open.feishu.cn/open-apis/bot/v2/hook/11111111-2222-3333-4444-555555555555"

CONFIG = """
[simulation]
web_latency_s = [0.05, 0.1]

[[models]]
name = "web-model"
kind = "web"

[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "web-1"
kind = "web"
site = "fake"
models = ["web-model"]

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_BUNDLE_API_KEY"
models = ["api-model"]
enabled = false
proxy = "http://ops@127.0.0.1:9"

[[accounts]]
id = "api-2"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
models = ["api-model"]
enabled = false

[[webhooks]]
kind = "dingtalk"
url_env = "MA_BUNDLE_HOOK_URL"
secret_env = "MA_BUNDLE_HOOK_SECRET"

[[webhooks]]
kind = "feishu"
url_env = "MA_BUNDLE_FEISHU_URL"
"""


def run(
    data: Path, env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        input=stdin,
    )


def test_the_bundle_holds_what_support_needs_and_no_secret(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        "MA_TEST_KEYRING_FILE": str(tmp_path / "keyring.json"),
        "MA_BUNDLE_API_KEY": API_KEY,
        "MA_BUNDLE_HOOK_URL": HOOK_URL,
        "MA_BUNDLE_FEISHU_URL": FEISHU_URL,
    }
    # The signing secret only in the keyring, an API key stored there too.
    assert (
        run(
            data,
            env,
            "webhooks",
            "set",
            "MA_BUNDLE_HOOK_SECRET",
            "--stdin",
            stdin=HOOK_SECRET + "\n",
        ).returncode
        == 0
    )
    assert (
        run(
            data, env, "accounts", "set-key", "api-2", "--stdin", stdin=STORED_KEY + "\n"
        ).returncode
        == 0
    )
    proxy_password = "proxyPassw0rdFake123"  # issue 32: a proxy's password, in the keyring
    assert (
        run(
            data,
            env,
            "accounts",
            "set-proxy-password",
            "api-1",
            "--stdin",
            stdin=proxy_password + "\n",
        ).returncode
        == 0
    )
    batch = write_batch(tmp_path / "b.csv", 2)
    assert run(data, env, "run", str(batch), "--batch-id", "bundle-batch").returncode == 0
    # A log line that leaked secrets (a third-party library, an old version): redacted too.
    with (data / "logs" / "cli.log").open("a", encoding="utf-8") as log:
        log.write(f"2026-12-01 DEBUG leaked {HOOK_URL} and {API_KEY} and {STORED_KEY}\n")
        log.write(f"2026-12-01 DEBUG also {FEISHU_URL} sign={HOOK_SECRET}\n")
        log.write(f"2026-12-01 DEBUG proxy auth {proxy_password}\n")

    out = tmp_path / "bundle.zip"
    result = run(data, env, "support-bundle", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "support bundle written to" in result.stdout
    assert out.stat().st_mode & 0o777 == 0o600

    with zipfile.ZipFile(out) as archive:
        names = set(archive.namelist())
        contents = {name: archive.read(name) for name in names}
    assert {
        "README.txt",
        "versions.json",
        "config.toml",
        "status.json",
        "task_events.jsonl",
        "selfcheck.txt",
        "logs/cli.log",
    } <= names
    everything = b"\n".join(contents.values())
    for secret in (
        API_KEY,
        STORED_KEY,
        HOOK_URL,
        "fakeDingToken0123456789",
        HOOK_SECRET,
        FEISHU_URL,
        "11111111-2222-3333-4444-555555555555",
        proxy_password,
    ):
        assert secret.encode() not in everything, secret
    assert b"<redacted>" in contents["logs/cli.log"]

    versions = json.loads(contents["versions.json"])
    assert versions["schema_version_store"] == versions["schema_version_code"]
    assert versions["packages"]["python-docx"]
    status = json.loads(contents["status.json"])
    assert status["lanes"]["web"]["success"] == 2
    events = [json.loads(line) for line in contents["task_events.jsonl"].splitlines()]
    assert any("bundle-batch" in e["message"] for e in events)
    config = contents["config.toml"].decode()
    assert 'url_env = "MA_BUNDLE_HOOK_URL"' in config  # names stay: they say where to look
    selfcheck = contents["selfcheck.txt"].decode()
    assert selfcheck.strip() and "could not run" not in selfcheck
    assert "scheduler is running" not in selfcheck  # none was: the self-check itself ran


def test_a_bundle_must_be_a_zip(tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = run(data, dict(os.environ), "support-bundle", "-o", str(tmp_path / "b.tar"))
    assert result.returncode == 2 and ".zip" in result.stderr
