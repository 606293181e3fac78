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

SLOTS = 5  # 2 web accounts + 1 API account at concurrency 3
WINDOW_SIM_S = 60.0
B_DELAY_SIM_S = 60.0
URGENT_PRIORITY = 10
WANTED_URGENT = 0.70
SEED = 30
# scale: simulated seconds per real second. Tasks of 5-10 simulated seconds last 1-2 real
# seconds in a full run (0.5-1 in a quick one): a claim's own cost on a busy 2-core machine
# (a tenth of a second or more) stays small beside them.
FULL = {
    "scale": 5.0,
    "a": 400,
    "b": 20,
    "equal": 100,
    "urgent": 200,
    "normal": 130,
    "station": 100,
    "urgent_alone_sim_s": 80.0,
}
QUICK = {
    "scale": 10.0,
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
KINDS = ("web", "api")


def _starts(o: Observed, batch: str, kind: str | None = None) -> list[float]:
    return [
        t.started_at
        for t in o.tasks.values()
        if t.batch_id == batch and t.started_at and kind in (None, t.kind)
    ]


def _finishes(o: Observed, batch: str) -> list[float]:
    return [t.finished_at for t in o.tasks.values() if t.batch_id == batch and t.finished_at]


def _backlogged_until(o: Observed, batches: Sequence[str]) -> float:
    """Until every batch still had a task waiting in each lane (a batch whose web tasks have
    all started leaves the web accounts to the others, whatever the scheduler does)."""
    return fm.backlogged_until({(b, k): _starts(o, b, k) for b in batches for k in KINDS})


def _under_way(o: Observed) -> float:
    """When both lanes had started (a web account starts later than the API lane when its
    process starts): each lane's first generation, the later one."""
    return max(min(g[1] for g in o.generations if o.tasks[g[0]].kind == k) for k in KINDS)


def _ok(o: Observed) -> dict[str, Any]:
    return {
        "tasks": len(o.tasks),
        "succeeded": sum(t.state == "success" for t in o.tasks.values()),
        "export_mismatches": len(o.export_mismatches),
    }


def _one_pc(
    root: Path,
    name: str,
    scale: float,
    first: Sequence[Batch],
    later: Sequence[Batch] = (),
    delay_s: float = 0.0,
) -> Observed:
    """One workstation on SQLite: ``first`` submitted (the last one by ``run FILE``), ``later``
    submitted ``delay_s`` real seconds after the first generation; then the export."""
    with Phase(root, name, scale, [*first, *later]) as phase:
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


def big_and_small(root: Path, scale: float, n_a: int, n_b: int) -> dict[str, Any]:
    a, b = make_batch("A", n_a, SEED), make_batch("B", n_b, SEED)
    alone_a = _one_pc(root, "a-alone", scale, [a])
    alone_b = _one_pc(root, "b-alone", scale, [b])
    mix = _one_pc(root, "a-and-b", scale, [a], [b], B_DELAY_SIM_S / scale)
    a_alone = fm.alone_span(_starts(alone_a, "A"), _finishes(alone_a, "A"))
    b_alone = fm.alone_span(_starts(alone_b, "B"), _finishes(alone_b, "B"))
    b_created = min(t.created_at for t in mix.tasks.values() if t.batch_id == "B")
    b_mix = max(_finishes(mix, "B")) - b_created
    a_mix = max(_finishes(mix, "A")) - min(_starts(mix, "A"))
    b_gens = [g for g in mix.generations if mix.tasks[g[0]].batch_id == "B"]
    b_work = sum(end - start for _, start, end in b_gens) / SLOTS
    one_task = max((end - start for _, start, end in b_gens), default=math.nan)
    b_first = min(_starts(mix, "B"))
    in_use = {
        name: fm.rate(o.generations, _under_way(o), _backlogged_until(o, ["A"]))
        for name, o in (("A alone", alone_a), ("A beside B", mix))
    }
    return {
        "runs": {"A alone": _ok(alone_a), "B alone": _ok(alone_b), "A then B": _ok(mix)},
        "a_alone_s": a_alone * scale,
        "b_alone_s": b_alone * scale,
        "b_mix_s": b_mix * scale,
        "b_wait_s": (b_first - b_created) * scale,
        "b_submitted_after_s": (b_created - min(_starts(mix, "A"))) * scale,
        "a_mix_s": a_mix * scale,
        "b_work_s": b_work * scale,
        "one_task_s": one_task * scale,
        "slots_in_use": in_use,
        "small_batch_slowdown": b_mix / b_alone,
        "small_batch_limit": 1.5 + one_task / b_alone,
        "big_batch_overhead": a_mix / (a_alone + b_work),
    }


def _jain_of(o: Observed, batches: Sequence[str], scale: float) -> dict[str, Any]:
    lo, hi = _under_way(o), _backlogged_until(o, batches)
    width = WINDOW_SIM_S / scale
    indexes = fm.window_indexes(o.generations, o.batch_of(), batches, lo, hi, width)
    totals = fm.service(o.generations, o.batch_of(), lo, lo + width * len(indexes))
    return {
        **_ok(o),
        "windows": len(indexes),
        "indexes": indexes,
        "min": min(indexes, default=math.nan),
        "mean": sum(indexes) / len(indexes) if indexes else math.nan,
        "service_s": {b: totals.get(b, 0.0) * scale for b in batches},
        "backlogged_s": (hi - lo) * scale,
        "slots_in_use": fm.rate(o.generations, lo, hi),
    }


def equal_batches(root: Path, scale: float, n: int) -> dict[str, Any]:
    batches = [make_batch(name, n, SEED) for name in ("E1", "E2", "E3", "E4")]
    observed = _one_pc(root, "four-batches", scale, batches)
    return _jain_of(observed, [b.batch_id for b in batches], scale)


def urgent_normal(
    root: Path, scale: float, n_urgent: int, n_normal: int, alone_sim_s: float
) -> dict[str, Any]:
    u = make_batch("U", n_urgent, SEED, priority=URGENT_PRIORITY)
    n = make_batch("N", n_normal, SEED)
    o = _one_pc(root, "urgent-normal", scale, [u], [n], alone_sim_s / scale)
    cls = {t.task_id: ("urgent" if t.batch_id == "U" else "normal") for t in o.tasks.values()}
    longest = DURATION_S[1] / scale  # a newcomer waits for a running task to end
    n_created = min(t.created_at for t in o.tasks.values() if t.batch_id == "N")
    both = (n_created + longest, _backlogged_until(o, ["U", "N"]))
    alone = {
        "urgent": (_under_way(o) + longest, n_created),
        "normal": (max(_finishes(o, "U")), _backlogged_until(o, ["N"])),
    }
    return {
        **_ok(o),
        "shares": fm.class_shares(o.generations, cls, both, alone),
        "slots_in_use": {
            "both": fm.rate(o.generations, *both),
            **{f"{k}_alone": fm.rate(o.generations, *v) for k, v in alone.items()},
        },
        "intervals_s": {
            "both": (both[1] - both[0]) * scale,
            "urgent_alone": (alone["urgent"][1] - alone["urgent"][0]) * scale,
            "normal_alone": (alone["normal"][1] - alone["normal"][0]) * scale,
        },
    }


def workstations(root: Path, scale: float, n: int) -> dict[str, Any]:
    server = start_server()
    if server is None:
        raise RuntimeError("PostgreSQL is not installed (scripts/setup.sh installs it)")
    batches = [make_batch(f"W{i + 1}", n, SEED) for i in range(len(STATIONS))]
    try:
        url = server.new_database("b10")
        with Phase(root, "workstations", scale, batches) as phase:
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
    return _jain_of(o, [b.batch_id for b in batches], scale)
