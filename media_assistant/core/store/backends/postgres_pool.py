"""A workstation's connections to the team database, as a budget it can lend (issue 28 item 1).

A workstation holds one connection while idle and at most ``[store] connections`` (default 2) at
peak. The window's export runs in a child process (core/exports/child.py) that needs a
connection of its own: it *borrows* one of the workstation's instead of adding one. While it
runs, the window's engine holds one connection fewer (:meth:`LendingPool.lend`), so the
workstation's total never goes past ``[store] connections``: an administrator sizes the server
with *workstations × connections* whatever the operators do.

SQLAlchemy's ``QueuePool`` already counts what a budget needs (its ``pool_size`` kept open, its
overflow closed when given back, checkouts past the limit waiting up to ``pool_timeout``);
lending lowers its overflow limit for the loan's time and gives it back after. That uses the
pool's private counters (``_overflow``, ``_max_overflow``, ``_overflow_lock``: SQLAlchemy 2.x,
pinned in requirements/constraints.txt); tests/integration/test_team_connections.py holds it
to its word on a real server.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.pool import ConnectionPoolEntry, QueuePool

LEND_POLL_S = 0.02  # how often a loan waits for the connection it frees to be given back


class LendingPool(QueuePool):
    """A ``QueuePool`` that can lend one of its connection slots to another process."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.lent = 0

    def lend(self, canceled: Callable[[], bool] = lambda: False) -> bool:
        """Take one slot out of this pool's budget (the overflow: one connection stays the
        pool's); waits until the pool holds no more than it may now, which is at the end of
        the transaction that used the slot (that connection is closed when given back, not
        kept). False: no slot to lend (``connections = 1``, or lent already), or ``canceled``
        while waiting — nothing is lent then."""
        with self._overflow_lock:
            if self._max_overflow < 1:
                return False
            self._max_overflow -= 1
            self.lent += 1
        try:
            while self._overflow > self._max_overflow:  # more open than the budget left
                if canceled():
                    self.give_back()
                    return False
                time.sleep(LEND_POLL_S)
        except BaseException:
            self.give_back()
            raise
        return True

    def give_back(self) -> None:
        with self._overflow_lock:
            if self.lent:
                self.lent -= 1
                self._max_overflow += 1

    def _do_return_conn(self, record: ConnectionPoolEntry) -> None:
        # Over budget (a loan is waiting for this slot): close the connection given back rather
        # than keep it, even when the pool's kept place is free (another one stays open).
        with self._overflow_lock:
            over = self._max_overflow > -1 and self._overflow > self._max_overflow
            if over:
                self._overflow -= 1
        if over:
            record.close()
            return
        super()._do_return_conn(record)

    def recreate(self) -> QueuePool:
        new = super().recreate()  # (engine.dispose()): the new pool has the whole budget
        if isinstance(new, LendingPool) and new._max_overflow > -1:
            new._max_overflow += self.lent
        return new


@contextlib.contextmanager
def connection_lent(engine: Engine, canceled: Callable[[], bool] = lambda: False) -> Iterator[bool]:
    """Lend one of ``engine``'s connections for the ``with`` block (another process of this
    workstation uses it meanwhile): True if lent — or if nothing needs lending (an SQLite file:
    no connection budget) —, False if this engine has none to spare."""
    pool = engine.pool
    if not isinstance(pool, LendingPool):
        yield engine.dialect.name != "postgresql"
        return
    lent = pool.lend(canceled)
    try:
        yield lent
    finally:
        if lent:
            pool.give_back()
