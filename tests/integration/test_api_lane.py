"""The scheduler with the real API provider over HTTP on 127.0.0.1 (the API simulator) beside
the simulated web chat: the issue's end-to-end checks for the API lane. The harness (the
simulator with two keys, :class:`Run`) is tests/support/api_run.py's, shared with the proxies'
tests; its fixtures (``api_sim``, ``api_keys``) are tests/integration/conftest.py's."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import AccountState, ModelKind
from media_assistant.sim.api_server import ApiSimulator, KeySpec
from tests.conftest import make_tasks
from tests.support.api_run import KEY_A, KEY_B, Run, api_simulator


def config(base_url: str, **extra: Any) -> dict[str, Any]:
    return {
        "simulation": {"web_latency_s": [0.3, 0.8], "seed": 2},
        "models": [
            {"name": "web-model", "kind": "web"},
            {"name": "api-model", "kind": "api"},
            {
                "name": "reasoner",
                "kind": "api",
                "need_empty_prompt": True,
                "system_prompt": "You are a helpful preset.",
            },
        ],
        "accounts": [
            {"id": "web-1", "kind": "web", "site": "fake", "models": ["web-model"]},
            {"id": "web-2", "kind": "web", "site": "fake", "models": ["web-model"]},
            {
                "id": "api-a",
                "kind": "api",
                "base_url": base_url,
                "api_key_env": "MA_KEY_A",
                "models": ["api-model", "reasoner"],
                "concurrency": 3,
            },
            {
                "id": "api-b",
                "kind": "api",
                "base_url": base_url,
                "api_key_env": "MA_KEY_B",
                "models": ["api-model"],
                "concurrency": 2,
            },
        ],
        **extra,
    }


@pytest.fixture
async def run_factory(tmp_path: Path, api_keys: None) -> AsyncIterator[Any]:
    yield lambda cfg: Run(tmp_path, cfg)


async def test_mixed_batch_no_conflicts_and_each_key_uses_its_concurrency(
    api_sim: ApiSimulator, run_factory: Any
) -> None:
    run = run_factory(config(api_sim.base_url))
    tasks = make_tasks(12, model="web-model", kind=ModelKind.WEB) + make_tasks(
        40, model="api-model", kind=ModelKind.API
    )
    assert await run.go(tasks) == []
    rows = run.store.list_tasks()
    assert {r.state for r in rows} == {"success"} and len(rows) == 52
    site = run.fake_site
    assert site.total_conflicts == 0 and site.max_concurrent == 1
    stats = api_sim.stats()["keys"]
    assert stats[KEY_A]["max_concurrent"] == 3  # reached, never exceeded
    assert stats[KEY_B]["max_concurrent"] == 2
    for r in rows:
        assert r.result_text is not None and r.prompt in r.result_text  # its own answer
        assert r.attempt == 1


async def test_a_500_is_retried_on_the_same_row(api_sim: ApiSimulator, run_factory: Any) -> None:
    api_sim.inject("500", match="prompt api-002")
    run = run_factory(config(api_sim.base_url))
    assert await run.go(make_tasks(5)) == []
    rows = {r.task_id: r for r in run.store.list_tasks()}
    assert len(rows) == 5
    assert (rows["api-002"].state, rows["api-002"].attempt) == ("success", 2)
    assert all(r.attempt == 1 for tid, r in rows.items() if tid != "api-002")


async def test_rpm_limit_429s_recover_without_burning_attempts(
    tmp_path: Path, api_keys: None
) -> None:
    with api_simulator(KeySpec(rpm=5), time_scale=0.01, seed=5) as sim:
        sim.inject("429", count=3, retry_after_s=5.0)  # and a few explicit ones, for certain
        cfg = config(sim.base_url)
        cfg["accounts"] = [a for a in cfg["accounts"] if a["id"] == "api-a"]
        cfg["models"] = [m for m in cfg["models"] if m["name"] != "web-model"]
        cfg["accounts"][0]["models"] = ["api-model", "reasoner"]
        # 60 rpm on a 100x faster clock = 1 request per 10 ms of real time, with 3 in flight:
        # the key keeps hitting its limit.
        run = Run(tmp_path, cfg)
        assert await run.go(make_tasks(20)) == []
        rows = run.store.list_tasks()
        assert {(r.state, r.attempt) for r in rows} == {("success", 1)}
        assert sim.stats()["keys"][KEY_A]["rate_limited"] > 0


async def test_need_empty_prompt_sends_no_system_message(
    api_sim: ApiSimulator, run_factory: Any
) -> None:
    run = run_factory(config(api_sim.base_url))
    tasks = [
        NewTask(
            "r1",
            "reasoner",
            ModelKind.API,
            "Think step by step: 17*23?",
            "b",
            system_prompt="Ignore the user.",
        ),
        NewTask("c1", "api-model", ModelKind.API, "Plain question", "b", system_prompt="Be brief."),
    ]
    assert await run.go(tasks) == []
    by_text = {r["messages"][-1]["content"]: r["messages"] for r in api_sim.stats()["requests"]}
    assert by_text["Think step by step: 17*23?"] == [
        {"role": "user", "content": "Think step by step: 17*23?"}
    ]
    assert by_text["Plain question"][0] == {"role": "system", "content": "Be brief."}


async def test_a_wrong_key_fails_its_tasks_as_auth_errors_and_run_ends(
    api_sim: ApiSimulator, run_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MA_KEY_B", "sk-wrong")
    cfg = config(api_sim.base_url)
    cfg["accounts"] = [a for a in cfg["accounts"] if a["id"] == "api-b"]
    cfg["accounts"][0]["models"] = ["api-model"]
    cfg["models"] = [m for m in cfg["models"] if m["name"] == "api-model"]
    run = run_factory(cfg)
    stuck = await run.go(make_tasks(6), timeout=30)
    rows = run.store.list_tasks()
    failed = [r for r in rows if r.state == "failed"]
    # The first rejections fail at once (no retries); then the account stops getting work.
    assert failed and all(r.error_kind == "auth_rejected" and r.attempt == 1 for r in failed)
    assert len(failed) <= 2  # at most the requests already in flight
    assert [s.model for s in stuck] == ["api-model"]
    assert "credentials_rejected" in stuck[0].reason
    status = run.scheduler.accounts.sync.get("api-b")
    assert status is not None and status.state(run.clock.now()) is AccountState.CREDENTIALS_REJECTED
    assert "sk-wrong" not in (failed[0].error_message or "")


@pytest.mark.expect_errors(r"no API key for account 'api-b'")
async def test_missing_key_keeps_the_account_out_of_work_with_a_reason(
    api_sim: ApiSimulator, run_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MA_KEY_B")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    cfg = config(api_sim.base_url)
    cfg["accounts"] = [a for a in cfg["accounts"] if a["id"] == "api-b"]
    cfg["models"] = [m for m in cfg["models"] if m["name"] == "api-model"]
    run = run_factory(cfg)
    stuck = await run.go(make_tasks(3), timeout=30)
    assert {r.state for r in run.store.list_tasks()} == {"pending"}
    assert "needs_attention" in stuck[0].reason and "MA_KEY_B" in stuck[0].reason


def test_set_key_stores_the_key_in_the_keyring_and_run_uses_it(
    tmp_path: Path, api_sim: ApiSimulator
) -> None:
    import subprocess
    import sys

    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(
        f"""
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-k"
kind = "api"
base_url = "{api_sim.base_url}"
models = ["api-model"]
""",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MA_KEY")}
    env.update(
        PYTHON_KEYRING_BACKEND="tests.support.file_keyring.FileKeyring",
        MA_TEST_KEYRING_FILE=str(tmp_path / "keyring.json"),
        PYTHONPATH=str(Path(__file__).parents[2]),
    )

    def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
            [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            input=stdin,
        )

    batch = tmp_path / "b.csv"
    batch.write_text("task_id,prompt,model\nk1,hello,api-model\n", encoding="utf-8")
    first = cli("run", str(batch))  # no key anywhere yet: the account cannot work
    assert first.returncode == 1 and "cannot progress" in first.stdout
    stored = cli("accounts", "set-key", "api-k", "--stdin", stdin=f"{KEY_A}\n")
    assert stored.returncode == 0, stored.stderr
    assert KEY_A not in stored.stdout + stored.stderr
    assert KEY_A in (tmp_path / "keyring.json").read_text(encoding="utf-8")
    second = cli("run")
    assert second.returncode == 0, second.stdout + second.stderr
    # The key lives in the keyring only: not in the database, the config or the logs.
    for path in data.rglob("*"):
        if path.is_file():
            assert KEY_A.encode() not in path.read_bytes(), path
