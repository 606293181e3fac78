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
echo "== pytest"
QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest -q "$@"
