"""An in-process simulated web chat: one session per account, and — like the real sites — a
second generation started while one runs breaks both (and is counted).

Used by the core's tests, the benchmarks and the headless demo (accounts with
``site = "fake"``). The real-browser path is tested against ``sim.chat_site`` instead.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.sim.chinese import answer_prefix

if TYPE_CHECKING:
    from media_assistant.core.config.schema import AppConfig

CHECKPOINT_EVERY_S = 0.5  # cancel checkpoints and heartbeats while "generating"


@dataclass
class _Generation:
    task_id: str
    broken: bool = False


@dataclass
class SessionStats:
    active: list[_Generation] = field(default_factory=list)
    max_concurrent: int = 0
    conflicts: int = 0
    served: int = 0
    texts: list[str] = field(default_factory=list)


class FakeChatSite:
    """Shared by every account's provider so it can count overlaps per session."""

    def __init__(
        self,
        latency_s: tuple[float, float] = (31.0, 370.0),
        seed: int | None = None,
        duration_of: Callable[[str], float] | None = None,
    ) -> None:
        self.latency_s = latency_s
        self.seed = seed
        self._duration_of = duration_of
        self.sessions: dict[str, SessionStats] = {}
        # account id → error kinds to raise on its next generations (tests inject faults here)
        self.faults: dict[str, list[ErrorKind]] = {}

    def session(self, account_id: str) -> SessionStats:
        return self.sessions.setdefault(account_id, SessionStats())

    def duration(self, task_id: str) -> float:
        """Seeded per task id, so every scheduling strategy sees the same workload."""
        if self._duration_of is not None:
            return self._duration_of(task_id)
        digest = hashlib.sha256(f"{self.seed}:{task_id}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        return rng.uniform(*self.latency_s)

    def inject(self, account_id: str, kind: ErrorKind, count: int = 1) -> None:
        self.faults.setdefault(account_id, []).extend([kind] * count)

    @property
    def total_conflicts(self) -> int:
        return sum(s.conflicts for s in self.sessions.values())

    @property
    def max_concurrent(self) -> int:
        return max((s.max_concurrent for s in self.sessions.values()), default=0)


class FakeWebProvider:
    def __init__(self, site: FakeChatSite, account_id: str) -> None:
        self.site = site
        self.account_id = account_id

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        session = self.site.session(self.account_id)
        faults = self.site.faults.get(self.account_id)
        if faults:
            kind = faults.pop(0)
            raise ProviderError(kind, f"simulated {kind.value}")
        gen = _Generation(ctx.task.task_id)
        session.active.append(gen)
        session.max_concurrent = max(session.max_concurrent, len(session.active))
        if len(session.active) > 1:
            # What the real sites do: the new stream and the one in progress both die.
            session.conflicts += 1
            for g in session.active:
                g.broken = True
        text = (
            ctx.task.prompt
            if ctx.task.need_empty_prompt
            else "\n\n".join(p for p in (ctx.task.effective_system_prompt, ctx.task.prompt) if p)
        )
        session.texts.append(text)
        try:
            done_at = ctx.clock.monotonic() + self.site.duration(ctx.task.task_id)
            answer = answer_prefix(ctx.task.prompt)
            while (remaining := done_at - ctx.clock.monotonic()) > 0:
                await ctx.clock.sleep(min(CHECKPOINT_EVERY_S, remaining))
                if gen.broken:
                    raise ProviderError(
                        ErrorKind.SESSION_CONFLICT, "another generation started in this session"
                    )
                ctx.checkpoint()
                ctx.heartbeat(progress_chars=len(answer))
            if gen.broken:
                raise ProviderError(
                    ErrorKind.SESSION_CONFLICT, "another generation started in this session"
                )
            session.served += 1
            return GenerationResult(text=answer)
        finally:
            session.active.remove(gen)

    async def aclose(self) -> None:
        return None


def fake_web_factory() -> Callable[[AppConfig, str], FakeWebProvider]:
    """The providers of accounts on ``site = "fake"``: one simulated site shared by all of them
    (so it counts overlaps per session), made at the first such account from the config's
    ``[simulation]`` table."""
    site: FakeChatSite | None = None

    def provider(config: AppConfig, account_id: str) -> FakeWebProvider:
        nonlocal site
        if site is None:
            site = FakeChatSite(
                latency_s=config.simulation.web_latency_s, seed=config.simulation.seed
            )
        return FakeWebProvider(site, account_id)

    return provider
