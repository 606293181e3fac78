"""Screenshots of the "New batch" dialog with realistic content (not a test: run it by hand).

    xvfb-run -a .venv/bin/python tests/gui/batch_dialog_screenshot.py

writes /tmp/batch_dialog_{paste,empty,file,unknown,error}.png.
"""

from __future__ import annotations

import csv
import io
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from media_assistant.gui.batches.dialog import NewBatchDialog

MODELS = [
    ("deepseek-chat", "api"),
    ("moonshot-v1-32k", "api"),
    ("deepseek-r1-web", "web"),
    ("kimi-web", "web"),
]
PROMPTS = [
    "写一篇关于春季护肤的小红书笔记，800字左右，语气亲切",
    "为新款316不锈钢保温杯写五个电商标题，每个不超过30字",
    "介绍一款降噪蓝牙耳机的三大卖点，适合放在商品详情页",
    "以“周末露营”为主题写一篇公众号推文，附三个小标题",
    "把下面这段产品描述改写得更口语化：这款空气炸锅采用360°热风循环技术",
    "为母亲节写十条朋友圈文案，温馨但不煽情",
]
ROWS = [
    ["topic", "关键词", "字数", "model"],
    ["春季护肤", "补水,敏感肌", "800", ""],
    ["露营装备清单", "帐篷,天幕,新手", "1200", "kimi-web"],
    ["家用咖啡机选购", "意式,胶囊,预算3000", "1000", ""],
    ["儿童防晒", "物理防晒,SPF30", "600", ""],
    ["办公室午睡神器", "U型枕,眼罩", "500", "deepseek-r1-web"],
    ["宠物猫换粮", "过渡期,软便", "900", ""],
]


def settle(app: QApplication, dialog: NewBatchDialog) -> None:
    """Let the file reader thread finish and the layout settle (a script may poll)."""
    deadline = time.monotonic() + 10
    while dialog._job is not None and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    for _ in range(5):
        app.processEvents()


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    path.write_bytes(buffer.getvalue().encode("utf-8-sig"))
    return path


def main() -> int:
    app = QApplication(sys.argv)
    tmp = Path(tempfile.mkdtemp(prefix="batch-shot-"))

    paste = NewBatchDialog(MODELS, default_model="deepseek-chat")
    paste.show()
    paste.paste_edit.setPlainText("\n".join(PROMPTS * 4))
    paste.options.priority_spin.setValue(2)
    settle(app, paste)
    paste.grab().save("/tmp/batch_dialog_paste.png")

    file = NewBatchDialog(MODELS, default_model="deepseek-r1-web")
    file.show()
    file.tabs.setCurrentIndex(1)
    settle(app, file)
    file.grab().save("/tmp/batch_dialog_empty.png")
    file.open_file(write_csv(tmp / "五月选题.csv", ROWS))
    settle(app, file)
    file.file_page.template_edit.setPlainText(
        "写一篇关于{topic}的小红书笔记，围绕关键词：{关键词}，约{字数}字"
    )
    file.options.system_toggle.setChecked(True)
    file.options.system_edit.setPlainText("你是一名资深生活方式编辑，文风亲切，少用感叹号。")
    settle(app, file)
    file.grab().save("/tmp/batch_dialog_file.png")
    file.file_page.template_edit.setPlainText("写一篇关于{topic}的笔记，突出{卖点}和{人群}")
    settle(app, file)
    file.grab().save("/tmp/batch_dialog_unknown.png")

    bad = NewBatchDialog(MODELS, default_model="deepseek-chat")
    bad.show()
    rows = [["提示词", "优先级", "模型"], ["写一篇文章", "1", ""], ["写标题", "很高", "gpt-5"]]
    bad.open_file(write_csv(tmp / "有问题的批次.csv", rows))
    settle(app, bad)
    bad.file_page.template_edit.setPlainText("")
    bad._submit()
    settle(app, bad)
    bad.grab().save("/tmp/batch_dialog_error.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
