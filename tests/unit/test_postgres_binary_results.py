"""A statement that asks for it gets PostgreSQL's binary result format (core/store/backends/
postgres.py ``binary_results_on_request``): a ``bytea`` crosses as its bytes, not as hex text
twice its size — the lanes' figures read a day's rollups that way (B12). Others stay text."""

from __future__ import annotations

from sqlalchemy import LargeBinary, literal, select

from media_assistant.core.store.backends.postgres import BINARY_RESULTS
from media_assistant.core.store.db import open_engine

BINARY, TEXT = 1, 0  # libpq's result formats


def test_a_statement_asking_for_binary_results_gets_them_and_the_same_values(
    pg_url: str,
) -> None:
    engine = open_engine(pg_url)
    value = bytes(range(256)) * 4
    stmt = select(literal(value, LargeBinary), literal("lane"), literal(2.5))
    try:
        with engine.connect() as conn:
            binary = conn.execute(stmt.execution_options(**{BINARY_RESULTS: True}))
            assert binary.cursor is not None
            assert binary.cursor.pgresult.fformat(0) == BINARY
            assert tuple(binary.one()) == (value, "lane", 2.5)
            text = conn.execute(stmt)
            assert text.cursor is not None and text.cursor.pgresult.fformat(0) == TEXT
            assert tuple(text.one()) == (value, "lane", 2.5)
    finally:
        engine.dispose()
