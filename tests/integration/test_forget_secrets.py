"""``forget-secrets`` (issue 29 item 4): what the Windows uninstaller runs when the operator
deletes their data. Real ``media-assistant`` processes; the keyring is the tests' file double
(the OS keyring is never touched); with no keyring at all, for real."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from media_assistant.providers.win_credentials import our_targets

CONFIG = """
[store]
url = "postgresql://ma@db.example:5432/media"

[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
models = ["api-model"]

[[webhooks]]
kind = "json"
url_env = "MA_HOOK_URL"
secret_env = "MA_HOOK_SECRET"
"""


def cli(data: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        input="",
    )


def test_every_secret_the_config_made_is_deleted_and_nothing_else(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    keyring_file = tmp_path / "keyring.json"
    keyring_file.write_text(
        json.dumps(
            {
                "media-assistant/api-1": "sk-secret-1",
                "media-assistant-webhooks/MA_HOOK_URL": "https://hooks.example/abc",
                "media-assistant-webhooks/MA_HOOK_SECRET": "s3cret",
                "media-assistant/store:ma@db.example:5432/media": "pw",
                "another-app/api-1": "not ours",
            }
        ),
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        "MA_TEST_KEYRING_FILE": str(keyring_file),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    done = cli(data, env, "forget-secrets")
    assert done.returncode == 0, done.stderr
    assert "4 secret(s) deleted from the OS keyring" in done.stdout
    assert "sk-secret-1" not in done.stdout + done.stderr
    assert json.loads(keyring_file.read_text(encoding="utf-8")) == {"another-app/api-1": "not ours"}
    again = cli(data, env, "forget-secrets")
    assert again.returncode == 0 and "0 secret(s) deleted" in again.stdout


def test_without_a_keyring_there_is_nothing_to_delete(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    done = cli(data, env, "forget-secrets")
    assert done.returncode == 0, done.stderr
    assert "no OS keyring here (none): nothing was kept in one" in done.stdout


def test_credential_manager_entries_of_our_services_only() -> None:
    """keyring's Windows names: the service alone, or user@service when it holds several."""
    listed = [
        "media-assistant",
        "api-1@media-assistant",
        "MA_HOOK@media-assistant-webhooks",
        "media-assistant-webhooks",
        "git:https://github.com",
        "someone@media-assistant-old",
        "media-assistant@other",
    ]
    services = ["media-assistant", "media-assistant-webhooks"]
    assert our_targets(listed, services) == [
        "MA_HOOK@media-assistant-webhooks",
        "api-1@media-assistant",
        "media-assistant",
        "media-assistant-webhooks",
    ]
