"""The XLSX export: typed cells (numbers, dates), streamed in openpyxl's write-only mode.

Write-only mode: rows stream to the file instead of living as cell objects (100,000 tasks: a
flat heap and about a minute, where the object model took many minutes and grew a heap whose
garbage collections paused every thread, the window's included). Column widths must be known
before the first row: they come from the header and the first ``WIDTH_SAMPLE`` records. Only
the wrapped columns (and date cells) carry a style (styles cost three times the plain write).

Types: ``attempt`` is a number, timestamps are date cells (local time; Excel has no time
zones), an input cell that is plainly a number (``42``, ``-3.5``; not ``007`` or a 16-digit id
Excel would round) or an ISO date becomes one. Every other text is a *string* cell — a text
starting with ``=`` included, which openpyxl would otherwise store as a formula: that is the
whole formula guard, so nothing gets a visible ``'`` (a Markdown list ``- item`` stays as is).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from media_assistant.core.exports.fields import (
    Headers,
    Value,
    one_newline_style,
    record_inputs,
    record_values,
    tabular_header,
    tabular_row,
)
from media_assistant.core.files.atomic import flush_to_disk
from media_assistant.core.model.records import TaskRecord

XLSX_CELL_LIMIT = 32_767  # Excel refuses (and "repairs") longer cells
WIDTH_SAMPLE = 1_000  # records that set the column widths (written first, then the rest)
_WIDTHS = {"result_text": 80, "error_message": 50, "prompt": 50}  # wrapped columns
_MAX_WIDTH = 40
_DATE_FORMAT = "yyyy-mm-dd hh:mm:ss"
_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,14})")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]{0,13})\.[0-9]{1,6}")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?")


def typed_input(text: str) -> Value | float:
    """An input cell as a number or date when it plainly is one; else the text."""
    value = text.strip()
    if _INT.fullmatch(value):
        return int(value)
    if _DECIMAL.fullmatch(value):
        return float(value)
    if _ISO_DATE.fullmatch(value):
        try:
            return dt.datetime.fromisoformat(value)
        except ValueError:
            return text
    return text


def write_xlsx(
    records: Iterable[TaskRecord], tmp: Path, headers: Headers, input_columns: Sequence[str]
) -> int:
    from openpyxl import Workbook  # heavy: only when a workbook is written
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    columns = tabular_header(headers, input_columns)
    keys = [key for key, _ in columns]

    def cells(record: TaskRecord) -> list[Any]:
        inputs = {k: typed_input(v) for k, v in record_inputs(record).items()}
        row: list[Any] = []
        for value in tabular_row(
            columns, record_values(record, typed=True, headers=headers), inputs
        ):
            if isinstance(value, str):
                # XML keeps no \r; openpyxl refuses control characters; Excel, over-long cells.
                row.append(xlsx_fit(ILLEGAL_CHARACTERS_RE.sub("", one_newline_style(value))))
            else:
                row.append(value)
        return row

    stream = iter(records)
    sample = [cells(r) for r in itertools.islice(stream, WIDTH_SAMPLE)]
    widths = [display_width(shown) for _, shown in columns]
    for row in sample:
        for i, value in enumerate(row):
            if value is None:
                continue
            if isinstance(value, dt.datetime):
                width = 19
            else:
                text = value.split("\n", 1)[0][:200] if isinstance(value, str) else str(value)
                width = display_width(text)
            widths[i] = max(widths[i], width)
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("tasks")
    for i, key in enumerate(keys):
        width = _WIDTHS.get(key, min(widths[i], _MAX_WIDTH) + 2)
        sheet.column_dimensions[get_column_letter(i + 1)].width = width
    sheet.freeze_panes = "A2"
    bold = Font(bold=True)
    header = []
    for _, shown in columns:
        cell = WriteOnlyCell(sheet, value=shown)
        cell.data_type = "s"
        cell.font = bold
        header.append(cell)
    sheet.append(header)
    wrapped = Alignment(vertical="top", wrap_text=True)
    wrap_at = {i for i, key in enumerate(keys) if key in _WIDTHS}
    count = 0
    for row in itertools.chain(sample, (cells(r) for r in stream)):
        out: list[Any] = list(row)
        for i, value in enumerate(out):
            if value is None:
                continue
            if isinstance(value, dt.datetime):
                cell = WriteOnlyCell(sheet, value=value)
                cell.number_format = _DATE_FORMAT
                out[i] = cell
            elif i in wrap_at or (isinstance(value, str) and value.startswith("=")):
                cell = WriteOnlyCell(sheet, value=value)
                cell.data_type = "s"  # text, never a formula
                if i in wrap_at:
                    cell.alignment = wrapped
                out[i] = cell
        sheet.append(out)
        count += 1
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{count + 1}"
    with open(tmp, "wb") as file:
        workbook.save(file)
        flush_to_disk(file)
    return count


def xlsx_fit(text: str) -> str:
    if len(text) <= XLSX_CELL_LIMIT:
        return text
    note = f"\n… [cut at {XLSX_CELL_LIMIT} characters of {len(text)}: see the JSONL or MD export]"
    return text[: XLSX_CELL_LIMIT - len(note)] + note


def display_width(text: str) -> int:
    """Column width in Excel's units, roughly: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
