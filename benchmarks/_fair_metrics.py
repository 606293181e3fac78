"""B10's measures (:mod:`benchmarks.bench_fairness`), pure functions of what a checker outside
the app sees: the tasks' batch, creation, start and finish times (the export) and the
generations the simulators served, (task id, start, end) on the wall clock.

*Service* is generation seconds, as the issue counts it: the length of each served generation,
clipped to the window it is measured in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

Generation = tuple[str, float, float]  # (task id, start, end)


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 when all are equal, 1/n when one has it all."""
    total, squares = sum(values), sum(x * x for x in values)
    if not values or squares == 0:
        return math.nan
    return total * total / (len(values) * squares)


def service(
    gens: Iterable[Generation], batch_of: Mapping[str, str], lo: float, hi: float
) -> dict[str, float]:
    """Generation seconds per batch inside [lo, hi)."""
    out: dict[str, float] = {}
    for task_id, start, end in gens:
        inside = min(end, hi) - max(start, lo)
        if inside > 0:
            batch = batch_of.get(task_id, "?")
            out[batch] = out.get(batch, 0.0) + inside
    return out


def windows(lo: float, hi: float, width: float) -> list[tuple[float, float]]:
    """The whole windows of ``width`` from ``lo`` that end by ``hi``."""
    count = int((hi - lo) // width) if hi > lo else 0
    return [(lo + i * width, lo + (i + 1) * width) for i in range(count)]


def window_indexes(
    gens: Sequence[Generation],
    batch_of: Mapping[str, str],
    batches: Sequence[str],
    lo: float,
    hi: float,
    width: float,
) -> list[float]:
    """Jain's index of the batches' service in each whole window of [lo, hi)."""
    out = []
    for a, b in windows(lo, hi, width):
        got = service(gens, batch_of, a, b)
        out.append(jain([got.get(name, 0.0) for name in batches]))
    return out


def backlogged_until(starts: Mapping[str, Sequence[float]]) -> float:
    """Until when every batch still had a task waiting: the earliest of their last starts
    (after its last start a batch has nothing left to claim)."""
    return min(max(times) for times in starts.values())


def alone_span(starts: Sequence[float], finishes: Sequence[float]) -> float:
    """A batch run by itself: from its first start to its last finish."""
    return max(finishes) - min(starts)


def rate(gens: Sequence[Generation], lo: float, hi: float) -> float:
    """Generation seconds per second in [lo, hi): the slots in use on average."""
    if hi <= lo:
        return math.nan
    return sum(service(gens, {}, lo, hi).values()) / (hi - lo)


def class_shares(
    gens: Sequence[Generation],
    class_of: Mapping[str, str],
    both: tuple[float, float],
    alone: Mapping[str, tuple[float, float]],
) -> dict[str, float]:
    """Each class's share of the service while both were backlogged (``both``), and — for a
    class left alone in its interval — its service rate there ÷ the rate both classes got
    together while both were backlogged (1.0: it had every slot the two had shared; a class
    held to its weight would show its weight)."""
    lo, hi = both
    got = service(gens, class_of, lo, hi)
    total = sum(got.values())
    out = {name: (got.get(name, 0.0) / total if total else math.nan) for name in alone}
    full = rate(gens, lo, hi)
    for name, (a, b) in alone.items():
        mine = [g for g in gens if class_of.get(g[0]) == name]
        out[f"{name}_alone"] = rate(mine, a, b) / full if full else math.nan
    return out
