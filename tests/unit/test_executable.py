"""Which browser gets launched: configured, Playwright's, Chrome/Edge, system — over temp dirs."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from media_assistant.core.model.errors import ConfigError
from media_assistant.providers.web.executable import (
    BrowserNotFound,
    BrowserSearch,
    resolve_browser,
)


def fake_binary(path: Path, text: str = "#!/bin/sh\nexit 0\n", mode: int = 0o755) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)
    return path


def search(tmp_path: Path, **overrides: object) -> BrowserSearch:
    """Nothing installed anywhere, unless an override puts it there."""
    fields: dict[str, object] = {
        "platform": "linux",
        "playwright_dir": tmp_path / "ms-playwright",
        "playwright_revision": None,
        "channels": (
            ("chrome", tmp_path / "opt/google/chrome/chrome"),
            ("msedge", tmp_path / "opt/microsoft/msedge/msedge"),
        ),
        "system": (tmp_path / "usr/lib/chromium/chromium",),
        "path": str(tmp_path / "bin"),
    }
    fields.update(overrides)
    return BrowserSearch(**fields)  # type: ignore[arg-type]


def test_configured_path_wins(tmp_path: Path) -> None:
    configured = fake_binary(tmp_path / "my" / "chrome")
    fake_binary(tmp_path / "ms-playwright/chromium-1200/chrome-linux64/chrome")

    choice = resolve_browser(str(configured), search(tmp_path))

    assert choice.executable_path == str(configured) and choice.channel is None
    assert str(configured) in choice.description


@pytest.mark.parametrize("problem", ["missing", "not executable", "a directory"])
def test_configured_but_unusable_is_an_error_naming_it(tmp_path: Path, problem: str) -> None:
    configured = tmp_path / "my" / "chrome"
    if problem == "not executable":
        fake_binary(configured, mode=0o644)
    elif problem == "a directory":
        configured.mkdir(parents=True)
    # Something usable exists elsewhere: a typo must still not silently run it.
    fake_binary(tmp_path / "usr/lib/chromium/chromium")

    with pytest.raises(BrowserNotFound) as caught:
        resolve_browser(str(configured), search(tmp_path))

    assert str(configured) in str(caught.value)
    assert "[browser] executable" in str(caught.value)
    assert isinstance(caught.value, ConfigError)  # the CLI's exit code 2


def test_playwright_chromium_is_found_before_system_chromium(tmp_path: Path) -> None:
    system = fake_binary(tmp_path / "usr/lib/chromium/chromium")
    old = fake_binary(tmp_path / "ms-playwright/chromium-1100/chrome-linux/chrome")
    new = fake_binary(tmp_path / "ms-playwright/chromium-1200/chrome-linux64/chrome")
    fake_binary(tmp_path / "ms-playwright/chromium_headless_shell-1300/chrome-linux/chrome")

    choice = resolve_browser(None, search(tmp_path))
    assert choice.executable_path == str(new)
    assert "chromium-1200" in choice.description

    # The revision this Playwright expects beats a newer one.
    expected = resolve_browser(None, search(tmp_path, playwright_revision="1100"))
    assert expected.executable_path == str(old)

    # Without Playwright's builds, the system one.
    fallback = resolve_browser(None, search(tmp_path, playwright_dir=tmp_path / "empty"))
    assert fallback.executable_path == str(system)


def test_playwright_build_that_is_not_executable_is_skipped(tmp_path: Path) -> None:
    fake_binary(tmp_path / "ms-playwright/chromium-1200/chrome-linux64/chrome", mode=0o644)
    system = fake_binary(tmp_path / "usr/lib/chromium/chromium")
    assert resolve_browser(None, search(tmp_path)).executable_path == str(system)


@pytest.mark.parametrize(
    ("platform", "layout"),
    [
        ("win32", "chrome-win64/chrome.exe"),
        ("win32", "chrome-win/chrome.exe"),
        (
            "darwin",
            "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/"
            "Google Chrome for Testing",
        ),
        ("darwin", "chrome-mac/Chromium.app/Contents/MacOS/Chromium"),
    ],
)
def test_playwright_layouts_of_other_systems(tmp_path: Path, platform: str, layout: str) -> None:
    binary = fake_binary(tmp_path / "ms-playwright/chromium-1200" / layout)
    choice = resolve_browser(None, search(tmp_path, platform=platform, system=()))
    assert choice.executable_path == str(binary)


def test_installed_chrome_or_edge_becomes_a_channel(tmp_path: Path) -> None:
    fake_binary(tmp_path / "opt/microsoft/msedge/msedge")
    fake_binary(tmp_path / "usr/lib/chromium/chromium")

    choice = resolve_browser(None, search(tmp_path))
    assert (choice.executable_path, choice.channel) == (None, "msedge")

    fake_binary(tmp_path / "opt/google/chrome/chrome")
    assert resolve_browser(None, search(tmp_path)).channel == "chrome"


def test_debian_wrapper_on_path_is_resolved_to_the_real_binary(tmp_path: Path) -> None:
    real = fake_binary(tmp_path / "lib/chromium/chromium")
    wrapper_text = (
        "#!/bin/sh\n# Chromium launcher\nAPPNAME=chromium\n"
        f"LIBDIR={tmp_path}/lib/$APPNAME\n"
        'exec $LIBDIR/$APPNAME $CHROMIUM_FLAGS "$@"\n'
    )
    wrapper = fake_binary(tmp_path / "bin/chromium", wrapper_text)

    choice = resolve_browser(None, search(tmp_path))

    assert choice.executable_path == str(real)
    assert str(wrapper) in choice.description


def test_plain_binary_on_path_is_taken_as_is(tmp_path: Path) -> None:
    binary = tmp_path / "bin/chromium-browser"
    binary.parent.mkdir()
    binary.write_bytes(b"\x7fELF fake")
    binary.chmod(0o755)
    assert resolve_browser(None, search(tmp_path)).executable_path == str(binary)


@pytest.mark.skipif(not os.access("/usr/lib/chromium/chromium", os.X_OK), reason="Debian only")
def test_this_machines_debian_wrapper(tmp_path: Path) -> None:
    """The real /usr/bin/chromium wrapper, found on PATH, resolves to the real binary."""
    choice = resolve_browser(None, search(tmp_path, system=(), path="/usr/bin"))
    assert choice.executable_path == "/usr/lib/chromium/chromium"


def test_nothing_anywhere_lists_every_place_tried(tmp_path: Path) -> None:
    with pytest.raises(BrowserNotFound) as caught:
        resolve_browser(None, search(tmp_path))

    message = str(caught.value)
    for place in (
        tmp_path / "ms-playwright",
        tmp_path / "opt/google/chrome/chrome",
        tmp_path / "opt/microsoft/msedge/msedge",
        tmp_path / "usr/lib/chromium/chromium",
    ):
        assert str(place) in message, place
    assert "chromium on PATH" in message and "chromium-browser on PATH" in message
    assert "[browser] executable" in message and "install" in message
    assert len(caught.value.tried) == 6


def test_search_places_per_os(tmp_path: Path) -> None:
    linux = BrowserSearch.for_this_machine(platform="linux", env={}, home=tmp_path)
    assert linux.playwright_dir == tmp_path / ".cache/ms-playwright"
    assert Path("/usr/lib/chromium/chromium") in linux.system
    assert ("chrome", Path("/opt/google/chrome/chrome")) in linux.channels

    custom = BrowserSearch.for_this_machine(
        platform="linux", env={"PLAYWRIGHT_BROWSERS_PATH": str(tmp_path / "pw")}, home=tmp_path
    )
    assert custom.playwright_dir == tmp_path / "pw"

    mac = BrowserSearch.for_this_machine(platform="darwin", env={}, home=tmp_path)
    assert mac.playwright_dir == tmp_path / "Library/Caches/ms-playwright"
    assert mac.system == ()

    local = r"C:\Users\op\AppData\Local"
    win = BrowserSearch.for_this_machine(
        platform="win32",
        env={"LOCALAPPDATA": local, "PROGRAMFILES": r"C:\Program Files"},
        home=tmp_path,
    )
    assert win.playwright_dir == Path(local) / "ms-playwright"
    assert ("msedge", Path(r"C:\Program Files") / r"Microsoft\Edge\Application\msedge.exe") in (
        win.channels
    )


def test_this_machine_resolves_something_launchable() -> None:
    if not any(
        os.access(p, os.X_OK) for p in ("/usr/lib/chromium/chromium", "/opt/google/chrome/chrome")
    ):
        pytest.skip("no browser on this machine")
    choice = resolve_browser(None)
    assert choice.channel or (
        choice.executable_path and os.stat(choice.executable_path).st_mode & stat.S_IXUSR
    )


def test_frozen_prefers_edge_then_chrome_then_system_then_downloaded_chromium(
    tmp_path: Path,
) -> None:
    """The operators' bundle ships no browser: installed ones first, Playwright's last."""
    downloaded = fake_binary(tmp_path / "ms-playwright/chromium-1200/chrome-linux64/chrome")
    system = fake_binary(tmp_path / "usr/lib/chromium/chromium")
    chrome = fake_binary(tmp_path / "opt/google/chrome/chrome")
    edge = fake_binary(tmp_path / "opt/microsoft/msedge/msedge")
    frozen = search(tmp_path, frozen=True)

    assert resolve_browser(None, frozen).channel == "msedge"
    edge.unlink()
    assert resolve_browser(None, frozen).channel == "chrome"
    chrome.unlink()
    assert resolve_browser(None, frozen).executable_path == str(system)
    system.unlink()
    assert resolve_browser(None, frozen).executable_path == str(downloaded)
    downloaded.unlink()
    with pytest.raises(BrowserNotFound) as caught:
        resolve_browser(None, frozen)
    assert caught.value.downloadable
    assert "download Chromium" in str(caught.value)
    # Unfrozen (developers, CI): Playwright's Chromium first, and nothing to offer.
    fake_binary(tmp_path / "usr/lib/chromium/chromium")
    fake_binary(tmp_path / "ms-playwright/chromium-1200/chrome-linux64/chrome")
    assert "Playwright's Chromium" in resolve_browser(None, search(tmp_path)).description
    with pytest.raises(BrowserNotFound) as unfrozen:
        resolve_browser(None, search(tmp_path / "nothing"))
    assert not unfrozen.value.downloadable


def test_a_configured_browser_wins_in_a_frozen_app_too(tmp_path: Path) -> None:
    configured = fake_binary(tmp_path / "my" / "chrome")
    fake_binary(tmp_path / "opt/microsoft/msedge/msedge")
    choice = resolve_browser(str(configured), search(tmp_path, frozen=True))
    assert choice.executable_path == str(configured)


def test_a_frozen_app_points_playwright_at_the_per_user_browsers_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from media_assistant.providers.web.executable import (
        managed_browsers_dir,
        prepare_frozen_playwright,
    )

    env: dict[str, str] = {}
    prepare_frozen_playwright(env)
    assert env == {}  # not frozen: Playwright's own default stays
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", "/nonexistent", raising=False)
    prepare_frozen_playwright(env)
    assert env == {"PLAYWRIGHT_BROWSERS_PATH": str(managed_browsers_dir())}
    own = {"PLAYWRIGHT_BROWSERS_PATH": "/srv/browsers"}
    prepare_frozen_playwright(own)
    assert own == {"PLAYWRIGHT_BROWSERS_PATH": "/srv/browsers"}  # the operator's setting wins
