"""The one upsert both engines run atomically (SQLAlchemy's dialect inserts: SQLite 3.24+ and
PostgreSQL share ``ON CONFLICT``). A module of its own, below core/store/db.py, so a module the
migrations call (core/store/fair_store.py) can use it without importing the engine's opening."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Connection, CursorResult, Table
from sqlalchemy.dialects import postgresql, sqlite

# The row a conflicting insert proposed (``excluded``), for an upsert's SET and WHERE.
Excluded = Any
SetValues = Callable[[Excluded], Mapping[str, Any]]


def upsert(
    conn: Connection,
    table: Table,
    rows: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    key: Sequence[str],
    update: Sequence[str] | SetValues | None = None,
    where: Callable[[Excluded], ColumnElement[bool]] | None = None,
    returning: Sequence[Any] = (),
) -> CursorResult[Any]:
    """The one upsert: ``INSERT … ON CONFLICT (key) DO UPDATE SET …`` in one statement, which
    SQLite (3.24+) and PostgreSQL both run atomically — a select-then-insert is safe only while
    one writer exists, and a team shares its database.

    ``update``: the columns that take the proposed value, or a function of the proposed row
    (``excluded``) giving the SET clause (``lambda new: {"name": func.coalesce(new.name,
    table.c.name)}``); None: keep the existing row (``DO NOTHING``). ``where``: update only
    rows it accepts (a function of ``excluded``). With ``returning``, only rows inserted or
    updated come back."""
    dialect_insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = dialect_insert(table).values(rows if isinstance(rows, Sequence) else [rows])
    if update is None:
        stmt = stmt.on_conflict_do_nothing(index_elements=list(key))
    else:
        values = (
            update(stmt.excluded) if callable(update) else {c: stmt.excluded[c] for c in update}
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=list(key),
            set_=dict(values),
            where=where(stmt.excluded) if where is not None else None,
        )
    if returning:
        stmt = stmt.returning(*returning)  # type: ignore[assignment]
    return conn.execute(stmt)
