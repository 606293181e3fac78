"""Issue 9, item 2: after a crash, the next prompt on a web account must not meet the answer the
crash left generating on the site (one generation per account; a second one breaks both).

Real Chromium on the loopback chat site, which — like the real sites — keeps generating after
the page that asked is gone.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.providers.web import leftover as web_leftover
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.leftover import SentPrompt, SentRecord
from media_assistant.providers.web.signin import visit
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.faults.conftest import no_traceback, rows
from tests.integration.test_web_lane import CHROMIUM, WebEnv, our_chromiums

pytestmark = pytest.mark.chromium

ACCOUNTS = ("web-1", "web-2")


@pytest.fixture
def sim() -> Iterator[ChatSiteSimulator]:
    # 31..370 s answers at 1/20: 1.5..18.5 s, long enough to be killed in the middle of one.
    site = ChatSiteSimulator(ChatSiteConfig(latency_s=(31, 370), time_scale=0.05, seed=11))
    site.start_in_thread()
    yield site
    site.stop_in_thread()


def web_config(data: Path, sim: ChatSiteSimulator) -> None:
    accounts = "".join(
        f"""
[[accounts]]
id = "{a}"
kind = "web"
site = "sim"
origin = "{sim.base_url}"
models = ["web-model"]
"""
        for a in ACCOUNTS
    )
    (data / "config.toml").write_text(
        f"""
[browser]
executable = "{CHROMIUM}"
headless = true

[[models]]
name = "web-model"
kind = "web"
{accounts}""",
        encoding="utf-8",
    )


def sign_in(data: Path, sim: ChatSiteSimulator) -> None:
    choice = resolve_browser(CHROMIUM)
    for account in ACCOUNTS:
        asyncio.run(
            visit(
                data / "profiles" / account,
                choice,
                f"{sim.base_url}/_sim/autologin?user={account}",
            )
        )


def run_cmd(data: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "run", *args]


def test_kill_9_mid_answer_then_restart_at_once_meets_no_conflict(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    """Before: kill -9 while both web accounts streamed, then ``run`` at once: the site was still
    writing the old answers, each new prompt hit "another generation is running", both broke
    (simulator: max_concurrent 2, conflicts 1 per account) and the task burned attempts until
    it failed for good. Now the next attempt finds the old conversation and stops it first."""
    data = tmp_path / "data"
    data.mkdir()
    web_config(data, sim)
    sign_in(data, sim)
    batch = tmp_path / "batch.csv"
    batch.write_text(
        "task_id,prompt,model\n" + "".join(f"k{i},Question {i},web-model\n" for i in range(4)),
        encoding="utf-8",
    )
    victim = subprocess.Popen(run_cmd(data, str(batch)), stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while True:  # both accounts in the middle of an answer, its conversation named
            assert time.monotonic() < deadline and victim.poll() is None
            stats = sim.stats()
            if all(stats.get(a, {}).get("active") == 1 for a in ACCOUNTS):
                time.sleep(1.0)
                stats = sim.stats()
                if all(stats[a]["active"] == 1 for a in ACCOUNTS):
                    break
            time.sleep(0.05)
        victim.kill()  # SIGKILL: no cleanup at all
        victim.wait(timeout=10)
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait(timeout=10)
    assert all(sim.stats()[a]["active"] == 1 for a in ACCOUNTS)  # still generating on the site

    result = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        run_cmd(data), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert no_traceback(result)
    stats = sim.stats()
    for account in ACCOUNTS:
        assert stats[account]["conflicts"] == 0, stats[account]
        assert stats[account]["max_concurrent"] == 1, stats[account]
        assert stats[account]["stopped"] + stats[account]["completed"] >= 1
    final = rows(data / "media-assistant.db")
    assert {r["state"] for r in final} == {"success"}
    assert all(r["attempt"] <= 2 for r in final)  # the crash cost one attempt, nothing more
    assert not our_chromiums(tmp_path)


def start_generation_elsewhere(sim: ChatSiteSimulator, user: str) -> str:
    """``user`` asks the site for an answer from another client and leaves: the generation
    runs on (as one our crash left). Returns its conversation's id."""
    with httpx.Client(base_url=sim.base_url, follow_redirects=False) as client:
        client.get("/_sim/autologin", params={"user": user})
        with client.stream(
            "POST", "/api/chat/completion", json={"text": "left running", "conversation_id": None}
        ) as response:
            for line in response.iter_lines():
                event = json.loads(line[6:]) if line.startswith("data: ") else {}
                if event.get("type") == "meta":
                    conversation = str(event["conversation_id"])
                    break
    assert sim.stats()[user]["active"] == 1
    return conversation


async def test_a_conflict_with_our_own_unlocated_leftover_is_deferred_not_a_failure(
    tmp_path: Path, sim: ChatSiteSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the crash came between the click on send and the site naming the conversation,
    there is nothing to open: the new prompt meets the old answer. Before, that conflict cost
    an attempt (three such and the task failed); now the task waits, its attempt not used up."""
    monkeypatch.setattr(web_leftover, "LEFTOVER_RETRY_S", 1.0)
    env = WebEnv(tmp_path, sim, accounts=1)
    try:
        await env.sign_in("web-1")
        start_generation_elsewhere(sim, "web-1")
        SentRecord(env.paths.profile("web-1")).write(
            SentPrompt("gone-1", 1, time.time(), f"{sim.base_url}/chat")
        )
        s = await env.start()
        await s.submit([NewTask("u1", "web-model", ModelKind.WEB, "Question u1 marker-u1", "b")])
        assert await env.run(timeout=120) == []
        row = env.store.get("u1")
        assert row is not None
        assert (row.state, row.attempt) == ("success", 1)
        assert any("leftover_generation" in m for m in env.events("u1"))
    finally:
        await env.close()
    assert not our_chromiums(tmp_path)


async def test_a_leftover_that_cannot_be_stopped_is_waited_out(
    tmp_path: Path, sim: ChatSiteSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An adapter without a stop control (or a site that ignores it): the old answer is waited
    out — the task is deferred, its attempt not used up, until the conversation shows nothing
    generating — and only then is the new prompt sent: no conflict, nothing failed."""
    monkeypatch.setattr(web_leftover, "LEFTOVER_STOP_S", 1.5)
    monkeypatch.setattr(web_leftover, "LEFTOVER_RETRY_S", 1.0)
    env = WebEnv(tmp_path, sim, accounts=1)
    try:
        await env.sign_in("web-1")
        builtin = Path("resources/sites/sim.toml").read_text(encoding="utf-8")
        no_stop = "\n".join(line for line in builtin.splitlines() if not line.startswith("stop = "))
        env.paths.sites.mkdir(parents=True, exist_ok=True)
        (env.paths.sites / "sim.toml").write_text(no_stop, encoding="utf-8")  # user override
        conversation = start_generation_elsewhere(sim, "web-1")
        SentRecord(env.paths.profile("web-1")).write(
            SentPrompt("gone-2", 1, time.time(), f"{sim.base_url}/chat/{conversation}", True)
        )
        s = await env.start()
        await s.submit([NewTask("w1", "web-model", ModelKind.WEB, "Question w1", "b")])
        assert await env.run(timeout=120) == []
        row = env.store.get("w1")
        assert row is not None and (row.state, row.attempt) == ("success", 1)
        assert any("leftover_generation" in m for m in env.events("w1"))
        stats = sim.stats()["web-1"]
        assert stats["conflicts"] == 0 and stats["max_concurrent"] == 1
        assert stats["stopped"] == 0 and stats["completed"] == 2  # waited out, then ours
    finally:
        await env.close()
    assert not our_chromiums(tmp_path)


def override_sim_adapter(env: WebEnv, *, drop: tuple[str, ...]) -> None:
    """The operator's copy of the sim adapter (it wins over the built-in one) without the
    lines that start with ``drop``: an adapter that misses the site's markers, as real ones
    often do."""
    builtin = Path("resources/sites/sim.toml").read_text(encoding="utf-8")
    kept = [line for line in builtin.splitlines() if not line.startswith(drop)]
    env.paths.sites.mkdir(parents=True, exist_ok=True)
    (env.paths.sites / "sim.toml").write_text("\n".join(kept) + "\n", encoding="utf-8")


async def test_any_failure_right_after_an_unlocated_leftover_is_its_doing(
    tmp_path: Path, sim: ChatSiteSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17 item 10. The adapter does not declare the site's conflict message, so the
    collision with the leftover (its conversation unknown) shows as an error in the answer.
    Before, that cost an attempt (server_error, retried); now any failure in the leftover's
    shadow is its doing: deferred, the attempt kept."""
    monkeypatch.setattr(web_leftover, "LEFTOVER_RETRY_S", 1.0, raising=False)
    env = WebEnv(tmp_path, sim, accounts=1)
    try:
        await env.sign_in("web-1")
        override_sim_adapter(env, drop=("conflict = ",))
        start_generation_elsewhere(sim, "web-1")
        SentRecord(env.paths.profile("web-1")).write(
            SentPrompt("gone-3", 1, time.time(), f"{sim.base_url}/chat")
        )
        s = await env.start()
        await s.submit([NewTask("v1", "web-model", ModelKind.WEB, "Question v1 marker-v1", "b")])
        assert await env.run(timeout=120) == []
        row = env.store.get("v1")
        assert row is not None
        assert (row.state, row.attempt) == ("success", 1)
        log = "\n".join(env.events("v1"))
        assert "leftover_generation" in log and "server_error" not in log
        assert sim.stats()["web-1"]["conflicts"] == 1  # the collision did happen
    finally:
        await env.close()
    assert not our_chromiums(tmp_path)


async def test_in_an_unlocated_leftovers_shadow_the_first_token_wait_is_bounded(
    tmp_path: Path, sim: ChatSiteSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An adapter that names neither the conflict, nor an error, nor a generating indicator:
    after the collision the page shows nothing it knows, and the attempt used to wait out the
    120 s first-token timeout (then used an attempt). In the leftover's shadow it waits
    LEFTOVER_FIRST_TOKEN_S, then the task is deferred, its attempt kept."""
    monkeypatch.setattr(web_leftover, "LEFTOVER_FIRST_TOKEN_S", 3.0, raising=False)
    monkeypatch.setattr(web_leftover, "LEFTOVER_RETRY_S", 1.0, raising=False)
    env = WebEnv(tmp_path, sim, accounts=1)
    try:
        await env.sign_in("web-1")
        override_sim_adapter(env, drop=("conflict = ", "error = ", "generating = "))
        start_generation_elsewhere(sim, "web-1")
        SentRecord(env.paths.profile("web-1")).write(
            SentPrompt("gone-4", 1, time.time(), f"{sim.base_url}/chat")
        )
        s = await env.start()
        await s.submit([NewTask("t1", "web-model", ModelKind.WEB, "Question t1 marker-t1", "b")])
        started = time.monotonic()
        assert await env.run(timeout=90) == []
        took = time.monotonic() - started
        row = env.store.get("t1")
        assert row is not None
        assert (row.state, row.attempt) == ("success", 1)
        assert took < 60, f"took {took:.0f} s"  # the first-token timeout alone is 120 s
        log = "\n".join(env.events("t1"))
        assert "may still run on the site" in log and "leftover_generation" in log
    finally:
        await env.close()
    assert not our_chromiums(tmp_path)
