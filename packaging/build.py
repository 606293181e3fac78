"""Build the desktop bundle: dist/MediaAssistant/ (one folder; on macOS also
dist/Media Assistant.app), from a clean checkout, with the pinned build tools.

    .venv/bin/python packaging/build.py            # scripts/package.sh runs this after setup.sh

1. installs requirements/build.txt (PyInstaller and its hooks, pinned) into this interpreter's
   environment, under requirements/constraints.txt;
2. runs PyInstaller on packaging/media_assistant.spec (work files in build/pyinstaller);
3. checks the result: both executables, Playwright's driver (node and package/cli.js: the
   hook that brings them fires only when the analysis sees playwright.async_api), every
   runtime resource, and NO browser inside;
4. on Linux, adds share/applications/<id>.desktop, share/metainfo/<id>.metainfo.xml and the
   hicolor icons next to the executables, for whoever installs the folder system-wide;
5. prints the bundle's size.

Exit 0 when the bundle is complete; 1 with the missing pieces named otherwise.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "packaging" / "media_assistant.spec"
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
NAME = "MediaAssistant"
APP_ID = "org.mediaassistant.MediaAssistant"
EXE_SUFFIX = ".exe" if sys.platform == "win32" else ""


def install_build_requirements() -> None:
    print("build: installing the pinned build tools (requirements/build.txt)", flush=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "-q",
            "-c",
            str(ROOT / "requirements" / "constraints.txt"),
            "-r",
            str(ROOT / "requirements" / "build.txt"),
        ],
        check=True,
    )


def run_pyinstaller(clean: bool) -> None:
    print(f"build: PyInstaller {SPEC.relative_to(ROOT)} -> {DIST / NAME}", flush=True)
    command = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--log-level",
        "WARN",
        "--distpath",
        str(DIST),
        "--workpath",
        str(WORK),
    ]
    if clean:
        command.append("--clean")
    subprocess.run([*command, str(SPEC)], check=True, cwd=ROOT)


def problems(bundle: Path) -> list[str]:
    """What is missing from (or must not be in) the bundle."""
    found: list[str] = []
    for exe in (NAME, "media-assistant"):
        if not (bundle / f"{exe}{EXE_SUFFIX}").is_file():
            found.append(f"executable {exe}{EXE_SUFFIX} missing")
    internal = bundle / "_internal"
    driver = internal / "playwright" / "driver"
    node = driver / ("node.exe" if sys.platform == "win32" else "node")
    for path in (node, driver / "package" / "cli.js"):
        if not path.is_file():
            found.append(
                f"Playwright driver file missing: {path.relative_to(bundle)} "
                "(did the analysis see playwright.async_api?)"
            )
    sys.path.insert(0, str(ROOT / "packaging"))
    from resource_files import runtime_files

    for target in runtime_files(ROOT).values():
        if not (internal / target).is_file():
            found.append(f"resource missing: _internal/{target}")
    qt_catalogue = internal / "PySide6" / "Qt" / "translations" / "qtbase_zh_CN.qm"
    if not qt_catalogue.is_file():
        found.append(f"Qt's Chinese catalogue missing: {qt_catalogue.relative_to(bundle)}")
    for html in ("chat_page.html", "chat_login.html"):
        if not (internal / "media_assistant" / "sim" / html).is_file():
            found.append(f"simulator page missing: _internal/media_assistant/sim/{html}")
    browsers = [
        p
        for pattern in ("**/.local-browsers", "**/chromium-*", "**/chrome-linux*", "**/chrome-win*")
        for p in bundle.glob(pattern)
    ]
    if browsers:
        found.append(f"a browser was bundled (it must not be): {browsers[0]}")
    return found


def add_linux_desktop_files(bundle: Path) -> None:
    share = bundle / "share"
    (share / "applications").mkdir(parents=True, exist_ok=True)
    (share / "metainfo").mkdir(parents=True, exist_ok=True)
    linux = ROOT / "resources" / "linux"
    shutil.copy2(linux / f"{APP_ID}.desktop", share / "applications")
    shutil.copy2(linux / f"{APP_ID}.metainfo.xml", share / "metainfo")
    for png in sorted((ROOT / "resources" / "icons").glob("media-assistant-*.png")):
        size = png.stem.rsplit("-", 1)[1]
        target = share / "icons" / "hicolor" / f"{size}x{size}" / "apps"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(png, target / f"{APP_ID}.png")
    scalable = share / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "resources" / "icons" / "media-assistant.svg", scalable / f"{APP_ID}.svg")


def size_mb(folder: Path) -> float:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 1_000_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-deps", action="store_true", help="build tools already installed")
    parser.add_argument("--clean", action="store_true", help="empty PyInstaller's cache first")
    args = parser.parse_args(argv)
    started = time.monotonic()
    if not args.skip_deps:
        install_build_requirements()
    run_pyinstaller(args.clean)
    bundle = DIST / NAME
    missing = problems(bundle)
    if missing:
        for line in missing:
            print(f"build: FAILED: {line}", file=sys.stderr)
        return 1
    if sys.platform.startswith("linux"):
        add_linux_desktop_files(bundle)
    print(
        f"build: {bundle} complete: {size_mb(bundle):.0f} MB, driver and resources present, "
        f"no browser inside ({time.monotonic() - started:.0f} s)",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
