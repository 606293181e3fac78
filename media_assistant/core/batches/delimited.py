"""CSV and TSV batch files, as Excel and WPS write them: UTF-8 (with or without a BOM), UTF-16
or GB18030, the separator sniffed for CSV, quoted values with line breaks, a clear word where a
quote is never closed or a row has more values than the header."""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

from media_assistant.core.batches.table import Table, grid_to_table
from media_assistant.core.model.errors import InputError

# The csv module's own limit (131,072 by default) would refuse a long cell before the check
# of the prompt's length could name its column; this one only bounds a runaway unquoted field.
CSV_FIELD_LIMIT = 64 * 1024 * 1024
SAVE_AS = "; save the file from Excel as 'CSV UTF-8'"


def read_delimited(path: Path, data: bytes, *, delimiter: str | None) -> Table:
    text = _decode_spreadsheet_text(path, data)
    reader = csv.reader(
        io.StringIO(text, newline=""), delimiter=delimiter or _sniff_delimiter(text), strict=True
    )
    records: list[list[str]] = []
    limit = csv.field_size_limit(CSV_FIELD_LIMIT)  # process-wide: put back below
    try:
        records.extend(reader)
    except csv.Error as exc:
        detail = str(exc)
        if "unexpected end of data" in detail:
            detail = 'a quoted value is never closed (unterminated ")'
        raise InputError(f"{path}: row {len(records) + 1}: malformed CSV: {detail}") from None
    finally:
        csv.field_size_limit(limit)
    return grid_to_table(enumerate(records, start=1), strict_width=True)


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
                raise InputError(f"{path}: row {row}: NUL bytes: this is not CSV text{SAVE_AS}")
            return text
    assert failure is not None
    encoding, bad = failure
    row = _row_at_end(data[: bad.start].decode(encoding, errors="replace"))
    names = {"utf-8": "UTF-8", "gb18030": "UTF-8 or GB18030"}
    raise InputError(
        f"{path}: row {row}: byte 0x{data[bad.start]:02X} is not valid "
        f"{names.get(encoding, 'UTF-16')} text{SAVE_AS}"
    )


def _mostly_utf8(data: bytes) -> bool:
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    good = sum(1 for ch in text if ord(ch) > 0x7F) - bad
    return good > 2 * bad
