"""Pacing state on disk: one JSON row per web account in ``account_pacing`` (schema v5).

Written after every prompt and every attempt's end (two small writes per task, against minutes
of generation), read at start-up, by ``status`` in another process, and when the operator
clears a cooldown. A row that cannot be read as a state is treated as no state.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, delete, select

from media_assistant.core.rules.pacing import PacingState
from media_assistant.core.store.db import read_tx, write_tx
from media_assistant.core.store.schema import AccountPacingRow
from media_assistant.core.store.upsert import upsert

P = AccountPacingRow.__table__  # type: ignore[attr-defined]


class PacingStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def load_all(self) -> dict[str, PacingState]:
        with read_tx(self.engine) as conn:
            rows = conn.execute(select(P.c.account_id, P.c.state_json)).all()
        return {account_id: _parse(raw) for account_id, raw in rows}

    def load(self, account_id: str) -> PacingState | None:
        with read_tx(self.engine) as conn:
            raw = conn.execute(
                select(P.c.state_json).where(P.c.account_id == account_id)
            ).scalar_one_or_none()
        return None if raw is None else _parse(raw)

    def save(self, account_id: str, state: PacingState, now: float) -> None:
        values: dict[str, Any] = {
            "account_id": account_id,
            "state_json": json.dumps(state.to_json(), separators=(",", ":")),
            "updated_at": now,
        }
        # Not fsynced (WAL, synchronous=NORMAL): it survives an app crash; a power cut may lose
        # the last prompt or two, which is not worth an fsync per prompt on the lane's loop.
        with write_tx(self.engine) as conn:
            upsert(conn, P, values, key=["account_id"], update=["state_json", "updated_at"])

    def forget(self, account_id: str) -> None:
        with write_tx(self.engine, durable=True) as conn:
            conn.execute(delete(P).where(P.c.account_id == account_id))


def _parse(raw: str) -> PacingState:
    try:
        data = json.loads(raw)
    except ValueError:
        return PacingState()
    return PacingState.from_json(data) if isinstance(data, dict) else PacingState()
