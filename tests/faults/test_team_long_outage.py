"""An outage of the team database longer than the dead threshold (issue 27 items 3 and 4, issue
26 item 4): it costs no task an attempt, stops no run, and what was received survives a crash
while the database is away. A real PostgreSQL server, stopped and started; in-process
schedulers whose generations are held on a gate, so every step is decided by state, not by a
race with the clock (the heartbeat and dead threshold are short so the test takes seconds)."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

from media_assistant.core.config.schema import AccountConfig, AppConfig, parse_config
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from tests.conftest import config_dict, make_tasks
from tests.support.postgres import PostgresServer


class Gated:
    """Each prompt's first generation waits for ``gate``; a second one answers at once.
    Counts how many times each prompt was asked and how many are waiting."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.asked: dict[str, int] = {}
        self.waiting = 0

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        prompt = ctx.task.prompt
        self.asked[prompt] = self.asked.get(prompt, 0) + 1
        if self.asked[prompt] == 1:
            self.waiting += 1
            try:
                await self.gate.wait()
            finally:
                self.waiting -= 1
        return GenerationResult(text=f"Answer to: {prompt}")

    async def aclose(self) -> None:
        return None


def _config(max_attempts: int = 1) -> AppConfig:
    raw = config_dict(web_accounts=0, api_accounts=1, concurrency=3)
    raw["team"] = {"workstation": "pc-1"}
    raw["scheduler"] = {"heartbeat_s": 0.3, "dead_after_s": 1.2, "max_attempts": max_attempts}
    return parse_config(raw, "pc-1.toml")


class Station:
    def __init__(self, url: str, data_dir: Path, provider: Any, cfg: AppConfig) -> None:
        self.store = Store(open_engine(url), SystemClock(), EventBus())
        self.db = DbThreads()

        def factory(account: AccountConfig) -> Any:
            return provider

        self.scheduler = Scheduler(
            cfg, AsyncStore(self.store, self.db), SystemClock(), factory, seed=1, data_dir=data_dir
        )

    async def close(self) -> None:
        await self.scheduler.stop()
        self.db.close()
        self.store.engine.dispose()


async def _until(predicate: Any, what: str, limit: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not predicate():
        assert loop.time() < deadline, what
        await asyncio.sleep(0.02)


async def test_an_outage_past_the_dead_threshold_burns_no_attempt_and_stops_no_run(
    pg_server: PostgresServer, pg_url: str, tmp_path: Path
) -> None:
    """Three generations on their last attempt run as the database goes away for longer than
    the dead threshold: they are stopped and go back to the queue with the attempt kept, the
    run waits the outage out (no internal error), and every task then succeeds on attempt 1."""
    provider = Gated()
    st = Station(pg_url, tmp_path, provider, _config(max_attempts=1))
    await st.scheduler.start()
    try:
        await st.scheduler.submit(make_tasks(3))
        runner = st.scheduler.runner
        assert runner is not None
        await _until(lambda: provider.waiting == 3, "three generations under way")
        run = asyncio.ensure_future(st.scheduler.run_until_idle())
        await asyncio.to_thread(pg_server.stop, "fast")
        try:
            # Past the dead threshold the attempts are stopped, as an outage, not as lost.
            await _until(
                lambda: (
                    runner.attempts
                    and all(ra.interrupt == "outage" for ra in runner.attempts.values())
                ),
                "the attempts were never stopped for the outage",
            )
            assert st.scheduler.link.down
            # Their return to the queue waits, kept on this workstation's disk.
            await _until(
                lambda: len(list((tmp_path / "held").glob("*.*.*.json"))) == 3,
                "the stopped attempts were not kept on disk",
            )
            held = sorted((tmp_path / "held").glob("*.*.*.json"))
            assert all(stat.S_IMODE(os.stat(p).st_mode) == 0o600 for p in held)
            assert not run.done()  # the run waits; it did not end on an error
        finally:
            await asyncio.to_thread(pg_server.start)
        assert await asyncio.wait_for(run, 90) == []
        rows = st.store.list_tasks()
        assert {r.state for r in rows} == {"success"}, [(r.state, r.error_message) for r in rows]
        assert {r.attempt for r in rows} == {1}  # the outage used no attempt
        assert not list((tmp_path / "held").glob("*.*.*.json"))  # written, then removed
        events = [e for r in rows for e in st.store.events(r.task_id)]
        assert sum(e.code == "returned_outage" for e in events) == 3
        assert not any(e.code == "lost" for e in events)
    finally:
        await st.close()


async def test_answers_held_through_an_outage_survive_a_crash_and_keep_their_time(
    pg_server: PostgresServer, pg_url: str, tmp_path: Path
) -> None:
    """Answers arrive while the database is away; the workstation dies before it answers again
    (no stop: its threads and connections are dropped, as a kill leaves them). The answers are
    on disk (0600); the next start writes them fenced, with the time they arrived, says so in
    their log — and asks nothing twice. A second start writes nothing again."""
    provider = Gated()
    cfg = _config(max_attempts=3)
    first = Station(pg_url, tmp_path, provider, cfg)
    await first.scheduler.start()
    await first.scheduler.submit(make_tasks(3))
    await _until(lambda: provider.waiting == 3, "three generations under way")
    await asyncio.to_thread(pg_server.stop, "fast")
    pg_up = False
    try:
        await _until(lambda: first.scheduler.link.down, "the outage was never noticed", 30)
        arrived = first.store.clock.now()
        provider.gate.set()  # the answers arrive while the database is away
        await _until(
            lambda: len(list((tmp_path / "held").glob("*.*.*.json"))) == 3,
            "the answers were not kept on disk",
        )
        held = sorted((tmp_path / "held").glob("*.*.*.json"))
        assert all(stat.S_IMODE(os.stat(p).st_mode) == 0o600 for p in held)
        assert (tmp_path / "held" / f"outage.{first.scheduler.owner_id}.json").exists()
        # The crash: nothing of the first scheduler runs any more; nothing is written back.
        for task in [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]:
            task.cancel()
        first.db.closed = True
        first.store.engine.dispose()
        back_at = first.store.clock.now()  # every answer had arrived before this
        await asyncio.to_thread(pg_server.start)
        pg_up = True

        second = Station(pg_url, tmp_path, provider, cfg)
        await second.scheduler.start()
        try:
            rows = second.store.list_tasks()
            assert {r.state for r in rows} == {"success"}, [
                (r.state, r.error_message) for r in rows
            ]
            assert set(provider.asked.values()) == {1}  # nothing asked twice
            assert {r.attempt for r in rows} == {1}
            for r in rows:
                # The time it arrived (during the outage), not the time it was written.
                assert r.finished_at is not None and arrived <= r.finished_at < back_at
                codes = [e.code for e in second.store.events(r.task_id)]
                assert "answer_held" in codes
            assert not list((tmp_path / "held").glob("*.json"))
        finally:
            await second.close()
        third = Station(pg_url, tmp_path, provider, cfg)
        await third.scheduler.start()
        try:
            assert all(
                sum(e.code == "succeeded" for e in third.store.events(r.task_id)) == 1
                for r in third.store.list_tasks()
            )
        finally:
            await third.close()
    finally:
        if not pg_up:
            await asyncio.to_thread(pg_server.start)


async def test_run_until_idle_waits_out_the_outage_instead_of_failing(
    pg_server: PostgresServer, pg_url: str, tmp_path: Path
) -> None:
    """With no attempt of its own under way, the run's "anything left?" question meets the
    outage: it waits for the database (the run's --db-wait decides), it does not end on an
    internal error (exit 4, seen black-box)."""
    st = Station(pg_url, tmp_path, Gated(), _config())
    await st.scheduler.start()
    try:
        await asyncio.to_thread(pg_server.stop, "fast")
        try:
            run = asyncio.ensure_future(st.scheduler.run_until_idle())
            await _until(lambda: st.scheduler.link.down or run.done(), "never noticed", 30)
            assert not run.done(), run.exception()
        finally:
            await asyncio.to_thread(pg_server.start)
        assert await asyncio.wait_for(run, 60) == []
    finally:
        await st.close()
