"""The frozen bundle, as an operator gets it: copied into a folder whose path has spaces and
Chinese characters, started with a minimal environment. Its ``--smoke-test`` must pass every
check (assets, adapters, both catalogues, migrations, main window, the browser launched through
the bundled driver, a web + an API task to success, clean shutdown); the desktop app must start
to a working window and stop on SIGTERM. Prints the bundle's size and the measured times."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.packaging.conftest import AWKWARD_DIR, ROOT, minimal_env, run_smoke_test

pytestmark = [pytest.mark.packaging, pytest.mark.slow, pytest.mark.chromium]

EXE = ".exe" if sys.platform == "win32" else ""
API_ONLY_CONFIG = """
[[models]]
name = "m"
kind = "api"

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "NO_SUCH_KEY"
models = ["m"]
"""


@pytest.fixture(scope="module")
def built_bundle() -> Path:
    given = os.environ.get("MEDIA_ASSISTANT_BUNDLE")
    if given:  # scripts/package.sh: the bundle it has just built
        return Path(given)
    subprocess.run([sys.executable, str(ROOT / "packaging" / "build.py")], check=True)
    return ROOT / "dist" / "MediaAssistant"


@pytest.fixture(scope="module")
def installed(built_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundle copied where an operator might unpack it."""
    target = tmp_path_factory.mktemp("install") / AWKWARD_DIR / "MediaAssistant"
    shutil.copytree(built_bundle, target, symlinks=True)
    return target


def test_the_frozen_smoke_test_passes_from_an_awkward_path(installed: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    report = run_smoke_test([str(installed / f"media-assistant{EXE}")], tmp_path, minimal_env(home))

    assert report["frozen"] is True
    assert Path(report["package"]).is_relative_to(installed)  # nothing from the checkout
    assert Path(report["driver"]["node"]).is_relative_to(installed)
    size = sum(p.stat().st_size for p in installed.rglob("*") if p.is_file() and not p.is_symlink())
    print(
        f"\nbundle: {size / 1e6:.0f} MB; smoke test: {report['seconds']} s; "
        f"browser: {report['browser']}"
    )


def test_the_frozen_app_starts_to_its_window_and_stops_on_sigterm(
    installed: Path, tmp_path: Path
) -> None:
    if sys.platform == "win32":
        pytest.skip("no SIGTERM for a windowed Windows app")
    home, data = tmp_path / "home", tmp_path / "数据 data"
    data.mkdir(parents=True)
    (data / "config.toml").write_text(API_ONLY_CONFIG, encoding="utf-8")
    env = {**minimal_env(home), "QT_QPA_PLATFORM": "offscreen", "XDG_STATE_HOME": str(home)}
    log = data / "logs" / "media-assistant.log"  # logs live in the data dir (0700)
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(installed / f"MediaAssistant{EXE}"), "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        while not (log.is_file() and "started on" in log.read_text("utf-8", "replace")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() - started < 60, "no window within 60 s"
            time.sleep(0.05)
        start_s = time.monotonic() - started
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    print(f"\nfrozen app: window up and scheduler started {start_s:.1f} s after launch")
