"""Windows' display scaling (issue 29 item 8): 1366×768 at 125 % leaves about 1093×583 logical
pixels, at 150 % about 911×485 (above a 40 px taskbar). The window and dialog fit tests run
again in a process of their own at each factor (Qt reads QT_SCALE_FACTOR once, when the
application starts), on an offscreen screen of that laptop's 1366×728 pixels (its available
area: the dialogs size themselves from their screen), with the laptop's sizes in logical pixels.

``MA_FIT_SHOTS=DIR`` keeps a PNG of every dialog the fit test measured (``fit-<factor>-*.png``)
for a person to look at."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The tests of fitting (not the one where a window is remembered where it was left).
TESTS = [
    "tests/gui/test_window_geometry.py::"
    "test_at_a_1366x768_laptop_every_panel_the_status_bar_and_the_state_column_show",
    "tests/gui/test_dialogs_fit.py::test_every_dialog_fits_a_laptop_screen_in_its_tallest_state",
    "tests/gui/test_dialogs_fit.py::"
    "test_the_task_table_gets_the_room_and_all_batches_stays_in_sight",
]


# The laptop's screen in device pixels less its taskbar, for Qt's offscreen platform.
LAPTOP_SCREEN = {
    "screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 728, "logicalDpi": 96}]
}


@pytest.mark.parametrize("factor", ["1.25", "1.5"])
def test_the_window_and_every_dialog_fit_a_scaled_laptop(factor: str, tmp_path: Path) -> None:
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps(LAPTOP_SCREEN), encoding="utf-8")
    env = {
        **os.environ,
        "QT_SCALE_FACTOR": factor,
        "QT_QPA_PLATFORM": f"offscreen:configfile={screen}",
    }
    done = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            *TESTS,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "3 passed" in done.stdout.splitlines()[-1]
