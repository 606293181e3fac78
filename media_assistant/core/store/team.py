"""Opening a team database (PostgreSQL, team mode): where it is, waiting while it cannot be
reached, migrating it under the team's lock, and this workstation's clock against the server's.

Where it is: core/config/store_url.py.

**Unreachable** (:func:`open_team_store`): a server that does not answer (the network, the server
restarting, a wrong host) is retried with backoff until ``wait_s`` (``--db-wait``), saying so
through ``notify``, then :class:`StoreUnreachable` (exit 8). A server that answers and refuses
(a wrong password, no such database, no permission) is a configuration problem: said at once
in the server's words (:class:`ConfigError`, exit 2), never with the password. A server with no
free connection (issue 28) is waited for the same way ("team database busy: waiting for a
connection"), then said as such — "has no free connection" —, exit 2: not an outage.

**Clock**: times compared across workstations (heartbeats, ``not_before``, cool-downs,
schedules, the reaper) must come from one clock. Every workstation measures its offset from the
server's clock (:func:`~media_assistant.core.store.backends.postgres.clock_offset`: the sample
with the shortest round trip) and reads time through a
:class:`~media_assistant.core.model.clock.ServerAlignedClock`, which carries the server's time on
the monotonic clock (a wall clock stepped mid-run moves nothing); the scheduler measures again
every few minutes (:data:`CLOCK_CHECK_S`) and at once when the wall clock jumps.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from media_assistant.core.model.errors import ConfigError, StoreUnreachable
from media_assistant.core.store.backends.postgres import is_server_full, is_unreachable, redacted
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.migrations import SchemaTooOld

log = logging.getLogger(__name__)

CLOCK_CHECK_S = 300.0
Notify = Callable[[str], None]


def open_team_store(
    url: str,
    *,
    password: str | None = None,
    read_only: bool = False,
    wait_s: float | None = None,
    notify: Notify | None = None,
    connections: int | None = None,
    application_name: str | None = None,
) -> Engine:
    """The team database's engine, migrated (or, ``read_only``, checked readable)."""
    deadline = time.monotonic() + (wait_s if wait_s is not None else 30.0)
    delay = 0.5
    said = False
    while True:
        try:
            try:
                return open_engine(
                    url,
                    read_only=read_only,
                    password=password,
                    connections=connections,
                    application_name=application_name,
                )
            except SchemaTooOld:
                # As with SQLite: the first command after an update migrates, read-only or not.
                return open_engine(
                    url,
                    password=password,
                    connections=connections,
                    application_name=application_name,
                )
        except DBAPIError as exc:
            reason = _reason(exc)
            if not is_unreachable(exc):
                hint = (
                    ": keep its password with 'media-assistant store set-password', or in "
                    "PGPASSWORD or ~/.pgpass"
                    if "password" in reason
                    else ""
                )
                raise ConfigError(
                    f"the team database {redacted(url)} refused: {reason}{hint}"
                ) from None
            left = deadline - time.monotonic()
            full = is_server_full(exc)
            if left <= 0 and full:
                # Not an outage (issue 28): the server answered; it has no slot for us.
                raise ConfigError(
                    f"the team database {redacted(url)} has no free connection ({reason}); "
                    "nothing was changed. Try again when others are done, or make room: see "
                    "'A large team' in the README"
                ) from None
            if left <= 0:
                raise StoreUnreachable(
                    f"the team database {redacted(url)} could not be reached ({reason}); "
                    "nothing was changed. Check the network and the server, then try again"
                ) from None
            if notify is not None and not said:
                notify(
                    f"team database busy: waiting for a connection ({reason}); "
                    f"trying again for up to {left:.0f} s"
                    if full
                    else f"the team database {redacted(url)} cannot be reached ({reason}); "
                    f"trying again for up to {left:.0f} s"
                )
                said = True
            time.sleep(min(delay, max(0.05, left)))
            delay = min(delay * 2, 5.0)


def _reason(exc: DBAPIError) -> str:
    """The server's or libpq's first line, without the SQL and the connection string."""
    text = str(exc.orig or exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return first.removeprefix("connection failed: ")[:300]
