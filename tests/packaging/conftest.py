"""Packaging tests build a wheel or use the desktop bundle; they are deselected from the normal
run (pyproject: ``-m "not packaging"``) and run by scripts/package.sh, right after it built the
bundle (MEDIA_ASSISTANT_BUNDLE points at it, so CI builds it once):

    MEDIA_ASSISTANT_BUNDLE=$PWD/dist/MediaAssistant \
        .venv/bin/python -m pytest -m packaging tests/packaging

Without MEDIA_ASSISTANT_BUNDLE the bundle test builds one itself (packaging/build.py, ~2 min).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# A folder name of the kind operators have: spaces and Chinese characters.
AWKWARD_DIR = "Media Assistant 智能 媒体助理"


def minimal_env(home: Path) -> dict[str, str]:
    """What a double-click gives an app: no PYTHONPATH, no virtualenv on PATH."""
    env = {"HOME": str(home), "LANG": "C.UTF-8", "PATH": os.pathsep.join(("/usr/bin", "/bin"))}
    if sys.platform == "win32":
        for key in ("SYSTEMROOT", "SYSTEMDRIVE", "LOCALAPPDATA", "APPDATA", "USERPROFILE", "TEMP"):
            if key in os.environ:
                env[key] = os.environ[key]
        env["PATH"] = os.environ.get("SYSTEMROOT", r"C:\Windows") + r"\System32"
    return env


def run_smoke_test(command: list[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    result = subprocess.run(  # noqa: PLW1510 - the exit code is checked below, with the report
        [*command, "--smoke-test"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env=env,
        timeout=300,
    )
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, f"not one JSON line:\n{result.stdout}\n{result.stderr}"
    report: dict[str, Any] = json.loads(lines[0])
    failed = {k: v for k, v in report["checks"].items() if not v}
    assert result.returncode == 0 and not failed, json.dumps(report, ensure_ascii=False, indent=1)
    assert set(report) >= {"frozen", "version", "checks", "seconds"}
    return report
