"""One workstation of a team, as its own process (B8 and tests/faults/test_team_processes.py).

    python -m benchmarks._team_station --ledger FILE [--durations FILE] [--after-line] -- ARGS...

is the real ``media-assistant ARGS...`` (``run``, ``submit``…), with one difference: its
simulated web site (``site = "fake"``, in-process) reports every generation to FILE, which every
workstation of the run shares (:class:`benchmarks._team_env.Ledger`): the site's own counters see
one process, a team's conflicts span several. ``--durations``: a JSON object task id → seconds,
the generation time of each web task (B8's seed workload; otherwise the config's
``[simulation]``). ``--after-line``: load the command, print ``ready``, start it on a line
from stdin (B10 submits a batch at a chosen moment).

    python -m benchmarks._team_station --bench SPEC.json

is B8's workstation: the same services and scheduler as ``run`` (``Services.open``, the
workstation's config and data dir), plus what B8 measures inside it. SPEC: ``data_dir``,
``ledger``, ``durations`` (as above, or null), ``provider`` (``registry``: the configured
accounts, as ``run``; ``noop``: every account answers at once), ``follow`` (run the window's
database follower — LISTEN/NOTIFY — and note when another workstation's changes show here). It
prints ``ready`` once its scheduler runs, waits for a line on stdin (B8 submits the work
meanwhile), runs until the team's queue is idle, and prints one JSON line; it exits with
:data:`STUCK` (3) when the queue went idle with tasks it could not run (their models under
``stuck``), so B8 reports a failed run, never figures with work left undone.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import itertools
import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks._team_env import Ledger

STUCK = 3  # the bench workstation's exit when tasks were left that no account could run


def install_ledger(path: Path, durations: Mapping[str, float] | None = None) -> None:
    """Every generation of the simulated web site, in this process, goes to the ledger."""
    from media_assistant.core.model.provider import GenerationResult, TaskContext
    from media_assistant.sim import fake_web

    ledger = Ledger(path)
    original = fake_web.FakeWebProvider.generate
    numbers = itertools.count()

    async def generate(self: fake_web.FakeWebProvider, ctx: TaskContext) -> GenerationResult:
        mark = {"task": ctx.task.task_id, "account": self.account_id, "pid": os.getpid()}
        mark["n"] = next(numbers)
        ledger.write(event="start", at=time.time(), **mark)
        ok = False
        try:
            result = await original(self, ctx)
            ok = True
            return result
        finally:
            ledger.write(event="end", at=time.time(), ok=ok, **mark)

    fake_web.FakeWebProvider.generate = generate  # type: ignore[method-assign]
    if durations is not None:
        table = dict(durations)
        fake_web.FakeChatSite.duration = (  # type: ignore[method-assign]
            lambda self, task_id: table[task_id]
        )


class _Noop:
    async def generate(self, ctx: Any) -> Any:
        from media_assistant.core.model.provider import GenerationResult

        return GenerationResult(text="ok")

    async def aclose(self) -> None:
        return None


class Visibility:
    """What this workstation's follower brought in from the others, and when: for each task
    whose state (and attempt) moved, (task, state, when it was published here, on the
    database's clock). B8 compares it with the commit time of the change (the server's commit
    timestamps): the change's own time stamp is taken before its transaction, which may wait."""

    def __init__(self, now: Any) -> None:
        self.now = now
        self.seen: dict[str, tuple[str, int]] = {}
        self.samples: list[tuple[str, str, float]] = []

    def on_event(self, event: Any) -> None:
        from media_assistant.core.model.events import TasksSynced

        if not isinstance(event, TasksSynced):
            return
        now = self.now()
        for row in event.rows:
            key = (str(row["state"]), int(row["attempt"] or 0))
            if self.seen.get(row["task_id"]) == key:
                continue
            self.seen[row["task_id"]] = key
            if key[0] in ("running", "success", "failed", "canceled"):
                self.samples.append((str(row["task_id"]), key[0], now))


async def bench(spec: dict[str, Any]) -> dict[str, Any]:
    from media_assistant.core.files.paths import Paths
    from media_assistant.services import Services

    if spec.get("ledger"):
        install_ledger(Path(spec["ledger"]), spec.get("durations"))
    paths = Paths.resolve(Path(spec["data_dir"]))
    services = Services.open(paths)
    try:
        services.bind_loop()
        factory = (lambda _account: _Noop()) if spec.get("provider") == "noop" else None
        scheduler = services.scheduler(factory)
        visibility = Visibility(services.clock.now)
        follower = services.follower() if spec.get("follow") else None
        if follower is not None:
            services.bus.subscribe(visibility.on_event)
            await follower.start()
        await scheduler.start()
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        stuck = await scheduler.run_until_idle()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        await scheduler.stop()
        if follower is not None:
            await follower.stop()
        return {
            "workstation": services.workstation,
            "stuck": [s.model for s in stuck],
            "seen": visibility.samples,
            "cpu_s": cpu,
            "wall_s": wall,
        }
    finally:
        services.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks._team_station")
    parser.add_argument("--ledger", type=Path)
    parser.add_argument("--durations", type=Path)
    parser.add_argument("--bench", type=Path, metavar="SPEC")
    # B10: the command loaded, then started on a line from stdin (a submit at a chosen moment,
    # not seconds later on a busy machine).
    parser.add_argument("--after-line", action="store_true")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.bench is not None:
        spec = json.loads(args.bench.read_text(encoding="utf-8"))
        result = asyncio.run(bench(spec))
        print(json.dumps(result), flush=True)
        return STUCK if result["stuck"] else 0
    durations = json.loads(args.durations.read_text()) if args.durations else None
    if args.ledger is not None:
        install_ledger(args.ledger, durations)
    from media_assistant.cli import main as media_assistant

    if args.after_line:
        for module in ("media_assistant.commands.tasks", "media_assistant.services"):
            importlib.import_module(module)  # loaded before the line, not after it
        print("ready", flush=True)
        sys.stdin.readline()
    rest = args.args[1:] if args.args[:1] == ["--"] else args.args
    return media_assistant(rest)


if __name__ == "__main__":
    sys.exit(main())
