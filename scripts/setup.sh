#!/usr/bin/env bash
# Set up everything Media Assistant and its tests need, on a fresh Debian machine or an existing
# checkout: system packages (Chromium for web models, Xvfb + Qt's xcb libraries for real windows,
# CJK fonts, PostgreSQL for the team-mode tests), a virtual environment in .venv with pinned
# Python dependencies.
# Idempotent: a second run only checks. Each step says what it is doing (apt, pip).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(chromium xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0
              libegl1 libgl1 libfontconfig1 libdbus-1-3 fonts-noto-cjk
              postgresql   # the tests start their own PostgreSQL server for team mode
              openbox xdotool  # a window manager on Xvfb: a browser must not take the focus
              prometheus  # a real Prometheus scrapes `media-assistant metrics` in one test
              tinyproxy dante-server  # the tests' own HTTP and SOCKS5 proxies (account proxies)
              faketime  # libfaketime: a workstation's wall clock stepped mid-run (team tests)
              stress-ng  # scripts/test_under_load.sh: the suite with every core busy
              pgbouncer)   # ... and a PgBouncer in front of it (transaction pooling, issue 28)

missing=()
echo "setup: checking system packages"
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: apt: updating the package lists"
    $SUDO apt-get update -q
    echo "setup: apt: installing ${#missing[@]} system package(s): ${missing[*]}"
    echo "setup: (Chromium and the CJK fonts are the big ones: a minute or two on a fresh machine)"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
      "${missing[@]}"
  else
    echo "setup: not a Debian system: install these yourself: ${missing[*]}" >&2
  fi
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.installed-$(cat pyproject.toml requirements/constraints.txt | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
  echo "setup: pip: upgrading pip in .venv"
  .venv/bin/python -m pip install --progress-bar off -q --upgrade pip
  echo "setup: pip: installing the pinned Python dependencies into .venv (PySide6 and Playwright"
  echo "setup: are ~250 MB: a minute or two on a fresh machine; pip lists each package)"
  .venv/bin/python -m pip install --progress-bar off -c requirements/constraints.txt -e ".[dev]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
echo "setup: ready ($(.venv/bin/python --version), $(.venv/bin/media-assistant --version))"
