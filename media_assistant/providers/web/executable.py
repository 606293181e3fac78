"""Which browser to launch for web models.

The configured ``[browser] executable`` always wins (an error if it is missing: a typo must not
silently run another browser). Then, from a source checkout or a wheel (developers, CI):
Playwright's own Chromium; an installed Google Chrome or Microsoft Edge (as a Playwright
``channel``); a system Chromium. In a frozen app (the operators' bundle, which ships no
browser): Microsoft Edge (on every office Windows PC), Google Chrome, a system Chromium, and last
Playwright's Chromium in a per-user folder, where ``download.py`` puts it on demand (never on the
start-up path). Where to look comes from a ``BrowserSearch`` — ``BrowserSearch.for_this_machine()``
in the app, temp dirs in tests.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from media_assistant.assets import is_frozen
from media_assistant.core.files.paths import APP_NAME
from media_assistant.core.model.errors import ConfigError

# Inside a revision dir (``chromium-1255``): the build's folder and the binary in it, per OS.
# Newer Playwright ships Chrome for Testing builds; older ones plain Chromium snapshots.
_PLAYWRIGHT_LAYOUTS: dict[str, tuple[str, ...]] = {
    "linux": ("chrome-linux64/chrome", "chrome-linux-arm64/chrome", "chrome-linux/chrome"),
    "win32": ("chrome-win64/chrome.exe", "chrome-win/chrome.exe"),
    "darwin": (
        "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
    ),
}
# Where Playwright's ``channel="chrome"`` / ``"msedge"`` look (its registry, same order).
_CHANNEL_PATHS: dict[str, tuple[tuple[str, str], ...]] = {
    "linux": (("chrome", "/opt/google/chrome/chrome"), ("msedge", "/opt/microsoft/msedge/msedge")),
    "darwin": (
        ("chrome", "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"),
        ("msedge", "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"),
    ),
}
_WINDOWS_CHANNEL_SUFFIXES = (
    ("chrome", r"Google\Chrome\Application\chrome.exe"),
    ("msedge", r"Microsoft\Edge\Application\msedge.exe"),
)
_LINUX_SYSTEM = (
    "/usr/lib/chromium/chromium",  # Debian
    "/usr/lib/chromium-browser/chromium-browser",  # older Ubuntu, Mint
    "/snap/bin/chromium",
)
_PATH_NAMES = ("chromium", "chromium-browser")
_FIX = (
    'set [browser] executable = "/path/to/chrome" in config.toml, or install Chromium '
    "(`python -m playwright install chromium`, or your system's chromium package)"
)
_FIX_FROZEN = (
    "install Microsoft Edge or Google Chrome, or let Media Assistant download Chromium "
    "(about 150 MB) when it offers to, or set [browser] executable in config.toml"
)
BROWSERS_PATH_ENV = "PLAYWRIGHT_BROWSERS_PATH"


def managed_browsers_dir() -> Path:
    """Where a frozen app keeps the Chromium it downloads on demand: per user, shared by every
    data dir (it is ~150 MB), outside the install folder (which an update replaces)."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "ms-playwright"


def prepare_frozen_playwright(env: MutableMapping[str, str] | None = None) -> None:
    """Call before Playwright starts. Frozen, Playwright looks for browsers inside the bundle
    (it sets PLAYWRIGHT_BROWSERS_PATH=0 unless set), where we ship none: point it at the per-user
    folder, so a downloaded Chromium is found and ``install`` writes there. An operator's own
    setting is kept."""
    target = os.environ if env is None else env
    if is_frozen() and not target.get(BROWSERS_PATH_ENV):
        target[BROWSERS_PATH_ENV] = str(managed_browsers_dir())


class BrowserNotFound(ConfigError):  # noqa: N818 - reads as what happened
    """No usable browser; the message lists every place tried and how to fix it."""

    def __init__(
        self, message: str, tried: tuple[str, ...] = (), *, downloadable: bool = False
    ) -> None:
        super().__init__(message)
        self.tried = tried
        self.downloadable = downloadable  # a frozen app may offer to download Chromium


@dataclass(frozen=True, slots=True)
class BrowserChoice:
    executable_path: str | None  # for Playwright's ``executable_path``
    channel: str | None  # for Playwright's ``channel`` ("chrome", "msedge")
    description: str  # for logs and ``selfcheck``: what was picked and where


@dataclass(frozen=True, slots=True)
class BrowserSearch:
    """Where ``resolve_browser`` looks, in order."""

    platform: str  # sys.platform spelling: linux, win32, darwin
    playwright_dir: Path | None  # the ms-playwright browsers directory
    playwright_revision: str | None  # the Chromium revision this Playwright expects
    channels: tuple[tuple[str, Path], ...]  # (channel, path) of installed Chrome/Edge
    system: tuple[Path, ...]  # system Chromium binaries
    path_names: tuple[str, ...] = _PATH_NAMES  # looked up on ``path``
    path: str | None = None  # a PATH value; None: do not search PATH
    frozen: bool = False  # the operators' bundle: installed browsers first, see the docstring

    @classmethod
    def for_this_machine(
        cls,
        *,
        platform: str = sys.platform,
        env: Mapping[str, str] | None = None,
        home: Path | None = None,
        frozen: bool | None = None,
    ) -> BrowserSearch:
        env = os.environ if env is None else env
        home = Path.home() if home is None else home
        return cls(
            frozen=is_frozen() if frozen is None else frozen,
            platform=platform,
            playwright_dir=_playwright_dir(platform, env, home),
            playwright_revision=_playwright_revision(),
            channels=_channels(platform, env),
            system=tuple(Path(p) for p in _LINUX_SYSTEM) if platform.startswith("linux") else (),
            path=env.get("PATH", os.defpath),
        )


def _playwright_dir(platform: str, env: Mapping[str, str], home: Path) -> Path | None:
    configured = env.get("PLAYWRIGHT_BROWSERS_PATH")
    if configured == "0":  # browsers installed inside the playwright package
        spec = importlib.util.find_spec("playwright")  # finds it without importing it
        if spec is None or not spec.submodule_search_locations:
            return None
        package = Path(next(iter(spec.submodule_search_locations)))
        return package / "driver" / "package" / ".local-browsers"
    if configured:
        return Path(configured).expanduser()
    if platform == "win32":
        base = Path(env["LOCALAPPDATA"]) if env.get("LOCALAPPDATA") else home / "AppData" / "Local"
    elif platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else home / ".cache"
    return base / "ms-playwright"


def _playwright_revision() -> str | None:
    """The Chromium revision the installed Playwright was built against (its browsers.json)."""
    spec = importlib.util.find_spec("playwright")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = Path(next(iter(spec.submodule_search_locations)))
    try:
        data = json.loads((package / "driver" / "package" / "browsers.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    for browser in data.get("browsers", []):
        if browser.get("name") == "chromium":
            return str(browser.get("revision"))
    return None


def _channels(platform: str, env: Mapping[str, str]) -> tuple[tuple[str, Path], ...]:
    if platform != "win32":
        return tuple((channel, Path(p)) for channel, p in _CHANNEL_PATHS.get(platform, ()))
    prefixes = [
        env.get("LOCALAPPDATA"),
        env.get("PROGRAMFILES"),
        env.get("PROGRAMFILES(X86)"),
        f"{env['HOMEDRIVE']}\\Program Files" if env.get("HOMEDRIVE") else None,
        f"{env['HOMEDRIVE']}\\Program Files (x86)" if env.get("HOMEDRIVE") else None,
    ]
    return tuple(
        (channel, Path(prefix) / suffix)
        for channel, suffix in _WINDOWS_CHANNEL_SUFFIXES
        for prefix in prefixes
        if prefix
    )


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _revision_number(directory: Path) -> int:
    _, _, revision = directory.name.partition("-")
    return int(revision) if revision.isdigit() else -1


def _find_playwright_chromium(search: BrowserSearch) -> tuple[Path, str] | None:
    root = search.playwright_dir
    if root is None or not root.is_dir():
        return None
    layouts = _PLAYWRIGHT_LAYOUTS.get(
        "linux" if search.platform.startswith("linux") else search.platform, ()
    )
    # ``chromium-<rev>`` only: ``chromium_headless_shell-<rev>`` cannot show a window.
    revisions = sorted(root.glob("chromium-*"), key=_revision_number, reverse=True)
    # The revision this Playwright expects first (its protocol matches), else the newest.
    revisions.sort(key=lambda d: d.name != f"chromium-{search.playwright_revision}")
    for directory in revisions:
        for layout in layouts:
            binary = directory / layout
            if _is_executable(binary):
                return binary, directory.name
    return None


_SHELL_ASSIGNMENT = re.compile(r"^\s*(APPNAME|LIBDIR)=(\S+)\s*$", re.MULTILINE)


def _unwrap(path: Path) -> Path:
    """Debian's /usr/bin/chromium is a shell script that execs ``$LIBDIR/$APPNAME`` with extra
    flags; launch the real binary so the PID we record and the flags we pass are the browser's."""
    try:
        with path.open("rb") as handle:
            head = handle.read(16384)
    except OSError:
        return path
    if not head.startswith(b"#!"):
        return path
    values = dict(_SHELL_ASSIGNMENT.findall(head.decode("utf-8", "replace")))
    appname = values.get("APPNAME", path.name)
    libdir = values.get("LIBDIR", "").replace("$APPNAME", appname).replace("${APPNAME}", appname)
    if not libdir:
        return path
    real = Path(libdir) / appname
    return real if _is_executable(real) else path


def _configured(configured: str) -> BrowserChoice:
    path = Path(configured).expanduser()
    if os.sep not in configured and "/" not in configured and not path.exists():
        found = shutil.which(configured)  # a bare name such as "chromium": look it up on PATH
        if found:
            path = Path(found)
    if path.is_dir() and path.suffix == ".app":  # macOS: the bundle, not its binary
        path = path / "Contents" / "MacOS" / path.stem
    if not path.exists():
        problem = "does not exist"
    elif not _is_executable(path):
        problem = "is not an executable file"
    else:
        return BrowserChoice(str(path), None, f"configured browser {path}")
    raise BrowserNotFound(
        f"[browser] executable = {configured!r} {problem}; fix the path in config.toml, "
        "or remove the key to let Media Assistant find a browser",
        (f"configured: {configured}",),
    )


def resolve_browser(configured: str | None, search: BrowserSearch | None = None) -> BrowserChoice:
    """The browser to launch; raises ``BrowserNotFound`` listing every place tried."""
    if configured:
        return _configured(configured)
    search = search or BrowserSearch.for_this_machine()
    tried: list[str] = []
    if search.frozen:
        steps = (_installed_channels, _system_chromium, _playwright_chromium)
    else:
        steps = (_playwright_chromium, _installed_channels, _system_chromium)
    for step in steps:
        choice = step(search, tried)
        if choice is not None:
            return choice
    lines = "\n".join(f"  - {place}" for place in tried)
    fix = _FIX_FROZEN if search.frozen else _FIX
    raise BrowserNotFound(
        f"no browser found for web models. Looked for:\n{lines}\nTo fix: {fix}.",
        tuple(tried),
        downloadable=search.frozen,
    )


def _playwright_chromium(search: BrowserSearch, tried: list[str]) -> BrowserChoice | None:
    found = _find_playwright_chromium(search)
    if found is not None:
        binary, revision = found
        return BrowserChoice(str(binary), None, f"Playwright's Chromium ({revision}) {binary}")
    where = search.playwright_dir or "(no Playwright browsers directory)"
    how = "downloaded on demand" if search.frozen else "run `python -m playwright install`"
    tried.append(f"Playwright's Chromium: {where}/chromium-*/ ({how})")
    return None


def _installed_channels(search: BrowserSearch, tried: list[str]) -> BrowserChoice | None:
    channels = search.channels
    if search.frozen:  # Edge first: it is on every office Windows PC, kept up to date
        channels = tuple(sorted(channels, key=lambda c: c[0] != "msedge"))
    for channel, path in channels:
        if _is_executable(path):
            return BrowserChoice(None, channel, f"installed {channel} (channel) {path}")
        tried.append(f"{channel} (Playwright channel): {path}")
    return None


def _system_chromium(search: BrowserSearch, tried: list[str]) -> BrowserChoice | None:
    for path in search.system:
        if _is_executable(path):
            return BrowserChoice(str(path), None, f"system Chromium {path}")
        tried.append(f"system Chromium: {path}")
    if search.path is not None:
        for name in search.path_names:
            hit = shutil.which(name, path=search.path)
            if hit:
                real = _unwrap(Path(hit))
                return BrowserChoice(str(real), None, f"system Chromium {real} (from PATH: {hit})")
            tried.append(f"{name} on PATH")
    return None
