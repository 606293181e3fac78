"""One look-up for every secret (providers/secrets.py): the environment first, else the OS
keyring — asked on a thread of its own, at most KEYRING_TIMEOUT_S, once a session — and a
keyring that cannot keep a secret said in words that name the way out."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import keyring.backends.fail
import pytest

from media_assistant.core.model.errors import ConfigError
from media_assistant.providers import secrets
from media_assistant.providers.secrets import SecretStoreUnavailable
from tests.support.keyrings import HangingKeyring, MemoryKeyring, use_keyring

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def memory() -> Iterator[MemoryKeyring]:
    with use_keyring(MemoryKeyring()) as backend:
        assert isinstance(backend, MemoryKeyring)
        yield backend


@pytest.fixture
def hanging(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[HangingKeyring]]:
    """A keyring that does not answer until the test ends (then the stuck call returns, so the
    keyring thread is free for the next test)."""
    monkeypatch.setattr(secrets, "KEYRING_TIMEOUT_S", 0.3)
    HangingKeyring.release.clear()
    HangingKeyring.calls = 0
    with use_keyring(HangingKeyring()):
        yield HangingKeyring
    HangingKeyring.release.set()


def test_a_secret_read_from_the_keyring_is_asked_for_once_a_session(
    memory: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.set_password(secrets.WEBHOOK.service, "MA_HOOK", "https://example.invalid/hook")
    monkeypatch.delenv("MA_HOOK", raising=False)
    for _ in range(3):
        assert secrets.lookup(secrets.WEBHOOK, "MA_HOOK", "MA_HOOK").value == (
            "https://example.invalid/hook"
        )
    assert memory.reads == 1
    # fresh: another process may have stored a new one (a provider's rebuild asks so)
    memory.set_password(secrets.WEBHOOK.service, "MA_HOOK", "https://example.invalid/new")
    assert secrets.lookup(secrets.WEBHOOK, "MA_HOOK", fresh=True).value.endswith("/new")  # type: ignore[union-attr]
    assert memory.reads == 2
    # the environment wins, and is read every time
    monkeypatch.setenv("MA_HOOK", " https://example.invalid/env\n")
    assert secrets.lookup(secrets.WEBHOOK, "MA_HOOK", "MA_HOOK").value.endswith("/env")  # type: ignore[union-attr]


def test_a_secret_not_found_is_looked_for_again(memory: MemoryKeyring) -> None:
    """Not cached: the operator stores it, the next look finds it without a restart."""
    assert secrets.lookup(secrets.API_KEY, "ds-api").value is None
    memory.set_password(secrets.API_KEY.service, "ds-api", "sk-later")
    assert secrets.resolve_api_key("ds-api", None) == "sk-later"


def test_storing_a_key_replaces_the_one_this_session_had_read(memory: MemoryKeyring) -> None:
    memory.set_password(secrets.API_KEY.service, "ds-api", "sk-old")
    assert secrets.resolve_api_key("ds-api", None) == "sk-old"
    secrets.store_api_key("ds-api", " sk-new \n")
    assert memory.entries[(secrets.API_KEY.service, "ds-api")] == "sk-new"
    assert secrets.resolve_api_key("ds-api", None) == "sk-new"


def test_a_removed_account_leaves_no_key_for_the_next_account_of_that_name(
    memory: MemoryKeyring,
) -> None:
    secrets.store_api_key("ds-api", "sk-of-the-removed-account")
    assert secrets.delete(secrets.API_KEY, "ds-api") is True
    assert memory.entries == {}
    assert secrets.lookup(secrets.API_KEY, "ds-api").value is None
    assert secrets.delete(secrets.API_KEY, "ds-api") is False  # nothing left to remove


def test_a_system_without_keyring_is_said_at_once_with_the_way_out() -> None:
    with use_keyring(keyring.backends.fail.Keyring()):
        assert secrets.keyring_available() == "none"
        with pytest.raises(SecretStoreUnavailable) as caught:
            secrets.store_api_key("ds-api", "sk-123")
        # "none", not "timeout": said from the backend's answer, not after waiting for one
        assert caught.value.reason == "none" and isinstance(caught.value, ConfigError)
        assert "api_key_env" in str(caught.value) and "sk-123" not in str(caught.value)
        found = secrets.lookup(secrets.API_KEY, "ds-api", "DS_KEY_NOT_SET")
        assert found.value is None and found.keyring_problem == "none"
        assert secrets.delete(secrets.API_KEY, "ds-api") is False


def test_a_keyring_that_does_not_answer_is_given_up_on_within_the_limit(
    hanging: type[HangingKeyring],
) -> None:
    """A locked Secret Service waiting for a password: each call ends after the limit."""
    with pytest.raises(SecretStoreUnavailable) as caught:
        secrets.store_api_key("ds-api", "sk-123")
    assert caught.value.reason == "timeout" and "did not answer" in str(caught.value)
    found = secrets.lookup(secrets.API_KEY, "ds-api")
    assert found.value is None and found.keyring_problem == "timeout"
    assert "no answer" in " ".join(found.looked)  # each call gave up (the keyring never answers)
    assert hanging.calls == 1  # the read queued behind the stuck write never started


def test_a_keyring_that_does_not_answer_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    """The keyring's calls run on a daemon thread: a stuck one cannot hold the exit (an
    executor's thread would be joined at exit, for as long as the keyring hangs)."""
    script = (
        "import time\n"
        "from media_assistant.providers import secrets\n"
        "secrets.KEYRING_TIMEOUT_S = 0.5\n"
        "print(secrets.lookup(secrets.API_KEY, 'ds-api').keyring_problem, flush=True)\n"
    )
    result = subprocess.run(  # noqa: PLW1510 - the exit is the subject (timeout: patience)
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "PYTHON_KEYRING_BACKEND": "tests.support.keyrings.HangingKeyring",
        },
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "timeout"


async def test_a_look_up_from_the_loop_never_waits_on_its_thread(
    hanging: type[HangingKeyring],
) -> None:
    import asyncio

    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.ensure_future(tick())
    found = await secrets.alookup(secrets.WEBHOOK, "MA_HOOK")
    ticker.cancel()
    assert found.value is None and found.keyring_problem == "timeout"
    assert ticks >= 10  # the loop turned while the keyring did not answer


def test_the_team_databases_password_is_one_more_kind(memory: MemoryKeyring) -> None:
    """Team mode's `store set-password` keeps the database password through the same look-up:
    one entry per user, host, port and database, whatever the URL's options."""
    url = "postgresql+psycopg://ops@db.example:5433/media?sslmode=require"
    assert secrets.read_store_password(url) is None
    secrets.save_store_password(url, "s3cret-pass")
    assert memory.entries == {
        (secrets.API_KEY.service, "store:ops@db.example:5433/media"): "s3cret-pass"
    }
    assert secrets.read_store_password(url.replace("?sslmode=require", "")) == "s3cret-pass"
    with pytest.raises(ConfigError, match="empty"):
        secrets.save_store_password(url, "")
    with use_keyring(keyring.backends.fail.Keyring()):
        secrets.forget_all()
        assert secrets.read_store_password(url) is None
        with pytest.raises(SecretStoreUnavailable, match="PGPASSWORD"):
            secrets.save_store_password(url, "s3cret-pass")


def test_a_secret_credential_manager_cannot_hold_is_refused_with_the_limit(
    memory: MemoryKeyring,
) -> None:
    """Windows' Credential Manager keeps 2,560 bytes (UTF-16): refused everywhere, nothing kept,
    with the limit and the way out said (issue 29)."""
    longest = "k" * (secrets.MAX_SECRET_BYTES // 2)
    secrets.store_api_key("fits", longest)
    assert secrets.lookup(secrets.API_KEY, "fits", fresh=True).value == longest
    with pytest.raises(ConfigError) as exc:
        secrets.store_api_key("long", longest + "k")
    assert "2,562 bytes" in str(exc.value) and "at most 2,560" in str(exc.value)
    assert "environment variable" in str(exc.value)
    assert secrets.lookup(secrets.API_KEY, "long", fresh=True).value is None
    with pytest.raises(ConfigError, match="too long for the OS keyring"):
        secrets.store(secrets.WEBHOOK, "MA_HOOK", "密" * 1281)  # 2,562 bytes as UTF-16
