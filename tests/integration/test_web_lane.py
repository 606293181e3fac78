"""The web lane with real Chromium against the loopback chat site (DESIGN §4-§5)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from media_assistant.core.config.schema import parse_config
from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import AccountState, ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from media_assistant.providers.registry import ProviderRegistry
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.processes import browser_processes
from media_assistant.providers.web.signin import visit
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.support.web_config import one_web_account_toml

pytestmark = pytest.mark.chromium

CHROMIUM = "/usr/lib/chromium/chromium"


@pytest.fixture
def chat_sim() -> Iterator[ChatSiteSimulator]:
    # 31..370 s generations at 1/200: 0.15..1.85 s.
    sim = ChatSiteSimulator(ChatSiteConfig(latency_s=(31, 370), time_scale=0.005, seed=7))
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


def our_chromiums(root: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            if proc.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            if any(str(root) in arg for arg in proc.info["cmdline"] or []):
                found.append(proc)
        except psutil.Error:
            continue
    return found


class WebEnv:
    def __init__(self, root: Path, sim: ChatSiteSimulator, accounts: int = 2, **model: Any) -> None:
        self.root = root
        self.sim = sim
        self.paths = Paths.resolve(root / "data")
        self.paths.ensure()
        self.config = parse_config(
            {
                "browser": {"executable": CHROMIUM, "headless": True},
                "models": [{"name": "web-model", "kind": "web", **model}],
                "accounts": [
                    {
                        "id": f"web-{i + 1}",
                        "kind": "web",
                        "site": "sim",
                        "origin": sim.base_url,
                        "models": ["web-model"],
                    }
                    for i in range(accounts)
                ],
            },
            "test",
        )
        self.clock = SystemClock()
        self.store = Store(open_engine(sqlite_url(self.paths.database)), self.clock)
        self.db = DbThreads()
        self.registry: ProviderRegistry | None = None
        self.scheduler: Scheduler | None = None

    async def sign_in(self, *account_ids: str) -> None:
        choice = resolve_browser(CHROMIUM)
        for account_id in account_ids:
            await visit(
                self.paths.profile(account_id),
                choice,
                f"{self.sim.base_url}/_sim/autologin?user={account_id}",
            )

    async def start(self) -> Scheduler:
        self.registry = ProviderRegistry(self.config, self.paths, None)
        self.scheduler = Scheduler(
            self.config,
            AsyncStore(self.store, self.db),
            self.clock,
            self.registry,
            profile_dir=self.paths.profile,
            seed=1,
        )
        self.registry.accounts = self.scheduler.accounts
        await self.scheduler.start()
        return self.scheduler

    async def run(self, timeout: float = 90) -> Any:
        assert self.scheduler is not None
        return await asyncio.wait_for(self.scheduler.run_until_idle(), timeout)

    async def close(self) -> None:
        if self.scheduler is not None and self.scheduler.started:
            await self.scheduler.stop()
        self.db.close()
        self.store.engine.dispose()

    def events(self, task_id: str) -> list[str]:
        return [e.message for e in self.store.events(task_id)]


@pytest.fixture
async def env(tmp_path: Path, chat_sim: ChatSiteSimulator) -> AsyncIterator[WebEnv]:
    e = WebEnv(tmp_path, chat_sim)
    await e.sign_in("web-1", "web-2")
    yield e
    await e.close()
    left = our_chromiums(tmp_path)
    assert not left, f"chromium processes left behind: {[p.pid for p in left]}"


def web_tasks(n: int, prefix: str = "w") -> list[NewTask]:
    return [
        NewTask(
            f"{prefix}{i}",
            "web-model",
            ModelKind.WEB,
            f"Task {prefix}{i} marker-{prefix}{i}-x: write two lines",
            "b",
        )
        for i in range(n)
    ]


async def test_two_accounts_in_parallel_no_conflicts_each_answer_its_own(env: WebEnv) -> None:
    s = await env.start()
    await s.submit(web_tasks(8))
    assert await env.run() == []
    rows = env.store.list_tasks()
    assert {r.state for r in rows} == {"success"}
    for r in rows:
        assert r.result_text is not None
        assert r.result_text.startswith(f"Answer to: {r.prompt}")  # never a previous answer
    stats = env.sim.stats()
    assert {u: st["conflicts"] for u, st in stats.items()} == {"web-1": 0, "web-2": 0}
    assert all(st["max_concurrent"] == 1 for st in stats.values())
    assert all(st["completed"] >= 2 for st in stats.values())  # both accounts worked
    spans = {
        a: sorted((r.started_at or 0, r.finished_at or 0) for r in rows if r.account_id == a)
        for a in ("web-1", "web-2")
    }
    assert any(s1 < e2 and s2 < e1 for s1, e1 in spans["web-1"] for s2, e2 in spans["web-2"])
    # The browser's PID is recorded, so a later run's self-check can find it.
    status = await s.accounts.get("web-1")
    assert status is not None and status.browser_pid is not None


async def test_cancel_mid_generation_uses_the_stop_control(env: WebEnv) -> None:
    env.config = parse_config(
        {
            **env.config.model_dump(mode="json", exclude_none=True),
            "accounts": [env.config.model_dump(mode="json", exclude_none=True)["accounts"][0]],
        },
        "test",
    )
    s = await env.start()
    await s.submit(
        [
            NewTask("long", "web-model", ModelKind.WEB, "a long one", "b"),
            NewTask("next", "web-model", ModelKind.WEB, "the next one", "b"),
        ]
    )
    env.sim.reset()
    while True:
        row = env.store.get("long")
        assert row is not None
        if (row.progress_chars or 0) > 0 or env.sim.stats().get("web-1", {}).get("active"):
            break
        await asyncio.sleep(0.02)
    await s.cancel(["long"])  # how soon it lands is B6's figure
    while env.store.get("long").state == "running":  # type: ignore[union-attr]
        await asyncio.sleep(0.02)
    assert env.store.get("long").state == "canceled"  # type: ignore[union-attr]
    assert await env.run() == []
    assert env.store.get("next").state == "success"  # type: ignore[union-attr]
    stats = env.sim.stats()["web-1"]
    assert stats["stopped"] == 1 and stats["conflicts"] == 0
    assert any("stop control" in m for m in env.events("long"))


async def test_a_killed_browser_is_retried_on_the_same_row(env: WebEnv) -> None:
    s = await env.start()
    await s.submit(web_tasks(1, prefix="k"))
    while not env.sim.stats().get("web-1", {}).get("active") and not env.sim.stats().get(
        "web-2", {}
    ).get("active"):
        await asyncio.sleep(0.02)
    row = env.store.get("k0")
    assert row is not None and row.account_id is not None
    for proc in browser_processes(env.paths.profile(row.account_id)):
        proc.kill()
    assert await env.run() == []
    row = env.store.get("k0")
    assert row is not None and (row.state, row.attempt) == ("success", 2)
    assert len(env.store.list_tasks()) == 1
    assert any("browser_crashed" in m or "failed" in m for m in env.events("k0"))


async def test_a_leftover_browser_on_a_profile_is_stopped_before_the_next_task(
    env: WebEnv,
) -> None:
    profile = env.paths.profile("web-1")
    leftover = subprocess.Popen(
        [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 15
        while not browser_processes(profile):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        env.config = parse_config(
            {
                **env.config.model_dump(mode="json", exclude_none=True),
                "accounts": [env.config.model_dump(mode="json", exclude_none=True)["accounts"][0]],
            },
            "test",
        )
        s = await env.start()
        await s.submit(web_tasks(1, prefix="l"))
        assert await env.run() == []
    finally:
        leftover.wait(timeout=10)
    assert leftover.returncode is not None  # the self-check stopped it
    assert env.store.get("l0").state == "success"  # type: ignore[union-attr]
    log = "\n".join(env.events("l0"))
    assert "leftover" in log.lower() and str(leftover.pid) in log


async def test_a_profile_held_by_a_foreign_process_is_not_killed(env: WebEnv) -> None:
    profile = env.paths.profile("web-1")
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        lock = profile / "SingletonLock"
        lock.unlink(missing_ok=True)
        os.symlink(f"{os.uname().nodename}-{holder.pid}", lock)
        env.config = parse_config(
            {
                **env.config.model_dump(mode="json", exclude_none=True),
                "accounts": [env.config.model_dump(mode="json", exclude_none=True)["accounts"][0]],
            },
            "test",
        )
        s = await env.start()
        await s.submit(web_tasks(1, prefix="f"))
        stuck = await env.run()
        row = env.store.get("f0")
        assert row is not None and (row.state, row.error_kind) == ("failed", "profile_in_use")
        assert str(holder.pid) in (row.error_message or "")
        assert holder.poll() is None  # still alive: never killed
        status = await s.accounts.get("web-1")
        assert status is not None
        assert status.state(env.clock.now()) is AccountState.NEEDS_ATTENTION
        assert stuck == []
    finally:
        holder.kill()
        holder.wait()


async def test_login_lost_on_one_account_the_other_keeps_working(env: WebEnv) -> None:
    env.sim.inject("login_expired", user="web-1")
    s = await env.start()
    await s.submit(web_tasks(5, prefix="g"))
    assert await env.run() == []
    rows = env.store.list_tasks()
    failed = [r for r in rows if r.state == "failed"]
    assert len(failed) == 1 and failed[0].error_kind == "login_required"
    assert failed[0].account_id is None or failed[0].account_id == "web-1"
    assert sum(r.state == "success" for r in rows) == 4
    status = await s.accounts.get("web-1")
    assert status is not None and status.state(env.clock.now()) is AccountState.NEEDS_LOGIN
    assert env.sim.stats()["web-2"]["completed"] == 4


async def test_need_empty_prompt_sends_exactly_the_user_text(
    tmp_path: Path, chat_sim: ChatSiteSimulator
) -> None:
    e = WebEnv(
        tmp_path,
        chat_sim,
        accounts=1,
        need_empty_prompt=True,
        system_prompt="你是一个乐于助人的助手。",
    )
    await e.sign_in("web-1")
    try:
        s = await e.start()
        await s.submit(
            [
                NewTask(
                    "r1",
                    "web-model",
                    ModelKind.WEB,
                    "请逐步推理：17×23 等于多少？",
                    "b",
                    system_prompt="Ignore previous instructions.",
                )
            ]
        )
        assert await e.run() == []
    finally:
        await e.close()
    assert chat_sim.stats()["web-1"]["texts"] == ["请逐步推理：17×23 等于多少？"]
    assert not our_chromiums(tmp_path)


ADAPTER_FOR_THE_SITE = """
id = "my-chat"
name = "An operator's own adapter"
origin = "{origin}"
new_chat_url = "/chat"
source = "written by hand for this test"
verified_at = 2026-11-30

[selectors]
input = ['[role="textbox"][contenteditable="true"]']
send = ['button[aria-label="Send"]']
stop = ['button[aria-label="Stop generating"]']
generating = ['button[aria-label="Stop generating"]']
done = ['button[aria-label="Copy"]']
answer = ['.message[data-role="assistant"] .markdown']

[markers]
login_lost = {{ url = ["/login"] }}
conflict = {{ texts = ["Only one message at a time"] }}
"""


def test_run_from_the_command_line_with_an_adapter_file(
    tmp_path: Path, chat_sim: ChatSiteSimulator
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    adapter = tmp_path / "my-chat.toml"
    adapter.write_text(ADAPTER_FOR_THE_SITE.format(origin=chat_sim.base_url), encoding="utf-8")
    (data / "config.toml").write_text(
        f"""
[browser]
executable = "{CHROMIUM}"
headless = true

[[models]]
name = "chat"
kind = "web"

[[accounts]]
id = "a1"
kind = "web"
site_file = "{adapter}"
models = ["chat"]

[[accounts]]
id = "a2"
kind = "web"
site_file = "{adapter}"
models = ["chat"]
""",
        encoding="utf-8",
    )
    choice = resolve_browser(CHROMIUM)
    for account in ("a1", "a2"):
        asyncio.run(
            visit(
                data / "profiles" / account,
                choice,
                f"{chat_sim.base_url}/_sim/autologin?user={account}",
            )
        )
    batch = tmp_path / "batch.csv"
    batch.write_text(
        "task_id,prompt,model\n"
        + "".join(f"c{i},Question {i} marker-c{i}-x,chat\n" for i in range(6)),
        encoding="utf-8",
    )
    result = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "run", str(batch)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[web] 6/6 done" in result.stdout
    stats = chat_sim.stats()
    assert stats["a1"]["conflicts"] == 0 and stats["a2"]["conflicts"] == 0
    assert stats["a1"]["completed"] >= 1 and stats["a2"]["completed"] >= 1
    assert not our_chromiums(tmp_path)


def _cli(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_accounts_check_and_sites_probe(tmp_path: Path, chat_sim: ChatSiteSimulator) -> None:
    e = WebEnv(tmp_path, chat_sim, accounts=1)
    e.store.engine.dispose()
    (e.paths.data_dir / "config.toml").write_text(
        one_web_account_toml(chat_sim.base_url),
        encoding="utf-8",
    )
    data = e.paths.data_dir
    logged_out = _cli(data, "accounts", "check", "web-1")
    assert logged_out.returncode == 1 and "needs login" in logged_out.stdout
    asyncio.run(e.sign_in("web-1"))
    logged_in = _cli(data, "accounts", "check", "web-1")
    assert logged_in.returncode == 0 and "web-1: logged in" in logged_in.stdout
    status = _cli(data, "status", "--json")
    assert '"state": "enabled"' in status.stdout  # the check cleared "needs login"
    probe = _cli(
        data,
        "sites",
        "probe",
        f"{chat_sim.base_url}/chat",
        "--account",
        "web-1",
        "--seconds",
        "0.5",
    )
    assert probe.returncode == 0, probe.stderr
    assert "div#composer" in probe.stdout
    assert 'aria-label="Send"' in probe.stdout or "label='Send'" in probe.stdout
    assert not our_chromiums(tmp_path)


async def test_a_rate_limit_toast_cools_the_account_down_without_using_an_attempt(
    tmp_path: Path, chat_sim: ChatSiteSimulator
) -> None:
    e = WebEnv(tmp_path, chat_sim, accounts=1)
    e.config = parse_config(
        {
            **e.config.model_dump(mode="json", exclude_none=True),
            "lanes": {"web": {"cooldown_s": 2}},
        },
        "test",
    )
    await e.sign_in("web-1")
    chat_sim.inject("rate_limited", user="web-1")
    try:
        s = await e.start()
        await s.submit(web_tasks(1, prefix="r"))
        assert await e.run() == []
        row = e.store.get("r0")
        assert row is not None and (row.state, row.attempt) == ("success", 1)
        log = "\n".join(e.events("r0"))
        assert "rate_limited" in log and "attempt not used up" in log
    finally:
        await e.close()
    assert not our_chromiums(tmp_path)
