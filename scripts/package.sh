#!/usr/bin/env bash
# Set up (scripts/setup.sh), build the desktop bundle dist/MediaAssistant/ (packaging/build.py:
# PyInstaller, pinned, one folder, Playwright's driver inside, no browser), then smoke-test it
# from a folder whose path has spaces and Chinese characters with a minimal environment, and a
# wheel installed into a fresh venv (tests/packaging). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
scripts/setup.sh
echo "== build"
.venv/bin/python packaging/build.py
echo "== smoke tests (tests/packaging)"
MEDIA_ASSISTANT_BUNDLE="$PWD/dist/MediaAssistant" QT_QPA_PLATFORM=offscreen \
  .venv/bin/python -m pytest -q -s -m packaging tests/packaging "$@"
echo "package: dist/MediaAssistant built and smoke-tested in $((SECONDS - started)) s"
