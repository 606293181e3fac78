"""Issue 9's "tests that must exist": a database held by another process during ``run``, a frozen
process and a jumping wall clock (the reaper must not kill healthy tasks), and tasks that fail
or crash the app every time (they end after their attempts; the rest of the batch goes on)."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from media_assistant.core.model.clock import ScaledClock
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.model.states import ModelKind
from media_assistant.sim.fake_web import FakeWebProvider
from tests.conftest import make_tasks
from tests.faults.conftest import Holder, cli, no_traceback, rows, write_config, write_csv
from tests.integration.conftest import Harness


def start_run(data: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "run", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(data: Path, proc: subprocess.Popen[str], done: Callable[[list[str]], bool]) -> None:
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline and proc.poll() is None
        try:
            states = [str(r["state"]) for r in rows(data / "media-assistant.db")]
        except sqlite3.Error:
            states = []
        if states and done(states):
            return
        time.sleep(0.05)


def web_batch(tmp_path: Path, n: int, prefix: str) -> Path:
    return write_csv(
        tmp_path / f"{prefix}.csv",
        [
            {"task_id": f"{prefix}{i}", "prompt": f"Prompt {prefix}{i}", "model": "web-model"}
            for i in range(n)
        ],
    )


def test_a_database_held_by_another_process_for_30_s_during_run_loses_nothing(
    tmp_path: Path,
) -> None:
    """Another program (a backup tool, a second window's long import, ``sqlite3`` opened by
    hand) holds the write lock for 30 s in the middle of a batch. Before: answers that came
    back meanwhile were lost with the failed write and asked for again, claims restarted the
    workers with a traceback each, and the wait was reported as a frozen event loop. Now the
    run waits, says the database is busy, and finishes: every task once, no attempt lost."""
    data = tmp_path / "data"
    write_config(data, lo=1.0, hi=3.0)
    run = start_run(data, str(web_batch(tmp_path, 10, "L")))
    holder: Holder | None = None
    try:
        wait_for(data, run, lambda s: s.count("success") >= 2)
        holder = Holder(data / "media-assistant.db", 30)
        held_at = time.monotonic()
        out, err = run.communicate(timeout=300)
    finally:
        if holder is not None:
            holder.stop()
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 0, out + err
    assert time.monotonic() - held_at >= 30  # it did wait for the lock
    assert "Traceback" not in out + err
    assert "database busy" in err
    assert "event loop stalled" not in err  # waiting for a lock is not a frozen loop
    final = rows(data / "media-assistant.db")
    assert {r["state"] for r in final} == {"success"} and len(final) == 10
    assert all(r["attempt"] == 1 and r["lost_count"] == 0 for r in final)


FAST_BEATS = """
[scheduler]
heartbeat_s = 0.5
dead_after_s = 1.0
"""


def test_a_process_frozen_for_longer_than_the_dead_line_kills_none_of_its_tasks(
    tmp_path: Path,
) -> None:
    """The laptop sleeps (here: SIGSTOP, then SIGCONT) for four times the time after which a
    task without a heartbeat is declared dead. Before the stall guard and the rule that a
    process never reaps its own live attempts, every running task was declared dead on
    wake-up and asked for again, each losing an attempt."""
    data = tmp_path / "data"
    write_config(data, lo=2.0, hi=4.0, extra=FAST_BEATS)
    run = start_run(data, str(web_batch(tmp_path, 4, "Z")))
    try:
        wait_for(data, run, lambda s: "running" in s)
        run.send_signal(signal.SIGSTOP)
        time.sleep(4.0)
        run.send_signal(signal.SIGCONT)
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 0, out + err
    assert "event loop stalled" in err  # noticed, and reaping held for an interval
    final = rows(data / "media-assistant.db")
    assert {r["state"] for r in final} == {"success"}
    assert all(r["attempt"] == 1 and r["lost_count"] == 0 for r in final)
    con = sqlite3.connect(data / "media-assistant.db")
    try:
        dead = con.execute(
            "SELECT count(*) FROM task_events WHERE message LIKE '%declared dead%'"
        ).fetchone()[0]
    finally:
        con.close()
    assert dead == 0


class JumpingClock(ScaledClock):
    """A scaled clock whose wall time can jump (NTP stepping it, a suspend the monotonic clock
    did not see) while the monotonic time goes on evenly."""

    def jump(self, seconds: float) -> None:
        self._wall0 += seconds


async def test_a_wall_clock_jump_kills_no_healthy_task(
    harness_factory: Callable[..., Harness],
) -> None:
    """Heartbeats are compared in wall-clock time, so when the clock steps an hour ahead every
    running task's last heartbeat looks an hour old; when it steps back, they look to come from
    the future. Neither may get a healthy task declared dead (before: every running task was
    taken back and asked for again when the clock stepped forward)."""
    h = harness_factory(web_accounts=2, api_accounts=1, web_latency=(60, 200))
    clock = JumpingClock(200.0)
    h.clock = clock
    s = await h.start()
    await s.submit(make_tasks(4, model="web-model", kind=ModelKind.WEB) + make_tasks(6))
    while len(h.store.running_ids()) < 3:
        await asyncio.sleep(0.01)
    clock.jump(3600.0)
    await asyncio.sleep(0.5)  # 100 simulated seconds: past the 90 s dead-line
    clock.jump(-7200.0)
    await asyncio.sleep(0.2)
    assert await h.run(timeout=60) == []
    final = h.store.list_tasks()
    assert {r.state for r in final} == {"success"}
    assert all(r.attempt == 1 and r.lost_count == 0 for r in final)
    assert not [
        e.message
        for r in final
        for e in h.store.events(r.task_id)
        if "declared dead" in e.message or "lost" in e.message
    ]
    await s.stop()


class CrashesOn(FakeWebProvider):
    """A provider with a bug that one task triggers every time (not a ProviderError)."""

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        if "POISON" in ctx.task.prompt:
            raise RuntimeError("the adapter tripped over this prompt")
        return await super().generate(ctx)


@pytest.mark.expect_errors(r"unexpected error in provider")
async def test_a_task_that_crashes_the_provider_every_time_ends_after_its_attempts(
    harness_factory: Callable[..., Harness],
) -> None:
    """Before a bug in a provider was an internal error like any other, it could stop the
    account's worker; now it is an attempt that failed: the task ends failed after its three
    attempts (with the error in its log), and the account's other tasks succeed."""
    h = harness_factory(web_accounts=1, api_accounts=0, web_latency=(10, 20))
    h.overrides["web-1"] = CrashesOn(h.site, "web-1")
    s = await h.start()
    tasks = make_tasks(3, model="web-model", kind=ModelKind.WEB)
    poison = make_tasks(1, model="web-model", kind=ModelKind.WEB, prefix="pill", priority=9)
    poison = [dataclasses.replace(poison[0], prompt="POISON pill")]
    await s.submit(poison + tasks)
    assert await h.run(timeout=60) == []
    states = {r.task_id: r for r in h.store.list_tasks()}
    pill = states.pop("pill-000")
    assert (pill.state, pill.attempt, pill.error_kind) == ("failed", 3, "internal")
    assert "the adapter tripped over this prompt" in (pill.error_message or "")
    assert {r.state for r in states.values()} == {"success"}
    await s.stop()


# A `run` that dies (as a segfault in a native library would) whenever it sends one prompt.
KILLS_THE_APP = """
import os, sys
from media_assistant.sim import fake_web

original = fake_web.FakeWebProvider.generate

async def generate(self, ctx):
    if "POISON" in ctx.task.prompt:
        os._exit(70)
    return await original(self, ctx)

fake_web.FakeWebProvider.generate = generate
from media_assistant.cli import main
sys.exit(main(["--data-dir", {data!r}, "run"]))
"""


def test_a_task_that_kills_the_app_every_time_ends_after_its_attempts(tmp_path: Path) -> None:
    """A prompt that crashes the whole app each time it is sent must not crash every night's
    run forever: each crash counts as a lost attempt (recovered at the next start), so after
    three the task fails for good and the batch goes on."""
    data = tmp_path / "data"
    write_config(data, lo=0.2, hi=0.5)
    batch = write_csv(
        tmp_path / "p.csv",
        [{"task_id": "pill", "prompt": "POISON", "model": "web-model", "priority": "9"}]
        + [
            {"task_id": f"ok{i}", "prompt": f"Fine {i}", "model": "web-model", "priority": "0"}
            for i in range(3)
        ],
    )
    assert cli(data, "submit", str(batch)).returncode == 0
    script = textwrap.dedent(KILLS_THE_APP.format(data=str(data)))
    codes = []
    for _ in range(5):
        done = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
        )
        codes.append(done.returncode)
        if done.returncode != 70:
            break
    assert codes == [70, 70, 70, 1], codes  # three crashes, then a run that ends
    assert no_traceback(done)
    final = {r["task_id"]: r for r in rows(data / "media-assistant.db")}
    pill = final.pop("pill")
    assert (pill["state"], pill["attempt"], pill["lost_count"]) == ("failed", 3, 3)
    assert pill["error_kind"] == "lost"
    assert {r["state"] for r in final.values()} == {"success"}
