"""What the window remembers belongs to its data folder (issue 20, item 1): two queues side by
side — a demo and the real one, say — under the same user's Qt settings never see each other's
notices, read marks or last batch; each gets its own back after a restart. Real windows on real
SQLite files; the state file is read back from disk."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from media_assistant.core.files.local_state import LocalState
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind, NoticeKind
from media_assistant.core.notices.center import Notice
from tests.gui.app_env import running_app

CONFIG = """
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "{account}"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_STATE_TEST_KEY"
models = ["api-model"]
"""


def folder(tmp_path: Path, name: str, account: str) -> Path:
    data = tmp_path / name
    data.mkdir()
    (data / "config.toml").write_text(CONFIG.format(account=account), encoding="utf-8")
    return data


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


def tasks(batch: str) -> list[NewTask]:
    return [
        NewTask(f"{batch}-{i}", "api-model", ModelKind.API, f"提示 {i}", batch) for i in range(2)
    ]


async def test_notices_read_marks_and_the_last_batch_stay_with_their_data_folder(
    tmp_path: Path, qtbot: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("MA_STATE_TEST_KEY", "sk-state-test")
    demo, real = folder(tmp_path, "demo", "demo-api"), folder(tmp_path, "real", "real-api")
    # A notice list left in the user-wide settings by an older version: no folder's own.
    QSettings().setValue("notifications/unread", json.dumps(["{}"]))

    async with running_app(demo, qtbot, start_scheduler=False) as env:
        await env.controller.submit(tasks("demo-batch"))
        w = env.window
        await until(lambda: w.table.batch_filter.findData("demo-batch") >= 0)
        w._on_notice(Notice(NoticeKind.BATCH_DONE, "demo-batch", 1_764_483_900.0, {"total": 2}))
        w._on_notice(Notice(NoticeKind.ACCOUNT_ATTENTION, "demo-api", 1_764_483_960.0, {}))
        w.notifications.list.itemClicked.emit(w.notifications.list.item(1))  # the batch: read
        assert w.queue.chosen() == "demo-batch"  # ... and opened: the table shows that batch
        assert w.notifications.unread_count() == 1
    saved = json.loads((demo / "window-state.json").read_text(encoding="utf-8"))
    assert saved["last_batch"] == "demo-batch" and len(saved["notices"]) == 2
    if os.name == "posix":
        assert (demo / "window-state.json").stat().st_mode & 0o777 == 0o600
    assert QSettings().value("notifications/unread") is None  # dropped, not carried over

    async with running_app(real, qtbot, start_scheduler=False) as env:
        w = env.window
        assert w.notifications.list.count() == 0  # nothing of the demo's
        assert w.queue.chosen() == ""
        assert w.windowTitle() == "Media Assistant"

    async with running_app(demo, qtbot, start_scheduler=False) as env:
        w = env.window
        assert w.notifications.list.count() == 2 and w.notifications.unread_count() == 1
        assert w.queue.chosen() == "demo-batch"  # where the operator left it
        w.table.set_batch("")
    assert LocalState.load(demo / "window-state.json").get("last_batch") == ""


async def test_a_notice_of_a_batch_this_queue_does_not_have_says_so(
    tmp_path: Path, qtbot: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("MA_STATE_TEST_KEY", "sk-state-test")
    data = folder(tmp_path, "data", "api-1")
    async with running_app(data, qtbot, start_scheduler=False) as env:
        w = env.window
        w._on_notice(Notice(NoticeKind.BATCH_DONE, "gone", 1_764_483_900.0, {"total": 1}))
        w.notifications.list.itemClicked.emit(w.notifications.list.item(0))
        assert "gone" in w.statusBar().currentMessage()
        assert w.queue.chosen() == ""


def test_an_unreadable_state_file_is_set_aside_and_the_window_starts_without_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "window-state.json"
    path.write_text("{not json", encoding="utf-8")
    state = LocalState.load(path)
    assert state.get("notices") is None
    assert (tmp_path / "window-state.json.unreadable").exists()
    assert state.set("last_batch", "b1") and not state.set("last_batch", "b1")
    assert state.save() and not state.save()  # written once; nothing new the second time
    assert LocalState.load(path).get("last_batch") == "b1"
