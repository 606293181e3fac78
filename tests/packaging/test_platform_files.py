"""The Windows and macOS inputs this Linux machine cannot build with, checked as far as they can
be here: the EXE version resource parses as PyInstaller reads it, with the package's version;
the macOS entitlements are a valid property list; the Linux desktop files name the same id."""

from __future__ import annotations

import plistlib
import sys
from typing import Any

import pytest

import media_assistant
from tests.packaging.conftest import ROOT

pytestmark = [pytest.mark.packaging]

sys.path.insert(0, str(ROOT / "packaging"))
from resource_files import runtime_files, windows_version_info  # noqa: E402

APP_ID = "org.mediaassistant.MediaAssistant"


def test_the_windows_version_resource_is_the_expression_pyinstaller_evaluates() -> None:
    """PyInstaller eval()s the file with its VSVersionInfo classes in scope (on Windows only:
    its module needs win32api); here the same names record what they were given."""

    def recorder(name: str) -> Any:
        return lambda *args, **kwargs: (name, args, kwargs)

    names = ("VSVersionInfo", "FixedFileInfo", "StringFileInfo", "StringTable", "StringStruct")
    scope = {n: recorder(n) for n in (*names, "VarFileInfo", "VarStruct")}
    text = windows_version_info(ROOT, media_assistant.__version__)
    name, _, top = eval(text, scope)  # noqa: S307 - our own template, as PyInstaller does
    assert name == "VSVersionInfo"
    major, minor, patch = (int(p) for p in media_assistant.__version__.split(".")[:3])
    _, _, fixed = top["ffi"]
    assert fixed["filevers"] == fixed["prodvers"] == (major, minor, patch, 0)
    strings = [kid for kid in top["kids"] if kid[0] == "StringFileInfo"][0][1][0]
    for table in strings:  # zh_CN and en
        values = {args[0]: args[1] for _, args, _ in table[1][1]}
        assert values["FileVersion"] == values["ProductVersion"] == media_assistant.__version__
        assert values["OriginalFilename"] == "MediaAssistant.exe"


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


def test_the_windows_installer_and_the_app_agree() -> None:
    """The Inno Setup script cannot be compiled here; what it relies on in the app is checked:
    the mutex names the app creates, the console command it runs to forget the keyring's
    secrets, and the old _internal removed before an upgrade's files are copied."""
    import re

    from media_assistant.cli import build_parser
    from media_assistant.gui.bridge.app_mutex import NAMES

    iss = (ROOT / "packaging" / "windows" / "media_assistant.iss").read_text(encoding="utf-8")
    mutexes = re.search(r"^AppMutex=(.+)$", iss, re.MULTILINE)
    assert mutexes is not None and tuple(mutexes.group(1).split(",")) == NAMES
    run = re.search(r"Exec\(ExpandConstant\('\{app\}\\media-assistant\.exe'\), '([^']+)'", iss)
    assert run is not None
    build_parser().parse_args(run.group(1).split())  # a command the app has (SystemExit if not)
    assert 'Type: filesandordirs; Name: "{app}\\_internal"' in iss
    sections = [m.group(1) for m in re.finditer(r"^\[(\w+)\]", iss, re.MULTILINE)]
    assert sections.index("InstallDelete") < sections.index("Files")
