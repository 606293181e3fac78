"""What the fair share gives each batch now (``status --json`` ``"shares"``, the batches list).

A batch's **share** is its part of the team's capacity while every active batch stays
backlogged (core/rules/fair.py ``shares``: class weight × tenant × the batch's own share). Its
**ETA** follows from it: the batch's remaining work (pending tasks × the mean duration of its
model's recent tasks, plus what its running tasks still need) over its share of the capacity in
use now (the tasks running team-wide).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from media_assistant.core.rules import fair
from media_assistant.core.store import fair_store
from media_assistant.core.store.base import IS_PENDING, IS_RUNNING, StoreBase, T
from media_assistant.core.store.db import read_tx, write_tx


class FairReads(StoreBase):
    def set_class_weights(self, weights: dict[str, float]) -> None:
        """This workstation's ``[scheduling]`` weights (the latest to start wins in a team)."""
        with write_tx(self.engine) as conn:
            fair_store.set_class_weights(conn, weights, self.clock.now())

    def fair_shares(self) -> dict[str, float]:
        """batch id → its current share (0..1) of the team's capacity."""
        with read_tx(self.engine) as conn:
            return fair.shares(fair_store.active_batches(conn), fair_store.class_weights(conn))

    def shares_report(self) -> list[dict[str, Any]]:
        """Per active batch: ``batch``, ``tenant``, ``share`` (0..1), ``service_s`` (generation
        seconds it had), ``pending``, ``running``, ``eta_s`` (seconds from now; None when
        nothing runs to measure the capacity by) — largest share first."""
        now = self.clock.now()
        with read_tx(self.engine) as conn:
            active = fair_store.active_batches(conn)
            shares = fair.shares(active, fair_store.class_weights(conn))
            service = fair_store.service_by_batch(conn)
            counts: dict[tuple[str, str], int] = {}
            work: dict[str, float] = {}
            for batch, state, model, n, started in conn.execute(
                select(T.c.batch_id, T.c.state, T.c.model, func.count(), func.sum(T.c.started_at))
                .where(IS_PENDING | IS_RUNNING, T.c.batch_id.in_(list(shares) or [""]))
                .group_by(T.c.batch_id, T.c.state, T.c.model)
            ):
                counts[(batch, state)] = counts.get((batch, state), 0) + n
                mean = self._durations.get(model) or fair_store.recent_duration(conn, model)
                mean = mean or fair_store.DEFAULT_ESTIMATE_S["web"]
                self._durations.setdefault(model, mean)
                left = n * mean if state == "pending" else max(0.0, n * (mean + now) - started)
                work[batch] = work.get(batch, 0.0) + left
            capacity = conn.execute(select(func.count()).where(IS_RUNNING)).scalar() or 0
        tenants = {n.batch_id: n.tenant for n in active}
        out = []
        for batch, share in sorted(shares.items(), key=lambda kv: (-kv[1], kv[0])):
            rate = share * capacity
            out.append(
                {
                    "batch": batch,
                    "tenant": tenants.get(batch, ""),
                    "share": round(share, 4),
                    "service_s": round(service.get(batch, 0.0), 1),
                    "pending": counts.get((batch, "pending"), 0),
                    "running": counts.get((batch, "running"), 0),
                    "eta_s": round(work.get(batch, 0.0) / rate, 1) if rate > 0 else None,
                }
            )
        return out
