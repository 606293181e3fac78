"""The desktop app as ``media-assistant`` starts it, plus one thing an operator does in its window
once it is up, so a test can close the window in the middle of it (black-box tests of the
shutdown). Usage::

    python -m tests.support.app_driver export OUT.xlsx [media-assistant options]
    python -m tests.support.app_driver login ACCOUNT [media-assistant options]

``export``: every task to OUT.xlsx, as *Export…* does (a background job, the file written by a
child process); ``login``: the accounts panel's *Log in*. Prints ``started`` when it did.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication


def main() -> int:
    action, target, *cli_args = sys.argv[1:]
    app = QApplication.instance() or QApplication(sys.argv[:1])

    def step() -> None:
        from media_assistant.gui.bridge.jobs import spawn
        from media_assistant.gui.window.main_window import MainWindow

        window = next(
            (w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()),
            None,
        )
        if window is None or not window.controller.scheduler.started:
            QTimer.singleShot(100, step)
            return
        if action == "export":
            spawn(window.task_actions.export_to(Path(target), None, "xlsx"), "driver:export")
        else:
            window.accounts.login_requested.emit(target)  # what its Log in button does
        print("started", flush=True)

    QTimer.singleShot(100, step)
    from media_assistant.cli import main as cli_main

    return cli_main(cli_args)


if __name__ == "__main__":
    raise SystemExit(main())
