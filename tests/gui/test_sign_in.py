"""*Log in* from the window (issue 17 item 4, issue 20 items 5, 6 and 11): the operator's own
action is no alert, only what the site showed changes the account, and closing the app closes
the sign-in window. Real Chromium with a window (on a virtual display of the test's own)
against the simulated chat site; the app composed as app.py composes it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from media_assistant.core.model.events import AccountChanged, Event
from media_assistant.core.model.states import AccountProblem, ModelKind
from media_assistant.gui.accounts.panel import COL_STATE
from media_assistant.gui.bridge import controller as controller_module
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.signin import STOP_BOUND_S, visit
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.gui.app_env import Env, running_app
from tests.support.xvfb import virtual_display

pytestmark = [pytest.mark.chromium, pytest.mark.slow, pytest.mark.timeout(180)]

CHROMIUM = "/usr/lib/chromium/chromium"


@pytest.fixture
def display(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with virtual_display() as name:
        monkeypatch.setenv("DISPLAY", name)
        yield name


@pytest.fixture
def chat() -> Iterator[ChatSiteSimulator]:
    # 31..60 s answers at 1/10: a task runs 3..6 s
    sim = ChatSiteSimulator(ChatSiteConfig(latency_s=(31, 60), time_scale=0.1, seed=11))
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


def write_config(data: Path, origin: str) -> None:
    """One web account on the simulated site. Its adapter opens the chat page to sign in, as
    many real sites' do (the simulator's login page stays a login page even for a signed-in
    user, where a real site sends them on to the chat)."""
    data.mkdir(parents=True, exist_ok=True)
    builtin = Path(__file__).resolve().parents[2] / "resources" / "sites" / "sim.toml"
    adapter = data / "sim-chat-first.toml"
    adapter.write_text(
        "".join(
            line.replace('id = "sim"', 'id = "sim-chat-first"')
            for line in builtin.read_text(encoding="utf-8").splitlines(keepends=True)
            if not line.startswith("login_url")
        ),
        encoding="utf-8",
    )
    (data / "config.toml").write_text(
        f"""
[browser]
executable = "{CHROMIUM}"
headless = true

[[models]]
name = "sim-web"
kind = "web"

[[accounts]]
id = "web-1"
kind = "web"
site_file = "{adapter}"
origin = "{origin}"
models = ["sim-web"]
""",
        encoding="utf-8",
    )


def signed_in_before(data: Path, chat: ChatSiteSimulator) -> None:
    """The account's profile holds a session already (a healthy account)."""
    url = f"{chat.base_url}/_sim/autologin?user=web-1"
    thread = threading.Thread(
        target=lambda: asyncio.run(visit(data / "profiles" / "web-1", resolve_browser(None), url))
    )
    thread.start()
    thread.join()


def profile_browsers(data: Path) -> list[psutil.Process]:
    profile = str((data / "profiles" / "web-1").resolve())
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            if proc.info["status"] != psutil.STATUS_ZOMBIE and any(
                profile in arg for arg in proc.info["cmdline"] or []
            ):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def account_changes(env: Env) -> list[AccountChanged]:
    seen: list[AccountChanged] = []

    def on(event: Event) -> None:
        if isinstance(event, AccountChanged):
            seen.append(event)

    env.services.bus.subscribe(on)
    return seen


async def log_in(env: Env) -> str:
    """The accounts panel's *Log in*, to its end; the status bar's line after it."""
    await env.window._on_accounts_login_requested("web-1")
    return env.window.statusBar().currentMessage()


async def test_logging_in_to_a_healthy_account_raises_no_notice_and_says_it_once(
    tmp_path: Path, qtbot: Any, display: str, chat: ChatSiteSimulator
) -> None:
    """Before: *Log in* marked the account "needs login: signing in…" first — a "needs you"
    notice that stayed unread after the sign-in worked and went out to the webhooks; the
    status bar then said "signed in (signed in (http://…))"."""
    data = tmp_path / "data"
    write_config(data, chat.base_url)
    signed_in_before(data, chat)
    async with running_app(data, qtbot) as env:
        await env.window.start_notices()
        changes = account_changes(env)
        shown: list[str] = []
        env.controller.sign_in_changed.connect(
            lambda _a: shown.append(env.window.accounts.table.item(0, COL_STATE).text())
        )
        line = await log_in(env)
        await env.window.stop_notices()  # announces whatever was pending
        assert env.window.notifications.unread_count() == 0
        assert env.window.notifications.list.count() == 0
    problems = [c.status.problem for c in changes if c.status and c.status.problem.sticky]
    assert problems == []  # the account never read "needs login"
    assert shown and shown[0].startswith("Signing in…")  # said while it lasted
    assert line.startswith(f"web-1: signed in ({chat.base_url}/"), line
    assert line.count("signed in") == 1, line


async def test_a_sign_in_that_times_out_leaves_the_account_as_it_was(
    tmp_path: Path, qtbot: Any, display: str, chat: ChatSiteSimulator
) -> None:
    """Before: the account was marked "needs login" as the sign-in began and stayed so when
    it timed out (or failed), even over a restart."""
    data = tmp_path / "data"
    write_config(data, chat.base_url)
    async with running_app(data, qtbot) as env:
        env.controller.login_timeout_s = 3.0
        web = env.scheduler.lanes[ModelKind.WEB]
        # healthy before: healthy after
        line = await log_in(env)
        assert "no sign-in in time" in line, line
        status = env.controller.account_status("web-1")
        assert status is not None and status.problem is AccountProblem.NONE
        assert profile_browsers(data) == []  # the sign-in window is gone
        assert web.taking_work("web-1")  # the lane has the profile back
        # "needs login" before (the lane found the session gone): still so, with its detail
        await env.controller.accounts_db.set_problem(
            "web-1", AccountProblem.NEEDS_LOGIN, "the site asked for a login"
        )
        line = await log_in(env)
        assert "no sign-in in time" in line, line
        status = await env.controller.accounts_db.get("web-1")
        assert status is not None and status.problem is AccountProblem.NEEDS_LOGIN
        assert status.problem_detail == "the site asked for a login"


async def test_a_profile_still_busy_with_a_task_is_said_and_changes_nothing(
    tmp_path: Path,
    qtbot: Any,
    display: str,
    chat: ChatSiteSimulator,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lane lets go of the profile only between tasks: a sign-in that cannot have it in
    time says so, and the account and its task go on as they were."""
    monkeypatch.setattr(controller_module, "PROFILE_WAIT_S", 1.0)
    data = tmp_path / "data"
    write_config(data, chat.base_url)
    signed_in_before(data, chat)
    async with running_app(data, qtbot) as env:
        from media_assistant.core.model.records import NewTask

        await env.controller.submit([NewTask("t1", "sim-web", ModelKind.WEB, "写一段话", "b")])
        web = env.scheduler.lanes[ModelKind.WEB]
        deadline = time.monotonic() + 60
        while not getattr(web, "running", {}).get("web-1"):
            assert time.monotonic() < deadline, "the task never started"
            await asyncio.sleep(0.05)
        line = await log_in(env)
        assert "still busy with a task" in line, line
        assert web.taking_work("web-1")
        status = env.controller.account_status("web-1")
        assert status is not None and status.problem is AccountProblem.NONE
        deadline = time.monotonic() + 60
        while (task := await env.controller.task("t1")) is None or task.state != "success":
            assert time.monotonic() < deadline, task
            await asyncio.sleep(0.1)


async def test_a_site_that_cannot_be_reached_is_not_a_lost_login(
    tmp_path: Path, qtbot: Any, display: str
) -> None:
    """Before: a sign-in page that could not load (a DNS failure) marked the account "needs
    login" and put Playwright's whole call log into the status bar."""
    data = tmp_path / "data"
    write_config(data, "http://no-such-host.invalid")
    async with running_app(data, qtbot) as env:
        line = await log_in(env)
        status = env.controller.account_status("web-1")
    assert line.startswith("web-1: cannot reach no-such-host.invalid"), line
    assert "Call log" not in line and "\n" not in line
    assert status is not None and status.problem is AccountProblem.NONE


async def test_closing_the_app_during_a_sign_in_closes_its_browser_within_its_bound(
    tmp_path: Path, qtbot: Any, display: str, chat: ChatSiteSimulator
) -> None:
    """Before: the sign-in ran ``asyncio.run`` on an executor thread for up to 900 s; closing
    the window could not stop it, and the process lingered after the window was gone."""
    data = tmp_path / "data"
    write_config(data, chat.base_url)
    async with running_app(data, qtbot) as env:
        sign_in = asyncio.ensure_future(env.controller.login("web-1"))
        deadline = time.monotonic() + 60
        while not profile_browsers(data):
            assert time.monotonic() < deadline and not sign_in.done(), sign_in
            await asyncio.sleep(0.1)
        began = time.monotonic()
        await asyncio.wait_for(env.controller.stop_sign_ins(), STOP_BOUND_S + 5)
        took = time.monotonic() - began
        assert sign_in.cancelled()
        assert profile_browsers(data) == []
        assert not [t for t in threading.enumerate() if t.name == "sign-in"]
        status = env.controller.account_status("web-1")
        assert status is not None and status.problem is AccountProblem.NONE
    assert took < STOP_BOUND_S, took
