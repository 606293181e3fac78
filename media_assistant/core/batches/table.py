"""A batch file as read, before it becomes tasks: its rows and columns (:class:`Table`), the
headers every format accepts for the task's own fields (Chinese ones too, any case or spacing),
and the pieces the decoders share. The decoders: ``delimited`` (CSV, TSV), ``xlsx``, ``jsonl``;
building tasks from a table: ``batch_import``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

SUPPORTED_SUFFIXES = (".csv", ".tsv", ".xlsx", ".jsonl")
Problem = tuple[int, str]  # (row number for ordering, 0 = the file or its header; message)

# Canonical column -> accepted headers (compared after normalize_header: case, spaces, "-"
# ignored).
ALIASES: dict[str, tuple[str, ...]] = {
    "prompt": ("prompt", "提示词"),
    "model": ("model", "模型"),
    "task_id": ("task_id", "任务id"),
    "system_prompt": ("system_prompt", "系统提示词"),
    "title": ("title", "标题"),
    "priority": ("priority", "优先级"),
}
FIELD_BY_ALIAS = {alias: name for name, aliases in ALIASES.items() for alias in aliases}


@dataclass(slots=True)
class Table:
    unit: str  # "row" (spreadsheets) or "line" (JSONL)
    header_row: int | None  # None: no header (JSONL, or an empty file)
    columns: list[str] = field(default_factory=list)  # as written, stripped; "" = unnamed
    rows: list[tuple[int, list[str]]] = field(default_factory=list)  # cells align with columns
    problems: list[Problem] = field(default_factory=list)  # found while reading; reading went on


def normalize_header(name: str) -> str:
    """Header comparison key: "Task ID", " task-id " and "TASK_ID" are the same column."""
    return re.sub(r"[\s\-]+", "_", name.replace("\ufeff", "").strip()).casefold()


def grid_to_table(grid: Iterable[tuple[int, list[str]]], *, strict_width: bool) -> Table:
    table = Table(unit="row", header_row=None)
    for number, cells in grid:
        if not any(c.strip() for c in cells):
            continue  # blank rows (Excel exports end with some) carry no task
        if table.header_row is None:
            table.header_row = number
            table.columns = [c.replace("\ufeff", "").strip() for c in cells]
            continue
        width = len(table.columns)
        if strict_width and any(c.strip() for c in cells[width:]):
            used = max(i for i, c in enumerate(cells) if c.strip()) + 1
            msg = f"row {number}: {used} values but the header has {width} columns"
            table.problems.append(
                (number, msg + ' (a value containing the separator needs "quotes")')
            )
        kept = [one_newline_style(c) for c in cells[:width]]
        table.rows.append((number, kept + [""] * (width - len(kept))))
    return table


def one_newline_style(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")
