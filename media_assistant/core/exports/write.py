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

import csv
import datetime as dt
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from media_assistant.core.exports.fields import (
    HEADER_LANGUAGES,
    INPUTS_AFTER,
    Headers,
    collect_input_columns,
    csv_safe,
    header_of,
    markdown_section,
    record_inputs,
    record_values,
    tabular_header,
    tabular_row,
)
from media_assistant.core.files.atomic import flush_to_disk, write_atomically
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import TaskRecord
from media_assistant.core.model.states import TaskState

if TYPE_CHECKING:
    from media_assistant.core.store import Store

EXPORT_FORMATS = ("csv", "jsonl", "xlsx", "md", "docx", "md-folder")
FORMAT_SUFFIX = {
    "csv": ".csv",
    "jsonl": ".jsonl",
    "xlsx": ".xlsx",
    "md": ".md",
    "docx": ".docx",
    "md-folder": "",
}

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
            row = tabular_row(
                columns, record_values(record, headers=headers), record_inputs(record)
            )
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
            for name, value in record_values(record, headers=headers).items():
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
