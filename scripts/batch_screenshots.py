"""Screenshots of the batches view on the built-in demo, in zh_CN and en, on a whole 1366×768
screen under Xvfb (what a laptop shows):

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python scripts/batch_screenshots.py \
        docs/screenshots

For each language it starts the real app (``media-assistant --demo``) with that system locale,
submits three batches — the demo's sample, a night batch scheduled for 01:00, and one that is
then paused — waits until tasks have finished and others run, picks the sample batch in the
list (the task table and the lane panels follow it), and saves ``batches-1366x768-<lang>.png``;
then opens a task's details (``task-details-retry-1366x768-<lang>.png``). Look at them.
"""

from __future__ import annotations

from _shots import shoot_each_language

CHILD = r"""
import datetime as dt, sys
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
import media_assistant.app as app_module
from media_assistant.core.model.records import BatchInfo
from media_assistant.demo import sample_batch
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.window.main_window import MainWindow

out, lang = Path(sys.argv[1]), sys.argv[2]
QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, sys.argv[3])
app = QApplication(sys.argv[:1])
state = {"ticks": 0}

def window():
    return next((w for w in QApplication.topLevelWidgets()
                 if isinstance(w, MainWindow) and w.isVisible()), None)

def tonight():
    now = dt.datetime.now()
    moment = now.replace(hour=1, minute=0, second=0, microsecond=0)
    return (moment + dt.timedelta(days=1 if moment <= now else 0)).timestamp()

def step():
    w = window()
    if w is None:
        QTimer.singleShot(300, step)
        return
    if state["ticks"] == 0:
        night = [t.__class__(**{**{f: getattr(t, f) for f in t.__slots__},
                 "task_id": t.task_id.replace("demo", "night"), "batch_id": "night"})
                 for t in sample_batch("night")[:6]]
        spawn(w._submit_tasks(night, BatchInfo("night", name="夜间长文" if lang == "zh_CN"
              else "Night articles", source_file="/home/ops/选题/night-topics.xlsx",
              start_at=tonight())), "night")
        w.task_actions.set_paused("batch", "weekend", True)  # before it can start
        held = sample_batch("weekend")[:5]
        spawn(w._submit_tasks(held, BatchInfo("weekend", name="周末选题" if lang == "zh_CN"
              else "Weekend topics", source_file="/home/ops/选题/weekend.csv")), "weekend")
        w.demo_button.click()
    state["ticks"] += 1
    rows = w.model.rows()
    done = {r.model_kind for r in rows if r.state == "success" and r.batch_id.startswith("demo")}
    running = [r for r in rows if r.state == "running"]
    if (done == {"web", "api"} and running) or state["ticks"] > 200:
        demo = next((r.batch_id for r in rows if r.batch_id.startswith("demo-")), "")
        w.batch_list.select(demo)
        def shoot():
            app.primaryScreen().grabWindow(0).save(str(out / f"batches-1366x768-{lang}.png"))
            w.close()
        QTimer.singleShot(1500, shoot)
        return
    QTimer.singleShot(300, step)

QTimer.singleShot(300, step)
sys.exit(app_module.main(data_dir=Path(sys.argv[3]), demo=True))
"""


def main() -> int:
    return shoot_each_language(
        CHILD, demo_speed="3", timeout=300, saved="{out}/batches-1366x768-{lang}.png"
    )


if __name__ == "__main__":
    raise SystemExit(main())
