"""Read a batch file (CSV, TSV, XLSX, JSONL) into tasks; any problem rejects the whole file.

Columns (DESIGN §6): ``prompt`` (or a template of ``{column}`` placeholders), ``model`` (or a
default), optional ``task_id``, ``system_prompt``, ``title``, ``priority``; Chinese headers and
any case or spacing are accepted. Other columns are allowed and feed the template.

Rows are numbered as the operator sees them: spreadsheet rows (header = row 1) for CSV/XLSX, line
numbers for JSONL. Problems are collected and reported together in one :class:`InputError`, one
per line, each naming the file, the row and (where relevant) the column.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import difflib
import io
import json
import re
import warnings
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store.task_ids import generated_task_id

SUPPORTED_SUFFIXES = (".csv", ".tsv", ".xlsx", ".jsonl")
MAX_REPORTED_PROBLEMS = 20
MAX_TASK_ID_LENGTH = 200
# One limit for every format (CSV, TSV, XLSX, JSONL, pasted text): a prompt after its template
# is filled in, a system prompt, and any cell of the file. Generous for an article's source
# material, and far below what would make the store or a chat composer choke.
MAX_PROMPT_CHARS = 100_000
# The csv module's own limit (131,072 by default) would refuse a long cell before the check
# above could name its column; this one only bounds a runaway unquoted field.
_CSV_FIELD_LIMIT = 64 * 1024 * 1024

# Canonical column -> accepted headers (compared after _normalize: case, spaces and "-" ignored).
_ALIASES: dict[str, tuple[str, ...]] = {
    "prompt": ("prompt", "提示词"),
    "model": ("model", "模型"),
    "task_id": ("task_id", "任务id"),
    "system_prompt": ("system_prompt", "系统提示词"),
    "title": ("title", "标题"),
    "priority": ("priority", "优先级"),
}
_FIELD_BY_ALIAS = {alias: name for name, aliases in _ALIASES.items() for alias in aliases}
_SAVE_AS = "; save the file from Excel as 'CSV UTF-8'"
_PRIORITY_RANGE = range(-(2**31), 2**31)  # what every SQL backend stores as an INTEGER

_Problem = tuple[int, str]  # (row number for ordering, 0 = the file or its header; message)
_Template = list[tuple[str, str | None]]  # (literal text, then a placeholder name or None)


@dataclass(slots=True)
class _Table:
    unit: str  # "row" (spreadsheets) or "line" (JSONL)
    header_row: int | None  # None: no header (JSONL, or an empty file)
    columns: list[str] = field(default_factory=list)  # as written, stripped; "" = unnamed
    rows: list[tuple[int, list[str]]] = field(default_factory=list)  # cells align with columns
    problems: list[_Problem] = field(default_factory=list)  # found while reading; reading went on


# ---------------------------------------------------------------------------------- public API


def read_batch(
    path: Path,
    *,
    models: Mapping[str, ModelKind],
    default_model: str | None = None,
    template: str | None = None,
    batch_id: str | None = None,
    default_system_prompts: Mapping[str, str] | None = None,
    title_column: str | None = None,
) -> list[NewTask]:
    """All tasks of the file, or :class:`InputError` listing every problem (nothing partial).

    A blank ``template`` counts as none. Blank rows are skipped (they carry no task).
    ``title_column``: the column that titles each task when the file has no ``title`` column
    (None: :func:`default_title_column`; "": no title).
    """
    table = _read_table(path)
    batch = default_batch_id(path) if batch_id is None else batch_id
    template = template if template and template.strip() else None
    builder = _TaskBuilder(table, models, default_model, default_system_prompts or {}, batch)
    builder.resolve_header(template)
    builder.resolve_title(title_column)
    tasks = builder.build(template_given=template is not None)
    _raise_if_any(str(path), builder.problems)
    return tasks


def tasks_from_lines(
    text: str,
    *,
    model: str,
    models: Mapping[str, ModelKind],
    batch_id: str,
    priority: int = 0,
    system_prompt: str | None = None,
) -> list[NewTask]:
    """Pasted text: one prompt per non-empty line, ids ``<batch_id>-00001`` upwards."""
    if model not in models:
        raise InputError(_unknown_model(model, models))
    if priority not in _PRIORITY_RANGE:
        raise InputError(f"priority {priority} is out of range")
    prompts = [line.strip() for line in text.splitlines() if line.strip()]
    if not prompts:
        raise InputError("no prompts: paste one prompt per line")
    too_long = [
        f"line {n}: {_too_long('the prompt', len(line))}"
        for n, line in enumerate(text.splitlines(), start=1)
        if len(line.strip()) > MAX_PROMPT_CHARS
    ]
    if too_long:
        _raise_if_any("pasted text", [(0, line) for line in too_long])
    return [
        NewTask(
            task_id=generated_task_id(batch_id, n),
            model=model,
            model_kind=models[model],
            prompt=prompt,
            batch_id=batch_id,
            system_prompt=system_prompt or None,
            priority=priority,
            generated_id=True,
        )
        for n, prompt in enumerate(prompts, start=1)
    ]


def preview_table(path: Path, limit: int = 5) -> tuple[list[str], list[dict[str, str]], int]:
    """(named columns, the first ``limit`` data rows, number of data rows) for column mapping.

    Raises :class:`InputError` only when the file cannot be read at all; row problems are left
    for :func:`read_batch` to report.
    """
    table = _read_table(path)
    first: dict[str, int] = {}
    for i, name in enumerate(table.columns):
        if name and name not in first:
            first[name] = i
    rows = [{name: cells[i] for name, i in first.items()} for _, cells in table.rows[:limit]]
    return list(first), rows, len(table.rows)


def default_title_column(columns: Sequence[str], rows: Sequence[Mapping[str, str]]) -> str | None:
    """The column that titles tasks by default: the file's ``title`` (标题) column, else the
    first column holding text (not only numbers) other than the prompt, model, task id, system
    prompt and priority. Tasks made from a template then read "秋季新品", "冬季清仓"… rather
    than all the same."""
    for name in columns:
        if _FIELD_BY_ALIAS.get(_normalize(name)) == "title":
            return name
    for name in columns:
        if not name or _FIELD_BY_ALIAS.get(_normalize(name)):
            continue
        values = [str(row.get(name, "")).strip() for row in rows]
        if any(v and not _is_number(v) for v in values):
            return name
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


MAX_TITLE_CHARS = 200


def render_template(template: str, row: Mapping[str, str]) -> str:
    """Fill ``{column}`` placeholders (names matched like headers); ``{{``/``}}`` are braces."""
    columns = list(row)
    parts: list[str] = []
    for literal, name in _parse_template(template):
        parts.append(literal)
        if name is not None:
            index = _find_column(columns, name)
            if index is None:
                raise InputError(_missing_placeholder(name, columns))
            parts.append(row[columns[index]])
    return "".join(parts)


def template_fields(template: str) -> list[str]:
    """Placeholder names in order of first use, each once."""
    names = (name for _, name in _parse_template(template) if name is not None)
    return list(dict.fromkeys(names))


def default_batch_id(path: Path, *, now: dt.datetime | None = None) -> str:
    """``<file stem>-YYYYmmdd-HHMMSS`` (whitespace in the stem becomes ``_``)."""
    stem = re.sub(r"\s+", "_", path.stem.strip()) or "batch"
    return f"{stem}-{(now or dt.datetime.now()):%Y%m%d-%H%M%S}"


# ----------------------------------------------------------------------------- building tasks


class _TaskBuilder:
    def __init__(
        self,
        table: _Table,
        models: Mapping[str, ModelKind],
        default_model: str | None,
        default_system_prompts: Mapping[str, str],
        batch_id: str,
    ) -> None:
        self.table = table
        self.models = models
        self.default_model = default_model
        self.default_system_prompts = default_system_prompts
        self.batch_id = batch_id
        self.problems: list[_Problem] = list(table.problems)
        self.column_of: dict[str, int] = {}  # canonical field -> column index
        self.tokens: list[tuple[str, int | None]] | None = None  # the template, resolved
        self.title_index: int | None = None  # the column titling tasks without a title

    def _header(self, message: str) -> None:
        where = f"row {self.table.header_row}: " if self.table.header_row is not None else ""
        self.problems.append((0, where + message))

    def _col(self, name: str) -> str:
        return f"column {self.table.columns[self.column_of[name]]!r}"

    def resolve_header(self, template: str | None) -> None:
        """Map canonical fields and template placeholders to columns; header problems."""
        columns = self.table.columns
        if not self.table.rows:
            if not self.problems:
                self._header(
                    "the file is empty"
                    if self.table.header_row is None
                    else "no data rows below the header"
                )
            return
        for name in _ALIASES:
            hits = [i for i, c in enumerate(columns) if _FIELD_BY_ALIAS.get(_normalize(c)) == name]
            if len(hits) > 1:
                listed = " and ".join(repr(columns[i]) for i in hits)
                self._header(f"columns {listed} all mean {name!r}; keep one")
            elif hits:
                self.column_of[name] = hits[0]
        if self.default_model is not None and self.default_model not in self.models:
            self.problems.append((0, "default " + _unknown_model(self.default_model, self.models)))
        if "model" not in self.column_of and self.default_model is None:
            self._header("no 'model' (模型) column, and no default model given")
        if template is None:
            if "prompt" not in self.column_of:
                self._header("no 'prompt' (提示词) column, and no template given")
            return
        try:
            parsed = _parse_template(template)
        except InputError as exc:
            self.problems.append((0, str(exc)))
            return
        tokens: list[tuple[str, int | None]] = []
        for literal, placeholder in parsed:
            index = None
            if placeholder is not None:
                key = _normalize(placeholder)
                hits = [i for i, c in enumerate(columns) if c and _normalize(c) == key]
                index = _find_column(columns, placeholder)
                if index is None:
                    self._header(_missing_placeholder(placeholder, columns))
                    return
                if len(hits) > 1:
                    listed = " and ".join(repr(columns[i]) for i in hits)
                    self._header(f"template placeholder {{{placeholder}}} matches columns {listed}")
                    return
            tokens.append((literal, index))
        self.tokens = tokens

    def resolve_title(self, title_column: str | None) -> None:
        """Which column titles the tasks (see :func:`default_title_column`)."""
        columns = self.table.columns
        if "title" in self.column_of or title_column == "":
            return
        if title_column is None:
            rows = [dict(zip(columns, cells, strict=False)) for _, cells in self.table.rows]
            title_column = default_title_column(columns, rows)
            if title_column is None:
                return
        self.title_index = _find_column(columns, title_column)
        if self.title_index is None:
            shown = ", ".join(repr(c) for c in columns if c) or "none"
            self._header(f"title column {title_column!r} is not a column (columns: {shown})")

    def _check_cell_sizes(self, at: str, number: int, cells: list[str]) -> None:
        for index, value in enumerate(cells):
            if len(value) > MAX_PROMPT_CHARS:
                name = self.table.columns[index] or f"#{index + 1}"
                self.problems.append(
                    (number, at + f"column {name!r}: " + _too_long("the value", len(value)))
                )

    def _inputs(self, cells: list[str], *, template_given: bool) -> tuple[tuple[str, str], ...]:
        """The source row as exports show it beside the result: every column except those the
        task took as its own fields (with a template, a ``prompt`` column is only an input).
        Unnamed columns are ``#n``; a repeated name gets `` (2)``."""
        own = {i for name, i in self.column_of.items() if not (template_given and name == "prompt")}
        out: list[tuple[str, str]] = []
        seen: set[str] = set()
        for index, value in enumerate(cells):
            if index in own:
                continue
            name = self.table.columns[index] or f"#{index + 1}"
            unique, n = name, 1
            while unique in seen:
                n += 1
                unique = f"{name} ({n})"
            seen.add(unique)
            out.append((unique, value))
        return tuple(out)

    def build(self, *, template_given: bool) -> list[NewTask]:
        tasks: list[NewTask] = []
        seen_ids: dict[str, int] = {}
        unknown_models: dict[str, list[int]] = {}
        unit = self.table.unit
        tokens = self.tokens
        # With a broken template or no prompt column the header problem says it all.
        check_prompt = tokens is not None or ("prompt" in self.column_of and not template_given)

        def cell(cells: list[str], name: str) -> str:
            index = self.column_of.get(name)
            return "" if index is None else cells[index].strip()

        for number, cells in self.table.rows:
            at = f"{unit} {number}: "
            problems_before = len(self.problems)
            self._check_cell_sizes(at, number, cells)
            if tokens is not None:
                prompt = "".join(lit + ("" if i is None else cells[i]) for lit, i in tokens).strip()
                if check_prompt and not prompt:
                    self.problems.append((number, at + "the template gives an empty prompt"))
            else:
                prompt = cell(cells, "prompt")
                if check_prompt and not prompt:
                    self.problems.append((number, at + f"{self._col('prompt')}: empty prompt"))

            if len(prompt) > MAX_PROMPT_CHARS and len(self.problems) == problems_before:
                self.problems.append((number, at + _too_long("the prompt", len(prompt))))

            model = cell(cells, "model") or self.default_model
            kind = None if model is None else self.models.get(model)
            if model is None:
                if "model" in self.column_of:
                    msg = f"{self._col('model')}: no model (and no default model given)"
                    self.problems.append((number, at + msg))
            elif kind is None and model != self.default_model:
                unknown_models.setdefault(model, []).append(number)

            if "task_id" in self.column_of:
                task_id = cell(cells, "task_id")
                problem = _task_id_problem(task_id, seen_ids, unit)
                if problem:
                    self.problems.append((number, at + f"{self._col('task_id')}: {problem}"))
                seen_ids.setdefault(task_id, number)
            else:
                task_id = generated_task_id(self.batch_id, number)

            priority = 0
            if raw_priority := cell(cells, "priority"):
                try:
                    priority = _parse_priority(raw_priority)
                except ValueError as exc:
                    self.problems.append((number, at + f"{self._col('priority')}: {exc}"))

            if model is None or kind is None or len(self.problems) > problems_before:
                continue
            system_prompt = cell(cells, "system_prompt") or self.default_system_prompts.get(model)
            inputs = self._inputs(cells, template_given=template_given)
            tasks.append(
                NewTask(
                    task_id=task_id,
                    model=model,
                    model_kind=kind,
                    prompt=prompt,
                    batch_id=self.batch_id,
                    system_prompt=system_prompt or None,
                    title=(
                        cell(cells, "title")
                        or ("" if self.title_index is None else cells[self.title_index].strip())
                    )[:MAX_TITLE_CHARS]
                    or None,
                    priority=priority,
                    generated_id="task_id" not in self.column_of,
                    inputs=inputs,
                )
            )
        for model, numbers in unknown_models.items():
            where = _rows_label(unit, numbers)
            col = self._col("model")
            self.problems.append(
                (numbers[0], f"{where}: {col}: {_unknown_model(model, self.models)}")
            )
        return tasks


def _too_long(what: str, length: int) -> str:
    return (
        f"{what} is {length:,} characters long; the limit is {MAX_PROMPT_CHARS:,} "
        "(for every batch format: CSV, XLSX, JSONL, pasted text)"
    )


def _task_id_problem(task_id: str, seen: Mapping[str, int], unit: str) -> str | None:
    if not task_id:
        return "empty task_id (fill every task_id, or remove the column to have ids generated)"
    if task_id in seen:
        return f"duplicate task_id {task_id!r} (also in {unit} {seen[task_id]})"
    if len(task_id) > MAX_TASK_ID_LENGTH:
        return f"task_id longer than {MAX_TASK_ID_LENGTH} characters"
    if any(ch < " " or ch == "\x7f" for ch in task_id):
        return f"task_id {task_id!r} contains control characters"
    return None


def _parse_priority(raw: str) -> int:
    """A whole number ("2.0" too, as some tools write them); ValueError says what is wrong."""
    try:
        value = int(raw)
    except ValueError:
        try:
            number = float(raw)
        except ValueError:
            number = 0.5
        if not number.is_integer():
            raise ValueError(f"{raw!r} is not a whole number") from None
        value = int(number)
    if value not in _PRIORITY_RANGE:
        limits = f"{_PRIORITY_RANGE.start} to {_PRIORITY_RANGE.stop - 1}"
        raise ValueError(f"{raw!r} is out of range ({limits})")
    return value


def _unknown_model(model: str, models: Mapping[str, ModelKind]) -> str:
    if not models:
        return f"model {model!r} is unknown (no models are configured)"
    known = sorted(models)
    lowered = {name.casefold(): name for name in known}
    guess = lowered.get(model.casefold()) or next(
        iter(difflib.get_close_matches(model, known, n=1, cutoff=0.6)), None
    )
    hint = f"did you mean {guess!r}? " if guess else ""
    shown = ", ".join(known[:15]) + (", …" if len(known) > 15 else "")
    return f"unknown model {model!r} ({hint}known: {shown})"


def _rows_label(unit: str, numbers: Sequence[int]) -> str:
    if len(numbers) == 1:
        return f"{unit} {numbers[0]}"
    spans: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], -1]:
        if n == prev + 1:
            prev = n
            continue
        spans.append(str(start) if start == prev else f"{start}–{prev}")
        start = prev = n
    shown = ", ".join(spans[:8]) + (", …" if len(spans) > 8 else "")
    return f"{unit}s {shown} ({len(numbers)} {unit}s)"


def _raise_if_any(origin: str, problems: list[_Problem]) -> None:
    if not problems:
        return
    ordered = sorted(problems, key=lambda p: p[0])  # stable: header first, then by row
    lines = [f"{origin}: {msg}" for _, msg in ordered[:MAX_REPORTED_PROBLEMS]]
    if len(ordered) > MAX_REPORTED_PROBLEMS:
        lines.append(f"{origin}: … and {len(ordered) - MAX_REPORTED_PROBLEMS} more problems")
    raise InputError("\n".join(lines))


# -------------------------------------------------------------------------- columns, templates


def _normalize(name: str) -> str:
    """Header comparison key: "Task ID", " task-id " and "TASK_ID" are the same column."""
    return re.sub(r"[\s\-]+", "_", name.replace("\ufeff", "").strip()).casefold()


def _find_column(columns: Sequence[str], name: str) -> int | None:
    """A placeholder names a column as written (case/spacing aside), or a canonical field."""
    key = _normalize(name)
    for i, column in enumerate(columns):
        if column and _normalize(column) == key:
            return i
    wanted = _FIELD_BY_ALIAS.get(key)
    for i, column in enumerate(columns):
        if wanted is not None and _FIELD_BY_ALIAS.get(_normalize(column)) == wanted:
            return i
    return None


def _missing_placeholder(name: str, columns: Sequence[str]) -> str:
    shown = ", ".join(repr(c) for c in columns if c) or "none"
    return "template placeholder {" + name + "} is not a column (columns: " + shown + ")"


def _parse_template(template: str) -> _Template:
    parts: _Template = []
    literal: list[str] = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch in "{}" and template[i + 1 : i + 2] == ch:
            literal.append(ch)
            i += 2
        elif ch == "}":
            raise InputError(f"template: unmatched '}}' at character {i + 1} (write '}}}}')")
        elif ch == "{":
            end = template.find("}", i + 1)
            if end == -1 or "{" in template[i + 1 : end]:
                raise InputError(f"template: unmatched '{{' at character {i + 1} (write '{{{{')")
            name = template[i + 1 : end].strip()
            if not name:
                raise InputError(f"template: empty placeholder '{{}}' at character {i + 1}")
            parts.append(("".join(literal), name))
            literal = []
            i = end + 1
        else:
            literal.append(ch)
            i += 1
    if literal:
        parts.append(("".join(literal), None))
    return parts


# ---------------------------------------------------------------------------------- reading


def _read_table(path: Path) -> _Table:
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        hint = " (save it from Excel as .xlsx)" if suffix == ".xls" else ""
        allowed = ", ".join(SUPPORTED_SUFFIXES)
        raise InputError(
            f"{path}: unsupported file type {suffix or '(none)'!r}{hint}; use {allowed}"
        )
    if suffix == ".xlsx":
        return _read_xlsx(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if suffix == ".jsonl":
        return _read_jsonl(path, data)
    return _read_delimited(path, data, delimiter="\t" if suffix == ".tsv" else None)


def _grid_to_table(grid: Iterable[tuple[int, list[str]]], *, strict_width: bool) -> _Table:
    table = _Table(unit="row", header_row=None)
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
        kept = [_one_newline_style(c) for c in cells[:width]]
        table.rows.append((number, kept + [""] * (width - len(kept))))
    return table


def _one_newline_style(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _read_delimited(path: Path, data: bytes, *, delimiter: str | None) -> _Table:
    text = _decode_spreadsheet_text(path, data)
    reader = csv.reader(
        io.StringIO(text, newline=""), delimiter=delimiter or _sniff_delimiter(text), strict=True
    )
    records: list[list[str]] = []
    limit = csv.field_size_limit(_CSV_FIELD_LIMIT)  # process-wide: put back below
    try:
        records.extend(reader)
    except csv.Error as exc:
        detail = str(exc)
        if "unexpected end of data" in detail:
            detail = 'a quoted value is never closed (unterminated ")'
        raise InputError(f"{path}: row {len(records) + 1}: malformed CSV: {detail}") from None
    finally:
        csv.field_size_limit(limit)
    return _grid_to_table(enumerate(records, start=1), strict_width=True)


def _sniff_delimiter(text: str) -> str:
    """The separator the header row uses most: Excel writes ';' in locales with decimal commas."""
    header = _first_record(text)
    counts = {d: header.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])  # ties: ',' first
    return best if counts[best] else ","


def _first_record(text: str) -> str:
    in_quotes = False
    outside: list[str] = []
    for ch in text:
        if ch == '"':
            in_quotes = not in_quotes
        elif ch in "\r\n" and not in_quotes:
            break
        elif not in_quotes:
            outside.append(ch)
    return "".join(outside)


def _row_at_end(text: str) -> int:
    """Spreadsheet row in which ``text`` ends (newlines inside quotes stay in their cell)."""
    in_quotes = False
    row = 1
    for ch in text:
        if ch == '"':
            in_quotes = not in_quotes
        elif ch == "\n" and not in_quotes:
            row += 1
    return row


def _decode_spreadsheet_text(path: Path, data: bytes) -> str:
    """UTF-8 (with or without BOM) or GB18030, as Excel writes CSV; UTF-16 with a BOM too."""
    if data.startswith(b"PK\x03\x04"):
        raise InputError(f"{path}: this is an Excel workbook, not CSV text: rename it to .xlsx")
    boms = {
        codecs.BOM_UTF8: "utf-8",
        codecs.BOM_UTF16_LE: "utf-16-le",
        codecs.BOM_UTF16_BE: "utf-16-be",
    }
    bom = next((b for b in boms if data.startswith(b)), b"")
    data = data[len(bom) :]
    # A BOM names the encoding: no fallback that would garble the text.
    candidates = [boms[bom]] if bom else ["utf-8", "gb18030"]
    failure: tuple[str, UnicodeDecodeError] | None = None
    for encoding in candidates:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as error:
            failure = (encoding, error)
            if encoding == "utf-8" and _mostly_utf8(data):
                break  # a damaged UTF-8 file: GB18030 would "succeed" with garbage
        else:
            if "\x00" in text:  # UTF-16 without a BOM, or not text at all
                row = _row_at_end(text[: text.index("\x00")])
                raise InputError(f"{path}: row {row}: NUL bytes: this is not CSV text{_SAVE_AS}")
            return text
    assert failure is not None
    encoding, bad = failure
    row = _row_at_end(data[: bad.start].decode(encoding, errors="replace"))
    names = {"utf-8": "UTF-8", "gb18030": "UTF-8 or GB18030"}
    raise InputError(
        f"{path}: row {row}: byte 0x{data[bad.start]:02X} is not valid "
        f"{names.get(encoding, 'UTF-16')} text{_SAVE_AS}"
    )


def _mostly_utf8(data: bytes) -> bool:
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    good = sum(1 for ch in text if ord(ch) > 0x7F) - bad
    return good > 2 * bad


def _read_xlsx(path: Path) -> _Table:
    import openpyxl  # heavy: only when a workbook is read
    from openpyxl.utils.exceptions import InvalidFileException

    # openpyxl warns about styles and extensions it drops; none of that matters for values.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except (zipfile.BadZipFile, InvalidFileException, KeyError, ValueError) as exc:
            raise InputError(f"{path}: not a valid .xlsx workbook ({exc})") from None
        try:
            if not workbook.worksheets:
                return _Table(unit="row", header_row=None)
            rows = workbook.worksheets[0].iter_rows(values_only=True)
            grid = [(n, [_cell_text(v) for v in row]) for n, row in enumerate(rows, start=1)]
        finally:
            workbook.close()
    return _grid_to_table(grid, strict_width=False)


def _cell_text(value: object) -> str:
    """A cell as the operator reads it: 3 not "3.0", a date without a midnight time."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.15g}"  # Excel's precision
    if isinstance(value, dt.datetime):
        if value.time() == dt.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if not value.microsecond else "auto")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)


def _read_jsonl(path: Path, data: bytes) -> _Table:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        where = data.count(b"\n", 0, exc.start) + 1
        byte = data[exc.start]
        raise InputError(f"{path}: line {where}: byte 0x{byte:02X} is not valid UTF-8") from None
    table = _Table(unit="line", header_row=None)
    position: dict[str, int] = {}
    objects: list[tuple[int, dict[str, str]]] = []
    # split("\n"), not splitlines(): U+2028 and friends may sit unescaped inside JSON strings.
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            table.problems.append(
                (number, f"line {number}: invalid JSON: {exc.msg} (at {exc.colno})")
            )
            continue
        if not isinstance(obj, dict):
            kind = _json_type(obj)
            table.problems.append(
                (number, f"line {number}: expected a JSON object {{…}}, not {kind}")
            )
            continue
        values: dict[str, str] = {}
        for key, value in obj.items():
            name = key.strip()
            position.setdefault(name, len(position))
            if isinstance(value, dict | list):
                if _FIELD_BY_ALIAS.get(_normalize(name)):
                    msg = f"line {number}: column {name!r}: expected text or a number, not "
                    table.problems.append((number, msg + _json_type(value)))
                values[name] = json.dumps(value, ensure_ascii=False)
            else:
                values[name] = _json_scalar(value)
        objects.append((number, values))
    table.columns = list(position)
    table.rows = [(n, [v.get(c, "") for c in table.columns]) for n, v in objects]
    return table


def _json_scalar(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "true/false"}
    return "null" if value is None else names.get(type(value), "a number")
