"""``python -m benchmarks {seed,isolation,overhead,web,gui,cancel,io,team,breakage,fairness,
repair,metrics,submits,all} [--quick] [--json] [--out FILE | --into FILE]`` — and
``python -m benchmarks team --stations N [--via-pgbouncer]``, B8's fleet of real ``run`` processes
(benchmarks/bench_fleet.py).

Each benchmark is a module ``benchmarks.bench_<name>`` with ``run(quick) -> dict`` and
``markdown(result) -> str``. ``all`` runs every one of them and writes ``BENCHMARKS.md`` (or
``--out``); a module that is missing or fails becomes a FAILED section with its error, and the
others still run. ``--into FILE`` (``BENCHMARKS.md``) runs the named benchmark(s) and puts
their sections in place of the same sections of FILE, keeping the others. Every section carries
where it comes from (the command, the commit, the date, the load average at its start) in a
marker line, and the header's table is rebuilt from those markers: the file says which run
produced each section. With ``--json`` stdout carries exactly one JSON object; everything else
(logs, progress, simulators' chatter) goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import logging
import math
import re
import shlex
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from benchmarks.report import REPO, failed_section, machine, machine_markdown

BENCHMARKS = {
    "seed": "benchmarks.bench_seed",
    "isolation": "benchmarks.bench_isolation",
    "overhead": "benchmarks.bench_overhead",
    "web": "benchmarks.bench_web",
    "gui": "benchmarks.bench_gui",
    "cancel": "benchmarks.bench_cancel",
    "io": "benchmarks.bench_io",
    "team": "benchmarks.bench_team",
    "breakage": "benchmarks.bench_breakage",
    "fairness": "benchmarks.bench_fairness",
    "repair": "benchmarks.bench_repair",
    "metrics": "benchmarks.bench_metrics",
    "submits": "benchmarks.bench_submits",
}
TITLES = {
    "seed": "B1 — seed workload",
    "isolation": "B2 — API isolation",
    "overhead": "B3 — overhead",
    "web": "B4 — web lane (bench_web)",
    "gui": "B5 — GUI (bench_gui)",
    "cancel": "B6 — cancel latency",
    "io": "B7 — the window never waits",
    "team": "B8 — team mode",
    "fleet": "B8 fleet — workstations directly",
    "fleet-pgbouncer": "B8 fleet — through PgBouncer",
    "breakage": "B9 — a site changes its page",
    "fairness": "B10 — a fair queue",
    "repair": "B11 — a changed site repaired and proven",
    "metrics": "B12 — the lanes measured",
    "submits": "B13 — a big import beside the team",
}
DEFAULT_OUT = "BENCHMARKS.md"


def _jsonable(value: Any) -> Any:
    """NaN/inf are not JSON: write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def run_one(name: str, quick: bool) -> tuple[dict[str, Any] | None, str]:
    """(result, markdown) — or (None, a FAILED section) if the module is missing or raises."""
    module_name = BENCHMARKS[name]
    started = time.perf_counter()
    print(f"[benchmarks] {name}: running{' (quick)' if quick else ''}…", file=sys.stderr)
    try:
        module = importlib.import_module(module_name)
        result = module.run(quick)
        text = module.markdown(result)
    except Exception:  # any failure of one benchmark becomes its section, not a crash
        error = traceback.format_exc(limit=8)
        print(f"[benchmarks] {name}: FAILED\n{error}", file=sys.stderr)
        return None, failed_section(TITLES[name], module_name, error)
    took = time.perf_counter() - started
    print(f"[benchmarks] {name}: done in {took:.1f} s", file=sys.stderr)
    return result, text


def run_fleet(stations: int, via_pgbouncer: bool) -> tuple[str, dict[str, Any] | None, str]:
    """B8's fleet (benchmarks/bench_fleet.py) as a section of its own: ``fleet`` (directly) or
    ``fleet-pgbouncer``."""
    name = "fleet-pgbouncer" if via_pgbouncer else "fleet"
    from benchmarks import bench_fleet

    print(f"[benchmarks] {name}: {stations} workstations…", file=sys.stderr)
    try:
        result = bench_fleet.run(stations, via_pgbouncer)
        return name, result, bench_fleet.markdown(result)
    except Exception:  # a failed run is its section, as with the others
        error = traceback.format_exc(limit=8)
        print(f"[benchmarks] {name}: FAILED\n{error}", file=sys.stderr)
        return name, None, failed_section(TITLES[name], "benchmarks.bench_fleet", error)


def _verdicts(result: dict[str, Any] | None) -> tuple[int, int]:
    targets = (result or {}).get("targets", [])
    passed = sum(bool(t.get("passed")) for t in targets)
    return passed, len(targets) - passed


MARKER = re.compile(r"^<!-- section (?P<json>\{.*\}) -->$", re.MULTILINE)


def section(
    name: str, command: str, info: dict[str, Any], result: dict[str, Any] | None, text: str
) -> dict[str, Any]:
    """One section of the document with where it comes from."""
    if result is None:
        targets = "**FAILED**"
    else:
        passed, missed = _verdicts(result)
        targets = f"{passed} pass, {missed} miss"
    took = (result or {}).get("elapsed_s")
    return {
        "name": name,
        "command": command,
        "code": info["git"],
        "date": info["date"],
        "load": ", ".join(str(x) for x in info["load_avg_at_start"]),
        "targets": targets,
        "took": f"{took:.0f} s" if isinstance(took, int | float) else "–",
        "text": text.rstrip() + "\n",
    }


def read_sections(text: str) -> list[dict[str, Any]]:
    """The sections of a document :func:`document` wrote (their markers and text)."""
    found = list(MARKER.finditer(text))
    out = []
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        body = text[m.end() : end].strip("\n")
        body = body.split(TOTAL_LINE, 1)[0].rstrip() + "\n"
        out.append({**json.loads(m.group("json")), "text": body})
    return out


TOTAL_LINE = "\nTotal time of this run:"


def document(info: dict[str, Any], sections: list[dict[str, Any]]) -> str:
    order = {name: i for i, name in enumerate(TITLES)}
    sections = sorted(sections, key=lambda x: order.get(x["name"], len(order)))
    summary = [
        f"| {TITLES.get(x['name'], x['name'])} | {x['targets']} | {x['took']} | "
        f"`{x['command']}` | {x['code']} | {x['date']} | {x['load']} |"
        for x in sections
    ]
    runs = {(x["command"], x["code"], x["date"]) for x in sections}
    parts = [
        "# Benchmarks",
        "",
        "Generated — do not edit by hand. Every section comes from the run named beside it in "
        "the table below (its command, the commit it ran at, its date and the 1/5/15-min load "
        "average at its start): "
        + ("one run." if len(runs) == 1 else f"{len(runs)} runs.")
        + " `python -m benchmarks all` writes every section; `python -m benchmarks NAME "
        "--into BENCHMARKS.md` replaces one. Figures under a *History* heading or line are "
        "cited with their own commit and are not measured by any run below.",
        "",
        "The machine of the latest run:",
        "",
        machine_markdown(info),
        "",
        "| benchmark | targets | took | command | code | date | load at start |",
        "|---|---|---|---|---|---|---|",
        *summary,
        "",
    ]
    for x in sections:
        marker = {k: v for k, v in x.items() if k != "text"}
        parts += [f"<!-- section {json.dumps(marker, ensure_ascii=False)} -->", x["text"]]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("benchmark", choices=[*BENCHMARKS, "all"])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--out", help=f"write Markdown here (default for 'all': {DEFAULT_OUT} in the repository)"
    )
    where.add_argument(
        "--into",
        metavar="FILE",
        help="put this run's sections in place of the same sections of FILE, keep the others",
    )
    # Issue 28: B8's fleet of real `run` processes (benchmarks/bench_fleet.py), instead of its
    # three-workstation phases.
    parser.add_argument("--stations", type=int, help="team: N workstations' `run` (the fleet)")
    parser.add_argument(
        "--via-pgbouncer", action="store_true", help="team: the fleet through PgBouncer"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    command = "python -m benchmarks " + shlex.join(sys.argv[1:] if argv is None else argv)
    fleet = args.stations is not None or args.via_pgbouncer
    if fleet and args.benchmark != "team":
        parser.error("--stations and --via-pgbouncer go with 'team'")
    names = list(BENCHMARKS) if args.benchmark == "all" else [args.benchmark]
    real_stdout = sys.stdout
    started = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):  # stray prints must not break --json
        info = machine()
        if fleet:
            sections = [run_fleet(args.stations or 50, args.via_pgbouncer)]
        else:
            sections = [(name, *run_one(name, args.quick)) for name in names]
    elapsed = time.perf_counter() - started
    out = args.into or args.out
    out = out or (str(REPO / DEFAULT_OUT) if args.benchmark == "all" else None)
    if out is not None:
        path = Path(out)
        if not path.is_absolute():
            path = Path.cwd() / path
        fresh = [section(name, command, info, result, text) for name, result, text in sections]
        kept = []
        if args.into and path.exists():
            ran = {x["name"] for x in fresh}
            kept = [
                x for x in read_sections(path.read_text(encoding="utf-8")) if x["name"] not in ran
            ]
        text = document(info, kept + fresh)
        if not kept:
            text += f"{TOTAL_LINE} {elapsed:.0f} s.\n"
        path.write_text(text, encoding="utf-8")
        print(
            f"[benchmarks] wrote {path.relative_to(REPO) if path.is_relative_to(REPO) else path}",
            file=sys.stderr,
        )
    if args.json:
        if args.benchmark == "all":
            payload: dict[str, Any] = {
                "command": command,
                "machine": info,
                "elapsed_s": elapsed,
                "results": {
                    name: result if result is not None else {"failed": True, "error": text.strip()}
                    for name, result, text in sections
                },
            }
        else:
            name, result, text = sections[0]
            payload = result if result is not None else {"failed": True, "error": text.strip()}
        real_stdout.write(json.dumps(_jsonable(payload), ensure_ascii=False) + "\n")
    elif out is None:
        real_stdout.write("\n".join(text for _, _, text in sections) + "\n")
    failed = any(result is None for _, result, _ in sections)
    return 1 if failed and args.benchmark != "all" else 0


if __name__ == "__main__":
    sys.exit(main())
