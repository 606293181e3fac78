"""Submission numbers come from a counter (core/store/task_seq.py), on both engines."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, text

from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.store import Store, migrations, schema
from media_assistant.core.store.db import open_engine
from tests.conftest import make_tasks


def seqs(store: Store) -> list[int]:
    return [r.seq for r in store.list_tasks()]


def counter(store: Store) -> int | None:
    with store.engine.connect() as conn:
        return conn.execute(text("SELECT value FROM counters WHERE name = 'task_seq'")).scalar()


def test_a_failed_import_writes_nothing_and_its_numbers_are_never_given_again(
    store: Store,
) -> None:
    store.submit(make_tasks(3, batch="first", prefix="a"))

    def fail(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO TASK_EVENTS"):
            raise RuntimeError("the import broke off")

    event.listen(store.engine, "after_cursor_execute", fail)
    with pytest.raises(RuntimeError, match="broke off"):
        store.submit(make_tasks(4, batch="broken", prefix="x"))
    event.remove(store.engine, "after_cursor_execute", fail)
    assert seqs(store) == [1, 2, 3]  # nothing of it written
    store.submit(make_tasks(2, batch="next", prefix="n"))
    # A team database reserved the failed import's numbers in a transaction of their own: a gap,
    # never a number twice. SQLite took them inside the import's own transaction: given back.
    expected = [8, 9] if store.team else [4, 5]
    assert seqs(store) == [1, 2, 3, *expected]
    assert counter(store) == expected[-1]


def test_a_version_15_store_gets_its_counter_at_the_highest_number(
    store_url: str, clock: ManualClock
) -> None:
    store = Store(open_engine(store_url), clock, EventBus())
    store.submit(make_tasks(3, batch="old", prefix="o"))
    with store.engine.begin() as conn:  # as a version 15 build left it
        conn.execute(text("DROP TABLE counters"))
        conn.execute(text("UPDATE meta SET value = '15' WHERE key = 'schema_version'"))
    store.engine.dispose()
    again = Store(open_engine(store_url), clock, EventBus())
    with again.engine.connect() as conn:
        assert migrations.current_version(conn) == schema.SCHEMA_VERSION
    assert counter(again) == 3
    again.submit(make_tasks(2, batch="new", prefix="n"))
    assert seqs(again) == [1, 2, 3, 4, 5]
    again.engine.dispose()


def test_numbers_continue_after_the_highest_stored_even_past_the_counter(store: Store) -> None:
    """A row numbered by any other path (a tool, an old backup restored by hand) is never
    numbered twice: the counter is never below the highest ``seq``."""
    store.submit(make_tasks(2, batch="a", prefix="a"))
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE tasks SET seq = 40 WHERE task_id = 'a-001'"))
    store.submit(make_tasks(1, batch="b", prefix="b"))
    assert seqs(store) == [1, 40, 41]
