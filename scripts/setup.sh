#!/usr/bin/env bash
# Set up everything Media Assistant and its tests need, on a fresh Debian machine or an existing
# checkout: system packages (Chromium for web models, Xvfb + Qt's xcb libraries for real windows,
# CJK fonts), a virtual environment in .venv with pinned Python dependencies.
# Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(chromium xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0
              libegl1 libgl1 libfontconfig1 libdbus-1-3 fonts-noto-cjk)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: installing system packages: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
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
  echo "setup: installing Python dependencies"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -c requirements/constraints.txt -e ".[dev]"
  rm -f .venv/.installed-*
  touch "$stamp"
fi
echo "setup: ready ($(.venv/bin/python --version), $(.venv/bin/media-assistant --version))"
