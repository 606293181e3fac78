"""Screenshots of the main window on the built-in demo, in zh_CN and en, under Xvfb.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshots.py [OUT_DIR]
    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python scripts/screenshots.py \
        docs/screenshots 1366x768    # the whole small screen: what fits on a laptop

With WIDTHxHEIGHT (the Xvfb screen's size) the app sizes its first window from that screen as it
does for an operator; the shots are the whole screen and carry the size in their names
(demo-start-1366x768-zh_CN.png, main-window-1366x768-zh_CN.png, task-details-1366x768-zh_CN.png).

For each language it starts the real app (``media-assistant --demo``) in a subprocess with that
system locale, presses "Run the sample batch", waits until both lanes have finished work and
tasks are still running, opens one task's details, and saves PNGs. Look at them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import os, sys
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
import media_assistant.app as app_module
from media_assistant.gui.window.main_window import MainWindow

out, lang, suffix = Path(sys.argv[1]), sys.argv[2], sys.argv[4]
# Window geometry of our own: the app's default size, and the user's settings left alone.
QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, sys.argv[3])
app = QApplication(sys.argv[:1])
state = {"ticks": 0}

def window():
    return next((w for w in QApplication.topLevelWidgets()
                 if isinstance(w, MainWindow) and w.isVisible()), None)

def step():
    w = window()
    handle = w.windowHandle() if w is not None else None
    if handle is None or not handle.isExposed() or not state.get("exposed"):
        # Visible is not yet painted (a black demo-start shot once): one turn more.
        state["exposed"] = handle is not None and handle.isExposed()
        QTimer.singleShot(300, step)
        return
    if state["ticks"] == 0:
        if suffix:  # first what a newcomer sees: the banner saying what to press
            app.primaryScreen().grabWindow(0).save(str(out / f"demo-start-{suffix}-{lang}.png"))
        w.demo_button.click()
    state["ticks"] += 1
    rows = w.model.rows()
    done = {r.model_kind for r in rows if r.state == "success"}
    running = [r for r in rows if r.state == "running"]
    if (done == {"web", "api"} and running) or state["ticks"] > 200:
        # The lane panels and the batches list follow the table once a second: bring them
        # up to date, let them paint, then shoot (a shot taken at once showed "0 of 5 done"
        # beside two web tasks that had succeeded).
        w.refresh()
        QTimer.singleShot(500, lambda: shoot(w))
        return
    QTimer.singleShot(300, step)

def shoot(w):
    rows = w.model.rows()
    if suffix:  # the whole (small) screen: what fits and what does not
        app.primaryScreen().grabWindow(0).save(str(out / f"main-window-{suffix}-{lang}.png"))
    else:
        w.grab().save(str(out / f"main-window-{lang}.png"))
    finished = next((r for r in rows if r.state == "success" and r.model_kind == "web"), None)
    if finished is not None:
        w.open_details(finished.task_id)  # opens once its record is read (a coroutine)

        def shoot_details(tries=0):
            dialog = w._details.get(finished.task_id)
            if dialog is None and tries < 50:
                QTimer.singleShot(100, lambda: shoot_details(tries + 1))
                return
            if dialog is not None:
                dialog.grab().save(
                    str(out / f"task-details-{suffix + '-' if suffix else ''}{lang}.png"))
            w.close()

        QTimer.singleShot(800, shoot_details)
    else:
        w.close()

QTimer.singleShot(300, step)
sys.exit(app_module.main(data_dir=Path(sys.argv[3]), demo=True))
"""


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots").resolve()
    suffix = sys.argv[2] if len(sys.argv) > 2 else ""  # e.g. 1366x768: a whole-screen shot
    out.mkdir(parents=True, exist_ok=True)
    for lang, locale in (("zh_CN", "zh_CN.UTF-8"), ("en", "en_US.UTF-8")):
        with tempfile.TemporaryDirectory(prefix="ma-shot-") as tmp:
            env = {
                **os.environ,
                "LANG": locale,
                "LC_ALL": locale,
                "LANGUAGE": lang,
                "MEDIA_ASSISTANT_DEMO_SPEED": "3",
                "MEDIA_ASSISTANT_NO_ERROR_DIALOG": "1",
            }
            subprocess.run(
                [sys.executable, "-c", CHILD, str(out), lang, tmp, suffix],
                env=env,
                check=True,
                timeout=300,
            )
        shots = f"main-window-{suffix}-{lang}.png" if suffix else f"main-window-{lang}.png, ..."
        print(f"{lang}: {out}/{shots}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
