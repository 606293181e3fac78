"""B10's scenarios (:mod:`benchmarks.bench_fairness`, which says what each measures): each
runs the real commands on a fresh data dir (:mod:`benchmarks._fair_env`) and returns its figures
(:mod:`benchmarks._fair_metrics`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import _fair_metrics as fm
from benchmarks._fair_env import DURATION_S, Batch, Observed, Phase, make_batch, sleep_until
from benchmarks.postgres_server import start_server

SCALE = 10.0  # simulated seconds per real second
SLOTS = 5  # 2 web accounts + 1 API account at concurrency 3
WINDOW_SIM_S = 60.0
B_DELAY_SIM_S = 60.0
URGENT_PRIORITY = 10
WANTED_URGENT = 0.70
SEED = 30
FULL = {
    "a": 400,
    "b": 20,
    "equal": 100,
    "urgent": 200,
    "normal": 130,
    "station": 100,
    "urgent_alone_sim_s": 80.0,
}
QUICK = {
    "a": 200,
    "b": 20,
    "equal": 50,
    "urgent": 100,
    "normal": 65,
    "station": 50,
    "urgent_alone_sim_s": 40.0,
}
WEB = ["web-1", "web-2"]
STATIONS = ("pc-1", "pc-2", "pc-3")
LONGEST_S = DURATION_S[1] / SCALE  # one task at most, real seconds


def _starts(o: Observed, batch: str) -> list[float]:
    return [t.started_at for t in o.tasks.values() if t.batch_id == batch and t.started_at]


def _finishes(o: Observed, batch: str) -> list[float]:
    return [t.finished_at for t in o.tasks.values() if t.batch_id == batch and t.finished_at]


def _ok(o: Observed) -> dict[str, Any]:
    return {
        "tasks": len(o.tasks),
        "succeeded": sum(t.state == "success" for t in o.tasks.values()),
        "export_mismatches": len(o.export_mismatches),
    }


def _one_pc(
    root: Path, name: str, first: Sequence[Batch], later: Sequence[Batch] = (), delay_s: float = 0.0
) -> Observed:
    """One workstation on SQLite: ``first`` submitted (the last one by ``run FILE``), ``later``
    submitted ``delay_s`` real seconds after the first generation; then the export."""
    with Phase(root, name, SCALE, [*first, *later]) as phase:
        data = phase.data_dir("pc", WEB)
        for station in [phase.submit(data, b.batch_id) for b in first[:-1]]:
            phase.finish(station)  # at once: a loaded machine starts each in seconds
        waiting = [phase.submit(data, b.batch_id, on_line=True) for b in later]
        run = phase.submit(data, first[-1].batch_id, verb="run")
        if waiting:
            sleep_until(phase.first_generation() + delay_s)
            for station in waiting:
                station.send("go")
            for station in waiting:
                phase.finish(station)
        phase.finish(run)
        observed = phase.observe(data)
    left = [t.task_id for t in observed.tasks.values() if t.started_at is None]
    if left:
        raise RuntimeError(
            f"{name}: {len(left)} task(s) never started ({left[0]}…): `run` ended before a "
            "batch submitted later was in (the machine too slow for the delay?)"
        )
    return observed


def big_and_small(root: Path, n_a: int, n_b: int) -> dict[str, Any]:
    a, b = make_batch("A", n_a, SEED), make_batch("B", n_b, SEED)
    alone_a = _one_pc(root, "a-alone", [a])
    alone_b = _one_pc(root, "b-alone", [b])
    mix = _one_pc(root, "a-and-b", [a], [b], B_DELAY_SIM_S / SCALE)
    a_alone = fm.alone_span(_starts(alone_a, "A"), _finishes(alone_a, "A"))
    b_alone = fm.alone_span(_starts(alone_b, "B"), _finishes(alone_b, "B"))
    b_created = min(t.created_at for t in mix.tasks.values() if t.batch_id == "B")
    b_mix = max(_finishes(mix, "B")) - b_created
    a_mix = max(_finishes(mix, "A")) - min(_starts(mix, "A"))
    b_gens = [g for g in mix.generations if mix.tasks[g[0]].batch_id == "B"]
    b_work = sum(end - start for _, start, end in b_gens) / SLOTS
    one_task = max((end - start for _, start, end in b_gens), default=math.nan)
    b_first = min(_starts(mix, "B"))
    return {
        "runs": {"A alone": _ok(alone_a), "B alone": _ok(alone_b), "A then B": _ok(mix)},
        "a_alone_s": a_alone * SCALE,
        "b_alone_s": b_alone * SCALE,
        "b_mix_s": b_mix * SCALE,
        "b_wait_s": (b_first - b_created) * SCALE,
        "b_submitted_after_s": (b_created - min(_starts(mix, "A"))) * SCALE,
        "a_mix_s": a_mix * SCALE,
        "b_work_s": b_work * SCALE,
        "one_task_s": one_task * SCALE,
        "small_batch_slowdown": b_mix / b_alone,
        "small_batch_limit": 1.5 + one_task / b_alone,
        "big_batch_overhead": a_mix / (a_alone + b_work),
    }


def _jain_of(o: Observed, batches: Sequence[str]) -> dict[str, Any]:
    lo = min(g[1] for g in o.generations)
    hi = fm.backlogged_until({b: _starts(o, b) for b in batches})
    width = WINDOW_SIM_S / SCALE
    indexes = fm.window_indexes(o.generations, o.batch_of(), batches, lo, hi, width)
    totals = fm.service(o.generations, o.batch_of(), lo, lo + width * len(indexes))
    return {
        **_ok(o),
        "windows": len(indexes),
        "indexes": indexes,
        "min": min(indexes, default=math.nan),
        "mean": sum(indexes) / len(indexes) if indexes else math.nan,
        "service_s": {b: totals.get(b, 0.0) * SCALE for b in batches},
        "backlogged_s": (hi - lo) * SCALE,
    }


def equal_batches(root: Path, n: int) -> dict[str, Any]:
    batches = [make_batch(name, n, SEED) for name in ("E1", "E2", "E3", "E4")]
    return _jain_of(_one_pc(root, "four-batches", batches), [b.batch_id for b in batches])


def urgent_normal(root: Path, n_urgent: int, n_normal: int, alone_sim_s: float) -> dict[str, Any]:
    u = make_batch("U", n_urgent, SEED, priority=URGENT_PRIORITY)
    n = make_batch("N", n_normal, SEED)
    o = _one_pc(root, "urgent-normal", [u], [n], alone_sim_s / SCALE)
    cls = {t.task_id: ("urgent" if t.batch_id == "U" else "normal") for t in o.tasks.values()}
    # Both lanes under way: each lane's first generation (a web account starts later than the
    # API lane when its process starts), then one task's duration.
    first = max(
        min(g[1] for g in o.generations if o.tasks[g[0]].kind == kind) for kind in ("web", "api")
    )
    n_created = min(t.created_at for t in o.tasks.values() if t.batch_id == "N")
    both_end = fm.backlogged_until({"U": _starts(o, "U"), "N": _starts(o, "N")})
    u_end = max(_finishes(o, "U"))
    both = (n_created + LONGEST_S, both_end)
    alone = {"urgent": (first + LONGEST_S, n_created), "normal": (u_end, max(_starts(o, "N")))}
    shares = fm.class_shares(o.generations, cls, both, alone)
    return {
        **_ok(o),
        "shares": shares,
        "slots_in_use": {
            "both": fm.rate(o.generations, *both),
            **{f"{k}_alone": fm.rate(o.generations, *v) for k, v in alone.items()},
        },
        "intervals_s": {
            "both": (both[1] - both[0]) * SCALE,
            "urgent_alone": (alone["urgent"][1] - alone["urgent"][0]) * SCALE,
            "normal_alone": (alone["normal"][1] - alone["normal"][0]) * SCALE,
        },
    }


def workstations(root: Path, n: int) -> dict[str, Any]:
    server = start_server()
    if server is None:
        raise RuntimeError("PostgreSQL is not installed (scripts/setup.sh installs it)")
    batches = [make_batch(f"W{i + 1}", n, SEED) for i in range(len(STATIONS))]
    try:
        url = server.new_database("b10")
        with Phase(root, "workstations", SCALE, batches) as phase:
            dirs = [phase.data_dir(s, [f"web-{s}"], store_url=url) for s in STATIONS]
            submits = [phase.submit(d, b.batch_id) for d, b in zip(dirs, batches, strict=True)]
            for station in submits:
                phase.finish(station)
            runs = [phase.command(f"run-{d.name}", d, "run").start() for d in dirs]
            codes = [phase.finish(r) for r in runs]
            o = phase.observe(dirs[0], url)
            o.exit_codes = codes
    finally:
        server.destroy()
    return _jain_of(o, [b.batch_id for b in batches])
