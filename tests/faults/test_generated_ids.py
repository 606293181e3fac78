"""Issue 9, item 1: generated task ids never collide with earlier ones; skips are named."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from media_assistant.core.batches.batch_import import tasks_from_lines
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from tests.faults.conftest import cli, no_traceback, rows, write_config, write_csv


def prompts_csv(path: Path, prompts: list[str]) -> Path:
    return write_csv(path, [{"prompt": p, "model": "web-model"} for p in prompts])


def test_a_second_file_under_the_same_batch_id_adds_every_prompt(tmp_path: Path) -> None:
    """Before: 2 prompts as batch daily-greetings, then 3 other prompts under the same batch id:
    "1 task added" — two of the operator's prompts were dropped without a word."""
    data = tmp_path / "data"
    write_config(data)
    first = prompts_csv(
        tmp_path / "morning.csv", ["Good morning, Beijing", "Good morning, Shanghai"]
    )
    second = prompts_csv(
        tmp_path / "evening.csv", ["Good evening, A", "Good evening, B", "Good evening, C"]
    )
    one = cli(data, "submit", str(first), "--batch-id", "daily-greetings")
    two = cli(data, "submit", str(second), "--batch-id", "daily-greetings")
    assert one.returncode == 0 and "2 tasks added" in one.stdout, one.stdout + one.stderr
    assert two.returncode == 0 and "3 tasks added" in two.stdout, two.stdout + two.stderr
    stored = rows(data / "media-assistant.db")
    assert [r["prompt"] for r in stored] == [
        "Good morning, Beijing",
        "Good morning, Shanghai",
        "Good evening, A",
        "Good evening, B",
        "Good evening, C",
    ]
    ids = [str(r["task_id"]) for r in stored]
    assert len(set(ids)) == 5
    # The first file keeps its row numbers; the second continues after them, in order.
    assert ids == [f"daily-greetings-{n:05d}" for n in (2, 3, 4, 5, 6)]
    # The same file submitted again is new prompts too (its ids were made up, not supplied).
    three = cli(data, "submit", str(second), "--batch-id", "daily-greetings")
    assert "3 tasks added" in three.stdout and len(rows(data / "media-assistant.db")) == 8


def test_parallel_pastes_with_the_same_batch_id_lose_nothing(tmp_path: Path) -> None:
    """Before: two paste dialogs opened in the same second share ``paste-YYYYmmdd-HHMMSS``; the
    second submission's ``-00001…`` ids were taken, and 6 of 8 prompts vanished. Here four real
    processes paste at the same moment under one batch id."""
    from media_assistant.core.store.db import open_engine, sqlite_url

    db = tmp_path / "media-assistant.db"
    open_engine(sqlite_url(db)).dispose()
    script = textwrap.dedent(
        f"""
        import sys, time
        from media_assistant.core.batches.batch_import import tasks_from_lines
        from media_assistant.core.model.clock import SystemClock
        from media_assistant.core.store.db import open_engine, sqlite_url
        from media_assistant.core.model.states import ModelKind
        from media_assistant.core.store import Store
        from pathlib import Path
        store = Store(open_engine(sqlite_url(Path({str(db)!r}))), SystemClock())
        n = sys.argv[1]
        tasks = tasks_from_lines(
            f"dialog {{n}} first\\ndialog {{n}} second", model="m",
            models={{"m": ModelKind.API}}, batch_id="paste-20261201-210000",
        )
        while time.time() < {time.time() + 4.0}:
            time.sleep(0.005)
        result = store.submit(tasks)
        print(len(result.added), len(result.skipped))
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(n)], stdout=subprocess.PIPE, text=True)
        for n in range(4)
    ]
    outputs = [p.communicate(timeout=60)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outputs == [["2", "0"]] * 4
    stored = rows(db)
    assert sorted(str(r["prompt"]) for r in stored) == sorted(
        f"dialog {n} {w}" for n in range(4) for w in ("first", "second")
    )
    assert len({r["task_id"] for r in stored}) == 8
    # Each dialog's two prompts got consecutive numbers, in their order.
    by_prompt = {str(r["prompt"]): str(r["task_id"]) for r in stored}
    for n in range(4):
        a, b = by_prompt[f"dialog {n} first"], by_prompt[f"dialog {n} second"]
        assert int(b.rsplit("-", 1)[1]) == int(a.rsplit("-", 1)[1]) + 1


def test_only_supplied_ids_are_skipped_and_every_skip_is_named(tmp_path: Path) -> None:
    """Before: "6 already present (skipped)" — which six, the operator could not tell. Supplied
    ids still deduplicate (re-importing a file is idempotent); ``submit`` and ``run`` name them."""
    data = tmp_path / "data"
    write_config(data)
    batch = write_csv(
        tmp_path / "b.csv",
        [{"task_id": f"art-{i}", "prompt": f"Article {i}", "model": "web-model"} for i in range(3)],
    )
    assert cli(data, "submit", str(batch)).returncode == 0
    again = cli(data, "submit", str(batch))
    assert again.returncode == 0
    assert "0 tasks added, 3 already present" in again.stdout
    assert "art-0, art-1, art-2" in again.stdout
    more = write_csv(
        tmp_path / "c.csv",
        [
            {"task_id": "art-1", "prompt": "Article 1", "model": "web-model"},
            {"task_id": "art-9", "prompt": "Article 9", "model": "web-model"},
        ],
    )
    ran = cli(data, "run", str(more))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 tasks added, 1 already present" in ran.stdout and ": art-1" in ran.stdout
    assert no_traceback(ran)
    assert {r["task_id"] for r in rows(data / "media-assistant.db")} == {
        "art-0",
        "art-1",
        "art-2",
        "art-9",
    }


def test_generated_ids_step_around_supplied_ones(store: Store) -> None:
    """A supplied id that looks generated (``b-00002``) is not taken over by a made-up one."""
    supplied = NewTask("b-00002", "m", ModelKind.API, "supplied", "b")
    assert store.submit([supplied]).added == ("b-00002",)
    pasted = tasks_from_lines(
        "one\ntwo\nthree", model="m", models={"m": ModelKind.API}, batch_id="b"
    )
    result = store.submit(pasted)
    assert result.skipped == ()
    assert result.added == ("b-00003", "b-00004", "b-00005")
    assert [store.get(t).prompt for t in result.added] == ["one", "two", "three"]  # type: ignore[union-attr]
    # A batch id with SQL wildcards in it is matched literally.
    odd = tasks_from_lines("x", model="m", models={"m": ModelKind.API}, batch_id="b_%")
    assert store.submit(odd).added == ("b_%-00001",)
    assert store.submit(odd).added == ("b_%-00002",)
