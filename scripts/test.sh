#!/usr/bin/env bash
# Set up (scripts/setup.sh), then lint, type-check and run every test. Extra arguments go to
# pytest, e.g. scripts/test.sh -k scheduler -x
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== ruff"
.venv/bin/ruff check media_assistant tests benchmarks packaging resources
.venv/bin/ruff format --check media_assistant tests benchmarks packaging resources
echo "== mypy"
.venv/bin/mypy
# The Windows branches (sys.platform == "win32") type-checked too: the operators' PCs run them.
echo "== mypy --platform win32"
.venv/bin/mypy --platform win32 --cache-dir .mypy_cache/win32
echo "== pytest"
# Three workers (pytest-xdist; PYTEST_WORKERS=0 for one process, N for N): the suite's real
# browsers, servers and processes wait more than they compute (on 2 cores, 3 workers took the
# suite from ~34 to 27–30 min), and CI's whole run must stay under 30 min. --dist worksteal: a
# worker that runs out takes half of another's queue, so the run does not end with one worker
# alone on a chunk of slow browser tests (xdist's "load" hands out chunks of ~100 tests).
# MA_REQUIRE_POSTGRES=1: the store's PostgreSQL tests fail (never skip) without a server.
MA_REQUIRE_POSTGRES=1 QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest -q \
  -n "${PYTEST_WORKERS:-3}" --dist worksteal "$@"
