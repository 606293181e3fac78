"""Batch files → NewTask lists: formats, encodings, templates, and whole-file rejection."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path

import openpyxl
import pytest
from openpyxl.styles import Font

from media_assistant.core.batches.batch_import import (
    MAX_REPORTED_PROBLEMS,
    default_batch_id,
    preview_table,
    read_batch,
    render_template,
    tasks_from_lines,
    template_fields,
)
from media_assistant.core.model.errors import InputError, UserError
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind

MODELS = {"ds-chat": ModelKind.API, "ds-web": ModelKind.WEB, "kimi-web": ModelKind.WEB}


def write_csv(
    path: Path, rows: list[list[str]], *, encoding: str = "utf-8-sig", delimiter: str = ","
) -> Path:
    buffer = io.StringIO(newline="")
    csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n").writerows(rows)  # as Excel
    path.write_bytes(buffer.getvalue().encode(encoding))
    return path


def write_xlsx(path: Path, rows: list[list[object]]) -> Path:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for row in rows:
        sheet.append(row)
    workbook.save(path)
    return path


def write_jsonl(path: Path, lines: list[object | str]) -> Path:
    text = "\n".join(
        line if isinstance(line, str) else json.dumps(line, ensure_ascii=False) for line in lines
    )
    path.write_text(text + "\n", encoding="utf-8")
    return path


def rejected(path: Path, **kwargs: object) -> str:
    """The message of the InputError read_batch raises (it must raise, never return)."""
    kwargs.setdefault("models", MODELS)
    with pytest.raises(InputError) as info:
        read_batch(path, **kwargs)  # type: ignore[arg-type]
    message = str(info.value)
    assert all(line.startswith(f"{path}: ") for line in message.splitlines()), message
    return message


# ------------------------------------------------------------------------- formats, encodings


def test_utf8_bom_csv_with_chinese_headers(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "batch.csv",
        [
            ["任务ID", "提示词", "模型", "标题", "优先级", "系统提示词"],
            ["a-1", "写一篇关于春天的文章", "ds-chat", "春天", "2", "你是编辑"],
            ["a-2", "为新品写三条标题，每条不超过20字", "ds-web", "", "", ""],
        ],
        encoding="utf-8-sig",
    )
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")

    tasks = read_batch(path, models=MODELS, batch_id="b1")

    assert tasks == [
        NewTask(
            task_id="a-1",
            model="ds-chat",
            model_kind=ModelKind.API,
            prompt="写一篇关于春天的文章",
            batch_id="b1",
            system_prompt="你是编辑",
            title="春天",
            priority=2,
        ),
        NewTask(
            task_id="a-2",
            model="ds-web",
            model_kind=ModelKind.WEB,
            prompt="为新品写三条标题，每条不超过20字",
            batch_id="b1",
        ),
    ]


def test_gb18030_csv_as_excel_writes_it_on_chinese_windows(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "ansi.csv",
        [["prompt", "model"], ["写一首关于秋天的诗", "ds-chat"], ["介绍一下𠀀字", "ds-web"]],
        encoding="gb18030",
    )
    with pytest.raises(UnicodeDecodeError):
        path.read_bytes().decode("utf-8")  # the test means something only if this is not UTF-8

    tasks = read_batch(path, models=MODELS, batch_id="b")

    assert [t.prompt for t in tasks] == ["写一首关于秋天的诗", "介绍一下𠀀字"]


def test_utf16_text_as_excel_saves_unicode_text(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "b.csv",
        [["prompt", "model"], ["写诗", "ds-chat"]],
        encoding="utf-16",
        delimiter="\t",
    )
    assert path.read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")
    assert [t.prompt for t in read_batch(path, models=MODELS, batch_id="b")] == ["写诗"]


def test_plain_utf8_csv_and_header_spelling(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "plain.csv",
        [[" Prompt ", "MODEL", "Task ID", "System-Prompt"], ["你好", "ds-chat", "x1", "简短回答"]],
        encoding="utf-8",
    )
    [task] = read_batch(path, models=MODELS, batch_id="b")
    assert (task.prompt, task.model, task.task_id, task.system_prompt) == (
        "你好",
        "ds-chat",
        "x1",
        "简短回答",
    )


@pytest.mark.parametrize("delimiter", [";", "\t"])
def test_semicolon_and_tab_delimiters_are_sniffed(tmp_path: Path, delimiter: str) -> None:
    path = write_csv(
        tmp_path / "b.csv",
        [["prompt", "model"], ["a, b, and c", "ds-chat"]],
        delimiter=delimiter,
    )
    [task] = read_batch(path, models=MODELS, batch_id="b")
    assert task.prompt == "a, b, and c"


def test_tsv_file(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.tsv", [["prompt", "model"], ["x;y,z", "ds-web"]], delimiter="\t")
    [task] = read_batch(path, models=MODELS, batch_id="b")
    assert (task.prompt, task.model_kind) == ("x;y,z", ModelKind.WEB)


def test_quoted_cells_keep_commas_quotes_and_newlines(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "b.csv",
        [["prompt", "model"], ['第一行\r\n第二行, "引用"', "ds-chat"], ["next", "ds-chat"]],
    )
    first, second = read_batch(path, models=MODELS, batch_id="b")
    assert first.prompt == '第一行\n第二行, "引用"'
    # The multi-line cell is one spreadsheet row: the next task is row 3.
    assert second.task_id == "b-00003"


def test_xlsx_first_sheet_numbers_dates_and_trailing_empty_rows(tmp_path: Path) -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["task_id", "topic", "day", "model", "priority", "weight"])
    sheet.append([1001, "春节", dt.datetime(2026, 1, 28), "ds-chat", 3.0, 0.1 + 0.2])
    sheet.append([1002, "元宵", dt.datetime(2026, 2, 11, 9, 30), "ds-web", 1, 2.5])
    for col in range(1, 7):  # styled, empty rows at the end (Excel keeps those)
        sheet.cell(row=9, column=col).font = Font(bold=True)
    workbook.create_sheet("notes").append(["prompt", "model"])
    workbook.save(tmp_path / "b.xlsx")

    tasks = read_batch(
        tmp_path / "b.xlsx",
        models=MODELS,
        template="{topic} {day} {weight}",
        batch_id="b",
    )

    assert [(t.task_id, t.prompt, t.priority) for t in tasks] == [
        ("1001", "春节 2026-01-28 0.3", 3),
        ("1002", "元宵 2026-02-11 09:30:00 2.5", 1),
    ]


def test_xlsx_rows_are_numbered_as_in_excel(tmp_path: Path) -> None:
    path = write_xlsx(
        tmp_path / "b.xlsx",
        [["prompt", "model"], ["ok", "ds-chat"], [None, None], ["bad", "gpt-9"]],
    )
    message = rejected(path)
    assert "row 4: column 'model': unknown model 'gpt-9'" in message


def test_jsonl_blank_lines_and_types(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "b.jsonl",
        [
            {"prompt": "写标题", "model": "ds-chat", "priority": 5, "task_id": "j1"},
            "",
            "   ",
            {"prompt": "写摘要", "model": "ds-web", "title": None, "task_id": "j2", "extra": [1]},
        ],
    )
    tasks = read_batch(path, models=MODELS, batch_id="b")
    assert [(t.task_id, t.prompt, t.priority, t.title) for t in tasks] == [
        ("j1", "写标题", 5, None),
        ("j2", "写摘要", 0, None),
    ]


def test_jsonl_line_numbers_in_problems(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "b.jsonl",
        [
            {"prompt": "ok", "model": "ds-chat"},
            "",
            "[1, 2]",
            '{"prompt": "unterminated',
            {"prompt": ["a", "b"], "model": "ds-chat"},
        ],
    )
    message = rejected(path)
    assert "line 3: expected a JSON object {…}, not an array" in message
    assert "line 4: invalid JSON" in message
    assert "line 5: column 'prompt': expected text or a number, not an array" in message


# -------------------------------------------------------------------------------- templates


def test_template_fills_columns_and_escapes_braces(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "b.csv",
        [["Topic", "风格", "model"], ["春天", "抒情", "ds-chat"]],
    )
    [task] = read_batch(
        path,
        models=MODELS,
        template='写一篇关于{topic}的文章，风格：{风格}。输出 JSON：{{"title": ...}}',
        batch_id="b",
    )
    assert task.prompt == '写一篇关于春天的文章，风格：抒情。输出 JSON：{"title": ...}'


def test_template_wins_over_prompt_column_and_may_use_it(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["prompt", "model"], ["原文", "ds-chat"]])
    [task] = read_batch(path, models=MODELS, template="润色：{prompt}", batch_id="b")
    assert task.prompt == "润色：原文"


def test_render_template_and_fields() -> None:
    template = "{a}-{{x}}-{ B }-{a}"
    assert template_fields(template) == ["a", "B"]
    assert render_template(template, {"A": "1", "b": "2"}) == "1-{x}-2-1"
    with pytest.raises(InputError, match=r"\{c\} is not a column"):
        render_template("{c}", {"a": "1"})


@pytest.mark.parametrize(
    ("template", "expected"),
    [("{a", "unmatched '{'"), ("a}", "unmatched '}'"), ("{}", "empty placeholder")],
)
def test_malformed_templates(template: str, expected: str) -> None:
    with pytest.raises(InputError, match=expected):
        template_fields(template)


def test_template_placeholder_not_a_column(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["topic", "model"], ["x", "ds-chat"]])
    message = rejected(path, template="写{topic}，{tone}")
    assert "row 1: template placeholder {tone} is not a column (columns: 'topic', 'model')" in (
        message
    )


def test_template_giving_an_empty_prompt(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["topic", "model"], ["x", "ds-chat"], [" ", "ds-chat"]])
    message = rejected(path, template="  {topic} ")
    assert "row 3: the template gives an empty prompt" in message


# ------------------------------------------------------------------- models, ids, defaults


def test_default_model_and_row_model_wins(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["prompt", "model"], ["a", ""], ["b", "ds-web"]])
    tasks = read_batch(path, models=MODELS, default_model="ds-chat", batch_id="b")
    assert [(t.model, t.model_kind) for t in tasks] == [
        ("ds-chat", ModelKind.API),
        ("ds-web", ModelKind.WEB),
    ]


def test_no_model_column_uses_default(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["prompt"], ["a"], ["b"]])
    tasks = read_batch(path, models=MODELS, default_model="kimi-web", batch_id="b")
    assert {t.model for t in tasks} == {"kimi-web"}


def test_generated_ids_use_spreadsheet_rows(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "b.csv", [["prompt", "model"], ["a", "ds-chat"], ["", ""], ["b", "ds-chat"]]
    )
    tasks = read_batch(path, models=MODELS, batch_id="night")
    assert [t.task_id for t in tasks] == ["night-00002", "night-00004"]
    assert {t.batch_id for t in tasks} == {"night"}


def test_task_ids_from_file_are_stable_across_imports(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["task_id", "prompt", "model"], ["t-7", "a", "ds-chat"]])
    first = read_batch(path, models=MODELS)
    second = read_batch(path, models=MODELS)
    assert [t.task_id for t in first] == [t.task_id for t in second] == ["t-7"]


def test_default_batch_id_and_default_system_prompts(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "周报 batch.csv",
        [["prompt", "model", "system_prompt"], ["a", "ds-chat", ""], ["b", "ds-chat", "own"]],
    )
    tasks = read_batch(path, models=MODELS, default_system_prompts={"ds-chat": "default sys"})
    assert [t.system_prompt for t in tasks] == ["default sys", "own"]
    assert tasks[0].batch_id.startswith("周报_batch-")
    now = dt.datetime(2026, 11, 30, 14, 25, 1)
    assert default_batch_id(Path("/x/night.csv"), now=now) == "night-20261130-142501"


# ------------------------------------------------------------------------------- bad input


def test_unterminated_quote(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_text('prompt,model\nok,ds-chat\n"never closed,ds-chat\nc,ds-chat\n', "utf-8")
    message = rejected(path)
    assert "row 3: malformed CSV: a quoted value is never closed" in message


def test_stray_quote_after_a_quoted_value(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_text('prompt,model\n"a"b,ds-chat\n', "utf-8")
    assert "row 2: malformed CSV" in rejected(path)


def test_undecodable_byte_in_a_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_bytes("prompt,model\n写一篇文章,ds-chat\n".encode() + b"bad \xff byte,ds-chat\n")
    message = rejected(path)
    assert "row 3: byte 0xFF is not valid UTF-8 text" in message


def test_damaged_utf8_is_not_read_as_gb18030_garbage(tmp_path: Path) -> None:
    body = "中文标题,ds-chat\n".encode() + b"\x81A,ds-chat\n"
    body.decode("gb18030")  # GB18030 would "succeed" with mojibake
    path = tmp_path / "b.csv"
    path.write_bytes(b"prompt,model\n" + body)
    assert "row 3: byte 0x81 is not valid UTF-8 text" in rejected(path)


def test_bom_file_is_never_reread_as_gb18030(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_bytes(b"\xef\xbb\xbfprompt,model\n" + "中文".encode("gb18030") + b",ds-chat\n")
    assert "row 2: byte 0xD6 is not valid UTF-8 text" in rejected(path)


def test_neither_utf8_nor_gb18030(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_bytes(b"prompt,model\n" + "中文".encode("gb18030") + b"\x80,ds-chat\n")
    assert "row 2: byte 0x80 is not valid UTF-8 or GB18030 text" in rejected(path)


def test_utf16_without_bom_is_not_taken_for_text(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_bytes("prompt,model\r\na,ds-chat\r\n".encode("utf-16-le"))
    assert "row 1: NUL bytes: this is not CSV text" in rejected(path)


def test_workbook_saved_with_a_csv_name(tmp_path: Path) -> None:
    write_xlsx(tmp_path / "real.xlsx", [["prompt", "model"]])
    path = tmp_path / "b.csv"
    path.write_bytes((tmp_path / "real.xlsx").read_bytes())
    assert "an Excel workbook, not CSV text" in rejected(path)


def test_corrupt_xlsx(tmp_path: Path) -> None:
    path = tmp_path / "b.xlsx"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    assert "not a valid .xlsx workbook" in rejected(path)


def test_missing_prompt_and_model_columns(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["topic", "notes"], ["x", "y"]])
    message = rejected(path)
    assert "row 1: no 'prompt' (提示词) column, and no template given" in message
    assert "row 1: no 'model' (模型) column, and no default model given" in message
    assert len(message.splitlines()) == 2  # no flood of per-row "empty prompt" lines


def test_empty_prompt_names_row_and_column(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "b.csv", [["提示词", "模型"], ["ok", "ds-chat"], ["  \t ", "ds-chat"]]
    )
    assert "row 3: column '提示词': empty prompt" in rejected(path)


def test_unknown_model_names_it_and_lists_known_ones(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "b.csv",
        [["prompt", "model"], ["a", "DS-Chat"], ["b", "gpt-x"], ["c", "gpt-x"], ["d", "gpt-x"]],
    )
    message = rejected(path)
    assert (
        "row 2: column 'model': unknown model 'DS-Chat' (did you mean 'ds-chat'? "
        "known: ds-chat, ds-web, kimi-web)" in message
    )
    assert "rows 3–5 (3 rows): column 'model': unknown model 'gpt-x'" in message


def test_unknown_default_model(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["prompt"], ["a"], ["b"]])
    message = rejected(path, default_model="nope")
    assert message.splitlines() == [
        f"{path}: default unknown model 'nope' (known: ds-chat, ds-web, kimi-web)"
    ]


def test_duplicate_task_id_names_both_rows(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "b.csv",
        [
            ["task_id", "prompt", "model"],
            ["t1", "a", "ds-chat"],
            ["t2", "b", "ds-chat"],
            ["t1", "c", "ds-chat"],
        ],
    )
    assert "row 4: column 'task_id': duplicate task_id 't1' (also in row 2)" in rejected(path)


def test_empty_task_id_when_the_column_exists(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["task_id", "prompt", "model"], ["", "a", "ds-chat"]])
    assert "row 2: column 'task_id': empty task_id" in rejected(path)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("high", "'high' is not a whole number"),
        ("1.5", "'1.5' is not a whole number"),
        ("99999999999", "'99999999999' is out of range (-2147483648 to 2147483647)"),
    ],
)
def test_bad_priority(tmp_path: Path, raw: str, expected: str) -> None:
    path = write_csv(tmp_path / "b.csv", [["prompt", "model", "优先级"], ["a", "ds-chat", raw]])
    assert f"row 2: column '优先级': {expected}" in rejected(path)


def test_priority_written_as_float_is_accepted(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["prompt", "model", "priority"], ["a", "ds-chat", "2.0"]])
    assert read_batch(path, models=MODELS, batch_id="b")[0].priority == 2


def test_extra_values_beyond_the_header(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_text("prompt,model\n写一篇文章,关于春天,ds-chat\nok,ds-chat,,\n", "utf-8")
    message = rejected(path)
    assert "row 2: 3 values but the header has 2 columns" in message
    assert "row 3" not in message  # trailing empty values are harmless


def test_columns_that_mean_the_same(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["prompt", "提示词", "model"], ["a", "b", "ds-chat"]])
    assert "row 1: columns 'prompt' and '提示词' all mean 'prompt'" in rejected(path)


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("empty.csv", b"", "the file is empty"),
        ("bom-only.csv", b"\xef\xbb\xbf\r\n\r\n", "the file is empty"),
        ("header.csv", b"prompt,model\r\n,\r\n", "row 1: no data rows below the header"),
        ("empty.jsonl", b"\n\n", "the file is empty"),
    ],
)
def test_empty_files(tmp_path: Path, name: str, content: bytes, expected: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert expected in rejected(path)


def test_empty_xlsx(tmp_path: Path) -> None:
    assert "the file is empty" in rejected(write_xlsx(tmp_path / "b.xlsx", []))


@pytest.mark.parametrize("name", ["b.xls", "b.txt", "b"])
def test_unknown_extension(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("prompt,model\na,ds-chat\n")
    assert "unsupported file type" in rejected(path)


def test_missing_file(tmp_path: Path) -> None:
    assert "cannot read" in rejected(tmp_path / "gone.csv")


def test_many_problems_are_reported_together_and_capped(tmp_path: Path) -> None:
    rows = [["task_id", "prompt", "model", "priority"]]
    rows += [[f"t{i}", "", "ds-chat", "x"] for i in range(30)]
    message = rejected(write_csv(tmp_path / "b.csv", rows))
    lines = message.splitlines()
    assert len(lines) == MAX_REPORTED_PROBLEMS + 1
    assert lines[0].endswith("row 2: column 'prompt': empty prompt")
    assert lines[1].endswith("row 2: column 'priority': 'x' is not a whole number")
    assert lines[-1].endswith("… and 40 more problems")


def test_input_error_is_a_user_error(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "b.csv", [["prompt"], ["a"]])
    with pytest.raises(UserError) as info:
        read_batch(path, models=MODELS)
    assert info.value.exit_code == 2


# --------------------------------------------------------------------- preview and pasting


def test_preview_table(tmp_path: Path) -> None:
    rows = [["\ufefftopic", "", "model"]] + [[f"t{i}", "", "ds-chat"] for i in range(7)]
    path = write_csv(tmp_path / "b.csv", rows, encoding="utf-8")
    columns, first, total = preview_table(path, limit=3)
    assert columns == ["topic", "model"]
    assert first == [{"topic": f"t{i}", "model": "ds-chat"} for i in range(3)]
    assert total == 7
    assert render_template("写{topic}", first[0]) == "写t0"


def test_preview_of_jsonl_and_xlsx(tmp_path: Path) -> None:
    jsonl = write_jsonl(tmp_path / "b.jsonl", [{"a": 1}, {"b": "x", "a": 2.5}])
    assert preview_table(jsonl) == (["a", "b"], [{"a": "1", "b": ""}, {"a": "2.5", "b": "x"}], 2)
    xlsx = write_xlsx(tmp_path / "b.xlsx", [["名称", "数量"], ["苹果", 3]])
    assert preview_table(xlsx) == (["名称", "数量"], [{"名称": "苹果", "数量": "3"}], 1)


def test_tasks_from_lines() -> None:
    tasks = tasks_from_lines(
        "写一首诗\r\n\n  写一段广告语  \n",
        model="ds-web",
        models=MODELS,
        batch_id="paste",
        priority=1,
    )
    assert [(t.task_id, t.prompt, t.model_kind, t.priority) for t in tasks] == [
        ("paste-00001", "写一首诗", ModelKind.WEB, 1),
        ("paste-00002", "写一段广告语", ModelKind.WEB, 1),
    ]
    with pytest.raises(InputError, match="unknown model 'x'"):
        tasks_from_lines("a", model="x", models=MODELS, batch_id="p")
    with pytest.raises(InputError, match="no prompts"):
        tasks_from_lines(" \n\n", model="ds-web", models=MODELS, batch_id="p")


def test_each_task_keeps_its_source_row_beside_its_own_fields(tmp_path: Path) -> None:
    """Exports put a task's inputs beside its result: every column the task did not take as
    its own field stays with it, template variables included, in the file's order."""
    path = tmp_path / "topics.csv"
    path.write_text(
        "标题,topic,audience,,model\n春节,fireworks,kids,x1,m\n国庆,parade,adults,x2,m\n",
        encoding="utf-8",
    )
    tasks = read_batch(
        path, models={"m": ModelKind.API}, template="Write about {topic} for {audience}"
    )
    assert [t.title for t in tasks] == ["春节", "国庆"]
    assert tasks[0].inputs == (("topic", "fireworks"), ("audience", "kids"), ("#4", "x1"))
    assert tasks[1].prompt == "Write about parade for adults"


def test_with_a_template_a_prompt_column_is_an_input_like_any_other(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    path.write_text('{"prompt": "old", "topic": "tea"}\n', encoding="utf-8")
    (task,) = read_batch(path, models={"m": ModelKind.API}, default_model="m", template="{topic}")
    assert task.inputs == (("prompt", "old"), ("topic", "tea"))
    (plain,) = read_batch(path, models={"m": ModelKind.API}, default_model="m")
    assert plain.prompt == "old" and plain.inputs == (("topic", "tea"),)
