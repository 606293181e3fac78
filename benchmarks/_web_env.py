"""The B4 harness: the real web lane (scheduler → WebProvider → Playwright → Chromium) against the
loopback chat site, with two kinds of timestamps taken from outside the app:

- the simulator's own view of each generation (when the completion request arrived, when the
  last chunk was written), by wrapping its stats book: the site's generation time is subtracted
  from the task's time, so what is left is what our side adds;
- how long each provider phase took, by wrapping the app's methods on their classes for the run
  (a ``perf_counter`` pair per call, microseconds; nothing in the app is changed on disk).

Used by :mod:`benchmarks.bench_web`; one web account, so one task runs at a time and every phase
timing belongs to the task the provider is generating.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from media_assistant.core.config.schema import parse_config
from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.scheduler import Scheduler
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.db import open_engine, sqlite_url
from media_assistant.core.store.facade import AsyncStore
from media_assistant.core.store.threads import DbThreads
from media_assistant.providers.registry import ProviderRegistry
from media_assistant.providers.web.browser import AccountBrowser
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.page import ChatPage
from media_assistant.providers.web.provider import WebProvider
from media_assistant.providers.web.signin import visit
from media_assistant.providers.web.watch import AnswerWatch
from media_assistant.sim.chat_site import ChatSiteSimulator

CHROMIUM = "/usr/lib/chromium/chromium"
ACCOUNT = "web-1"
MODEL = "web-model"
RECYCLE_AFTER = 50  # the config's default: a warm browser

# ~200 Chinese characters, as operators' article prompts are; a marker makes each one unique so
# the simulator's record of a generation can be matched to its task.
_PROMPT = (
    "请以资深科技编辑的身份，为我们的公众号写一篇关于智能家居的文章。要求：标题简洁有力，"
    "正文分为三个部分，第一部分介绍智能家居在中国城市家庭中的普及情况，第二部分结合具体产品"
    "说明语音助手、智能照明和安防摄像头如何改变日常生活，第三部分讨论隐私与数据安全的风险，"
    "并给出普通用户可以马上采取的三条建议。语气亲切专业，避免堆砌术语，全文控制在八百字左右，"
    "结尾附上一句引导读者留言讨论的话。编号 {marker}。"
)


def prompt_for(task_id: str) -> str:
    return _PROMPT.format(marker=f"marker-{task_id}-x")


# ------------------------------------------------------------------------------------------------
# What the simulated site saw


@dataclass
class Generation:
    text: str
    started: float  # wall clock: the completion request arrived
    ended: float | None = None  # the last chunk was written (or the generation failed)
    outcome: str | None = None


class SiteTimeline:
    """Per-generation wall-clock timing, recorded by wrapping the simulator's stats book (it
    counts generations but does not keep their times)."""

    def __init__(self, sim: ChatSiteSimulator) -> None:
        self.generations: list[Generation] = []
        self._lock = threading.Lock()
        self._last_text: dict[str, str] = {}
        self._active: dict[str, Generation] = {}
        book = sim._stats  # private, but the only place the site's own clock shows
        record_text, started, ended = book.record_text, book.started, book.ended

        def on_text(user: str, text: str, model: str | None = None) -> None:
            with self._lock:
                self._last_text[user] = text
            record_text(user, text, model)

        def on_started(user: str) -> None:
            with self._lock:
                gen = Generation(self._last_text.get(user, ""), time.time())
                self._active[user] = gen
                self.generations.append(gen)
            started(user)

        def on_ended(user: str, outcome: Any) -> None:
            with self._lock:
                gen = self._active.pop(user, None)
                if gen is not None:
                    gen.ended, gen.outcome = time.time(), str(outcome)
            ended(user, outcome)

        book.record_text = on_text  # type: ignore[method-assign]
        book.started = on_started  # type: ignore[method-assign]
        book.ended = on_ended  # type: ignore[method-assign]

    def find(self, marker: str) -> Generation | None:
        with self._lock:
            hits = [g for g in self.generations if marker in g.text]
        return hits[-1] if hits else None


# ------------------------------------------------------------------------------------------------
# What each provider phase took


@dataclass
class TaskPhases:
    seconds: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    marks: dict[str, float] = field(default_factory=dict)  # wall clock at a phase's end

    def add(self, phase: str, took: float, end_wall: float) -> None:
        self.seconds[phase] = self.seconds.get(phase, 0.0) + took
        self.calls[phase] = self.calls.get(phase, 0) + 1
        self.marks[phase] = end_wall


# (class, method, phase name); async unless listed in _SYNC.
_PHASES: tuple[tuple[type, str, str], ...] = (
    (WebProvider, "_selfcheck", "selfcheck"),
    (AccountBrowser, "ensure", "browser_ensure"),
    (AccountBrowser, "close", "browser_close"),
    (AccountBrowser, "_launch", "browser_launch"),
    (ChatPage, "open_new_chat", "new_chat"),
    (ChatPage, "type_prompt", "type"),
    (ChatPage, "send", "send_confirm"),
    (ChatPage, "snapshot", "snapshot"),
    (AnswerWatch, "run", "watch"),
    (AsyncStore, "finish_success", "db_finish"),  # awaited: the database thread's hop included
)
_SYNC: set[str] = set()


class PhaseRecorder:
    """Wraps the app's methods on their classes for the duration of :meth:`installed`."""

    def __init__(self) -> None:
        self.tasks: dict[str, TaskPhases] = {}
        self.current: str | None = None

    def _record(self, phase: str, took: float) -> None:
        if self.current is not None:
            self.tasks.setdefault(self.current, TaskPhases()).add(phase, took, time.time())

    def _wrap_async(
        self, fn: Callable[..., Awaitable[Any]], phase: str
    ) -> Callable[..., Awaitable[Any]]:
        @functools.wraps(fn)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                self._record(phase, time.perf_counter() - t0)

        return timed

    def _wrap_sync(self, fn: Callable[..., Any], phase: str) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self._record(phase, time.perf_counter() - t0)

        return timed

    def _wrap_generate(self, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        @functools.wraps(fn)
        async def timed(provider: Any, ctx: Any) -> Any:
            self.current = ctx.task.task_id
            self._record("generate_entered", 0.0)
            t0 = time.perf_counter()
            try:
                return await fn(provider, ctx)
            finally:
                self._record("generate", time.perf_counter() - t0)

        return timed

    @contextmanager
    def installed(self) -> Iterator[PhaseRecorder]:
        saved: list[tuple[type, str, Any]] = []
        try:
            for owner, name, phase in _PHASES:
                fn = owner.__dict__[name]
                saved.append((owner, name, fn))
                wrap = self._wrap_sync if name in _SYNC else self._wrap_async
                setattr(owner, name, wrap(fn, phase))
            fn = WebProvider.__dict__["generate"]
            saved.append((WebProvider, "generate", fn))
            setattr(WebProvider, "generate", self._wrap_generate(fn))  # noqa: B010
            yield self
        finally:
            for owner, name, fn in reversed(saved):
                setattr(owner, name, fn)


# ------------------------------------------------------------------------------------------------
# The lane, as tests/integration/test_web_lane.py drives it


class WebLaneRun:
    """One scheduler run on one signed-in web account; ``recycle_after`` 1 = a cold browser for
    every task (the default, 50, keeps it warm)."""

    def __init__(
        self,
        data_dir: Path,
        sim: ChatSiteSimulator,
        recycle_after: int,
        site_file: Path | None = None,
    ) -> None:
        self.sim = sim
        site: dict[str, str] = {"site_file": str(site_file)} if site_file else {"site": "sim"}
        self.paths = Paths.resolve(data_dir)
        self.paths.ensure()
        self.config = parse_config(
            {
                "browser": {
                    "executable": CHROMIUM,
                    "headless": True,
                    "recycle_after_tasks": recycle_after,
                },
                "models": [{"name": MODEL, "kind": "web"}],
                "accounts": [
                    {
                        "id": ACCOUNT,
                        "kind": "web",
                        **site,
                        "origin": sim.base_url,
                        "models": [MODEL],
                    }
                ],
            },
            "benchmark",
        )
        self.clock = SystemClock()
        self.store = Store(open_engine(sqlite_url(self.paths.database)), self.clock)
        self.scheduler: Scheduler | None = None

    async def sign_in(self) -> None:
        await visit(
            self.paths.profile(ACCOUNT),
            resolve_browser(CHROMIUM),
            f"{self.sim.base_url}/_sim/autologin?user={ACCOUNT}",
        )

    async def start_scheduler(self) -> tuple[Scheduler, ProviderRegistry, DbThreads]:
        """A started scheduler on this run's store, its provider registry and database threads
        (the caller stops the scheduler, closes the threads and the registry)."""
        registry = ProviderRegistry(self.config, self.paths, None)
        db = DbThreads()
        scheduler = Scheduler(
            self.config,
            AsyncStore(self.store, db),
            self.clock,
            registry,
            profile_dir=self.paths.profile,
            seed=1,
        )
        registry.accounts = scheduler.accounts
        await scheduler.start()
        return scheduler, registry, db

    async def run(
        self, task_ids: list[str], timeout_s: float, recorder: PhaseRecorder | None = None
    ) -> None:
        self.scheduler, _registry, _db = await self.start_scheduler()
        try:
            await self.scheduler.submit(
                [NewTask(t, MODEL, ModelKind.WEB, prompt_for(t), "bench") for t in task_ids]
            )
            stuck = await asyncio.wait_for(self.scheduler.run_until_idle(), timeout_s)
            if stuck:
                raise RuntimeError(f"web benchmark stuck: {stuck}")
        finally:
            if recorder is not None:
                recorder.current = None  # the shutdown's browser close belongs to no task
            await self.scheduler.stop()
            self.scheduler.store.db.close()

    def close(self) -> None:
        self.store.engine.dispose()
