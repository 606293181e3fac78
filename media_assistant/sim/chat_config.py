"""Settings of the fake chat site (see :mod:`media_assistant.sim.chat_site`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChatSiteConfig:
    latency_s: tuple[float, float] = (31.0, 370.0)  # generation time, uniform, per generation
    time_scale: float = 1.0  # multiplies every simulated duration; 0.01 = 100x faster
    seed: int | None = None  # latencies and answers repeat with a seed
    answer_chars: tuple[int, int] = (300, 1200)  # filler length after "Answer to: <text>\n\n"
    users: dict[str, str] | None = None  # username → password; None: any non-empty pair
    session_secret: str | None = None  # fixed: logins survive simulator restarts; None: random
    keep_generating_on_disconnect: bool = True  # real sites do; False: a gone page stops it

    def __post_init__(self) -> None:
        low, high = self.latency_s
        if not 0 <= low <= high:
            raise ValueError(f"latency_s must be 0 <= low <= high, got {self.latency_s}")
        if self.time_scale <= 0:
            raise ValueError("time_scale must be positive")
        if not 0 <= self.answer_chars[0] <= self.answer_chars[1]:
            raise ValueError(f"answer_chars must be 0 <= low <= high, got {self.answer_chars}")
