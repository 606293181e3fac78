"""The window's exports run in a child process (core/exports/child.py): the same file as an
export on a thread, progress and Cancel across the pipe, and nothing left behind when the child
fails or is killed. Real processes, a real SQLite file."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest
from sqlalchemy import create_engine

from media_assistant.core.exports.child import ExportFailed, can_run_in_child, export_in_child
from media_assistant.core.exports.write import ExportScope, export_scope
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.jobs import JobCanceled, JobControl
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url

MANY = 20_000  # enough rows that the child is still writing when the test steps in


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    engine = open_engine(sqlite_url(tmp_path / "tasks.db"))
    yield Store(engine, ManualClock(1_764_483_900.0), EventBus())
    engine.dispose()


def submit(store: Store, n: int, batch: str = "b") -> None:
    store.submit(
        [
            NewTask(f"{batch}-{i:05d}", "m", ModelKind.API, f"写一段话 {i} " * 8, batch)
            for i in range(n)
        ]
    )


class Recorder:
    """A JobControl that remembers the progress it was given; ``on_first`` runs once, at the
    first report (on the thread that waits for the child)."""

    def __init__(self, on_first: object = None) -> None:
        self.reports: list[tuple[int, int]] = []
        self.on_first = on_first
        self.control = JobControl(self.report)

    def report(self, done: int, total: int) -> None:
        self.reports.append((done, total))
        if len(self.reports) == 1 and callable(self.on_first):
            self.on_first(self)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def no_child_left() -> bool:
    return not [p for p in multiprocessing.active_children() if p.name == "media-assistant-export"]


def test_the_child_writes_the_same_workbook_as_the_thread_and_reports_progress(
    store: Store, tmp_path: Path
) -> None:
    submit(store, 300)
    scope = ExportScope(batch_id="b")
    recorder = Recorder()
    child_file, thread_file = tmp_path / "child.xlsx", tmp_path / "thread.xlsx"
    assert export_in_child(store.engine, scope, child_file, None, "zh", recorder.control) == 300
    assert export_scope(store, scope, thread_file, headers="zh") == 300

    def cells(path: Path) -> list[list[object]]:
        sheet = openpyxl.load_workbook(path).active
        return [[c.value for c in row] for row in sheet.iter_rows()]

    assert cells(child_file) == cells(thread_file)
    assert cells(child_file)[0][:3] == ["任务ID", "批次", "标题"]
    assert recorder.reports[-1] == (300, 300)
    assert child_file.stat().st_mode & 0o777 == 0o600
    assert no_child_left()


def test_cancel_stops_the_child_and_writes_nothing(store: Store, tmp_path: Path) -> None:
    submit(store, MANY)
    recorder = Recorder(on_first=lambda r: r.control.cancel_requested.set())
    target = tmp_path / "all.xlsx"
    with pytest.raises(JobCanceled):
        export_in_child(store.engine, ExportScope(), target, None, "en", recorder.control)
    assert recorder.reports and recorder.reports[-1][0] < MANY
    assert not target.exists() and leftovers(tmp_path) == []
    assert no_child_left()


@pytest.mark.parametrize(("name", "fmt"), [("all.csv", None), ("all", "md-folder")])
def test_a_killed_child_fails_the_export_with_its_exit_code_and_leaves_no_file(
    store: Store, tmp_path: Path, name: str, fmt: str | None
) -> None:
    submit(store, MANY)

    def kill(_: Recorder) -> None:
        for child in multiprocessing.active_children():
            if child.name == "media-assistant-export":
                child.kill()

    target = tmp_path / name
    with pytest.raises(ExportFailed, match="without an answer .exit code -9"):
        export_in_child(store.engine, ExportScope(), target, fmt, "en", Recorder(kill).control)
    assert not target.exists() and leftovers(tmp_path) == []
    assert no_child_left()


def test_a_problem_in_the_child_comes_back_worded_for_the_operator(
    store: Store, tmp_path: Path
) -> None:
    submit(store, 3)
    target = tmp_path / "missing" / "out.xlsx"
    with pytest.raises(ExportFailed, match=r"missing/out\.xlsx: the folder .* does not exist"):
        export_in_child(store.engine, ExportScope(), target, None, "en", Recorder().control)
    with pytest.raises(ExportFailed, match="unknown header language"):
        export_in_child(
            store.engine, ExportScope(), tmp_path / "x.csv", None, "fr", Recorder().control
        )
    assert no_child_left()


def test_a_store_in_memory_cannot_be_opened_by_a_child() -> None:
    assert not can_run_in_child(create_engine("sqlite://"))
    assert not can_run_in_child(create_engine("sqlite:///:memory:"))
    assert can_run_in_child(create_engine("sqlite:////tmp/tasks.db"))


def export_child() -> multiprocessing.Process | None:
    return next(
        (p for p in multiprocessing.active_children() if p.name == "media-assistant-export"), None
    )


@pytest.mark.expect_errors(r"said nothing for")
def test_a_child_that_stops_answering_is_killed_and_the_export_fails(
    store: Store, tmp_path: Path
) -> None:
    """Before: a child that stopped talking (here: SIGSTOP, as a frozen or swapped-out
    process) was waited for forever unless the operator pressed Cancel; the job, and a
    closing app with it, hung."""
    submit(store, 50)
    target = tmp_path / "all.xlsx"
    outcome: list[BaseException | int] = []

    def run() -> None:
        try:
            outcome.append(
                export_in_child(
                    store.engine,
                    ExportScope(),
                    target,
                    None,
                    "en",
                    Recorder().control,
                    silence_limit_s=1.5,
                )
            )
        except BaseException as exc:
            outcome.append(exc)

    waiter = threading.Thread(target=run)
    waiter.start()
    child = None
    deadline = time.monotonic() + 20
    while child is None or child.pid is None:
        assert time.monotonic() < deadline, "no export child started"
        child = export_child()
        time.sleep(0.01)
    os.kill(child.pid, signal.SIGSTOP)  # before its first word: it never says anything
    waiter.join(15)
    stuck = waiter.is_alive()
    if stuck:  # before the fix: unblock the waiting thread, then fail
        os.kill(child.pid, signal.SIGKILL)
        waiter.join(10)
    assert not stuck, "the export waited for a silent child"
    [error] = outcome
    assert isinstance(error, ExportFailed) and "stopped answering" in str(error)
    assert not target.exists() and leftovers(tmp_path) == []
    assert no_child_left()


def test_closing_the_app_kills_the_child_at_once(store: Store, tmp_path: Path) -> None:
    """The window closes during an export: no grace (a cancel's is 15 s), no file, no process."""
    submit(store, MANY)
    stopped_at: list[float] = []

    def close(recorder: Recorder) -> None:
        stopped_at.append(time.monotonic())
        recorder.control.close_now()

    target = tmp_path / "all.xlsx"
    with pytest.raises(JobCanceled):
        export_in_child(store.engine, ExportScope(), target, None, "en", Recorder(close).control)
    assert time.monotonic() - stopped_at[0] < 3.0
    assert not target.exists() and leftovers(tmp_path) == []
    assert no_child_left()
