#!/usr/bin/env bash
# Set up (scripts/setup.sh), then start Media Assistant on its built-in demo: both simulators on
# loopback, two web accounts and one API account in a demo data dir of their own.
# Without a display it runs the same demo headless (or: xvfb-run scripts/demo.sh for a window).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/media-assistant demo "$@"
