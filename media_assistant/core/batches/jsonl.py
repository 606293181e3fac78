"""JSONL batch files: one JSON object per line (numbered as lines), keys in first-seen order
become the columns; a line that is not an object, or a task field holding an object or an
array, is a problem of that line."""

from __future__ import annotations

import json
from pathlib import Path

from media_assistant.core.batches.table import FIELD_BY_ALIAS, Table, normalize_header
from media_assistant.core.model.errors import InputError


def read_jsonl(path: Path, data: bytes) -> Table:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        where = data.count(b"\n", 0, exc.start) + 1
        byte = data[exc.start]
        raise InputError(f"{path}: line {where}: byte 0x{byte:02X} is not valid UTF-8") from None
    table = Table(unit="line", header_row=None)
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
            kind = json_type(obj)
            table.problems.append(
                (number, f"line {number}: expected a JSON object {{…}}, not {kind}")
            )
            continue
        values: dict[str, str] = {}
        for key, value in obj.items():
            name = key.strip()
            position.setdefault(name, len(position))
            if isinstance(value, dict | list):
                if FIELD_BY_ALIAS.get(normalize_header(name)):
                    msg = f"line {number}: column {name!r}: expected text or a number, not "
                    table.problems.append((number, msg + json_type(value)))
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


def json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "true/false"}
    return "null" if value is None else names.get(type(value), "a number")
