"""Scheduler sessions: who owns the running rows, and whether that owner is still alive."""

from __future__ import annotations

import os
import socket
import uuid

from sqlalchemy import Engine, insert, update

from media_assistant.core.model.clock import Clock
from media_assistant.core.store.db import write_tx
from media_assistant.core.store.schema import SessionRow

S = SessionRow.__table__  # type: ignore[attr-defined]


class SessionStore:
    def __init__(self, engine: Engine, clock: Clock) -> None:
        self.engine = engine
        self.clock = clock

    def open(self, workstation: str | None = None, app_version: str | None = None) -> str:
        session_id = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:10]}"
        now = self.clock.now()
        with write_tx(self.engine, durable=True) as conn:
            conn.execute(
                insert(S).values(
                    session_id=session_id,
                    pid=os.getpid(),
                    host=socket.gethostname(),
                    started_at=now,
                    heartbeat_at=now,
                    workstation=workstation,
                    app_version=app_version,
                )
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
