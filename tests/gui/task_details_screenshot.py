"""Screenshots of the task details dialog with realistic content (not a test: run it by hand).

    xvfb-run -a .venv/bin/python tests/gui/task_details_screenshot.py

writes /tmp/task_details_{result,prompt,log,running,failed}.png.
"""

from __future__ import annotations

import dataclasses
import sys
import time

from PySide6.QtWidgets import QApplication

from media_assistant.core.model.records import TaskEventRecord, TaskRecord
from media_assistant.gui.tasks.details import TaskDetailsDialog

T0 = time.time() - 600
ANSWER = """# 春季护肤指南：换季不烂脸的 5 个小习惯

春天气温忽冷忽热、空气干燥，皮肤屏障很容易**变得脆弱**。下面这几个习惯，亲测有效：

## 1. 温和清洁

- 早上用清水或氨基酸洁面，避免皂基
- 晚上卸妆后**二次清洁**即可，不要过度搓洗

## 2. 加强保湿

| 肤质 | 推荐 | 避开 |
|---|---|---|
| 干皮 | 神经酰胺面霜 | 高浓度酒精 |
| 油皮 | 清爽凝露 | 厚重油膏 |

> 小贴士：洗完脸 3 分钟内完成保湿，锁水效果最好。

## 3. 防晒不能停

春季紫外线已经明显增强，通勤也要涂 SPF30 以上的防晒。
"""
REASONING = (
    "用户要一篇小红书风格的春季护肤笔记，约800字。先确定结构：开头点出换季痛点，"
    "然后分5点展开，每点给具体做法；语气亲切，适当用表格和小贴士增加可读性……"
)


def record(**changes: object) -> TaskRecord:
    values: dict[str, object] = {
        "task_id": "五月选题-20240501-093000-00002",
        "seq": 2,
        "batch_id": "五月选题-20240501-093000",
        "title": None,
        "model": "deepseek-r1-web",
        "model_kind": "web",
        "account_id": "ds-web-1",
        "prompt": "写一篇关于春季护肤的小红书笔记，围绕关键词：补水,敏感肌，约800字。\n"
        "要求：口语化，分点叙述，结尾给出一个互动问题。",
        "system_prompt": "你是一名资深生活方式编辑，文风亲切，少用感叹号。",
        "priority": 2,
        "state": "success",
        "attempt": 2,
        "max_attempts": 3,
        "keep_attempt": False,
        "lease": 2,
        "lost_count": 0,
        "created_at": T0,
        "started_at": T0 + 41,
        "heartbeat_at": T0 + 200,
        "finished_at": T0 + 234,
        "not_before": None,
        "deadline_at": None,
        "cancel_requested": False,
        "owner_id": "s1",
        "progress_chars": len(ANSWER),
        "result_text": ANSWER,
        "reasoning_text": REASONING,
        "usage_json": None,
        "error_kind": None,
        "error_message": None,
    }
    values.update(changes)
    return TaskRecord(**values)  # type: ignore[arg-type]


def events() -> list[TaskEventRecord]:
    rows = [
        ("state", None, "pending → running (ds-web-1)"),
        (
            "selfcheck",
            1,
            "[web ds-web-1] found a leftover Chromium (pid 48213) on our profile: stopped",
        ),
        ("log", 1, "[web ds-web-1] browser started (pid 48377; Playwright Chromium 131)"),
        ("log", 1, "[web ds-web-1] new chat opened, prompt sent (1 block, 92 characters)"),
        ("error", 1, "[web ds-web-1] the page stopped updating for 120 s (timeout)"),
        ("retry", 1, "retry 2/3 in 7.4 s (timeout)"),
        ("state", 2, "pending → running (ds-web-1)"),
        ("selfcheck", 2, "[web ds-web-1] self-check: nothing to clean up"),
        ("log", 2, "[web ds-web-1] answer stable for 3 polls: 812 characters"),
        ("state", 2, "running → success"),
    ]
    return [
        TaskEventRecord(i + 1, "t", T0 + 41 + i * 19, kind, "web", "ds-web-1", attempt, message)
        for i, (kind, attempt, message) in enumerate(rows)
    ]


def shoot(app: QApplication, dialog: TaskDetailsDialog, path: str) -> None:
    dialog.show()
    for _ in range(5):
        app.processEvents()
    dialog.grab().save(path)


def main() -> int:
    app = QApplication(sys.argv)

    done = TaskDetailsDialog(record(), events())
    done.result_page.reasoning_toggle.setChecked(True)
    shoot(app, done, "/tmp/task_details_result.png")
    done.tabs.setCurrentIndex(1)
    shoot(app, done, "/tmp/task_details_prompt.png")
    done.tabs.setCurrentIndex(2)
    shoot(app, done, "/tmp/task_details_log.png")

    running = record(
        state="running",
        finished_at=None,
        result_text=None,
        reasoning_text=None,
        progress_chars=1234,
    )
    live = TaskDetailsDialog(running, events()[:4], now=lambda: T0 + 100)
    shoot(app, live, "/tmp/task_details_running.png")

    failed = dataclasses.replace(
        running,
        state="failed",
        attempt=3,
        finished_at=T0 + 400,
        error_kind="login_required",
        error_message="the chat page shows the login form: sign in to ds-web-1 again "
        "(Accounts → Sign in), then retry the task",
    )
    shoot(app, TaskDetailsDialog(failed, events()), "/tmp/task_details_failed.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
