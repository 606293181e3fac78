"""The built-in demo: both simulators on free loopback ports, two web accounts and one API
account, in a demo data dir of its own (never the operator's real data), plus a sample batch.

The demo's folder is ``<data-dir>/demo``: under ``--data-dir`` or ``$MEDIA_ASSISTANT_HOME`` when
given, else under the per-user data dir. A demo holds that folder's scheduler lock from before it
writes its config until it stops, so a second demo on the same folder is refused (exit 3) without
touching the first one's files.

Web accounts drive real Chromium against the simulated chat site when a browser is available,
and the in-process simulated chat otherwise. Simulated durations are scaled so a newcomer sees
both lanes finish tasks within a minute.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import threading
from pathlib import Path

from media_assistant.core.files.locks import DataDirLock
from media_assistant.core.files.paths import default_data_dir
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind

log = logging.getLogger(__name__)

DEMO_KEY_ENV = "MEDIA_ASSISTANT_DEMO_KEY"
WEB_ACCOUNTS = ("demo-web-1", "demo-web-2")
API_ACCOUNT = "demo-api"

SAMPLE_TOPICS = (
    "春季新品连衣裙",
    "智能保温杯",
    "露营装备清单",
    "城市骑行路线",
    "手冲咖啡入门",
    "家庭收纳技巧",
    "儿童绘本推荐",
    "低糖烘焙食谱",
    "办公室午休好物",
    "旧物改造灵感",
    "周末短途旅行",
    "运动后拉伸",
    "宠物夏季护理",
    "阳台种菜指南",
)


def demo_data_dir(home: Path | None = None) -> Path:
    """``<home>/demo``; home: ``--data-dir``, else $MEDIA_ASSISTANT_HOME, else the per-user dir."""
    return (home or default_data_dir()).expanduser() / "demo"


# Sample batches are named ``demo-<time>``: the window's banner tells them apart by it (a batch
# of the demo folder the operator made with *New batch* is not the sample).
SAMPLE_PREFIX = "demo-"


def sample_batch_id(now: float) -> str:
    return f"{SAMPLE_PREFIX}{now:.0f}"


def sample_batch(batch_id: str = "demo") -> list[NewTask]:
    tasks = []
    for i, topic in enumerate(SAMPLE_TOPICS):
        web = i % 3 == 0
        tasks.append(
            NewTask(
                task_id=f"{batch_id}-{i + 1:02d}",
                model="demo-chat-web" if web else "demo-chat-api",
                model_kind=ModelKind.WEB if web else ModelKind.API,
                prompt=f"为“{topic}”写一段 120 字左右的小红书风格文案，附 3 个标题备选。",
                title=f"{topic}文案",
                batch_id=batch_id,
            )
        )
    return tasks


class DemoEnvironment:
    def __init__(
        self,
        home: Path | None = None,
        *,
        web_time_scale: float = 0.05,
        api_time_scale: float = 0.25,
        use_browser: bool | None = None,
        headless: bool = True,
        web_accounts: tuple[str, ...] = WEB_ACCOUNTS,
    ) -> None:
        """``home``: the operator's data dir (``--data-dir``); the demo lives in ``home/demo``."""
        self.data_dir = demo_data_dir(home).resolve()
        self.lock = DataDirLock(self.data_dir)
        self.web_accounts = web_accounts
        self.web_time_scale = web_time_scale
        self.api_time_scale = api_time_scale
        self.use_browser = use_browser
        self.headless = headless
        self._api_sim: object | None = None
        self._chat_sim: object | None = None
        self.browser_description: str | None = None

    @property
    def config_file(self) -> Path:
        return self.data_dir / "config.toml"

    def start(self) -> None:
        """Raises ``SchedulerBusy`` (exit 3) when another demo runs on this folder: before
        anything is started or written."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.lock.acquire()
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec

        key = f"sk-demo-{secrets.token_hex(8)}"
        os.environ[DEMO_KEY_ENV] = key  # this process only; never written anywhere
        api = ApiSimulator(
            ApiSimConfig(latency_s=(8, 20), time_scale=self.api_time_scale, keys={key: KeySpec()})
        )
        api_url = api.start_in_thread()
        self._api_sim = api
        site, origin = "fake", None
        if self._browser_available():
            from media_assistant.sim.chat_config import ChatSiteConfig
            from media_assistant.sim.chat_site import ChatSiteSimulator

            # Markdown answers and a client-side New chat button, as real chat UIs have.
            chat = ChatSiteSimulator(
                ChatSiteConfig(
                    latency_s=(31, 370),
                    time_scale=self.web_time_scale,
                    markdown_answers=True,
                    new_chat_button=True,
                )
            )
            origin = chat.start_in_thread()
            self._chat_sim = chat
            site = "sim"
        self.config_file.write_text(self._config(api_url, site, origin), encoding="utf-8")
        if origin is not None:
            self._sign_in(origin)
        log.info("demo ready: %s (web: %s)", self.data_dir, site)

    def _browser_available(self) -> bool:
        if self.use_browser is False:
            return False
        from media_assistant.providers.web.executable import BrowserNotFound, resolve_browser

        try:
            self.browser_description = resolve_browser(None).description
        except BrowserNotFound:
            if self.use_browser:
                raise
            log.warning(
                "no browser found: the demo's web accounts use the in-process "
                "simulated chat instead"
            )
            return False
        return True

    def _sign_in(self, origin: str) -> None:
        """Each demo profile signs in to the simulated site once (its autologin link)."""
        from media_assistant.providers.web.executable import resolve_browser
        from media_assistant.providers.web.signin import visit

        choice = resolve_browser(None)

        async def sign_in_all() -> None:
            for account in self.web_accounts:
                await visit(
                    self.data_dir / "profiles" / account,
                    choice,
                    f"{origin}/_sim/autologin?user={account}",
                )

        # On a thread of its own: the caller may already run an event loop (the GUI's).
        errors: list[BaseException] = []

        def target() -> None:
            try:
                asyncio.run(sign_in_all())
            except BaseException as exc:  # reported below, on the caller's thread
                errors.append(exc)

        thread = threading.Thread(target=target, name="demo-sign-in")
        thread.start()
        thread.join()
        if errors:
            raise errors[0]

    def _config(self, api_url: str, site: str, origin: str | None) -> str:
        lines = [
            "# Written by the demo at every start (the simulators' ports change). Not your data.",
            "[browser]",
            f"headless = {'true' if self.headless else 'false'}",
            "",
            "[simulation]",
            f"web_latency_s = [{31 * self.web_time_scale:.2f}, {370 * self.web_time_scale:.2f}]",
            "",
            "[[models]]",
            'name = "demo-chat-web"',
            'kind = "web"',
            "",
            "[[models]]",
            'name = "demo-chat-api"',
            'kind = "api"',
            'upstream = "sim-chat"',
        ]
        for account in self.web_accounts:
            lines += [
                "",
                "[[accounts]]",
                f'id = "{account}"',
                'kind = "web"',
                f'site = "{site}"',
                'models = ["demo-chat-web"]',
            ]
            if origin:
                lines.append(f'origin = "{origin}"')
            if account == WEB_ACCOUNTS[-1]:
                # Pacing on one account, to show it (real sites' defaults are minutes: README).
                lines.append(
                    "pacing = { min_gap_s = 8, jitter_s = 4, max_per_window = 4, window_s = 120 }"
                )
        lines += [
            "",
            "[[accounts]]",
            f'id = "{API_ACCOUNT}"',
            'kind = "api"',
            f'base_url = "{api_url}"',
            f'api_key_env = "{DEMO_KEY_ENV}"',
            'models = ["demo-chat-api"]',
            "concurrency = 3",
            "",
        ]
        return "\n".join(lines)

    def stop(self) -> None:
        for sim in (self._chat_sim, self._api_sim):
            if sim is not None:
                sim.stop_in_thread()  # type: ignore[attr-defined]
        self._chat_sim = self._api_sim = None
        self.lock.release()
