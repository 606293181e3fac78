"""Screenshots of the notification list and the export dialog on the built-in demo, in zh_CN
and en, the whole 1366×768 screen under Xvfb:

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python scripts/screenshots_notices.py \
        docs/screenshots

For each language it starts the real app (``media-assistant --demo``) with that system locale,
runs the sample batch until it has ended (its notice is in the list), shows the
Notifications tab (notifications-1366x768-<lang>.png), then opens the export dialog for the
batch (export-dialog-1366x768-<lang>.png). Look at them.
"""

from __future__ import annotations

from _shots import shoot_each_language

CHILD = r"""
import sys
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
import media_assistant.app as app_module
from media_assistant.core.exports.write import ExportScope
from media_assistant.gui.window.main_window import MainWindow

out, lang = Path(sys.argv[1]), sys.argv[2]
QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, sys.argv[3])
app = QApplication(sys.argv[:1])
state = {"ticks": 0}

def window():
    return next((w for w in QApplication.topLevelWidgets()
                 if isinstance(w, MainWindow) and w.isVisible()), None)

def shot(name):
    app.primaryScreen().grabWindow(0).save(str(out / f"{name}-1366x768-{lang}.png"))

def step():
    w = window()
    if w is None:
        QTimer.singleShot(300, step)
        return
    if state["ticks"] == 0:
        w.demo_button.click()
    state["ticks"] += 1
    batches = [n for n in w.notices.center.sent if n.kind.value.startswith("batch_")]
    if batches or state["ticks"] > 600:
        w.bottom.setCurrentWidget(w.notifications)
        QTimer.singleShot(600, lambda: after_list(w, batches))
        return
    QTimer.singleShot(300, step)

def after_list(w, batches):
    shot("notifications")
    batch = batches[0].subject if batches else None
    dialog = w.task_actions.export_tasks(ExportScope(batch_id=batch) if batch else None)
    QTimer.singleShot(800, lambda: (shot("export-dialog"), dialog.reject(), w.close()))

QTimer.singleShot(300, step)
sys.exit(app_module.main(data_dir=Path(sys.argv[3]), demo=True))
"""


def main() -> int:
    return shoot_each_language(
        CHILD,
        demo_speed="20",
        timeout=400,
        saved="{out}/notifications-1366x768-{lang}.png, export-dialog-1366x768-{lang}.png",
    )


if __name__ == "__main__":
    raise SystemExit(main())
