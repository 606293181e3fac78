"""Exports read back with the csv, json and openpyxl modules; atomic replacement on failure."""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import json
import re
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import openpyxl
import pytest

from media_assistant.core.exports.fields import EXPORT_FIELDS, Headers, local_iso
from media_assistant.core.exports.write import export_tasks
from media_assistant.core.exports.xlsx import XLSX_CELL_LIMIT
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import TASK_COLUMNS, TaskRecord

CREATED = 1_764_483_901.75  # 2025-11-30T06:25:01.75Z
RESULT = '第一段：春天来了。\n\n第二段：\r\n- 花开了\n- "引号", 逗号'


def record(task_id: str = "t-1", **changes: object) -> TaskRecord:
    base: dict[str, object] = {name: None for name in TASK_COLUMNS}
    base.update(
        task_id=task_id,
        seq=1,
        batch_id="周报-1",
        title="春天",
        model="ds-chat",
        model_kind="api",
        account_id="ds-api",
        prompt="secret prompt text",
        priority=0,
        state="success",
        attempt=1,
        max_attempts=3,
        keep_attempt=False,
        lease=1,
        lost_count=0,
        created_at=CREATED,
        started_at=CREATED + 2,
        finished_at=CREATED + 14.9,
        cancel_requested=False,
        progress_chars=0,
        result_text=RESULT,
    )
    base.update(changes)
    return TaskRecord.from_mapping(base)


RECORDS = [
    record("t-1"),
    record(
        "t-2",
        state="failed",
        model_kind="web",
        account_id=None,
        attempt=3,
        started_at=None,
        finished_at=None,
        result_text=None,
        error_kind="timeout",
        error_message='=HYPERLINK("http://evil")',
    ),
    record("t-3", result_text="+1 -2 @SUM(A1)", state="pending", attempt=0),
    record("t-4", result_text="-5", error_message="@cmd"),
]


@pytest.fixture
def shanghai_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if not hasattr(time, "tzset"):
        pytest.skip("needs time.tzset (POSIX)")
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def failing_after(count: int) -> Iterator[TaskRecord]:
    yield from RECORDS[:count]
    raise RuntimeError("store went away mid-export")


# ---------------------------------------------------------------------------------------- CSV


def test_csv_round_trip(tmp_path: Path, shanghai_time: None) -> None:
    path = tmp_path / "out.csv"
    assert export_tasks(RECORDS, path) == 4

    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # Excel needs the BOM to show Chinese
    with path.open(encoding="utf-8-sig", newline="") as file:
        rows = list(csv.DictReader(file))
    assert tuple(rows[0]) == EXPORT_FIELDS
    first, second, third, fourth = rows
    assert first["result_text"] == RESULT  # newlines (even \r\n) survive inside the quotes
    assert first["batch_id"] == "周报-1"
    assert first["created_at"] == "2025-11-30T14:25:01+08:00"
    assert first["finished_at"] == "2025-11-30T14:25:16+08:00"
    assert (second["account_id"], second["started_at"], second["result_text"]) == ("", "", "")
    assert second["attempt"] == "3"
    assert second["error_message"] == '\'=HYPERLINK("http://evil")'
    assert third["result_text"] == "'+1 -2 @SUM(A1)"
    assert (fourth["result_text"], fourth["error_message"]) == ("'-5", "'@cmd")
    assert first["prompt"] == "secret prompt text"  # the input beside the result


def test_empty_export_writes_the_header(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    assert export_tasks([], path) == 0
    assert path.read_text("utf-8-sig").strip() == ",".join(EXPORT_FIELDS)


# -------------------------------------------------------------------------------------- JSONL


def test_jsonl_round_trip(tmp_path: Path) -> None:
    separators = "行一\u2028行二\u2029行三\x85"
    records = [*RECORDS, record("t-5", result_text=separators)]
    path = tmp_path / "out.jsonl"
    assert export_tasks(records, path) == 5

    text = path.read_text("utf-8")
    lines = text.splitlines()  # splits at U+2028 too: those must be escaped
    assert len(lines) == 5
    rows = [json.loads(line) for line in lines]
    expected = list(EXPORT_FIELDS)
    expected.insert(expected.index("system_prompt") + 1, "inputs")
    assert [list(r) for r in rows] == [expected] * 5
    assert rows[0]["inputs"] == {}  # a pasted prompt has no source row
    assert rows[0]["result_text"] == RESULT
    assert rows[0]["batch_id"] == "周报-1"
    assert "周报" in text  # readable, not \\u escapes
    assert rows[1]["started_at"] is None and rows[1]["result_text"] is None
    assert rows[1]["attempt"] == 3
    assert rows[1]["error_message"] == '=HYPERLINK("http://evil")'  # JSON is not a spreadsheet
    assert rows[4]["result_text"] == separators
    created = dt.datetime.fromisoformat(rows[0]["created_at"])
    assert created.utcoffset() is not None
    assert created.timestamp() == int(CREATED)


# --------------------------------------------------------------------------------------- XLSX


def test_xlsx_round_trip(tmp_path: Path, shanghai_time: None) -> None:
    long_text = "长" * (XLSX_CELL_LIMIT + 100)
    records = [
        *RECORDS,
        record("t-5", result_text="bell\x07 and nul\x00 removed", error_message=long_text),
    ]
    path = tmp_path / "out.xlsx"
    assert export_tasks(records, path) == 5

    workbook = openpyxl.load_workbook(path)
    sheet = workbook.active
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert tuple(rows[0]) == EXPORT_FIELDS
    data = [dict(zip(EXPORT_FIELDS, row, strict=True)) for row in rows[1:]]
    assert data[0]["result_text"] == RESULT.replace("\r\n", "\n")  # Excel's in-cell newline
    assert data[0]["batch_id"] == "周报-1"
    # Typed cells: local time as a date cell (Excel has no zones), attempt a number.
    assert data[0]["created_at"] == dt.datetime(2025, 11, 30, 14, 25, 1)
    assert data[0]["attempt"] == 1 and data[1]["attempt"] == 3
    assert data[1]["started_at"] is None
    # Only "=" would make openpyxl write a formula: it is a string cell, with no visible '.
    assert data[1]["error_message"] == '=HYPERLINK("http://evil")'
    assert data[2]["result_text"] == "+1 -2 @SUM(A1)"
    assert data[3]["result_text"] == "-5" and data[3]["error_message"] == "@cmd"
    assert data[4]["result_text"] == "bell and nul removed"
    assert len(data[4]["error_message"]) == XLSX_CELL_LIMIT
    assert "see the JSONL or MD export" in data[4]["error_message"]
    # Nothing became a formula.
    assert all(cell.data_type != "f" for row in sheet.iter_rows() for cell in row)

    assert all(cell.font.bold for cell in sheet[1])
    assert sheet.freeze_panes == "A2"
    result_column = EXPORT_FIELDS.index("result_text") + 1
    assert sheet.cell(row=2, column=result_column).alignment.wrap_text
    widths = {
        name: sheet.column_dimensions[openpyxl.utils.get_column_letter(i + 1)].width
        for i, name in enumerate(EXPORT_FIELDS)
    }
    assert widths["result_text"] >= 60
    assert widths["created_at"] >= len("2025-11-30 14:25:01")
    assert widths["model_kind"] < widths["created_at"]
    workbook.close()


@pytest.mark.parametrize("fmt", ["xlsx", "csv", "jsonl", "md"])
def test_chinese_headers_give_chinese_words_for_states_lanes_and_error_kinds(
    tmp_path: Path, fmt: str
) -> None:
    """Issue 20: `success`, `web`, `api` under Chinese headers. With Chinese headers the kinds
    are words too; ids, model names and messages stay as they are."""
    path = tmp_path / f"out.{fmt}"
    assert export_tasks(RECORDS[:2], path, headers="zh") == 2
    if fmt == "xlsx":
        sheet = openpyxl.load_workbook(path).active
        rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
        data = [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
    elif fmt == "csv":
        with path.open(encoding="utf-8-sig", newline="") as file:
            data = list(csv.DictReader(file))
    elif fmt == "jsonl":
        data = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    else:
        text = path.read_text(encoding="utf-8")
        assert "— 成功" in text and "— 失败" in text and "超时" in text
        assert "success" not in text and "timeout" not in text
        assert "(api)" not in text and "(接口)" in text
        return
    assert [(d["状态"], d["通道"], d["错误类型"]) for d in data] == [
        ("成功", "接口", None if fmt == "xlsx" else ("" if fmt == "csv" else None)),
        ("失败", "网页版", "超时"),
    ]
    assert data[0]["模型"] == "ds-chat"
    assert data[1]["错误信息"].lstrip("'") == '=HYPERLINK("http://evil")'


# ----------------------------------------------------------------------------------- Markdown


def test_markdown_sections(tmp_path: Path, shanghai_time: None) -> None:
    path = tmp_path / "out.md"
    assert export_tasks(RECORDS[:2], path) == 2

    raw = path.read_bytes()
    assert b"\r" not in raw
    text = raw.decode("utf-8")
    assert text.startswith("## 春天 — success\n\n")  # the title, else the task id
    assert "task_id `t-1`" in text
    assert "model `ds-chat` (api) · account_id `ds-api` · attempt 1" in text
    assert "created_at 2025-11-30T14:25:01+08:00" in text
    assert "**prompt**\n\n> secret prompt text" in text
    assert RESULT.replace("\r\n", "\n") + "\n" in text
    assert "## 春天 — failed\n\n" in text
    assert '**Error** `timeout`: =HYPERLINK("http://evil")' in text
    assert re.search(r"^---$", text, re.MULTILINE)


# ------------------------------------------------------------------------- formats, failures


@pytest.mark.parametrize(
    ("name", "fmt", "check"),
    [
        ("out.txt", "csv", lambda b: b.startswith(b"\xef\xbb\xbftask_id,")),
        ("out.data", "JSONL", lambda b: b.startswith(b'{"task_id"')),
        ("out", "md", lambda b: b.startswith("## 春天".encode())),
        ("OUT.XLSX", None, lambda b: b.startswith(b"PK")),
    ],
)
def test_format_from_argument_or_extension(
    tmp_path: Path, name: str, fmt: str | None, check: object
) -> None:
    path = tmp_path / name
    export_tasks(RECORDS, path, fmt)
    assert callable(check) and check(path.read_bytes())


@pytest.mark.parametrize(("name", "fmt"), [("out.txt", None), ("out.csv", "pdf")])
def test_unknown_format(tmp_path: Path, name: str, fmt: str | None) -> None:
    with pytest.raises(InputError, match=r"allowed: csv, jsonl, xlsx, md, docx, md-folder"):
        export_tasks(RECORDS, tmp_path / name, fmt)
    assert list(tmp_path.iterdir()) == []


def test_unknown_format_names_it(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"unknown export format 'pdf'"):
        export_tasks(RECORDS, tmp_path / "out.pdf")


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "xlsx", "md", "docx"])
def test_failure_midway_leaves_no_file(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"out.{fmt}"
    with pytest.raises(RuntimeError, match="mid-export"):
        export_tasks(failing_after(2), path)
    assert list(tmp_path.iterdir()) == []  # no target, no temp file


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "xlsx", "md", "docx"])
def test_failure_midway_keeps_the_old_file(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"out.{fmt}"
    path.write_bytes(b"yesterday's export")
    with pytest.raises(RuntimeError):
        export_tasks(failing_after(3), path)
    assert path.read_bytes() == b"yesterday's export"
    assert list(tmp_path.iterdir()) == [path]


def test_a_record_whose_field_raises(tmp_path: Path) -> None:
    class Broken:
        def __getattr__(self, name: str) -> object:
            raise ValueError(f"cannot read {name}")

    path = tmp_path / "out.xlsx"
    path.write_bytes(b"old")
    records: Iterable[TaskRecord] = [RECORDS[0], Broken()]  # type: ignore[list-item]
    with pytest.raises(ValueError, match="cannot read "):
        export_tasks(records, path)
    assert path.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [path]


def test_success_replaces_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text("old\n")
    export_tasks(RECORDS[:1], path)
    assert json.loads(path.read_text("utf-8"))["task_id"] == "t-1"
    assert list(tmp_path.iterdir()) == [path]


def test_missing_folder_and_folder_target(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        export_tasks(RECORDS, tmp_path / "nope" / "out.csv")
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(InputError, match="is a folder"):
        export_tasks(RECORDS, tmp_path / "dir.csv")


def test_only_export_fields_leave_the_store() -> None:
    assert set(EXPORT_FIELDS) <= set(TASK_COLUMNS)
    internal = {"usage_json", "owner_id", "lease", "result_plain", "reasoning_text"}
    assert not internal & set(EXPORT_FIELDS)
    assert not any("key" in f.name for f in dataclasses.fields(TaskRecord))


def test_local_iso_has_offset_and_whole_seconds() -> None:
    text = local_iso(CREATED)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", text)
    assert dt.datetime.fromisoformat(text).timestamp() == int(CREATED)


@pytest.mark.parametrize("fmt", ["md", "jsonl", "csv"])
def test_a_web_answers_markdown_is_exported_intact(tmp_path: Path, fmt: str) -> None:
    """Web results are Markdown rebuilt from the page: exports carry it, structure and all."""
    import random

    from media_assistant.sim.chat_markdown import compose_markdown

    markdown = compose_markdown("写一篇文章", random.Random(2), 300)
    web = record("w-1", model_kind="web", result_text=markdown, result_plain="PLAIN-XYZ")
    path = tmp_path / f"out.{fmt}"
    assert export_tasks([web], path) == 1
    text = path.read_text(encoding="utf-8-sig")
    if fmt == "jsonl":
        assert json.loads(text)["result_text"] == markdown
    elif fmt == "md":
        assert markdown in text
    else:
        assert "| 商品 | 价格 |" in text and "```" in text  # a Chinese prompt: a Chinese table
    assert "PLAIN-XYZ" not in text  # only the export fields leave the store


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "jsonl", "md", "docx", "md-folder"])
@pytest.mark.parametrize("headers", ["en", "zh"])
def test_every_format_names_the_workstation_that_ran_the_task(
    tmp_path: Path, fmt: str, headers: Headers
) -> None:
    """Team mode: where a task ran is part of its record, after the account (工作站 in
    Chinese); a task of a workstation of its own has none, and no empty mention."""
    ran = record("t-1", workstation="pc-07")
    alone = record("t-2", workstation=None)
    path = tmp_path / ("out" if fmt == "md-folder" else f"out.{fmt}")
    export_tasks([ran, alone], path, fmt, headers=headers)
    name = "工作站" if headers == "zh" else "workstation"
    account = "账号" if headers == "zh" else "account_id"
    if fmt in ("csv", "xlsx"):
        if fmt == "csv":
            rows = list(csv.reader(path.read_text("utf-8-sig").splitlines()))
        else:
            sheet = openpyxl.load_workbook(path).active
            assert sheet is not None
            rows = [[c or "" for c in r] for r in sheet.iter_rows(values_only=True)]
        header = rows[0]
        assert header.index(name) == header.index(account) + 1
        assert [r[header.index(name)] for r in rows[1:]] == ["pc-07", ""]
    elif fmt == "jsonl":
        lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
        assert [line[name] for line in lines] == ["pc-07", None]
    else:
        if fmt == "docx":
            from docx import Document

            text = "\n".join(p.text for p in Document(str(path)).paragraphs)
        elif fmt == "md":
            text = path.read_text("utf-8")
        else:
            text = "\n".join(p.read_text("utf-8") for p in sorted(path.iterdir()))
        assert f"{name} pc-07" in text.replace("`", "")
        assert text.count(name) == 1
