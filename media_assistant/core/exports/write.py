"""Export task records: CSV, JSONL, XLSX, Markdown, DOCX, or a folder of Markdown files.

Each record carries the task's **input row** — title, prompt, system prompt and every other
column of its batch file (template variables included, ``tasks.inputs_json``) — beside its
results. Headers are in English (the field names, stable for scripts) or Chinese
(``headers="zh"``, the words the Chinese window uses; the Chinese headers of the prompt, title,
system prompt, task id and model are the ones batch import accepts, so an export re-imports).

Exports stream: records come a page at a time (:meth:`Store.iter_tasks`, or the given ids in
chunks) and writers never hold them all — except DOCX, whose library keeps the document in
memory (see :mod:`media_assistant.core.exports.docx`). Writes are atomic: a temporary file (or
folder) beside the target, then ``os.replace``; a failure leaves the target as it was.

Formula guard, per format: an XLSX cell is typed, so a text starting with ``=`` is written as a
*string* cell (openpyxl would store it as a formula; nothing else starts one there) and no text
gets a visible ``'``: a Markdown list (``- item``) stays as it is. CSV has no types and Excel
evaluates a cell starting with ``=``, ``+``, ``-``, ``@``, tab or CR when it opens the file
(OWASP "CSV injection"), so CSV keeps the leading ``'`` guard on those; JSONL, Markdown and
DOCX carry the exact text.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import json
import os
import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from media_assistant.core.files.private_files import create_private, make_private
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import TaskRecord
from media_assistant.core.model.states import TaskState

if TYPE_CHECKING:
    from media_assistant.core.store import Store

# Order of the columns: what the task was given, its result, then the bookkeeping.
EXPORT_FIELDS = (
    "task_id",
    "batch_id",
    "title",
    "prompt",
    "system_prompt",
    "result_text",
    "state",
    "error_kind",
    "error_message",
    "model",
    "model_kind",
    "account_id",
    "attempt",
    "created_at",
    "started_at",
    "finished_at",
)
INPUTS_AFTER = "system_prompt"  # tabular formats put the source row's columns right after it
EXPORT_FORMATS = ("csv", "jsonl", "xlsx", "md", "docx", "md-folder")
FORMAT_SUFFIX = {
    "csv": ".csv",
    "jsonl": ".jsonl",
    "xlsx": ".xlsx",
    "md": ".md",
    "docx": ".docx",
    "md-folder": "",
}
Headers = Literal["en", "zh"]
HEADER_LANGUAGES: tuple[Headers, ...] = ("en", "zh")

ZH_HEADERS = {
    "task_id": "任务ID",
    "batch_id": "批次",
    "title": "标题",
    "prompt": "提示词",
    "system_prompt": "系统提示词",
    "result_text": "结果",
    "state": "状态",
    "error_kind": "错误类型",
    "error_message": "错误信息",
    "model": "模型",
    "model_kind": "通道",
    "account_id": "账号",
    "attempt": "尝试次数",
    "created_at": "创建时间",
    "started_at": "开始时间",
    "finished_at": "完成时间",
}
# Words of the document formats (Markdown, DOCX) beside the headers.
_WORDS = {
    "en": {
        "inputs": "Inputs",
        "result": "Result",
        "error": "Error",
        "no_result": "(no result)",
        "input_suffix": " (input)",
        "batch": "Batch",
    },
    "zh": {
        "inputs": "输入",
        "result": "结果",
        "error": "错误",
        "no_result": "（无结果）",
        "input_suffix": "（输入）",
        "batch": "批次",
    },
}
TIMESTAMP_FIELDS = frozenset({"created_at", "started_at", "finished_at"})
# Excel evaluates a CSV cell starting with one of these (OWASP "CSV injection").
_CSV_FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def header_of(name: str, headers: Headers) -> str:
    return ZH_HEADERS.get(name, name) if headers == "zh" else name


def word(key: str, headers: Headers) -> str:
    return _WORDS[headers][key]


# ------------------------------------------------------------------------------- scope, entry


@dataclass(frozen=True, slots=True)
class ExportScope:
    """Which tasks: the given ids in their order (a selection, the rows a window's filter
    shows), else every task of ``batch_id`` and/or in ``states``, else every task."""

    task_ids: tuple[str, ...] | None = None
    batch_id: str | None = None
    states: tuple[TaskState, ...] | None = None

    def count(self, store: Store) -> int:
        if self.task_ids is not None:
            return len(self.task_ids)
        return store.count_tasks(states=self.states, batch_id=self.batch_id)

    def records(self, store: Store) -> Iterator[TaskRecord]:
        if self.task_ids is not None:
            return store.iter_records(self.task_ids)
        return store.iter_tasks(states=self.states, batch_id=self.batch_id)

    def input_columns(self, store: Store) -> list[str]:
        return store.input_columns(
            task_ids=self.task_ids, states=self.states, batch_id=self.batch_id
        )


Track = Callable[[Iterable[TaskRecord], int], Iterable[TaskRecord]]


def export_scope(
    store: Store,
    scope: ExportScope,
    path: Path,
    fmt: str | None = None,
    *,
    headers: Headers = "en",
    track: Track | None = None,
) -> int:
    """Export the tasks of ``scope`` (read from the synchronous store: call it off any event
    loop) to ``path``; returns the number written. ``track`` wraps the record stream (progress,
    cancel: gui/bridge/jobs.py ``JobControl.track``)."""
    name = resolve_format(path, fmt)
    # Tabular formats need every input column in the header before the first row: one pass
    # over the (small) inputs column first, then the records stream.
    columns = scope.input_columns(store) if name in ("csv", "xlsx") else None
    records: Iterable[TaskRecord] = scope.records(store)
    if track is not None:
        records = track(records, scope.count(store))
    return export_tasks(records, path, name, headers=headers, input_columns=columns)


def export_tasks(
    records: Iterable[TaskRecord],
    path: Path,
    fmt: str | None = None,
    *,
    headers: Headers = "en",
    input_columns: Sequence[str] | None = None,
) -> int:
    """Write one record per task; returns the number of records written.

    ``fmt`` defaults to the file's extension (a path without one is a ``md-folder``). CSV and
    XLSX need ``input_columns`` up front to stream; without them the records are read first.
    Timestamps are local time (ISO-8601 with offset in text formats, date cells in XLSX).
    """
    name = resolve_format(path, fmt)
    if headers not in HEADER_LANGUAGES:
        raise InputError(f"unknown header language {headers!r} (allowed: en, zh)")
    if name in ("csv", "xlsx") and input_columns is None:
        records = list(records)
        input_columns = collect_input_columns(records)
    columns = list(input_columns or ())
    if name == "md-folder":
        from media_assistant.core.exports.folder import write_markdown_folder

        return write_markdown_folder(records, path, headers)
    writer = _writers()[name]
    return write_atomically(path, lambda tmp: writer(records, tmp, headers, columns))


def resolve_format(path: Path, fmt: str | None) -> str:
    raw = fmt if fmt is not None else (path.suffix.removeprefix(".") or "md-folder")
    name = raw.strip().lower()
    if name in EXPORT_FORMATS:
        return name
    allowed = ", ".join(EXPORT_FORMATS)
    if not name:
        raise InputError(
            f"{path}: cannot tell the export format from the name (allowed: {allowed})"
        )
    raise InputError(f"{path}: unknown export format {name!r} (allowed: {allowed})")


_UNSAFE_NAME = re.compile(r'[\x00-\x1f<>:"/\\|?*]+')


def default_export_name(
    scope: ExportScope, fmt: str, *, now: dt.datetime | None = None, label: str | None = None
) -> str:
    """``<batch>-<YYYYmmdd-HHMM>.<ext>`` for a batch, ``<label or tasks>-<time>`` otherwise:
    two exports never overwrite each other by default, and the name says what is inside."""
    stem = scope.batch_id or label or "tasks"
    stem = _UNSAFE_NAME.sub("_", stem).strip(" .") or "tasks"
    stamp = f"{(now or dt.datetime.now()):%Y%m%d-%H%M}"
    return f"{stem[:80]}-{stamp}{FORMAT_SUFFIX[fmt]}"


# ------------------------------------------------------------------------------- atomic writes


def write_atomically(path: Path, write: Callable[[Path], int]) -> int:
    """``write`` fills a temporary file (0600) beside ``path``, which then replaces ``path`` in
    one step: a reader never sees half a file. Failures leave no temporary file behind and come
    back as :class:`InputError` naming the path."""
    if not path.parent.is_dir():
        raise InputError(f"{path}: the folder {path.parent} does not exist")
    if path.is_dir():
        raise InputError(f"{path}: is a folder")
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        create_private(tmp)  # 0600 from the first byte: exports hold prompts and answers
        count = write(tmp)
        make_private(tmp)  # in case a writer replaced the file rather than filling it
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise as_input_error(exc, path) from exc
    return count


def as_input_error(exc: BaseException, path: Path) -> BaseException:
    if isinstance(exc, PermissionError):
        return InputError(f"{path}: permission denied (is it open in another program?)")
    if isinstance(exc, OSError):
        return InputError(f"{path}: cannot write: {exc.strerror or exc}")
    return exc


def flush_to_disk(file: IO[Any]) -> None:
    file.flush()
    os.fsync(file.fileno())


# ------------------------------------------------------------------------------- field values

Value = str | int | dt.datetime | None


def record_values(record: TaskRecord, *, typed: bool = False) -> dict[str, Value]:
    """The export fields of a record; timestamps as local ISO text, or (``typed``) as naive
    local datetimes for spreadsheet date cells."""
    out: dict[str, Value] = {}
    for name in EXPORT_FIELDS:
        value: object = getattr(record, name)
        if name in TIMESTAMP_FIELDS:
            if not isinstance(value, int | float):
                out[name] = None
            elif typed:
                out[name] = local_datetime(value).replace(tzinfo=None, microsecond=0)
            else:
                out[name] = local_iso(value)
        elif value is None or isinstance(value, str | int):
            out[name] = value
        else:
            out[name] = str(value)
    return out


def record_inputs(record: TaskRecord) -> dict[str, str]:
    """The batch file's source row of a task ({} for pasted prompts)."""
    if not record.inputs_json:
        return {}
    try:
        data = json.loads(record.inputs_json)
    except ValueError:
        return {}
    return (
        {str(k): "" if v is None else str(v) for k, v in data.items()}
        if isinstance(data, dict)
        else {}
    )


def collect_input_columns(records: Iterable[TaskRecord]) -> list[str]:
    seen: dict[str, None] = {}
    for record in records:
        for key in record_inputs(record):
            seen.setdefault(key)
    return list(seen)


def tabular_header(headers: Headers, input_columns: Sequence[str]) -> list[tuple[str, str]]:
    """(key, header) per column: the fields with the input columns after ``INPUTS_AFTER``. An
    input column's key is ``input:<name>``; one named like a field header gets a suffix."""
    fixed = {header_of(name, headers) for name in EXPORT_FIELDS}
    out: list[tuple[str, str]] = []
    for name in EXPORT_FIELDS:
        out.append((name, header_of(name, headers)))
        if name == INPUTS_AFTER:
            for column in input_columns:
                shown = column + word("input_suffix", headers) if column in fixed else column
                out.append((f"input:{column}", shown))
    return out


def tabular_row(
    columns: Sequence[tuple[str, str]], values: Mapping[str, Any], inputs: Mapping[str, Any]
) -> list[Any]:
    return [
        inputs.get(key[6:]) if key.startswith("input:") else values.get(key) for key, _ in columns
    ]


def local_datetime(timestamp: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(timestamp, tz=dt.UTC).astimezone()


def local_iso(timestamp: float) -> str:
    """Epoch seconds as local ISO-8601 with offset, to the second: 2026-11-30T14:25:01+08:00."""
    return local_datetime(timestamp).isoformat("T", "seconds")


def one_newline_style(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def csv_safe(text: str) -> str:
    """A leading ' keeps Excel/LibreOffice from evaluating a CSV cell as a formula."""
    return "'" + text if text.startswith(_CSV_FORMULA_TRIGGERS) else text


# ------------------------------------------------------------------------------------ writers


def _write_csv(
    records: Iterable[TaskRecord], tmp: Path, headers: Headers, input_columns: Sequence[str]
) -> int:
    count = 0
    columns = tabular_header(headers, input_columns)
    # BOM: Excel reads BOM-less CSV in the ANSI code page and garbles Chinese.
    with open(tmp, "w", encoding="utf-8-sig", newline="") as file:
        writer = csv.writer(file)
        writer.writerow([shown for _, shown in columns])
        for record in records:
            row = tabular_row(columns, record_values(record), record_inputs(record))
            writer.writerow([csv_safe(v) if isinstance(v, str) else v for v in row])
            count += 1
        flush_to_disk(file)
    return count


def _write_jsonl(
    records: Iterable[TaskRecord], tmp: Path, headers: Headers, _columns: Sequence[str]
) -> int:
    count = 0
    inputs_key = "输入" if headers == "zh" else "inputs"
    with open(tmp, "w", encoding="utf-8", newline="\n") as file:
        for record in records:
            obj: dict[str, object] = {}
            for name, value in record_values(record).items():
                obj[header_of(name, headers)] = value
                if name == INPUTS_AFTER:
                    obj[inputs_key] = record_inputs(record)
            line = json.dumps(obj, ensure_ascii=False)
            # Valid JSON, but str.splitlines() would cut a line at these: escape them.
            for char in ("\u2028", "\u2029", "\x85"):
                line = line.replace(char, f"\\u{ord(char):04x}")
            file.write(line + "\n")
            count += 1
        flush_to_disk(file)
    return count


def markdown_section(record: TaskRecord, headers: Headers, *, level: int = 2) -> str:
    """One task as Markdown: a heading (title, else task id), the bookkeeping in one line, the
    inputs, the prompt, the error if any, then the answer as it came."""
    row = record_values(record)
    title = row["title"] or row["task_id"]
    state = row["state"]
    parts = [f"{'#' * level} {title} — {state}", markdown_meta(row, headers)]
    inputs = record_inputs(record)
    if inputs:
        lines = [
            f"- **{k}**: {one_newline_style(v).replace(chr(10), ' ')}" for k, v in inputs.items()
        ]
        parts.append(f"**{word('inputs', headers)}**\n\n" + "\n".join(lines))
    parts.append(f"**{header_of('prompt', headers)}**\n\n" + _quoted(str(row["prompt"] or "")))
    if row["system_prompt"]:
        parts.append(
            f"**{header_of('system_prompt', headers)}**\n\n" + _quoted(str(row["system_prompt"]))
        )
    if row["error_kind"] or row["error_message"]:
        kind = f" `{row['error_kind']}`" if row["error_kind"] else ""
        parts.append(f"**{word('error', headers)}**{kind}: {row['error_message'] or ''}".rstrip())
    result = row["result_text"]
    if isinstance(result, str) and result:
        parts.append(f"**{word('result', headers)}**\n\n" + one_newline_style(result).rstrip("\n"))
    elif not (row["error_kind"] or row["error_message"]):
        parts.append(f"*{word('no_result', headers)}*")
    return "\n\n".join(parts) + "\n"


def _quoted(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in one_newline_style(text).split("\n"))


def markdown_meta(row: Mapping[str, Value], headers: Headers) -> str:
    h = header_of
    parts = [
        f"{h('task_id', headers)} `{row['task_id']}`",
        f"{h('batch_id', headers)} `{row['batch_id']}`",
    ]
    parts.append(f"{h('model', headers)} `{row['model']}` ({row['model_kind']})")
    if row["account_id"]:
        parts.append(f"{h('account_id', headers)} `{row['account_id']}`")
    parts.append(f"{h('attempt', headers)} {row['attempt']}")
    parts += [f"{h(name, headers)} {row[name]}" for name in sorted(TIMESTAMP_FIELDS) if row[name]]
    return " · ".join(parts)


def _write_markdown(
    records: Iterable[TaskRecord], tmp: Path, headers: Headers, _columns: Sequence[str]
) -> int:
    count = 0
    with open(tmp, "w", encoding="utf-8", newline="\n") as file:
        for record in records:
            if count:
                file.write("\n---\n\n")
            file.write(markdown_section(record, headers))
            count += 1
        flush_to_disk(file)
    return count


Writer = Callable[[Iterable[TaskRecord], Path, Headers, Sequence[str]], int]


def _writers() -> dict[str, Writer]:
    from media_assistant.core.exports.docx import write_docx
    from media_assistant.core.exports.xlsx import write_xlsx

    return {
        "csv": _write_csv,
        "jsonl": _write_jsonl,
        "xlsx": write_xlsx,
        "md": _write_markdown,
        "docx": write_docx,
    }
