"""The shared-pool designs the incident replaced, on the same simulated providers and clock.

(b) ``gate="none"``: ``workers`` coroutines pull tasks FIFO from one in-memory queue. A web task
goes to the next web account round-robin, with nothing to stop two generations overlapping on one
account (the simulated site then breaks both, as the real ones do).

(c) ``gate="semaphore"``: the same pool, with an ``asyncio.Semaphore(1)`` per web account in front
of its generations. A worker waiting on the semaphore keeps its pool slot — the incident's
"quick fix" that made API tasks queue behind blocked web tasks.

Both retry a failed attempt like the real lanes do (:func:`media_assistant.core.rules.retry.decide`
with the lanes' backoff; 3 attempts in all): the retried task goes to the back of the queue once its
backoff has passed. With ``operator_reruns`` the tasks that ended failed are queued again once the
pool has drained, as the operators did in the incident, until all succeed or the re-runs are used
up — "time to all results", as opposed to the makespan of the first pass.

API calls are bounded only by the pool: up to ``workers`` in flight (the simulated API enforces
no quota), which favours the baselines.

No store: the shared pool must be free to run two web generations on one account, which the real
store's unique index refuses. Its bookkeeping costs nothing, which favours the baselines too.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from media_assistant.core.config.schema import AppConfig
from media_assistant.core.model.clock import Clock
from media_assistant.core.model.errors import ProviderError
from media_assistant.core.model.provider import Provider, TaskSpec
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.retry import Backoff, Fail, Retry, decide

Gate = Literal["none", "semaphore"]


@dataclass
class PoolTask:
    task_id: str
    kind: ModelKind
    model: str
    prompt: str
    created_at: float
    attempt: int = 0  # all attempts, over every re-run
    round_attempt: int = 0  # attempts in the current (operator) run, counted against the max
    started_at: float | None = None  # of the last attempt
    finished_at: float | None = None
    state: str = "pending"
    error_kind: str | None = None


@dataclass
class PoolRun:
    items: list[PoolTask]
    first_pass_s: float  # every task ended (success or failed) — the makespan
    failed_first_pass: list[str] = field(default_factory=list)
    all_results_s: float | None = None  # every task succeeded, after operator re-runs
    reruns: int = 0


class _PoolContext:
    """The :class:`~media_assistant.core.model.provider.TaskContext` a pool worker offers: no
    cancel, no heartbeat bookkeeping, no event log."""

    def __init__(self, spec: TaskSpec, clock: Clock) -> None:
        self._spec = spec
        self._clock = clock

    @property
    def task(self) -> TaskSpec:
        return self._spec

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def cancel_requested(self) -> bool:
        return False

    def checkpoint(self) -> None:
        return None

    async def wait_cancel(self, timeout: float) -> bool:
        await self._clock.sleep(timeout)
        return False

    def heartbeat(self, progress_chars: int | None = None) -> None:
        return None

    def log(self, message: str, *, level: int = logging.INFO, kind: str = "log") -> None:
        return None

    def throttle_account(self, seconds: float, reason: str) -> None:
        return None


async def run_pool(
    tasks: Sequence[NewTask],
    *,
    clock: Clock,
    config: AppConfig,
    web_providers: Sequence[Provider],
    api_provider: Provider,
    gate: Gate,
    workers: int = 8,
    seed: int = 1,
    operator_reruns: int = 0,
    on_first_pass: Callable[[], None] | None = None,
) -> PoolRun:
    """Run ``tasks`` (queued in this order) to their end; returns them with their timings."""
    t0 = clock.now()
    items = [PoolTask(t.task_id, t.model_kind, t.model, t.prompt, t0) for t in tasks]
    result = PoolRun(items, 0.0)
    queue: asyncio.Queue[PoolTask] = asyncio.Queue()
    for item in items:
        queue.put_nowait(item)
    left = len(items)
    all_done = asyncio.Event()
    if not items:
        return result
    next_account = itertools.cycle(range(len(web_providers)))
    semaphores = [asyncio.Semaphore(1) for _ in web_providers]
    rng = random.Random(seed)
    background: set[asyncio.Task[None]] = set()  # strong references to the delayed requeues

    async def requeue_later(item: PoolTask, delay: float) -> None:
        await clock.sleep(delay)
        queue.put_nowait(item)

    async def attempt(item: PoolTask, provider: Provider, account_id: str) -> ProviderError | None:
        item.attempt += 1
        item.round_attempt += 1
        item.started_at = clock.now()
        spec = TaskSpec(
            task_id=item.task_id,
            model=item.model,
            model_kind=item.kind,
            account_id=account_id,
            prompt=item.prompt,
            system_prompt=None,
            attempt=item.attempt,
        )
        try:
            await provider.generate(_PoolContext(spec, clock))
        except ProviderError as exc:
            return exc
        return None

    def settle(item: PoolTask, error: ProviderError | None) -> None:
        nonlocal left
        if error is not None:
            lane = config.lane(item.kind)
            decision = decide(
                error,
                attempt=item.round_attempt,
                max_attempts=config.scheduler.max_attempts,
                cancel_requested=False,
                now=clock.now(),
                deadline_at=math.inf,
                backoff=Backoff(lane.backoff_base_s, lane.backoff_cap_s),
                default_pause=lane.cooldown_s,
                rng=rng,
            )
            if isinstance(decision, Retry):
                item.error_kind = decision.kind.value
                task = asyncio.get_running_loop().create_task(requeue_later(item, decision.delay))
                background.add(task)
                task.add_done_callback(background.discard)
                return
            item.state = "failed"
            item.error_kind = decision.kind.value if isinstance(decision, Fail) else "other"
        else:
            item.state = "success"
            item.error_kind = None
        item.finished_at = clock.now()
        left -= 1
        if left == 0:
            end_of_pass()

    def end_of_pass() -> None:
        nonlocal left
        now = clock.now()
        failed = [i for i in items if i.state == "failed"]
        if not result.first_pass_s:
            result.first_pass_s = now - t0
            result.failed_first_pass = [i.task_id for i in failed]
            if on_first_pass is not None:
                on_first_pass()
        if not failed:
            result.all_results_s = now - t0
        if not failed or result.reruns >= operator_reruns:
            all_done.set()
            return
        result.reruns += 1  # the operator queues the failures again ("retry failed")
        left = len(failed)
        for i in failed:
            i.state, i.round_attempt = "pending", 0
            queue.put_nowait(i)

    async def worker() -> None:
        while True:
            item = await queue.get()
            if item.kind is ModelKind.WEB:
                index = next(next_account)
                account_id = f"web-{index + 1}"
                if gate == "semaphore":
                    # The worker keeps its pool slot while it waits here.
                    async with semaphores[index]:
                        error = await attempt(item, web_providers[index], account_id)
                else:
                    error = await attempt(item, web_providers[index], account_id)
            else:
                error = await attempt(item, api_provider, "api-1")
            settle(item, error)

    loop = asyncio.get_running_loop()
    pool = [loop.create_task(worker(), name=f"pool-worker-{i}") for i in range(workers)]
    try:
        await all_done.wait()
    finally:
        for task in [*pool, *background]:
            task.cancel()
        await asyncio.gather(*pool, *background, return_exceptions=True)
    return result
