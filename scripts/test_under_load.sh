#!/usr/bin/env bash
# The whole suite several times in a row (RUNS, default 3) while stress-ng keeps every core busy
# (STRESS_CPUS, default all): a test that passes by the clock fails here, one that waits on the
# event it checks does not. Extra arguments go to scripts/test.sh (and so to pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
scripts/setup.sh  # stress-ng is one of its system packages
stress-ng --cpu "${STRESS_CPUS:-$(nproc)}" --timeout 0 --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null || true; wait "$stress" 2>/dev/null || true' EXIT
for i in $(seq 1 "$runs"); do
  echo "== run $i of $runs under stress-ng --cpu ${STRESS_CPUS:-$(nproc)}" \
    "(load $(cut -d' ' -f1-3 /proc/loadavg))"
  scripts/test.sh "$@"
done
echo "== $runs runs in a row passed under load"
