"""``sites check / install / rollback / list`` from the command line (issue 21 items 1 and 3),
against the loopback chat site with real Chromium: the JSON report on a working and a broken
adapter, a fixed file installed and rolled back, the refusals (a running scheduler: exit 3; the
account's pacing: exit 10), and a fix installed from another process while a scheduler runs,
used from its next task."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from media_assistant.assets import sites_dir
from media_assistant.core.files.locks import DataDirLock
from media_assistant.core.store.accounts import AccountStore
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_site_breakage import FAST
from tests.integration.test_web_lane import WebEnv, our_chromiums, web_tasks
from tests.support.web_config import one_web_account_toml

pytestmark = pytest.mark.chromium

SEND = """send = ['button[aria-label="Send"]']"""
MOVED = """send = ['button[aria-label="Submit message"]', 'button[aria-label="Send"]']"""


@pytest.fixture
def sim() -> Iterator[ChatSiteSimulator]:
    site = ChatSiteSimulator(ChatSiteConfig(latency_s=(40, 80), time_scale=0.005, seed=9))
    site.start_in_thread()
    yield site
    site.stop_in_thread()


def cli(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )


def adapter_text(*, version: str, replace: tuple[str, str] | None = None) -> str:
    """The sim adapter with short waits, a version, and perhaps one line changed."""
    lines = []
    for line in (sites_dir() / "sim.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("version = "):
            line = f'version = "{version}"'  # noqa: PLW2901
        if replace is not None and line == replace[0]:
            line = replace[1]  # noqa: PLW2901
        if line.split(" = ")[0] in FAST:
            continue
        lines.append(line)
        if line == "[timing]":
            lines += [f"{k} = {v}" for k, v in FAST.items()]
    return "\n".join(lines) + "\n"


def configure(root: Path, sim: ChatSiteSimulator, pacing: str = "") -> WebEnv:
    env = WebEnv(root, sim, accounts=1)
    (env.paths.data_dir / "config.toml").write_text(
        one_web_account_toml(sim.base_url, pacing + "\n"),
        encoding="utf-8",
    )
    return env


def test_check_reports_each_step_as_json_and_a_fix_installs_and_rolls_back(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    env = configure(tmp_path, sim)
    data = env.paths.data_dir
    env.store.engine.dispose()
    asyncio.run(env.sign_in("web-1"))
    shipped = tmp_path / "sim-2026.12.01.toml"
    shipped.write_text(adapter_text(version="2026.12.01"), encoding="utf-8")
    assert cli(data, "sites", "install", str(shipped)).returncode == 0  # short waits

    working = cli(data, "sites", "check", "--account", "web-1", "--json")
    assert working.returncode == 0, working.stdout + working.stderr
    report = json.loads(working.stdout)
    assert (report["account"], report["site"], report["ok"]) == ("web-1", "sim", True)
    assert [s["step"] for s in report["steps"]] == [
        "through_proxy",  # first, whether or not the account has a proxy (issue 32)
        "page_loaded",
        "signed_in",
        "composer_found",
        "text_entered",
        "sent",
        "generating_seen",
        "done_seen",
        "answer_read",
        "markdown_rebuilt",
        "new_chat",
    ]
    proxy_step, *steps = report["steps"]
    assert proxy_step["ok"] is not False  # skipped: the account has no proxy
    assert all(s["ok"] is True and s["seconds"] >= 0 for s in steps)

    sim.break_page("send_moved")  # the site's update: the send button moved, Enter is a newline
    broken = cli(data, "sites", "check", "--account", "web-1", "--json")
    assert broken.returncode == 1, broken.stdout + broken.stderr
    steps = {s["step"]: s for s in json.loads(broken.stdout)["steps"]}
    assert steps["text_entered"]["ok"] is True
    assert steps["sent"]["ok"] is False and 'button[aria-label="Send"]' in steps["sent"]["detail"]
    assert steps["answer_read"]["ok"] is None  # skipped after the failure

    fixed = tmp_path / "sim-fixed.toml"
    fixed.write_text(adapter_text(version="2026.12.02", replace=(SEND, MOVED)), encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(adapter_text(version="x", replace=(SEND, "send = 'not a list'")), "utf-8")
    refused = cli(data, "sites", "install", str(bad))
    assert refused.returncode == 2 and f"{bad}: selectors.send: " in refused.stderr
    installed = cli(data, "sites", "install", str(fixed))
    assert installed.returncode == 0, installed.stderr
    assert "installed sim 2026.12.02" in installed.stdout
    assert "replaces 2026.12.01" in installed.stdout and "sites check --account web-1" in (
        installed.stdout
    )
    listed = cli(data, "sites", "list").stdout
    sim_line = next(line for line in listed.splitlines() if line.startswith("sim "))
    assert "installed 2026.12.02 (over built-in 2026.11.30); rollback: 2026.12.01" in sim_line
    assert cli(data, "sites", "check", "--account", "web-1").returncode == 0

    back = cli(data, "sites", "rollback", "sim")
    assert back.returncode == 0 and "now installed 2026.12.01" in back.stdout
    assert cli(data, "sites", "check", "--account", "web-1", "--json").returncode == 1
    assert not our_chromiums(tmp_path)


def test_check_is_refused_while_a_scheduler_runs_and_while_pacing_holds_the_account(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    env = configure(tmp_path, sim, pacing="pacing = { min_gap_s = 600 }")
    data = env.paths.data_dir
    env.store.engine.dispose()
    asyncio.run(env.sign_in("web-1"))
    lock = DataDirLock(data)
    lock.acquire()  # what the desktop app or `run` holds
    try:
        busy = cli(data, "sites", "check", "--account", "web-1")
    finally:
        lock.release()
    assert busy.returncode == 3 and "Check site" in busy.stderr, busy.stderr
    first = cli(data, "sites", "check", "--account", "web-1")
    assert first.returncode == 0, first.stdout + first.stderr  # no prompt yet: not paced
    paced = cli(data, "sites", "check", "--account", "web-1")
    assert paced.returncode == 10, paced.stdout + paced.stderr
    assert "nothing was sent" in paced.stderr and "--wait" in paced.stderr
    assert sim.user_stats("web-1")["completed"] == 1  # the first check's prompt only
    assert not our_chromiums(tmp_path)


async def test_a_fix_installed_while_the_scheduler_runs_is_used_from_the_next_task(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    """The site moved its send button; the account is paused with the step named, its tasks
    wait. `sites install` of a fixed file — from another process, as an operator types it —
    reaches the running scheduler: the next task uses the new file, nothing failed."""
    env = configure(tmp_path, sim)
    env.paths.sites.mkdir(parents=True, exist_ok=True)
    (env.paths.sites / "sim.toml").write_text(adapter_text(version="1"), encoding="utf-8")
    fixed = tmp_path / "sim-fixed.toml"
    fixed.write_text(adapter_text(version="2", replace=(SEND, MOVED)), encoding="utf-8")
    try:
        await env.sign_in("web-1")
        sim.break_page("send_moved")
        s = await env.start()
        await s.submit(web_tasks(4))
        accounts = AccountStore(env.store.engine, env.clock, env.store.bus)
        for _ in range(600):  # the verdict: two tasks in a row could not send (a minute)
            if getattr(accounts.get("web-1"), "problem_code", None) == "site_changed":
                break
            await asyncio.sleep(0.2)
        else:
            pytest.fail("web-1 was not paused with the verdict")
        installed = await asyncio.to_thread(cli, env.paths.data_dir, "sites", "install", str(fixed))
        assert installed.returncode == 0, installed.stdout + installed.stderr
        assert await env.run(timeout=120) == []
        rows = env.store.list_tasks()
        assert {r.state for r in rows} == {"success"}
        status = accounts.get("web-1")
        assert status is not None and status.problem_code is None and not status.problem
        assert sim.user_stats("web-1")["completed"] == 4
    finally:
        await env.close()
    assert not our_chromiums(tmp_path)
