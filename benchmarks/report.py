"""What every benchmark shares: statistics, the machine it ran on, and Markdown pieces.

A benchmark module returns a plain, JSON-serialisable dict from ``run(quick)``; each target in it
is a :func:`target` dict, so ``BENCHMARKS.md`` and ``--json`` tell the same story.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import platform
import sqlite3
import statistics
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------- statistics


def percentile(values: Iterable[float], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default): p in 0..100."""
    data = sorted(values)
    if not data:
        return math.nan
    k = (len(data) - 1) * p / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return data[lo] + (data[hi] - data[lo]) * (k - lo)


def median(values: Iterable[float]) -> float:
    data = list(values)
    return statistics.median(data) if data else math.nan


def mean(values: Iterable[float]) -> float:
    data = list(values)
    return statistics.fmean(data) if data else math.nan


# ---------------------------------------------------------------------------- targets


def target(
    name: str, wanted: str, value: float | str | None, passed: bool, why: str = ""
) -> dict[str, Any]:
    """One target: what was wanted, what was measured (a number, or words such as "never" or
    "not measured: …" when there is no number), and — for a miss — where the limit is."""
    return {"name": name, "target": wanted, "value": value, "passed": passed, "explanation": why}


def not_measured(name: str, wanted: str, reason: str) -> dict[str, Any]:
    """A target the run did not measure (a skipped scenario, a quick run's left-out case): a
    MISS that says why, never a dropped row."""
    return target(name, wanted, "not measured", False, f"not measured: {reason}")


def verdict(passed: bool) -> str:
    return "**PASS**" if passed else "**MISS**"


def targets_table(targets: Sequence[dict[str, Any]]) -> str:
    rows = [[t["name"], t["target"], fmt(t["value"]), verdict(bool(t["passed"]))] for t in targets]
    out = table(["target", "wanted", "measured", "result"], rows)
    notes = [f"- **{t['name']}** missed: {t['explanation']}" for t in targets if not t["passed"]]
    notes += [
        f"- {t['name']}: {t['explanation']}" for t in targets if t["passed"] and t["explanation"]
    ]
    return out + ("\n\n" + "\n".join(notes) if notes else "")


# ---------------------------------------------------------------------------- markdown


def fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        size = abs(value)
        if size >= 1000:
            return f"{value:,.0f}"
        if size >= 100:
            return f"{value:.1f}"
        if size >= 10:
            return f"{value:.2f}"
        if size >= 0.1 or value == 0:
            return f"{value:.3f}"
        return f"{value:.2g}"
    return str(value)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(c if isinstance(c, str) else fmt(c) for c in row) + " |")
    return "\n".join(lines)


def failed_section(name: str, module: str, error: str) -> str:
    return (
        f"## {name}\n\n**FAILED** — `{module}` did not produce a result:\n\n"
        f"```\n{error.strip()}\n```\n"
    )


# ---------------------------------------------------------------------------- the machine


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()


def _git_revision() -> str:
    try:
        rev = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
        return rev + (" + uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine() -> dict[str, Any]:
    import sqlalchemy

    vm = psutil.virtual_memory()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    return {
        "cpu": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "physical_cores": psutil.cpu_count(logical=False),
        "ram_gib": round(vm.total / 2**30, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "sqlalchemy": sqlalchemy.__version__,
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "git": _git_revision(),
        "load_avg_at_start": [round(x, 2) for x in load],
    }


def machine_markdown(m: dict[str, Any]) -> str:
    rows = [
        ["CPU", f"{m['cpu']} — {m['logical_cores']} logical / {m['physical_cores']} physical"],
        ["RAM", f"{m['ram_gib']} GiB"],
        ["OS", m["os"]],
        ["Python", m["python"]],
        ["SQLite", f"{m['sqlite']} (SQLAlchemy {m['sqlalchemy']})"],
        ["date", m["date"]],
        ["code", m["git"]],
        ["load average at start", ", ".join(str(x) for x in m["load_avg_at_start"])],
    ]
    return table(["", ""], rows)
