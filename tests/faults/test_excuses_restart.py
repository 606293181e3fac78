"""Issue 25, item 2: a task's excuses are bounded across a restart too.

An excuse (a failure taken for a leftover generation's doing: deferred, its attempt kept) was
counted only in the memory of the process that granted it: every restart of ``run`` allowed a
task two more excuses — two more sends of a prompt that may be a poison pill. The count is now
read back from the task's event log by the next process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.core.model.provider import GenerationResult, TaskContext
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.excuses import MAX_EXCUSED_IN_A_ROW
from media_assistant.sim.fake_web import FakeChatSite, FakeWebProvider
from tests.conftest import make_tasks
from tests.integration.conftest import Harness


def excused_failure() -> ProviderError:
    cause = ProviderError(ErrorKind.SERVER_ERROR, "the site reported an error")
    return ProviderError(
        ErrorKind.LEFTOVER_GENERATION, "taken for a leftover", retry_after=1.0, excused=cause
    )


class ExcusedThenHangs(FakeWebProvider):
    """Every attempt fails in a leftover's shadow; from the ``hang_after``-th on, the attempt
    hangs instead (the process is then stopped with it in flight)."""

    def __init__(self, site: FakeChatSite, account_id: str, hang_after: int | None) -> None:
        super().__init__(site, account_id)
        self.calls = 0
        self.hang_after = hang_after
        self.hanging = asyncio.Event()

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        self.calls += 1
        if self.hang_after is not None and self.calls > self.hang_after:
            self.hanging.set()
            await asyncio.Event().wait()  # until the scheduler stops
        raise excused_failure()


async def test_a_restart_does_not_give_a_task_its_excuses_again(
    harness_factory: Callable[..., Harness],
) -> None:
    first = harness_factory(web_accounts=1, api_accounts=0)
    provider = ExcusedThenHangs(first.site, "web-1", hang_after=1)
    first.overrides["web-1"] = provider
    s = await first.start()
    await s.submit(make_tasks(1, model="web-model", kind=ModelKind.WEB, prefix="t"))
    await asyncio.wait_for(provider.hanging.wait(), 30)  # excused once, then in flight
    await s.stop()  # the app is closed: the task goes back to the queue
    # The next run, on the same database, in a process that never saw the first excuse.
    second = harness_factory(web_accounts=1, api_accounts=0)
    second.overrides["web-1"] = ExcusedThenHangs(second.site, "web-1", hang_after=None)
    await second.start()
    assert await second.run(timeout=60) == []
    (row,) = second.store.list_tasks()
    assert (row.state, row.error_kind) == ("failed", "server_error"), row.error_message
    excused = [e for e in second.store.events(row.task_id) if e.code == "deferred"]
    assert len(excused) == MAX_EXCUSED_IN_A_ROW, [e.message for e in excused]
    assert all(e.params.get("excused") for e in excused)
