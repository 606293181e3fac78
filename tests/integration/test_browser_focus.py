"""A web account's browser never takes the operator's screen or keyboard (issue 26 item 3).

On a 1366×768 X display with a real window manager (openbox: it gives the focus to new windows,
as desktops do), a Qt window stands for the app, holding the keyboard. A web account's browser
is launched as the scheduler launches it (providers/web/launch.py, shown, not headless): it ends
minimised and within the screen, and what the operator types still reaches the app's window.
*Log in* (``foreground``) opens its window normal and in front. Real Chromium, real X server,
real keystrokes (xdotool)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.launch import open_profile, set_screen
from tests.integration.test_web_lane import CHROMIUM
from tests.support.xvfb import virtual_display

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.skipif(
        shutil.which("openbox") is None or shutil.which("xdotool") is None,
        reason="needs openbox and xdotool (scripts/setup.sh installs them)",
    ),
    pytest.mark.timeout(120),
]

WIDTH, HEIGHT = 1366, 768
APP_WINDOW = """
import sys
from pathlib import Path
from PySide6.QtWidgets import QApplication, QLineEdit
app = QApplication(sys.argv)
edit = QLineEdit()
edit.setWindowTitle("operator-app")
edit.textChanged.connect(lambda t: Path(sys.argv[1]).write_text(t))
edit.resize(400, 60)
edit.show()
edit.activateWindow()
Path(sys.argv[1]).write_text("ready")
app.exec()
"""


def xdotool(*args: str) -> str:
    return subprocess.run(
        ["xdotool", *args], capture_output=True, text=True, timeout=10, check=False
    ).stdout.strip()


def wait_for(predicate: object, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.fixture
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A 1366×768 display with openbox and the "app" (a Qt line edit) focused; yields the file
    the app writes what it was typed into."""
    typed = tmp_path / "typed.txt"
    with virtual_display(f"{WIDTH}x{HEIGHT}x24") as display:
        monkeypatch.setenv("DISPLAY", display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        wm = subprocess.Popen(
            ["openbox", "--sm-disable"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        env = dict(os.environ, QT_QPA_PLATFORM="xcb")
        app = subprocess.Popen(
            [sys.executable, "-c", APP_WINDOW, str(typed)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for(typed.exists, "the app window did not start")
            wait_for(
                lambda: xdotool("getactivewindow", "getwindowname") == "operator-app",
                "the app window never had the focus",
            )
            yield typed
        finally:
            app.terminate()
            wm.terminate()
            app.wait(10)
            wm.wait(10)


async def window_state(context: object) -> dict[str, object]:
    page = context.pages[0]  # type: ignore[attr-defined]
    cdp = await context.new_cdp_session(page)  # type: ignore[attr-defined]
    window = await cdp.send("Browser.getWindowForTarget")
    bounds = await cdp.send("Browser.getWindowBounds", {"windowId": window["windowId"]})
    return dict(bounds["bounds"])


async def test_a_web_accounts_browser_opens_minimised_within_the_screen_and_typing_stays(
    desktop: Path, tmp_path: Path
) -> None:
    set_screen(WIDTH, HEIGHT - 40)  # what Qt says is available above a taskbar
    choice = resolve_browser(CHROMIUM)
    async with open_profile(tmp_path / "profile", choice, headless=False) as context:
        await context.pages[0].goto("data:text/html,<textarea autofocus></textarea>")
        await asyncio.sleep(0.5)  # the window manager has had its say
        bounds = await window_state(context)
        assert bounds["windowState"] == "minimized", bounds
        assert int(bounds["width"]) <= WIDTH and int(bounds["height"]) <= HEIGHT - 40, bounds
        assert await asyncio.to_thread(xdotool, "getactivewindow", "getwindowname") == (
            "operator-app"
        )
        await asyncio.to_thread(xdotool, "type", "--delay", "20", "hello")
        await asyncio.to_thread(
            wait_for, lambda: desktop.read_text() == "hello", "typing went elsewhere"
        )
        typed_in_page = await context.pages[0].evaluate("document.querySelector('textarea').value")
        assert typed_in_page == ""


async def test_log_in_brings_its_browser_to_the_front(desktop: Path, tmp_path: Path) -> None:
    set_screen(WIDTH, HEIGHT - 40)
    choice = resolve_browser(CHROMIUM)
    async with open_profile(
        tmp_path / "profile", choice, headless=False, foreground=True
    ) as context:
        await asyncio.sleep(0.5)
        bounds = await window_state(context)
        assert bounds["windowState"] == "normal", bounds
        assert int(bounds["width"]) <= WIDTH and int(bounds["height"]) <= HEIGHT - 40, bounds
        active = await asyncio.to_thread(xdotool, "getactivewindow", "getwindowname")
        assert active != "operator-app"
