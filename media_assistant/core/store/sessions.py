"""Scheduler sessions: who owns the running rows, and whether that owner is still alive.

**A workstation name is one live session** (issue 27 item 1). ``[team] workstation`` defaults
to the host name and is often handed out in a config, and PCs are cloned from one image: two
PCs starting under one name would each take the other's running rows back at start
(``recover_orphans``) and both claim the same web accounts. So :meth:`SessionStore.open` refuses
a name held by a live session elsewhere (:class:`WorkstationNameTaken`, exit 2, both hosts
named). Live: not ended, and beaten within the dead threshold on the database's clock — unless
it is this very host's and its process is gone (a crash restarted at once: this data dir's lock
proves no scheduler of ours runs). The check and the insert hold a team-wide advisory lock on the
name, so two PCs starting at the same moment cannot both pass.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid

import psutil
from sqlalchemy import Connection, Engine, delete, exists, func, insert, select, update
from sqlalchemy.exc import SQLAlchemyError

from media_assistant.core.model.clock import Clock
from media_assistant.core.model.errors import ConfigError
from media_assistant.core.store import fair_store
from media_assistant.core.store.base import IS_RUNNING, T
from media_assistant.core.store.db import write_tx
from media_assistant.core.store.schema import SessionRow

log = logging.getLogger(__name__)

S = SessionRow.__table__  # type: ignore[attr-defined]

# A session ended (or silent) this long ago is deleted at the next start on the store, unless
# it is its workstation's newest or still owns a running row (issue 28 item 3: a team of fifty
# starting every day kept every session ever run, and the reaper and `status` read them all).
# Long enough for `stats --since 30d`'s busy share.
PRUNE_AFTER_S = 31 * 86400.0


class WorkstationNameTaken(ConfigError):
    """Another live session runs under this workstation name (exit 2)."""

    def __init__(self, name: str, other_host: str, this_host: str) -> None:
        super().__init__(
            f"the workstation name {name!r} is in use by a running session on host "
            f"{other_host!r}; this PC is {this_host!r}. Two PCs (or two data folders) cannot "
            f"share a name: set a name of its own in this PC's config ([team] workstation = "
            f'"..."), or stop the other one first'
        )
        self.name = name
        self.other_host = other_host
        self.this_host = this_host


class SessionStore:
    def __init__(self, engine: Engine, clock: Clock) -> None:
        self.engine = engine
        self.clock = clock

    def open(
        self,
        workstation: str | None = None,
        app_version: str | None = None,
        *,
        dead_after: float | None = None,
    ) -> str:
        """A new session. ``dead_after`` (team mode): refuse ``workstation`` while another live
        session holds it (the module docstring says why)."""
        host = socket.gethostname()
        session_id = f"{host}-{os.getpid()}-{uuid.uuid4().hex[:10]}"
        now = self.clock.now()
        with write_tx(self.engine, durable=True) as conn:
            if workstation is not None and dead_after is not None:
                if conn.dialect.name == "postgresql":
                    from media_assistant.core.store.backends.postgres import advisory_xact_lock

                    advisory_xact_lock(conn, f"workstation:{workstation}")
                live = conn.execute(
                    select(S.c.host, S.c.pid).where(
                        S.c.workstation == workstation,
                        S.c.ended_at.is_(None),
                        S.c.heartbeat_at >= now - dead_after,
                    )
                ).all()
                for r in live:
                    if r.host == host and not _running(r.pid):
                        continue  # ours, crashed: recovered at start
                    raise WorkstationNameTaken(workstation, r.host, host)
            prune_sessions(conn, now - PRUNE_AFTER_S)
            conn.execute(
                insert(S).values(
                    session_id=session_id,
                    pid=os.getpid(),
                    host=host,
                    started_at=now,
                    heartbeat_at=now,
                    workstation=workstation,
                    app_version=app_version,
                )
            )
        if self.engine.dialect.name == "postgresql":
            try:  # its own transaction: it waits for nobody (SKIP LOCKED)
                with write_tx(self.engine) as conn:
                    fair_store.fold_idle_charges(conn)
            except SQLAlchemyError as exc:  # housekeeping: the next start tries again
                cause = getattr(exc, "orig", None) or exc
                denied = getattr(cause, "sqlstate", None) == "42501"  # insufficient privilege
                log.warning(
                    "[store] the fair share's idle charge rows were not folded%s: %s",
                    " (this workstation's database role needs DELETE on fair_charges: see"
                    " the README, Team mode)"
                    if denied
                    else "",
                    (str(cause).splitlines() or [type(cause).__name__])[0],
                )
        return session_id

    def beat(self, session_id: str) -> None:
        with write_tx(self.engine) as conn:
            conn.execute(
                update(S).where(S.c.session_id == session_id).values(heartbeat_at=self.clock.now())
            )

    def close(self, session_id: str) -> None:
        with write_tx(self.engine, durable=True) as conn:
            conn.execute(
                update(S).where(S.c.session_id == session_id).values(ended_at=self.clock.now())
            )


def prune_sessions(conn: Connection, before: float) -> int:
    """Delete the sessions that ended or stopped beating before ``before``, keeping each
    workstation's newest and any that still owns a running row. The number deleted."""
    newer = S.alias("newer")
    result = conn.execute(
        delete(S).where(
            func.coalesce(S.c.ended_at, S.c.heartbeat_at) < before,
            exists().where(
                newer.c.workstation == S.c.workstation, newer.c.started_at > S.c.started_at
            ),
            ~exists().where(IS_RUNNING, T.c.owner_id == S.c.session_id),
        )
    )
    return int(result.rowcount or 0)


def _running(pid: int) -> bool:
    """A process of this id runs on this host (not this one: a new session is being opened)."""
    return pid != os.getpid() and psutil.pid_exists(pid)
