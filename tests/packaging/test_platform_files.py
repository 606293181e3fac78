"""The Windows and macOS inputs this Linux machine cannot build with, checked as far as they can
be here: the EXE version resource parses as PyInstaller reads it, with the package's version;
the macOS entitlements are a valid property list; the Linux desktop files name the same id."""

from __future__ import annotations

import plistlib
import sys
from pathlib import Path

import pytest

import media_assistant
from tests.packaging.conftest import ROOT

pytestmark = [pytest.mark.packaging]

sys.path.insert(0, str(ROOT / "packaging"))
from resource_files import runtime_files, windows_version_info  # noqa: E402

APP_ID = "org.mediaassistant.MediaAssistant"


def test_the_windows_version_resource_parses_with_the_package_version(tmp_path: Path) -> None:
    # PyInstaller and pefile: requirements/build.txt, installed by scripts/package.sh
    versioninfo = pytest.importorskip("PyInstaller.utils.win32.versioninfo")
    path = tmp_path / "version_info.txt"
    path.write_text(windows_version_info(ROOT, media_assistant.__version__), encoding="utf-8")
    info = versioninfo.load_version_info_from_text_file(str(path))
    assert f"'FileVersion', '{media_assistant.__version__}'" in str(info)
    major, minor, patch = (int(p) for p in media_assistant.__version__.split(".")[:3])
    assert (info.ffi.fileVersionMS, info.ffi.fileVersionLS) == (major << 16 | minor, patch << 16)
    assert info.toRaw()  # what PyInstaller embeds in the EXE: it must serialise


def test_the_macos_entitlements_are_a_property_list() -> None:
    with (ROOT / "packaging" / "macos" / "entitlements.plist").open("rb") as handle:
        entitlements = plistlib.load(handle)
    assert entitlements["com.apple.security.cs.allow-jit"] is True  # node needs it


def test_linux_desktop_files_and_runtime_resources() -> None:
    desktop = (ROOT / "resources" / "linux" / f"{APP_ID}.desktop").read_text("utf-8")
    assert f"Icon={APP_ID}" in desktop and "Exec=MediaAssistant" in desktop
    metainfo = (ROOT / "resources" / "linux" / f"{APP_ID}.metainfo.xml").read_text("utf-8")
    assert f"<id>{APP_ID}</id>" in metainfo
    assert f'<release version="{media_assistant.__version__}"' in metainfo
    targets = set(runtime_files(ROOT).values())
    assert "media_assistant/resources/sites/sim.toml" in targets
    assert "media_assistant/resources/i18n/media_assistant_zh_CN.qm" in targets
    assert "media_assistant/resources/icons/media-assistant-256.png" in targets
