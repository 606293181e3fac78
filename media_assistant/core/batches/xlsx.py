"""XLSX batch files: the first sheet's values (never formulas), each cell as the operator reads
it (3, not 3.0; a date without a midnight time). openpyxl, read-only, imported only here."""

from __future__ import annotations

import datetime as dt
import warnings
import zipfile
from pathlib import Path

from media_assistant.core.batches.table import Table, grid_to_table
from media_assistant.core.model.errors import InputError


def read_xlsx(path: Path) -> Table:
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
                return Table(unit="row", header_row=None)
            rows = workbook.worksheets[0].iter_rows(values_only=True)
            grid = [(n, [_cell_text(v) for v in row]) for n, row in enumerate(rows, start=1)]
        finally:
            workbook.close()
    return grid_to_table(grid, strict_width=False)


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
