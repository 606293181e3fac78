"""What a lane's account workers did, counted, so a test can say "nothing started" as a fact
about state instead of sleeping and hoping: every claim a worker made, and every turn it spent
waiting for an account that could not work (off, cooling down, paced).

A worker that took a turn after the test's change and did not claim has seen the change and
decided; the test waits for that turn (a condition, not a duration) and then asserts."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

from media_assistant.core.lanes.base import Lane


class LaneWatch:
    def __init__(self, lane: Lane) -> None:
        self.claims: Counter[str] = Counter()  # account id → claims that returned a task
        self.idle_turns: Counter[str] = Counter()  # account id → turns spent waiting
        claim, wait_available = lane.claim, lane.wait_available

        async def counted_claim(account: Any) -> Any:
            got = await claim(account)
            if got is not None:
                self.claims[account.id] += 1
            return got

        async def counted_wait(account: Any, wake: asyncio.Event) -> None:
            self.idle_turns[account.id] += 1
            await wait_available(account, wake)

        lane.claim = counted_claim  # type: ignore[method-assign]
        lane.wait_available = counted_wait  # type: ignore[method-assign]

    async def idle_turn(self, account_id: str, timeout: float = 10.0) -> None:
        """Until the account's worker has spent one more turn waiting (from now)."""
        seen = self.idle_turns[account_id]
        deadline = time.monotonic() + timeout
        while self.idle_turns[account_id] <= seen:
            assert time.monotonic() < deadline, f"{account_id}: its worker took no turn"
            await asyncio.sleep(0.005)
