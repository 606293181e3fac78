"""Read a batch file (CSV, TSV, XLSX, JSONL) into tasks; any problem rejects the whole file.

Columns (DESIGN §6): ``prompt`` (or a template of ``{column}`` placeholders), ``model`` (or a
default), optional ``task_id``, ``system_prompt``, ``title``, ``priority``; Chinese headers and
any case or spacing are accepted. Other columns are allowed and feed the template.

Rows are numbered as the operator sees them: spreadsheet rows (header = row 1) for CSV/XLSX, line
numbers for JSONL. Problems are collected and reported together in one :class:`InputError`, one
per line, each naming the file, the row and (where relevant) the column.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from media_assistant.core.batches.delimited import read_delimited
from media_assistant.core.batches.jsonl import read_jsonl
from media_assistant.core.batches.table import (
    ALIASES,
    FIELD_BY_ALIAS,
    SUPPORTED_SUFFIXES,
    Problem,
    Table,
    normalize_header,
)
from media_assistant.core.batches.xlsx import read_xlsx
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store.task_ids import generated_task_id

MAX_REPORTED_PROBLEMS = 20
MAX_TASK_ID_LENGTH = 200
# One limit for every format (CSV, TSV, XLSX, JSONL, pasted text): a prompt after its template
# is filled in, a system prompt, and any cell of the file. Generous for an article's source
# material, and far below what would make the store or a chat composer choke.
MAX_PROMPT_CHARS = 100_000
# The csv module's own limit (131,072 by default) would refuse a long cell before the check
# above could name its column; this one only bounds a runaway unquoted field.
CSV_FIELD_LIMIT = 64 * 1024 * 1024

_PRIORITY_RANGE = range(-(2**31), 2**31)  # what every SQL backend stores as an INTEGER

_Template = list[tuple[str, str | None]]  # (literal text, then a placeholder name or None)


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
    table = read_table(path)
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
    table = read_table(path)
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
        if FIELD_BY_ALIAS.get(normalize_header(name)) == "title":
            return name
    for name in columns:
        if not name or FIELD_BY_ALIAS.get(normalize_header(name)):
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
        table: Table,
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
        self.problems: list[Problem] = list(table.problems)
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
        for name in ALIASES:
            hits = [
                i for i, c in enumerate(columns) if FIELD_BY_ALIAS.get(normalize_header(c)) == name
            ]
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
                key = normalize_header(placeholder)
                hits = [i for i, c in enumerate(columns) if c and normalize_header(c) == key]
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


def _raise_if_any(origin: str, problems: list[Problem]) -> None:
    if not problems:
        return
    ordered = sorted(problems, key=lambda p: p[0])  # stable: header first, then by row
    lines = [f"{origin}: {msg}" for _, msg in ordered[:MAX_REPORTED_PROBLEMS]]
    if len(ordered) > MAX_REPORTED_PROBLEMS:
        lines.append(f"{origin}: … and {len(ordered) - MAX_REPORTED_PROBLEMS} more problems")
    raise InputError("\n".join(lines))


# -------------------------------------------------------------------------- columns, templates


def _find_column(columns: Sequence[str], name: str) -> int | None:
    """A placeholder names a column as written (case/spacing aside), or a canonical field."""
    key = normalize_header(name)
    for i, column in enumerate(columns):
        if column and normalize_header(column) == key:
            return i
    wanted = FIELD_BY_ALIAS.get(key)
    for i, column in enumerate(columns):
        if wanted is not None and FIELD_BY_ALIAS.get(normalize_header(column)) == wanted:
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


def read_table(path: Path) -> Table:
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        hint = " (save it from Excel as .xlsx)" if suffix == ".xls" else ""
        allowed = ", ".join(SUPPORTED_SUFFIXES)
        raise InputError(
            f"{path}: unsupported file type {suffix or '(none)'!r}{hint}; use {allowed}"
        )
    if suffix == ".xlsx":
        return read_xlsx(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if suffix == ".jsonl":
        return read_jsonl(path, data)
    return read_delimited(path, data, delimiter="\t" if suffix == ".tsv" else None)
