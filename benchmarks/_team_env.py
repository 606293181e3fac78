"""Workstations of a team as separate processes on one PostgreSQL: what B8
(:mod:`benchmarks.bench_team`) and tests/faults/test_team_processes.py share.

- **Configs**: each workstation gets its own data dir and ``config.toml`` (its name, the team
  database's URL, its own web account on the in-process simulated site, the API accounts on the
  API simulator over real HTTP, short heartbeats when a test kills one).
- **The web ledger**: the simulated chat site (``site = "fake"``) lives inside each process, so
  its own counters see one workstation only; a team's conflicts and repeats span several. Every
  workstation therefore reports each generation (start, end, outcome) to one append-only file
  (:class:`Ledger`, installed by :mod:`benchmarks._team_station`), and :func:`web_report` reads
  the whole team's generations from it — as the API simulator counts the team's requests.
- **Stations**: :class:`Station` starts one workstation process (``python -m
  benchmarks._team_station``), kills it with SIGKILL, collects its output.

Nothing here imports the tests; the database is read with plain SQL (psycopg), not through the
store under test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import psycopg
from psycopg.rows import dict_row

from benchmarks.report import REPO

KEY_ENV = "MA_TEAM_BENCH_KEY"  # each workstation reads the shared API key from its environment
API_KEY = "sk-team-shared"
WEB_MODEL, API_MODEL = "web-model", "api-model"


# ---------------------------------------------------------------------------- configs


@dataclass(frozen=True)
class ApiAccount:
    id: str
    base_url: str
    concurrency: int = 3
    rpm: int | None = None


def station_config(
    *,
    workstation: str,
    store_url: str,
    web_accounts: Sequence[str] = (),
    api_accounts: Sequence[ApiAccount] = (),
    heartbeat_s: float = 15.0,
    dead_after_s: float = 90.0,
    web_latency_s: tuple[float, float] = (1.0, 2.0),
    seed: int = 19,
) -> str:
    """A workstation's ``config.toml``: the team database in ``[store] url`` (no password:
    the test server trusts its local connections), its name in ``[team]``."""
    lines = [
        "[store]",
        f"url = {json.dumps(store_url)}",
        "",
        "[team]",
        f"workstation = {json.dumps(workstation)}",
        "",
        "[scheduler]",
        f"heartbeat_s = {heartbeat_s}",
        f"dead_after_s = {dead_after_s}",
        "",
        "[simulation]",
        f"web_latency_s = [{web_latency_s[0]}, {web_latency_s[1]}]",
        f"seed = {seed}",
        "",
    ]
    if web_accounts:
        lines += ["[[models]]", f'name = "{WEB_MODEL}"', 'kind = "web"', ""]
    if api_accounts:
        lines += ["[[models]]", f'name = "{API_MODEL}"', 'kind = "api"', ""]
    for account in web_accounts:
        lines += [
            "[[accounts]]",
            f'id = "{account}"',
            'kind = "web"',
            'site = "fake"',
            f'models = ["{WEB_MODEL}"]',
            "",
        ]
    for api in api_accounts:
        lines += [
            "[[accounts]]",
            f'id = "{api.id}"',
            'kind = "api"',
            f'base_url = "{api.base_url}"',
            f'api_key_env = "{KEY_ENV}"',
            f'models = ["{API_MODEL}"]',
            f"concurrency = {api.concurrency}",
            *([f"rpm = {api.rpm}"] if api.rpm else []),
            "",
        ]
    return "\n".join(lines)


def write_station(root: Path, name: str, config: str) -> Path:
    """``root/name``: the workstation's data dir, with its config."""
    data = root / name
    data.mkdir(parents=True, exist_ok=True)
    (data / "config.toml").write_text(config, encoding="utf-8")
    return data


# ---------------------------------------------------------------------------- the web ledger


class Ledger:
    """One JSON line per event, appended by every workstation process to the same file. Each
    line is one ``write`` on an ``O_APPEND`` descriptor: lines from several processes never
    interleave (a few hundred bytes, far below what Linux appends in one piece)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def write(self, **record: Any) -> None:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.write(self._fd, (json.dumps(record) + "\n").encode())

    def read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line]


@dataclass(frozen=True)
class WebRun:
    """One generation on the simulated site, as the ledger saw it."""

    task: str
    account: str
    pid: int
    start: float
    end: float  # wall clock; a generation cut by a kill ends at the kill
    ok: bool  # ran to its answer
    killed: bool = False


def web_runs(records: Iterable[Mapping[str, Any]], killed: Mapping[int, float]) -> list[WebRun]:
    """Generations from ledger lines. ``killed``: pid → when it was killed (its generations
    without an end ended then)."""
    starts: dict[tuple[int, str, int], Mapping[str, Any]] = {}
    runs: list[WebRun] = []
    for r in records:
        key = (int(r["pid"]), str(r["task"]), int(r["n"]))
        if r["event"] == "start":
            starts[key] = r
        else:
            s = starts.pop(key)
            runs.append(WebRun(r["task"], r["account"], r["pid"], s["at"], r["at"], bool(r["ok"])))
    for (pid, task, _), s in starts.items():
        end = killed.get(pid)
        if end is None:
            raise AssertionError(f"generation of {task} by pid {pid} never ended (not killed)")
        runs.append(WebRun(task, s["account"], pid, s["at"], end, False, killed=True))
    return runs


@dataclass
class WebReport:
    runs: int = 0
    answered: int = 0
    conflicts: int = 0  # generations that overlapped another on the same account
    max_per_account: int = 0  # most generations at once on one account
    repeated: list[str] = field(default_factory=list)  # tasks answered twice, or run at once
    accounts_of: dict[str, set[str]] = field(default_factory=dict)  # task → accounts it ran on


def _max_overlap(intervals: Sequence[tuple[float, float]]) -> int:
    points = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    best = now = 0
    for _, step in points:  # an end sorts before a start at the same instant
        now += step
        best = max(best, now)
    return best


def web_report(runs: Sequence[WebRun]) -> WebReport:
    report = WebReport(runs=len(runs), answered=sum(r.ok for r in runs))
    by_account: dict[str, list[WebRun]] = {}
    by_task: dict[str, list[WebRun]] = {}
    for r in runs:
        by_account.setdefault(r.account, []).append(r)
        by_task.setdefault(r.task, []).append(r)
        report.accounts_of.setdefault(r.task, set()).add(r.account)
    for account_runs in by_account.values():
        intervals = [(r.start, r.end) for r in account_runs]
        report.max_per_account = max(report.max_per_account, _max_overlap(intervals))
        report.conflicts += sum(
            any(o is not r and o.start < r.end and r.start < o.end for o in account_runs)
            for r in account_runs
        )
    for task, task_runs in by_task.items():
        at_once = _max_overlap([(r.start, r.end) for r in task_runs]) > 1
        if sum(r.ok for r in task_runs) > 1 or at_once:
            report.repeated.append(task)
    return report


# ---------------------------------------------------------------------------- the API's view


def last_user_text(record: Mapping[str, Any]) -> str:
    for message in reversed(record["messages"]):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def api_answered(requests: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """Prompt → how many times the API simulator answered it in full."""
    return Counter(last_user_text(r) for r in requests if r.get("outcome") == "served")


def api_asked(requests: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """Prompt → how many requests the API simulator received for it (answered or not)."""
    return Counter(last_user_text(r) for r in requests)


def max_in_window(times: Iterable[float], window_s: float) -> int:
    """The most of ``times`` that fall in any half-open window [t, t + window_s)."""
    data = sorted(times)
    best = 0
    j = 0
    for i, t in enumerate(data):
        while data[j] <= t - window_s:
            j += 1
        best = max(best, i - j + 1)
    return best


# ---------------------------------------------------------------------------- the database


def task_rows(url: str) -> list[dict[str, Any]]:
    """Every task row, read with plain SQL (not through the store under test)."""
    with psycopg.connect(url, connect_timeout=5, row_factory=dict_row) as conn:
        return list(
            conn.execute(
                "SELECT task_id, state, model_kind, prompt, workstation, account_id, owner_id, "
                "attempt, lost_count, started_at, finished_at, error_kind, error_message "
                "FROM tasks ORDER BY task_id"
            )
        )


def wait_until(condition: Callable[[], Any], timeout: float, what: str, step: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        time.sleep(step)


# ---------------------------------------------------------------------------- processes


def station_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A workstation process's environment: the shared API key in its env var (each
    workstation reads its own), no OS keyring (nothing to unlock on a test machine)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        KEY_ENV: API_KEY,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    env.pop("MEDIA_ASSISTANT_STORE_URL", None)  # each config names the team database
    return {**env, **(extra or {})}


class Station:
    """One workstation process. Its output goes to files in its data dir (a pipe nobody
    reads could fill up and stall it)."""

    def __init__(
        self, name: str, data_dir: Path, argv: Sequence[str], out_dir: Path | None = None
    ) -> None:
        self.name = name
        self.data_dir = data_dir
        self.argv = list(argv)
        self.out_dir = out_dir or data_dir
        self.proc: subprocess.Popen[str] | None = None
        self.killed_at: float | None = None
        self._out: IO[str] | None = None
        self._err: IO[str] | None = None

    @classmethod
    def media_assistant(
        cls, name: str, data_dir: Path, ledger: Path, *args: str, out_dir: Path | None = None
    ) -> Station:
        """The real ``media-assistant --data-dir DATA ARGS…`` (its simulated site on the
        ledger); its output in ``out_dir`` (default: the data dir)."""
        argv = [
            sys.executable,
            "-m",
            "benchmarks._team_station",
            "--ledger",
            str(ledger),
            "--",
            "--data-dir",
            str(data_dir),
            *args,
        ]
        return cls(name, data_dir, argv, out_dir)

    def start(self, env: Mapping[str, str] | None = None, *, stdin: bool = False) -> Station:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._out = (self.out_dir / f"{self.name}.out").open("w", encoding="utf-8")
        self._err = (self.out_dir / f"{self.name}.err").open("w", encoding="utf-8")
        self.proc = subprocess.Popen(
            self.argv,
            cwd=REPO,
            env=station_env(env),
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=self._out,
            stderr=self._err,
            text=True,
        )
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send(self, line: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def kill(self) -> float:
        """SIGKILL (a power cut, as far as the others can tell); when, on the wall clock."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.killed_at = time.time()
        self.proc.wait(timeout=10)
        return self.killed_at

    def wait(self, timeout: float) -> int:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self._close_files()

    def stop(self) -> None:
        """At the end, whatever happened: nothing left running."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._close_files()

    def _close_files(self) -> None:
        for f in (self._out, self._err):
            if f is not None and not f.closed:
                f.close()

    def stdout(self) -> str:
        path = self.out_dir / f"{self.name}.out"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def stderr(self) -> str:
        path = self.out_dir / f"{self.name}.err"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def describe(self) -> str:
        code = None if self.proc is None else self.proc.poll()
        return (
            f"--- {self.name} (exit {code}) stdout:\n{self.stdout()[-3000:]}\n"
            f"--- {self.name} stderr:\n{self.stderr()[-3000:]}"
        )
