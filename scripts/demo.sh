#!/usr/bin/env bash
# Set up (scripts/setup.sh), then start Media Assistant on its built-in demo: both simulators on
# loopback, two web accounts (real Chromium on the simulated chat site) and one API account, in
# a demo data folder of their own (<data-dir>/demo); press "Run the sample batch" (the window
# says so).
# With no display it runs the same demo headless in the terminal
# (or use a virtual one: xvfb-run -a scripts/demo.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || [ "$(uname -s)" = Darwin ]; then
  exec .venv/bin/media-assistant --demo "$@"
fi
echo "demo: no display found: running the demo headless (xvfb-run -a scripts/demo.sh for the window)"
exec .venv/bin/media-assistant demo "$@"
