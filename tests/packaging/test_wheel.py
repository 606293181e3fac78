"""A wheel built from the checkout and installed into a fresh virtual environment outside the
source tree finds every asset it needs: its ``--smoke-test`` (the GUI offscreen with the app
icon, every site adapter, both catalogues, a web and an API task) passes from there.

The wheel's own files come only from the wheel. Its dependencies are borrowed from the
development environment through a ``.pth`` line (a fresh download of PySide6, Playwright and
the rest would cost minutes per run and prove nothing about our packaging); ``.pth`` files in
the borrowed folder, such as the editable install's pointer to the checkout, are not processed,
so nothing of the checkout is importable: the report's ``package`` path proves it."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.packaging.conftest import AWKWARD_DIR, ROOT, minimal_env, run_smoke_test

pytestmark = [pytest.mark.packaging, pytest.mark.slow, pytest.mark.chromium]


def test_an_installed_wheel_finds_every_asset(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
    )
    (wheel,) = wheels.glob("media_assistant-*.whl")
    venv = tmp_path / AWKWARD_DIR / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bindir = venv / ("Scripts" if sys.platform == "win32" else "bin")
    python = bindir / ("python.exe" if sys.platform == "win32" else "python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()
    borrowed = dict.fromkeys((ours["purelib"], ours["platlib"]))  # this (development) venv's
    (Path(purelib) / "_borrowed_dependencies.pth").write_text(
        "".join(f"{path}\n" for path in borrowed), encoding="utf-8"
    )
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
    )
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (tmp_path / "home").mkdir()
    report = run_smoke_test(
        [str(bindir / "media-assistant")], outside, minimal_env(tmp_path / "home")
    )

    assert report["frozen"] is False
    package = Path(report["package"])
    assert package.is_relative_to(Path(purelib)), report["package"]  # not the checkout
    assert Path(report["resources"]) == package / "resources"
    assert report["checks"]["catalogues"] and report["checks"]["icons"]
