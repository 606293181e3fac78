"""An in-process simulated API model (no HTTP): for benchmarks that measure the scheduler itself.

Real HTTP tests run against ``sim.api_server`` instead.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass

from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.sim.chinese import answer_prefix

CHECKPOINT_EVERY_S = 0.5


@dataclass
class ApiAccountStats:
    in_flight: int = 0
    max_in_flight: int = 0
    served: int = 0


class FakeApi:
    def __init__(
        self,
        latency_s: tuple[float, float] = (8.0, 20.0),
        seed: int | None = None,
        duration_of: Callable[[str], float] | None = None,
    ) -> None:
        self.latency_s = latency_s
        self.seed = seed
        self._duration_of = duration_of
        self.accounts: dict[str, ApiAccountStats] = {}

    def duration(self, task_id: str) -> float:
        if self._duration_of is not None:
            return self._duration_of(task_id)
        digest = hashlib.sha256(f"api:{self.seed}:{task_id}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big")).uniform(*self.latency_s)

    def stats(self, account_id: str) -> ApiAccountStats:
        return self.accounts.setdefault(account_id, ApiAccountStats())


class FakeApiProvider:
    def __init__(self, api: FakeApi, account_id: str) -> None:
        self.api = api
        self.account_id = account_id

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        stats = self.api.stats(self.account_id)
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            done_at = ctx.clock.monotonic() + self.api.duration(ctx.task.task_id)
            while (remaining := done_at - ctx.clock.monotonic()) > 0:
                await ctx.clock.sleep(min(CHECKPOINT_EVERY_S, remaining))
                ctx.checkpoint()
            stats.served += 1
            return GenerationResult(text=answer_prefix(ctx.task.prompt))
        finally:
            stats.in_flight -= 1

    async def aclose(self) -> None:
        return None
