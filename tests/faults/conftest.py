"""Fault injection on the headless contract: real ``media-assistant`` processes, real SQLite files,
another real process holding the database, damaged files, hostile task ids and configs.

Every test's docstring says what an operator lost (or saw) before the fix.
"""

from __future__ import annotations

import csv
import hashlib
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import harness_factory  # noqa: F401 - the scheduler harness

FAKE_WEB_CONFIG = """
[simulation]
web_latency_s = [{lo}, {hi}]
seed = 5

[[models]]
name = "web-model"
kind = "web"

[[accounts]]
id = "web-1"
kind = "web"
site = "fake"
models = ["web-model"]
"""


def write_config(data: Path, *, lo: float = 0.1, hi: float = 0.3, extra: str = "") -> Path:
    data.mkdir(parents=True, exist_ok=True)
    path = data / "config.toml"
    path.write_text(FAKE_WEB_CONFIG.format(lo=lo, hi=hi) + extra, encoding="utf-8")
    return path


def write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def cli_args(data: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args]


def cli(
    data: Path,
    *args: str,
    timeout: float = 120,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        cli_args(data, *args),
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
        env={**os.environ, "PYTHONWARNINGS": "default", **(env or {})},
    )


def no_traceback(result: subprocess.CompletedProcess[str]) -> bool:
    return "Traceback" not in result.stderr and "Traceback" not in result.stdout


def rows(db: Path, sql: str = "SELECT * FROM tasks ORDER BY seq") -> list[dict[str, object]]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute(sql)]
    finally:
        con.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


class Holder:
    """Another process holding the database: ``BEGIN EXCLUSIVE`` (``exclusive_mode``: in SQLite's
    exclusive locking mode, which shuts readers out too) for ``seconds``, or, with ``seconds``
    None, until :meth:`release` (a test then decides when, whatever the machine's speed)."""

    def __init__(self, db: Path, seconds: float | None, *, exclusive_mode: bool = False) -> None:
        wait = "sys.stdin.readline()" if seconds is None else f"time.sleep({seconds})"
        script = textwrap.dedent(
            f"""
            import sqlite3, sys, time
            con = sqlite3.connect({str(db)!r}, isolation_level=None)
            if {exclusive_mode!r}:
                con.execute("PRAGMA locking_mode=EXCLUSIVE")
            con.execute("BEGIN EXCLUSIVE")
            con.execute("UPDATE meta SET value = value")
            print("held", flush=True)
            {wait}
            con.execute("COMMIT")
            """
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "held"

    def release(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


@pytest.fixture
def hold() -> Iterator[list[Holder]]:
    holders: list[Holder] = []
    yield holders
    for h in holders:
        h.stop()
