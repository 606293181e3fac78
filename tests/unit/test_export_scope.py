"""Exports an operator can use (issue 12 item 4), on a real SQLite store: a batch file's rows
come back beside their results, scoped to a batch, a state or the ids a window shows, with
English or Chinese headers, typed XLSX cells, a DOCX document and a folder of Markdown files."""

from __future__ import annotations

import csv
import datetime as dt
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest

from media_assistant.core.batches.batch_import import read_batch
from media_assistant.core.exports.write import ExportScope, default_export_name, export_scope
from media_assistant.core.files.filenames import safe_file_stem
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind, InputError
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url

ANSWER = """# 春节习俗

- 贴春联 **红色**
- 放鞭炮
  1. 除夕
  2. 初一

=SUM(A1) is not a formula here.

| 地区 | 习俗 |
|------|------|
| 北方 | 饺子 |

```python
print("新年好")
```

> 一句引言，见 [来源](https://example.com/src)
"""


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    engine = open_engine(sqlite_url(tmp_path / "tasks.db"))
    yield Store(engine, ManualClock(1_764_483_900.0), EventBus())
    engine.dispose()


def submit_file(store: Store, tmp_path: Path) -> None:
    """A CSV of three topics run through a template, then one success, one failure."""
    source = tmp_path / "festivals.csv"
    source.write_text(
        "标题,topic,count,day\n春节,fireworks,42,2026-02-17\n国庆,parade,007,2026-10-01\n"
        "端午,boats,-3.5,\n",
        encoding="utf-8",
    )
    tasks = read_batch(
        source,
        models={"m": ModelKind.API},
        default_model="m",
        template="Write about {topic}",
        batch_id="节日-1",
    )
    store.submit(tasks)
    first = store.claim_next(
        kind=ModelKind.API, account_id="a", models=["m"], owner_id="o", deadline_s=60
    )
    assert first is not None and first.task_id == "节日-1-00002"
    store.finish_success(first, ANSWER)
    second = store.claim_next(
        kind=ModelKind.API, account_id="a", models=["m"], owner_id="o", deadline_s=60
    )
    assert second is not None
    store.finish_failed(second, ErrorKind.CONTENT_POLICY, "refused")
    # Another batch, still waiting (submitted after the claims: the fair share would have
    # taken its task as soon as the festival batch's).
    store.submit(
        [
            t.__class__(
                **{**_fields(t), "task_id": "other-1", "batch_id": "other", "generated_id": False}
            )
            for t in tasks[:1]
        ]
    )


def _fields(task: object) -> dict[str, object]:
    return {name: getattr(task, name) for name in task.__slots__}  # type: ignore[attr-defined]


def test_csv_of_a_batch_has_the_input_row_beside_the_result_in_chinese(
    store: Store, tmp_path: Path
) -> None:
    submit_file(store, tmp_path)
    path = tmp_path / "out.csv"
    assert export_scope(store, ExportScope(batch_id="节日-1"), path, headers="zh") == 3
    with path.open(encoding="utf-8-sig", newline="") as file:
        rows = list(csv.DictReader(file))
    header = list(rows[0])
    # The task's own fields, then the file's other columns, then the result.
    assert header[:8] == ["任务ID", "批次", "标题", "提示词", "系统提示词", "topic", "count", "day"]
    assert header[8:10] == ["结果", "状态"] and "尝试次数" in header
    spring = next(r for r in rows if r["标题"] == "春节")
    assert spring["提示词"] == "Write about fireworks" and spring["topic"] == "fireworks"
    assert spring["结果"].startswith("# 春节习俗") and spring["状态"] == "成功"
    assert spring["count"] == "42" and spring["day"] == "2026-02-17"
    assert all(r["批次"] == "节日-1" for r in rows)  # the other batch stays out
    assert (tmp_path / "out.csv").stat().st_mode & 0o777 == 0o600


def test_xlsx_cells_are_typed_and_no_text_gets_a_quote(store: Store, tmp_path: Path) -> None:
    submit_file(store, tmp_path)
    path = tmp_path / "out.xlsx"
    export_scope(store, ExportScope(batch_id="节日-1"), path)
    sheet = openpyxl.load_workbook(path).active
    rows = [[c.value for c in row] for row in sheet.iter_rows()]
    header = rows[0]
    data = [dict(zip(header, r, strict=True)) for r in rows[1:]]
    spring = next(r for r in data if r["title"] == "春节")
    assert spring["count"] == 42 and isinstance(spring["attempt"], int)
    assert spring["day"] == dt.datetime(2026, 2, 17)
    assert isinstance(spring["created_at"], dt.datetime)
    national = next(r for r in data if r["title"] == "国庆")
    assert national["count"] == "007"  # a leading zero is an id, not a number
    boats = next(r for r in data if r["title"] == "端午")
    assert boats["count"] == -3.5
    assert spring["result_text"] == ANSWER  # "- 贴春联" and "=SUM" kept exactly
    assert all(c.data_type != "f" for row in sheet.iter_rows() for c in row)


def test_selection_scope_keeps_the_window_order_and_skips_unknown_ids(
    store: Store, tmp_path: Path
) -> None:
    submit_file(store, tmp_path)
    ids = ("节日-1-00004", "other-1", "gone", "节日-1-00002")
    path = tmp_path / "sel.jsonl"
    assert export_scope(store, ExportScope(task_ids=ids), path) == 3
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert [r["task_id"] for r in rows] == ["节日-1-00004", "other-1", "节日-1-00002"]
    assert rows[0]["inputs"] == {"topic": "boats", "count": "-3.5", "day": ""}


def test_state_scope(store: Store, tmp_path: Path) -> None:
    submit_file(store, tmp_path)
    path = tmp_path / "failed.csv"
    assert export_scope(store, ExportScope(states=(TaskState.FAILED,)), path) == 1


def test_docx_has_a_heading_per_task_and_the_markdown_rendered(
    store: Store, tmp_path: Path
) -> None:
    from docx import Document

    submit_file(store, tmp_path)
    path = tmp_path / "节日.docx"
    assert export_scope(store, ExportScope(batch_id="节日-1"), path, headers="zh") == 3
    document = Document(str(path))
    headings = [
        (p.style.name, p.text) for p in document.paragraphs if p.style.name.startswith("Heading")
    ]
    assert headings[0] == ("Heading 1", "批次 节日-1")
    assert [t for s, t in headings if s == "Heading 2"] == ["春节", "国庆", "端午"]
    assert ("Heading 3", "春节习俗") in headings  # the answer's "#" below the task's heading
    paragraphs = {p.text: p for p in document.paragraphs}
    assert paragraphs["贴春联 红色"].style.name == "List Bullet"
    assert any(r.bold and r.text == "红色" for r in paragraphs["贴春联 红色"].runs)
    assert paragraphs["1. 除夕"].style.name.startswith("List Continue")
    assert paragraphs["=SUM(A1) is not a formula here."].style.name == "Normal"
    code = paragraphs['print("新年好")']
    assert code.runs[0].font.name == "Consolas"
    quote = next(p for p in document.paragraphs if p.text.startswith("一句引言"))
    assert quote.style.name == "Quote" and "(https://example.com/src)" in quote.text
    tables = document.tables
    assert any(t.cell(1, 1).text == "饺子" for t in tables)  # the answer's table
    assert any(t.cell(0, 0).text == "topic" for t in tables)  # the input row
    with zipfile.ZipFile(path) as z:  # Chinese text gets an East Asian font
        assert "Microsoft YaHei" in z.read("word/styles.xml").decode("utf-8")


def test_markdown_folder_one_safe_file_per_task(store: Store, tmp_path: Path) -> None:
    submit_file(store, tmp_path)
    folder = tmp_path / "answers"
    assert export_scope(store, ExportScope(), folder, "md-folder") == 4
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(
        f"{safe_file_stem(i)}.md"
        for i in ("节日-1-00002", "节日-1-00003", "节日-1-00004", "other-1")
    )
    text = (folder / f"{safe_file_stem('节日-1-00002')}.md").read_text("utf-8")
    assert text.startswith("# 春节 — success") and ANSWER.strip() in text
    assert "- **topic**: fireworks" in text
    assert folder.stat().st_mode & 0o777 == 0o700
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in folder.iterdir())
    with pytest.raises(InputError, match="not an empty folder"):
        export_scope(store, ExportScope(), folder, "md-folder")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_markdown_folder_canceled_midway_leaves_nothing(store: Store, tmp_path: Path) -> None:
    submit_file(store, tmp_path)

    def track(records: object, total: int) -> Iterator[object]:
        for i, record in enumerate(records):  # type: ignore[call-overload]
            if i == 2:
                raise RuntimeError("canceled")
            yield record

    before = sorted(tmp_path.iterdir())
    with pytest.raises(RuntimeError):
        export_scope(store, ExportScope(), tmp_path / "md", "md-folder", track=track)  # type: ignore[arg-type]
    assert sorted(tmp_path.iterdir()) == before


def test_default_names_say_what_and_when_never_a_fixed_name() -> None:
    when = dt.datetime(2026, 12, 2, 9, 30)
    assert default_export_name(ExportScope(batch_id="节日-1"), "xlsx", now=when) == (
        "节日-1-20261202-0930.xlsx"
    )
    assert default_export_name(ExportScope(batch_id="a/b:c"), "docx", now=when) == (
        "a_b_c-20261202-0930.docx"
    )
    assert default_export_name(ExportScope(), "md-folder", now=when) == "tasks-20261202-0930"
    assert (
        default_export_name(ExportScope(task_ids=("x",)), "csv", now=when, label="selection")
        == "selection-20261202-0930.csv"
    )
