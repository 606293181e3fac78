"""Notices from the store's events (core/notices/center.py), on a real SQLite store reached through
the async facade as the window and ``run`` reach it: a batch that ends is announced once (done,
or failed when a task failed), again after a retry; an account that needs the operator once
until it is back; a nearly full disk once until it has room again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.events import AccountChanged, Event, EventBus
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import AccountProblem, ModelKind, NoticeKind
from media_assistant.core.notices.center import Notice, NoticeCenter, notice_text
from media_assistant.core.store import Store
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncAccounts, AsyncStore
from media_assistant.core.store.threads import DbThreads


@dataclass
class Setup:
    store: Store
    astore: AsyncStore
    accounts: AsyncAccounts
    center: NoticeCenter
    got: list[Notice]
    free_mb: list[float]
    looks: list[set[str]]  # the tasks each finished look at the batches covered
    events: list[Event]  # every bus event, each seen after the center saw it


@pytest.fixture
async def setup(tmp_path: Path) -> AsyncIterator[Setup]:
    engine = open_engine(sqlite_url(tmp_path / "t.db"))
    bus = EventBus()
    bus.bind_loop(asyncio.get_running_loop())
    clock = ManualClock(1_000.0)
    store = Store(engine, clock, bus)
    db = DbThreads()
    account_store = AccountStore(engine, clock, bus)
    account_store.sync([("web-1", ModelKind.WEB, True)])
    free = [5_000.0]
    astore = AsyncStore(store, db)
    center = NoticeCenter(
        astore,
        disk_path=tmp_path,
        disk_low_mb=1_000,
        settle_s=0.01,
        disk_every_s=3600,
        disk_usage=lambda _p: free[0],
    )
    got: list[Notice] = []
    center.subscribe(got.append)
    looks: list[set[str]] = []
    look = center.check_batches

    async def spy() -> list[Notice]:  # the settle loop's look, noted once it is done
        touched = set(center._touched)
        posted = await look()
        looks.append(touched)
        return posted

    center.check_batches = spy  # type: ignore[method-assign]
    await center.start()
    events: list[Event] = []
    bus.subscribe(events.append)  # after the center: an event here has been through it
    try:
        yield Setup(
            store, astore, AsyncAccounts(account_store, db), center, got, free, looks, events
        )
    finally:
        await center.stop()
        db.close()
        engine.dispose()


def tasks(batch: str, n: int) -> list[NewTask]:
    return [NewTask(f"{batch}-{i}", "m", ModelKind.API, f"p{i}", batch) for i in range(n)]


async def finish(s: Setup, *, fail: bool = False) -> None:
    claim = await s.astore.claim_next(
        kind=ModelKind.API, account_id="a", models=["m"], owner_id="o", deadline_s=60
    )
    assert claim is not None
    if fail:
        await s.astore.finish_failed(claim, ErrorKind.SERVER_ERROR, "boom")
    else:
        await s.astore.finish_success(claim, "ok")


async def until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Patience only (a loaded machine may take seconds): what is asserted is the state."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        assert loop.time() < end, f"not seen: {what}"
        await asyncio.sleep(0.01)


async def looked_at(s: Setup, task_id: str) -> None:
    """Until the center has finished a look at the batches that covered ``task_id``'s change:
    a notice for it would have been posted by then."""
    await until(lambda: any(task_id in seen for seen in s.looks), f"a look at {task_id}")


def account_changes(s: Setup) -> int:
    return sum(isinstance(e, AccountChanged) for e in s.events)


async def settled(s: Setup, count: int) -> list[Notice]:
    """The notices once ``count`` have come and the center has looked at every change it was
    told of (nothing touched, no wake-up pending): one too many would be among them."""
    await until(lambda: len(s.got) >= count, f"{count} notice(s)")
    await until(lambda: not s.center._touched and not s.center._wake.is_set(), "the center idle")
    return s.got


async def test_a_batch_is_announced_once_when_its_last_task_ends(setup: Setup) -> None:
    await setup.astore.submit(tasks("b1", 2))
    await finish(setup)
    await looked_at(setup, "b1-0")
    assert setup.got == []  # one task still pending
    await finish(setup)
    (notice,) = await settled(setup, 1)
    assert notice.kind is NoticeKind.BATCH_DONE and notice.subject == "b1"
    assert notice.params == {"total": 2, "succeeded": 2, "failed": 0, "canceled": 0}
    assert notice_text(notice, "zh") == ("批次 b1 已完成", "共 2 个任务：成功 2，失败 0，取消 0")


async def test_a_failed_task_makes_it_batch_failed_and_a_retry_ends_it_again(setup: Setup) -> None:
    await setup.astore.submit(tasks("b2", 1))
    await finish(setup, fail=True)
    (failed,) = await settled(setup, 1)
    assert failed.kind is NoticeKind.BATCH_FAILED and failed.params["failed"] == 1
    assert notice_text(failed, "en")[0] == "Batch b2 ended with 1 failed"
    await setup.astore.retry(["b2-0"])
    await finish(setup)
    second = (await settled(setup, 2))[1]
    assert second.kind is NoticeKind.BATCH_DONE and second.subject == "b2"


async def test_canceling_a_whole_batch_from_another_process_ends_it(setup: Setup) -> None:
    """Other processes' changes arrive as TasksSynced (the follower); a batch known to have
    work at start (read once) ends when they cancel it."""
    setup.store.submit(tasks("b3", 2))  # before the center knew: found by open_batches
    await setup.center.stop()
    setup.center._open = await setup.astore.open_batches()
    await setup.center.start()
    from media_assistant.core.model.events import TasksSynced

    other = Store(setup.store.engine, ManualClock(2_000.0), EventBus())  # another process
    other.request_cancel(None, batch_id="b3")
    rows = await setup.astore.view_rows(["b3-0", "b3-1"])
    setup.center.on_event(TasksSynced(tuple(rows)))
    (notice,) = await settled(setup, 1)
    assert notice.kind is NoticeKind.BATCH_DONE and notice.params["canceled"] == 2


async def test_an_account_that_needs_login_is_announced_once_until_it_is_back(
    setup: Setup,
) -> None:
    await setup.accounts.set_problem("web-1", AccountProblem.NEEDS_LOGIN, "login page shown")
    await setup.accounts.set_problem("web-1", AccountProblem.NEEDS_LOGIN, "still the login page")
    await until(lambda: account_changes(setup) >= 2, "both changes through the center")
    (notice,) = await settled(setup, 1)  # the second change went through the center too
    assert notice.kind is NoticeKind.ACCOUNT_ATTENTION and notice.subject == "web-1"
    # In Chinese no English detail: the state says it (the site's detail is for the tooltip).
    assert notice_text(notice, "zh") == ("账号 web-1 需要处理", "需要登录")
    assert notice_text(notice, "en") == ("Account web-1 needs you", "needs login: login page shown")
    await setup.accounts.clear_problem("web-1")
    await setup.accounts.set_problem("web-1", AccountProblem.NEEDS_ATTENTION, "captcha")
    await until(lambda: account_changes(setup) >= 4, "the four changes through the center")
    assert [n.kind for n in await settled(setup, 2)] == [NoticeKind.ACCOUNT_ATTENTION] * 2


async def test_disk_low_once_until_there_is_room_again(setup: Setup) -> None:
    assert await setup.center.check_disk() is None
    setup.free_mb[0] = 800
    notice = await setup.center.check_disk()
    assert notice is not None and notice.params["free_mb"] == 800
    assert await setup.center.check_disk() is None  # not again while low
    setup.free_mb[0] = 1_100  # above the limit but not 20 % above: still armed off
    await setup.center.check_disk()
    setup.free_mb[0] = 900
    assert await setup.center.check_disk() is None
    setup.free_mb[0] = 1_300
    await setup.center.check_disk()
    setup.free_mb[0] = 500
    assert await setup.center.check_disk() is not None
    assert notice_text(notice, "en")[0] == "Disk almost full"


async def test_a_failing_proxy_is_announced_as_the_proxy_once(setup: Setup) -> None:
    """Issue 32: the account only cools down (it tries again by itself), but a person may
    have to fix the proxy: said once, in its own words — not "needs login"."""
    await setup.accounts.cool_down("web-1", 30.0, ErrorKind.PROXY_UNREACHABLE.value)
    await setup.accounts.cool_down("web-1", 60.0, ErrorKind.PROXY_UNREACHABLE.value)
    (notice,) = await settled(setup, 1)
    assert notice.kind is NoticeKind.ACCOUNT_ATTENTION
    assert notice.params["code"] == "proxy_unreachable"
    title, text = notice_text(notice, "zh")
    assert title == "账号 web-1 的代理出现问题" and "代理无法连接" in text
    assert notice_text(notice, "en")[0] == "Account web-1: its proxy fails"
    assert "login" not in " ".join(notice_text(notice, "en"))


async def test_a_poison_pill_is_announced_once_beside_its_batch(setup: Setup) -> None:
    """Issue 25: a task that failed the same way on every attempt is named, once."""
    from media_assistant.core.rules.excuses import PoisonPill, poison_words

    await setup.astore.submit(tasks("b5", 1))
    claim = await setup.astore.claim_next(
        kind=ModelKind.API, account_id="a", models=["m"], owner_id="o", deadline_s=60
    )
    assert claim is not None
    words = poison_words(PoisonPill("server_error", 2, 3))
    await setup.astore.finish_failed(claim, ErrorKind.SERVER_ERROR, f"boom ({words})")
    got = await settled(setup, 2)
    pills = [n for n in got if n.kind is NoticeKind.POISON_PILL]
    assert len(pills) == 1 and len(got) == 2  # and the batch's batch_failed
    (pill,) = pills
    assert pill.subject == "b5-0" and pill.params["accounts"] == 2
    assert pill.params["error_kind"] == "server_error"
    assert notice_text(pill, "en") == (
        "Task b5-0 failed the same way every time",
        "server_error on 2 accounts; not retried again: check its prompt or the site",
    )
    assert notice_text(pill, "zh")[0] == "任务 b5-0 失败：每次都以同样的方式失败"


async def test_an_ordinary_failure_is_no_poison_pill(setup: Setup) -> None:
    await setup.astore.submit(tasks("b6", 1))
    await finish(setup, fail=True)
    (only,) = await settled(setup, 1)
    assert only.kind is NoticeKind.BATCH_FAILED
