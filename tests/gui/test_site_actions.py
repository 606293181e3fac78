"""*Check site* in an account's context menu and *Install adapter file…* (issue 21 items 1 and
3), in the running window: the check goes through the window's own scheduler and shows every
step; a broken page names its step; a refused file says the key and the reason; an installed
fix lifts the verdict and offers the check. Real scheduler on the qasync loop, real Chromium on
the loopback chat site."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from media_assistant.core.model.states import AccountProblem
from media_assistant.core.rules.site_breakage import AdapterStep, StepStatus
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.signin import visit
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.gui.app_env import Env, running_app
from tests.integration.test_sites_cli import MOVED, SEND, adapter_text
from tests.support.web_config import one_web_account_toml
from tests.support.xvfb import virtual_display

CHROMIUM = "/usr/lib/chromium/chromium"

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.qt_log_ignore(
        "This plugin does not support propagateSizeHints",
        "This plugin does not support grabbing the keyboard",
    ),
]


async def until(predicate: Callable[[], bool], timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


@pytest.fixture
def sim() -> Iterator[ChatSiteSimulator]:
    site = ChatSiteSimulator(ChatSiteConfig(latency_s=(40, 80), time_scale=0.005, seed=4))
    site.start_in_thread()
    yield site
    site.stop_in_thread()


@pytest.fixture
async def env(tmp_path: Path, qtbot: Any, sim: ChatSiteSimulator) -> AsyncIterator[Env]:
    data = tmp_path / "data"
    (data / "sites").mkdir(parents=True)
    (data / "sites" / "sim.toml").write_text(adapter_text(version="1"), encoding="utf-8")
    (data / "config.toml").write_text(
        one_web_account_toml(sim.base_url),
        encoding="utf-8",
    )
    errors: list[BaseException] = []

    def sign_in() -> None:  # as the Log in window would: the site's sign-in, in the profile
        try:
            url = f"{sim.base_url}/_sim/autologin?user=web-1"
            asyncio.run(visit(data / "profiles" / "web-1", resolve_browser(CHROMIUM), url))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=sign_in)
    thread.start()
    thread.join()
    assert not errors, errors
    async with running_app(data, qtbot) as app:
        yield app


def menu_actions(env: Env) -> dict[str, Any]:
    panel = env.window.accounts
    rect = panel.table.visualItemRect(panel.table.item(panel._rows["web-1"], 0))
    panel._on_table_context_menu(rect.center())
    assert panel.menu is not None
    actions = {a.text(): a for a in panel.menu.actions()}
    panel.menu.close()
    return actions


async def test_check_site_shows_every_step_then_names_the_broken_one(
    env: Env, sim: ChatSiteSimulator
) -> None:
    actions = menu_actions(env)
    assert "Install adapter file…" in actions
    actions["Check site"].trigger()
    dialog = env.window.site_actions.dialogs["web-1"]
    assert "after its current task" in dialog.header.text()
    await until(lambda: dialog.report is not None)
    assert dialog.report is not None and dialog.report.ok
    assert dialog.table.rowCount() == len(AdapterStep)
    assert "every step passed" in dialog.header.text()
    assert dialog.table.item(3, 0).text() == "composer found"  # after "through the proxy"
    assert dialog.table.item(3, 1).text() == "ok"
    dialog.close()
    await until(lambda: "web-1" not in env.window.site_actions.dialogs)

    sim.break_page("answer_renamed")
    broken = env.window.site_actions.check("web-1")
    await until(lambda: broken.report is not None)
    assert broken.report is not None and broken.report.failed is not None
    assert broken.report.failed.step is AdapterStep.ANSWER_READ
    assert "the check failed at “answer read”" in broken.header.text()
    row = [s.step for s in broken.report.steps].index(AdapterStep.ANSWER_READ)
    assert broken.table.item(row, 1).text() == "failed"
    assert '.message[data-role="assistant"] .markdown' in broken.table.item(row, 3).text()
    assert broken.report.steps[row + 1].status is StepStatus.SKIPPED


async def test_install_refuses_a_bad_file_and_a_fix_lifts_the_verdict(
    env: Env, sim: ChatSiteSimulator, tmp_path: Path
) -> None:
    actions = env.window.site_actions
    bad = tmp_path / "bad.toml"
    bad.write_text(adapter_text(version="2", replace=(SEND, "send = 'not a list'")), "utf-8")
    assert await actions.install(bad) is None
    box = actions.result_box
    assert box is not None and box.icon() is QMessageBox.Icon.Warning
    assert "selectors.send" in box.text() and str(bad) in box.text()
    box.close()

    # The site's send button moved: two tasks in a row cannot send, the verdict holds web-1.
    sim.break_page("send_moved")
    from media_assistant.core.model.records import NewTask
    from media_assistant.core.model.states import ModelKind

    await env.controller.submit(
        [NewTask(f"t{i}", "web-model", ModelKind.WEB, f"question {i}", "b") for i in range(3)]
    )
    await until(
        lambda: (
            getattr(env.controller.account_status("web-1"), "problem_code", None) == "site_changed"
        ),
        90,
    )
    fixed = tmp_path / "fixed.toml"
    fixed.write_text(adapter_text(version="2", replace=(SEND, MOVED)), encoding="utf-8")
    assert await actions.install(fixed) == ["web-1"]
    box = actions.result_box
    assert box is not None and "version 2" in box.text() and "replaces 1" in box.text()
    assert [b.text() for b in box.buttons() if b.text() == "Check site now"]
    box.close()
    await until(lambda: {r.state for r in env.window.model.rows()} == {"success"}, 90)
    status = env.controller.account_status("web-1")
    assert status is not None and status.problem is AccountProblem.NONE


@pytest.mark.timeout(360)  # a check, two held tasks, a repair of two checks, the batch
async def test_repair_next_to_a_site_changed_verdict_proves_then_installs(
    env: Env, sim: ChatSiteSimulator
) -> None:
    """Issue 33: a check records what worked; the site renames its composer; tasks hold the
    account; *Repair…* (offered only then) proves a repaired adapter through the window's own
    scheduler, and *Install* puts it in place — version 1 + 1 — and the held tasks finish."""
    assert "Repair…" not in menu_actions(env)
    check = env.window.site_actions.check("web-1")
    await until(lambda: check.report is not None)
    assert check.report is not None and check.report.ok
    check.close()
    sim.break_page("composer_renamed")
    from media_assistant.core.model.records import NewTask
    from media_assistant.core.model.states import ModelKind

    await env.controller.submit(
        [NewTask(f"r{i}", "web-model", ModelKind.WEB, f"question {i}", "b") for i in range(2)]
    )
    await until(
        lambda: (
            getattr(env.controller.account_status("web-1"), "problem_code", None) == "site_changed"
        ),
        120,
    )
    menu_actions(env)["Repair…"].trigger()
    dialog = env.window.site_actions.repairs["web-1"]
    await until(lambda: dialog.result is not None, 120)
    assert dialog.result.proven, dialog.details.toPlainText()
    assert "Proven" in dialog.header.text() and dialog.install_button.isEnabled()
    assert "+input = ['div#prompt-editor']" in dialog.details.toPlainText()
    dialog.install_button.click()
    await until(lambda: env.window.site_actions.result_box is not None, 30)
    box = env.window.site_actions.result_box
    assert box is not None and "version 2" in box.text() and "replaces 1" in box.text()
    box.close()
    await until(lambda: {r.state for r in env.window.model.rows()} == {"success"}, 90)
    status = env.controller.account_status("web-1")
    assert status is not None and status.problem is AccountProblem.NONE


@pytest.fixture
def x_display(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An X display for a shown browser, set before the app (and its browser driver, which
    hands its environment to the browsers it launches) starts."""
    with virtual_display() as display:
        monkeypatch.setenv("DISPLAY", display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        yield display


async def test_show_browser_next_to_a_verification_hold_reopens_it_in_a_window(
    x_display: str, env: Env, sim: ChatSiteSimulator
) -> None:
    """Issue 32: a verification page holds the account; *Show browser* (offered only then)
    reopens the headless browser in a window and says so; a person passes it, the task ends."""
    from media_assistant.core.model.records import NewTask
    from media_assistant.core.model.states import ModelKind

    assert "Show browser" not in menu_actions(env)
    sim.show_challenge("web-1", "geetest")
    await env.controller.submit([NewTask("v1", "web-model", ModelKind.WEB, "question", "b")])
    await until(
        lambda: getattr(env.controller.account_status("web-1"), "problem_code", None) == "captcha",
        120,
    )
    menu_actions(env)["Show browser"].trigger()
    bar = env.window.statusBar()
    await until(lambda: "browser" in bar.currentMessage(), 60)
    assert bar.currentMessage().startswith(
        "web-1's browser ran without a window: it was reopened in one"
    ), bar.currentMessage()
    sim.pass_challenge("web-1")
    await until(lambda: {r.state for r in env.window.model.rows()} == {"success"}, 120)
