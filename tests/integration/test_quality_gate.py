"""The quality gate end to end: the scheduler with the real API provider over HTTP on 127.0.0.1
against the API simulator, which answers with a refusal or an answer cut at the length limit
when told to. A rejected answer is never the task's result; the event log names the rule."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from media_assistant.core.config.schema import parse_config
from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.records import NewTask, TaskRecord
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from media_assistant.providers.registry import ProviderRegistry
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec

KEY_A, KEY_B = "sk-sim-quality-a", "sk-sim-quality-b"


@pytest.fixture
def api_sim(monkeypatch: pytest.MonkeyPatch) -> Iterator[ApiSimulator]:
    monkeypatch.setenv("MA_QA_KEY_A", KEY_A)
    monkeypatch.setenv("MA_QA_KEY_B", KEY_B)
    sim = ApiSimulator(
        ApiSimConfig(
            latency_s=(8, 12),
            time_scale=0.01,
            seed=7,
            answer_chars=(300, 600),
            keys={KEY_A: KeySpec(), KEY_B: KeySpec()},
        )
    )
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


def config(base_url: str, quality: dict[str, Any], *, max_attempts: int = 3) -> dict[str, Any]:
    return {
        "scheduler": {"max_attempts": max_attempts},
        "lanes": {"api": {"backoff_base_s": 0.05, "backoff_cap_s": 0.1}},
        "models": [
            {"name": "writer", "kind": "api", "quality": quality},
            {"name": "backup", "kind": "api"},
        ],
        "accounts": [
            {
                "id": "api-a",
                "kind": "api",
                "base_url": base_url,
                "api_key_env": "MA_QA_KEY_A",
                "models": ["writer"],
            },
            {
                "id": "api-b",
                "kind": "api",
                "base_url": base_url,
                "api_key_env": "MA_QA_KEY_B",
                "models": ["backup"],
            },
        ],
    }


async def run_one(tmp_path: Path, cfg: dict[str, Any], prompt: str) -> tuple[TaskRecord, Store]:
    paths = Paths.resolve(tmp_path / "data")
    paths.ensure()
    app_config = parse_config(cfg, "test")
    store = Store(open_engine(sqlite_url(paths.database)), SystemClock())
    db = DbThreads()
    scheduler = Scheduler(
        app_config,
        AsyncStore(store, db),
        SystemClock(),
        ProviderRegistry(app_config, paths),
        seed=3,
    )
    await scheduler.start()
    try:
        await scheduler.submit([NewTask("t1", "writer", ModelKind.API, prompt, "b1")])
        await asyncio.wait_for(scheduler.run_until_idle(), 60)
    finally:
        await scheduler.stop()
        db.close()
    row = store.get("t1")
    assert row is not None
    return row, store


def rejections(store: Store) -> list[dict[str, Any]]:
    return [e.params for e in store.events("t1") if e.code == "quality_rejected"]


async def test_a_refusal_goes_back_for_another_attempt_and_the_real_answer_is_kept(
    api_sim: ApiSimulator, tmp_path: Path
) -> None:
    api_sim.inject("refusal", 1, match="[task:t1]")
    row, store = await run_one(
        tmp_path, config(api_sim.base_url, {"refusals": True}), "Write about tea [task:t1]"
    )
    assert (row.state, row.attempt, row.model) == ("success", 2, "writer")
    assert row.result_text is not None and row.result_text.startswith("Answer to: Write about")
    [rejected] = rejections(store)
    assert rejected["rule"] == "refusal" and rejected["then"] == "retry"
    assert rejected["answer"] == "I'm sorry, but I can't help with that request."
    assert len(api_sim.stats()["requests"]) == 2


async def test_a_chinese_refusal_sends_the_task_to_the_fallback_model_at_once(
    api_sim: ApiSimulator, tmp_path: Path
) -> None:
    api_sim.inject("refusal_zh", 1, match="[task:t1]")
    quality = {"refusals": True, "fallback_model": "backup"}
    row, store = await run_one(tmp_path, config(api_sim.base_url, quality), "写一篇 [task:t1]")
    assert (row.state, row.model, row.account_id) == ("success", "backup", "api-b")
    [rejected] = rejections(store)
    assert (rejected["rule"], rejected["then"], rejected["model"]) == (
        "refusal",
        "fallback",
        "backup",
    )
    started = [e.params["account"] for e in store.events("t1") if e.code == "started"]
    assert started == ["api-a", "api-b"]


async def test_an_answer_cut_at_the_length_limit_fails_when_no_attempt_is_left(
    api_sim: ApiSimulator, tmp_path: Path
) -> None:
    api_sim.inject("length", 1, match="[task:t1]")
    cfg = config(api_sim.base_url, {"reject_truncated": True, "min_chars": 10}, max_attempts=1)
    row, store = await run_one(tmp_path, cfg, "Write a long story [task:t1]")
    assert (row.state, row.error_kind) == ("failed", "quality_rejected")
    assert row.error_message is not None and "truncated" in row.error_message
    assert row.result_text is None  # a rejected answer is never the result
    [rejected] = rejections(store)
    assert (rejected["rule"], rejected["then"]) == ("truncated", "fail")


async def test_a_short_answer_is_retried_until_the_attempts_run_out(
    api_sim: ApiSimulator, tmp_path: Path
) -> None:
    """min_chars above anything the simulator writes: every attempt is turned down."""
    cfg = config(api_sim.base_url, {"min_chars": 5000}, max_attempts=2)
    row, store = await run_one(tmp_path, cfg, "Write [task:t1]")
    assert (row.state, row.attempt, row.error_kind) == ("failed", 2, "quality_rejected")
    assert [r["then"] for r in rejections(store)] == ["retry", "fail"]
    assert all(r["rule"] == "too_short" for r in rejections(store))
