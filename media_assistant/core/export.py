"""Export task records to CSV, JSONL, XLSX or Markdown (DESIGN §6 ``export``).

Writes are atomic: a temporary file next to the target, then ``os.replace``. A failure at any point
leaves the target as it was. Only the fields in :data:`EXPORT_FIELDS` ever leave the store.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import itertools
import json
import os
import secrets
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from media_assistant.core.errors import InputError
from media_assistant.core.private_files import create_private, make_private
from media_assistant.core.records import TaskRecord

EXPORT_FIELDS = (
    "task_id",
    "batch_id",
    "model",
    "model_kind",
    "account_id",
    "state",
    "attempt",
    "created_at",
    "started_at",
    "finished_at",
    "result_text",
    "error_kind",
    "error_message",
)
EXPORT_FORMATS = ("csv", "jsonl", "xlsx", "md")
XLSX_CELL_LIMIT = 32_767  # Excel refuses (and "repairs") longer cells

_TIMESTAMP_FIELDS = frozenset({"created_at", "started_at", "finished_at"})
# A spreadsheet treats a cell starting with one of these as a formula (OWASP "CSV injection").
_FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_XLSX_WIDTHS = {"result_text": 80, "error_message": 50}  # wrapped columns; the rest fit content
_XLSX_MAX_WIDTH = 40
_XLSX_WIDTH_SAMPLE = 1_000  # records that set the column widths (written first, then the rest)

_Value = str | int | None


def export_tasks(records: Iterable[TaskRecord], path: Path, fmt: str | None = None) -> int:
    """Write one row per record; returns the number of records written.

    ``fmt`` (csv, jsonl, xlsx, md) defaults to the file's extension. Timestamps are local time
    ISO-8601 with offset, to the second.
    """
    writer = _WRITERS[_resolve_format(path, fmt)]
    return write_atomically(path, lambda tmp: writer(records, tmp))


def _resolve_format(path: Path, fmt: str | None) -> str:
    name = (fmt if fmt is not None else path.suffix.removeprefix(".")).strip().lower()
    if name in EXPORT_FORMATS:
        return name
    allowed = ", ".join(EXPORT_FORMATS)
    if not name:
        raise InputError(
            f"{path}: cannot tell the export format from the name (allowed: {allowed})"
        )
    raise InputError(f"{path}: unknown export format {name!r} (allowed: {allowed})")


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
        if isinstance(exc, PermissionError):
            raise InputError(f"{path}: permission denied (is it open in another program?)") from exc
        if isinstance(exc, OSError):
            raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        raise
    return count


def _flush_to_disk(file: IO[Any]) -> None:
    file.flush()
    os.fsync(file.fileno())


# ------------------------------------------------------------------------------- field values


def _values(record: TaskRecord) -> list[_Value]:
    values: list[_Value] = []
    for name in EXPORT_FIELDS:
        value: object = getattr(record, name)
        if name in _TIMESTAMP_FIELDS:
            values.append(local_iso(value) if isinstance(value, int | float) else None)
        elif value is None or isinstance(value, str | int):
            values.append(value)
        else:
            values.append(str(value))
    return values


def local_iso(timestamp: float) -> str:
    """Epoch seconds as local ISO-8601 with offset, to the second: 2026-11-30T14:25:01+08:00."""
    return dt.datetime.fromtimestamp(timestamp, tz=dt.UTC).astimezone().isoformat("T", "seconds")


def _one_newline_style(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _spreadsheet_safe(text: str) -> str:
    """Keep text as text: a leading ' stops Excel/LibreOffice from evaluating it."""
    return "'" + text if text.startswith(_FORMULA_TRIGGERS) else text


# ------------------------------------------------------------------------------------ writers


def _write_csv(records: Iterable[TaskRecord], tmp: Path) -> int:
    count = 0
    # BOM: Excel reads BOM-less CSV in the ANSI code page and garbles Chinese.
    with open(tmp, "w", encoding="utf-8-sig", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(EXPORT_FIELDS)
        for record in records:
            writer.writerow(
                [_spreadsheet_safe(v) if isinstance(v, str) else v for v in _values(record)]
            )
            count += 1
        _flush_to_disk(file)
    return count


def _write_jsonl(records: Iterable[TaskRecord], tmp: Path) -> int:
    count = 0
    with open(tmp, "w", encoding="utf-8", newline="\n") as file:
        for record in records:
            line = json.dumps(
                dict(zip(EXPORT_FIELDS, _values(record), strict=True)), ensure_ascii=False
            )
            # Valid JSON, but str.splitlines() would cut a line at these: escape them.
            for char in ("\u2028", "\u2029", "\x85"):
                line = line.replace(char, f"\\u{ord(char):04x}")
            file.write(line + "\n")
            count += 1
        _flush_to_disk(file)
    return count


def _write_markdown(records: Iterable[TaskRecord], tmp: Path) -> int:
    count = 0
    with open(tmp, "w", encoding="utf-8", newline="\n") as file:
        for record in records:
            row = dict(zip(EXPORT_FIELDS, _values(record), strict=True))
            if count:
                file.write("\n---\n\n")
            file.write(f"## {row['task_id']} — {row['state']}\n\n")
            file.write(_markdown_meta(row) + "\n\n")
            if row["error_kind"] or row["error_message"]:
                kind = f" `{row['error_kind']}`" if row["error_kind"] else ""
                file.write(f"**Error**{kind}: {row['error_message'] or ''}".rstrip() + "\n\n")
            result = row["result_text"]
            if isinstance(result, str) and result:
                file.write(_one_newline_style(result).rstrip("\n") + "\n")
            elif not (row["error_kind"] or row["error_message"]):
                file.write("*(no result)*\n")
            count += 1
        _flush_to_disk(file)
    return count


def _markdown_meta(row: dict[str, _Value]) -> str:
    parts = [f"batch `{row['batch_id']}`", f"model `{row['model']}` ({row['model_kind']})"]
    if row["account_id"]:
        parts.append(f"account `{row['account_id']}`")
    parts.append(f"attempt {row['attempt']}")
    parts += [f"{name[:-3]} {row[name]}" for name in sorted(_TIMESTAMP_FIELDS) if row[name]]
    return " · ".join(parts)


def _write_xlsx(records: Iterable[TaskRecord], tmp: Path) -> int:
    """openpyxl's write-only mode: rows stream to the file instead of living as cell objects
    (100,000 tasks: a flat heap and about a minute, where the object model took many minutes
    and grew a heap whose garbage collections paused every thread, the window's included).
    Column widths must be known before the first row: they come from the header and the first
    ``_XLSX_WIDTH_SAMPLE`` records. Only the wrapped columns carry a cell style (styles cost
    three times the plain write)."""
    from openpyxl import Workbook  # heavy: only when a workbook is written
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    def cells(record: TaskRecord) -> list[_Value]:
        row: list[_Value] = []
        for value in _values(record):
            if isinstance(value, str):
                # XML keeps no \r; openpyxl refuses control characters; Excel, over-long cells.
                text = ILLEGAL_CHARACTERS_RE.sub("", _one_newline_style(value))
                row.append(_xlsx_fit(_spreadsheet_safe(text)))
            else:
                row.append(value)
        return row

    stream = iter(records)
    sample = [cells(r) for r in itertools.islice(stream, _XLSX_WIDTH_SAMPLE)]
    widths = [_display_width(name) for name in EXPORT_FIELDS]
    for row in sample:
        for i, value in enumerate(row):
            first_line = value.split("\n", 1)[0][:200] if isinstance(value, str) else str(value)
            widths[i] = max(widths[i], _display_width(first_line) if value is not None else 0)
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("tasks")
    for i, name in enumerate(EXPORT_FIELDS):
        width = _XLSX_WIDTHS.get(name, min(widths[i], _XLSX_MAX_WIDTH) + 2)
        sheet.column_dimensions[get_column_letter(i + 1)].width = width
    sheet.freeze_panes = "A2"
    bold = Font(bold=True)
    header = []
    for name in EXPORT_FIELDS:
        cell = WriteOnlyCell(sheet, value=name)
        cell.font = bold
        header.append(cell)
    sheet.append(header)
    wrapped = Alignment(vertical="top", wrap_text=True)
    wrap_at = [i for i, name in enumerate(EXPORT_FIELDS) if name in _XLSX_WIDTHS]
    count = 0
    for row in itertools.chain(sample, (cells(r) for r in stream)):
        out: list[Any] = list(row)
        for i in wrap_at:
            if out[i] is not None:
                out[i] = WriteOnlyCell(sheet, value=out[i])
                out[i].alignment = wrapped
        sheet.append(out)
        count += 1
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(EXPORT_FIELDS))}{count + 1}"
    with open(tmp, "wb") as file:
        workbook.save(file)
        _flush_to_disk(file)
    return count


def _xlsx_fit(text: str) -> str:
    if len(text) <= XLSX_CELL_LIMIT:
        return text
    note = f"\n… [cut at {XLSX_CELL_LIMIT} characters of {len(text)}: see the JSONL or MD export]"
    return text[: XLSX_CELL_LIMIT - len(note)] + note


def _display_width(text: str) -> int:
    """Column width in Excel's units, roughly: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


_WRITERS: dict[str, Callable[[Iterable[TaskRecord], Path], int]] = {
    "csv": _write_csv,
    "jsonl": _write_jsonl,
    "xlsx": _write_xlsx,
    "md": _write_markdown,
}
