"""The web lane against the chat simulator's real-UI variations, with real Chromium: Markdown
answers, a client-side New chat button, a model picker, a sign-in screen flashing on load,
slow page loads, errors dressed as answers, alert regions over the conversation, stale toasts,
and cancel / rate limits on the same page."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from media_assistant.assets import sites_dir
from media_assistant.core.config.schema import parse_config
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.providers.web.adapter import load_adapter
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_web_lane import CHROMIUM, WebEnv, our_chromiums

pytestmark = pytest.mark.chromium

SIM_ADAPTER = sites_dir() / "sim.toml"


def field_sim(**variations: Any) -> ChatSiteSimulator:
    config = {
        "latency_s": (40, 80),
        "time_scale": 0.005,  # 0.2..0.4 s per answer
        "seed": 3,
        "markdown_answers": True,
        "new_chat_button": True,
        "models": ("sim-fast", "sim-pro"),
        **variations,
    }
    sim = ChatSiteSimulator(ChatSiteConfig(**config))
    sim.start_in_thread()
    return sim


@pytest.fixture
def sim() -> Iterator[ChatSiteSimulator]:
    s = field_sim()
    yield s
    s.stop_in_thread()


def adapter_file(root: Path, extra: str = "", replace: tuple[str, str] | None = None) -> Path:
    """The built-in sim adapter with changes, as an operator's own adapter file."""
    text = SIM_ADAPTER.read_text(encoding="utf-8")
    if replace is not None:
        assert replace[0] in text
        text = text.replace(*replace)
    path = root / "adapter.toml"
    path.write_text(text + "\n" + extra, encoding="utf-8")
    return path


def make_env(
    root: Path,
    sim: ChatSiteSimulator,
    *,
    accounts: int = 1,
    site_file: Path | None = None,
    models: list[dict[str, Any]] | None = None,
    lanes: dict[str, Any] | None = None,
    scheduler: dict[str, Any] | None = None,
) -> WebEnv:
    env = WebEnv(root, sim, accounts=accounts)
    data = env.config.model_dump(mode="json", exclude_none=True)
    if site_file is not None:
        for account in data["accounts"]:
            account.pop("site")
            account["site_file"] = str(site_file)
    if models is not None:
        data["models"] = models
        for account in data["accounts"]:
            account["models"] = [m["name"] for m in models]
    if lanes is not None:
        data["lanes"] = lanes
    if scheduler is not None:
        data["scheduler"] = scheduler
    env.config = parse_config(data, "test")
    return env


@pytest.fixture
async def env(tmp_path: Path, sim: ChatSiteSimulator) -> AsyncIterator[WebEnv]:
    e = make_env(tmp_path, sim)
    await e.sign_in("web-1")
    yield e
    await e.close()
    assert not our_chromiums(tmp_path)


def tasks(n: int, prefix: str = "m", model: str = "web-model", text: str = "") -> list[NewTask]:
    return [
        NewTask(
            f"{prefix}{i}",
            model,
            ModelKind.WEB,
            f"Task {prefix}{i} marker-{prefix}{i}-x: write an article {text}".strip(),
            "b",
        )
        for i in range(n)
    ]


async def test_markdown_answers_come_back_as_the_markdown_the_model_wrote(env: WebEnv) -> None:
    s = await env.start()
    await s.submit(tasks(3))
    assert await env.run() == []
    rows = sorted(env.store.list_tasks(), key=lambda r: r.started_at or 0)
    assert [r.state for r in rows] == ["success"] * 3
    written = env.sim.answers("web-1")
    assert len(written) == 3
    for row, source in zip(rows, written, strict=True):
        assert row.result_text == source  # headings, emphasis, link, lists, table, code, quote
        assert row.result_text.startswith(f"Answer to: {row.prompt}")
        for piece in (
            "\n## Notes on",
            "**bold words**",
            "*italic words*",
            "`max_items`",
            "- second **bold point**",
            "](https://",
            "\n1. ",
            "\n   - a nested",
            "\n| item | price |",
            "\n```",
            "\n> A quote",
        ):
            assert piece in row.result_text
        assert "Copy code" not in row.result_text  # the code block's header is not content
        # The plain text as the page showed it stays beside it.
        assert row.result_plain is not None and "bold words" in row.result_plain
        assert "**" not in row.result_plain


async def test_emphasis_drawn_by_css_classes_keeps_its_markdown(tmp_path: Path) -> None:
    """A utility-class UI: bold, italic and inline code are styled spans, quotes are italic and a
    table column monospace by the typography plugin, and the code block's header (its language
    label) has classes the adapter does not exclude. The Markdown is still what the model wrote."""
    sim = field_sim(emphasis_classes=True)
    try:
        e = make_env(tmp_path, sim)
        await e.sign_in("web-1")
        s = await e.start()
        await s.submit(tasks(2))
        assert await e.run() == []
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        assert [r.result_text for r in rows] == sim.answers("web-1")
        for row in rows:
            assert row.result_text is not None
            for piece in ("**bold words**", "*italic words*", "`max_items`", "**bold point**"):
                assert piece in row.result_text
        await e.close()
    finally:
        sim.stop_in_thread()


@pytest.mark.parametrize("editor", ["codemirror", "monaco"])
async def test_code_drawn_by_a_code_editor_keeps_its_fence(tmp_path: Path, editor: str) -> None:
    """Issue 21 item 4: the site draws each code block with CodeMirror 6 (a gutter of line
    numbers and fold markers) or Monaco (lines out of document order, no-break spaces): the
    answer's code fence comes back with its language, without line numbers or fold markers."""
    sim = field_sim(code_editor=editor)
    try:
        e = make_env(tmp_path, sim)
        await e.sign_in("web-1")
        s = await e.start()
        await s.submit(tasks(2))
        assert await e.run() == []
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        assert [r.result_text for r in rows] == sim.answers("web-1")
        for row in rows:
            assert row.result_text is not None
            fence = row.result_text.split("```")[1]
            assert fence.split("\n")[0] in ("python", "javascript", "sql")
            assert "⌄" not in row.result_text
        await e.close()
    finally:
        sim.stop_in_thread()


async def test_the_markdown_behind_the_copy_control_when_the_adapter_names_it(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    path = adapter_file(
        tmp_path,
        replace=(
            "[answer]\n",
            "[answer]\nmarkdown_source = ['button[aria-label=\"Copy\"]']\n"
            'markdown_attribute = "data-copy-text"\n',
        ),
    )
    e = make_env(tmp_path, sim, site_file=path)
    await e.sign_in("web-1")
    try:
        s = await e.start()
        await s.submit(tasks(2))
        assert await e.run() == []
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        assert [r.result_text for r in rows] == sim.answers("web-1")
    finally:
        await e.close()


async def test_a_slow_page_loads_once_then_new_chat_is_a_click(tmp_path: Path) -> None:
    sim = field_sim(page_load_s=(2.0, 3.0))
    try:
        e = make_env(tmp_path, sim)
        await e.sign_in("web-1")
        loads_before = sim.user_stats("web-1")["page_loads"]
        s = await e.start()
        await s.submit(tasks(4))
        assert await e.run(timeout=120) == []
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        # The first task loads the page (after the sign-in's own load); the others click New
        # chat: no page load of theirs (timings would only measure the machine's load).
        assert sim.user_stats("web-1")["page_loads"] == loads_before + 1
        assert [r.result_text for r in rows] == sim.answers("web-1")  # each answer its own
        assert not any(
            "loaded new_chat_url instead" in m for r in rows for m in e.events(r.task_id)
        )
        await e.close()
    finally:
        sim.stop_in_thread()
    assert not our_chromiums(tmp_path)


CONFIRM_STEPS = """
[new_chat]
steps = [['button[data-testid="new-chat"]'], ['[role="dialog"] button:has-text("Confirm")']]
"""


def steps_adapter(root: Path) -> Path:
    """The sim adapter with its New chat as two clicks: the button, then the dialog's Confirm."""
    text = SIM_ADAPTER.read_text(encoding="utf-8")
    declared = next(line for line in text.splitlines() if line.startswith("new_chat = "))
    path = root / "steps.toml"
    path.write_text(text.replace(declared, "") + CONFIRM_STEPS, encoding="utf-8")
    return path


async def test_a_new_chat_that_asks_to_confirm_is_clicked_through(tmp_path: Path) -> None:
    """New chat opens "Create New Chat — this will clear your current chat history … Cancel /
    Confirm". With [new_chat] steps the page loads once (2-3 s) and every later task clicks
    through the dialog; the one-click form waits for an empty chat that never comes and loads
    the page instead."""
    sim = field_sim(new_chat_confirm=True, page_load_s=(2.0, 3.0))
    try:
        e = make_env(tmp_path, sim, site_file=steps_adapter(tmp_path))
        await e.sign_in("web-1")
        loads_before = sim.user_stats("web-1")["page_loads"]
        s = await e.start()
        await s.submit(tasks(4))
        assert await e.run(timeout=120) == []
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        assert [(r.state, r.attempt) for r in rows] == [("success", 1)] * 4
        assert [r.result_text for r in rows] == sim.answers("web-1")  # each answer its own
        assert sim.user_stats("web-1")["page_loads"] == loads_before + 1
        assert not any(
            "loaded new_chat_url instead" in m for r in rows for m in e.events(r.task_id)
        )
        await e.close()
        # The same site with New chat as one click: the dialog stays up, the page is loaded.
        one_click = make_env(tmp_path / "b", sim)
        await one_click.sign_in("web-1")
        s = await one_click.start()
        await s.submit(tasks(2, prefix="o"))
        assert await one_click.run(timeout=120) == []
        assert {r.state for r in one_click.store.list_tasks()} == {"success"}
        assert any("loaded new_chat_url instead" in m for m in one_click.events("o1"))
        await one_click.close()
    finally:
        sim.stop_in_thread()
    assert not our_chromiums(tmp_path)


async def test_a_sign_in_screen_flashing_on_load_fails_nothing(tmp_path: Path) -> None:
    # No New chat button: every task loads the page, and every load flashes the sign-in screen.
    sim = field_sim(signin_flash_s=1.0, new_chat_button=False)
    try:
        e = make_env(tmp_path, sim)
        await e.sign_in("web-1")
        s = await e.start()
        await s.submit(tasks(2))
        assert await e.run() == []
        assert {r.state for r in e.store.list_tasks()} == {"success"}
        await e.close()
        # The same flash with no persistence asked for is taken for a lost login.
        impatient = make_env(
            tmp_path / "b",
            sim,
            site_file=adapter_file(
                tmp_path, replace=("[timing]\n", "[timing]\nmarker_persist_s = 0\n")
            ),
        )
        await impatient.sign_in("web-1")
        s = await impatient.start()
        await s.submit(tasks(1, prefix="x"))
        await impatient.run()
        row = impatient.store.get("x0")
        assert row is not None and (row.state, row.error_kind) == ("failed", "login_required")
        await impatient.close()
    finally:
        sim.stop_in_thread()


async def test_a_web_model_picks_the_sites_model(tmp_path: Path, sim: ChatSiteSimulator) -> None:
    models = [
        {"name": "pro-web", "kind": "web", "upstream": "sim-pro"},
        {"name": "fast-web", "kind": "web", "upstream": "sim-fast"},
    ]
    e = make_env(tmp_path, sim, models=models)
    await e.sign_in("web-1")
    try:
        s = await e.start()
        batch = tasks(2, prefix="p", model="pro-web") + tasks(2, prefix="f", model="fast-web")
        await s.submit(batch)
        assert await e.run() == []
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        asked = sim.user_stats("web-1")["models"]
        wanted = {"pro-web": "sim-pro", "fast-web": "sim-fast"}
        assert asked == [wanted[r.model] for r in rows]
    finally:
        await e.close()


@pytest.mark.expect_errors(r"has no \[model_choice\]")
async def test_upstream_without_model_choice_is_a_clear_account_problem(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    path = adapter_file(tmp_path)
    text = path.read_text(encoding="utf-8")
    start = text.index("[model_choice]")
    path.write_text(text[:start] + text[text.index("[input]") :], encoding="utf-8")
    e = make_env(
        tmp_path, sim, site_file=path, models=[{"name": "pro-web", "kind": "web", "upstream": "x"}]
    )
    try:
        s = await e.start()
        status = await s.accounts.get("web-1")
        assert status is not None and "has no [model_choice]" in (status.problem_detail or "")
    finally:
        await e.close()


@pytest.mark.parametrize(
    "fault", ["error_in_answer", "error_text_answer", "empty_answer", "silent_failure"]
)
async def test_an_error_dressed_as_an_answer_is_never_a_success(
    tmp_path: Path, sim: ChatSiteSimulator, fault: str
) -> None:
    # The adapter declares no error marker of its own: the generic detection must do it.
    path = adapter_file(
        tmp_path,
        replace=(
            "error = { selectors = ['.message[data-role=\"assistant\"] .message-error'], ",
            "error = { ",
        ),
    )
    e = make_env(tmp_path, sim, site_file=path)
    await e.sign_in("web-1")
    sim.inject(fault, user="web-1")
    try:
        s = await e.start()
        await s.submit(tasks(1, prefix="e"))
        assert await e.run() == []
        row = e.store.get("e0")
        assert row is not None and (row.state, row.attempt) == ("success", 2)
        assert row.result_text == sim.answers("web-1")[-1]
        log = "\n".join(e.events("e0"))
        assert "server_error" in log
        expected = {
            "error_in_answer": "error inside the answer",
            "error_text_answer": "only an error message",
            "empty_answer": "empty answer",
            "silent_failure": "the site stopped without answering",
        }[fault]
        assert expected in log
    finally:
        await e.close()


async def test_a_server_failure_that_shows_nothing_fails_each_attempt_in_seconds(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    """The page shows the stop button for a moment, then no answer, no error, no toast: each
    attempt fails within silent_stop_s (3 s), not after the 120 s first-token timeout, and the
    task ends failed once its attempts are used up — never a success."""
    e = make_env(tmp_path, sim, lanes={"web": {"backoff_base_s": 0.5, "backoff_cap_s": 1.0}})
    await e.sign_in("web-1")
    sim.inject("silent_failure", count=3, user="web-1")
    try:
        s = await e.start()
        await s.submit(tasks(1, prefix="s"))
        started = time.monotonic()
        assert await e.run(timeout=100) == []
        took = time.monotonic() - started
        row = e.store.get("s0")
        assert row is not None
        assert (row.state, row.error_kind, row.attempt) == ("failed", "server_error", 3)
        assert row.result_text is None
        assert took < 60, f"3 attempts took {took:.0f} s"  # the first-token timeout: 3 x 120 s
        log = "\n".join(e.events("s0"))
        assert log.count("the site stopped without answering") >= 3
        stats = sim.user_stats("web-1")
        assert (stats["failed"], stats["completed"]) == (3, 0)
    finally:
        await e.close()


async def test_an_indicator_that_goes_quiet_before_the_answer_is_not_a_silent_stop(
    tmp_path: Path,
) -> None:
    """Once the server took the message, nothing shows generating for 1.5 s before the answer
    streams (the stop button hides, no answer element): shorter than silent_stop_s, so every
    task answers on its first attempt. A silent_stop_s shorter than that gap fails them: the
    key is what tells the two apart."""
    sim = field_sim(indicator_gap_s=1.5)
    try:
        e = make_env(tmp_path, sim)
        await e.sign_in("web-1")
        s = await e.start()
        await s.submit(tasks(2, prefix="g"))
        assert await e.run() == []
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        assert [(r.state, r.attempt) for r in rows] == [("success", 1)] * 2
        assert [r.result_text for r in rows] == sim.answers("web-1")
        await e.close()
        hasty = make_env(
            tmp_path / "b",
            sim,
            site_file=adapter_file(
                tmp_path, replace=("[timing]\n", "[timing]\nsilent_stop_s = 0.5\n")
            ),
            scheduler={"max_attempts": 1},
        )
        await hasty.sign_in("web-1")
        s = await hasty.start()
        await s.submit(tasks(1, prefix="h"))
        assert await hasty.run() == []
        row = hasty.store.get("h0")
        assert row is not None and (row.state, row.error_kind) == ("failed", "server_error")
        assert any("stopped without answering" in m for m in hasty.events("h0"))
        await hasty.close()
    finally:
        sim.stop_in_thread()


async def test_text_markers_never_match_the_conversation(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    """An alert region that covers the whole conversation (as some real UIs' aria-live regions
    do), and a prompt that quotes the rate-limit text: no rate limit."""
    path = adapter_file(
        tmp_path,
        replace=(
            "alert_regions = ['[role=\"alert\"]']",
            "alert_regions = ['[role=\"alert\"]', 'main']",
        ),
    )
    e = make_env(tmp_path, sim, site_file=path)
    await e.sign_in("web-1")
    try:
        s = await e.start()
        about = "about the message Too many requests 请求过于频繁"
        await s.submit(tasks(2, prefix="q", text=about))
        assert await e.run() == []
        rows = e.store.list_tasks()
        assert {(r.state, r.attempt) for r in rows} == {("success", 1)}
    finally:
        await e.close()


async def test_a_toast_left_from_the_last_task_does_not_fail_the_next(env: WebEnv) -> None:
    env.sim.inject("error_midstream", user="web-1")  # its toast stays up for 6 s
    s = await env.start()
    await s.submit(tasks(3, prefix="t"))
    assert await env.run() == []
    rows = env.store.list_tasks()
    assert {r.state for r in rows} == {"success"}
    assert sum(r.attempt for r in rows) == 4  # only the task that met the fault ran twice


async def test_cancel_uses_the_stop_control_on_the_same_variations(
    tmp_path: Path,
) -> None:
    sim = field_sim(latency_s=(2000, 2000))  # 10 s per answer
    try:
        e = make_env(tmp_path, sim)
        await e.sign_in("web-1")
        s = await e.start()
        await s.submit(tasks(1, prefix="c"))
        deadline = time.monotonic() + 30
        while not sim.user_stats("web-1")["active"]:  # the site is generating
            assert time.monotonic() < deadline
            await _sleep(0.1)
        await _sleep(1.5)  # the first chunks are on the page
        await s.cancel(["c0"])
        assert await e.run() == []
        row = e.store.get("c0")
        assert row is not None and row.state == "canceled"
        assert sim.user_stats("web-1")["stopped"] == 1
        assert any("stop control" in m for m in e.events("c0"))
        await e.close()
    finally:
        sim.stop_in_thread()


async def test_a_rate_limit_on_the_same_variations_defers_and_then_answers(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    e = make_env(tmp_path, sim, lanes={"web": {"cooldown_s": 1.0}})
    await e.sign_in("web-1")
    sim.inject("rate_limited", user="web-1")
    try:
        s = await e.start()
        await s.submit(tasks(2, prefix="r"))
        assert await e.run() == []
        rows = e.store.list_tasks()
        assert {(r.state, r.attempt) for r in rows} == {("success", 1)}
        assert any("rate_limited" in m for r in rows for m in e.events(r.task_id))
        assert [r.result_text for r in sorted(rows, key=lambda r: r.started_at or 0)] == (
            sim.answers("web-1")[-2:]
        )
    finally:
        await e.close()


def test_the_sim_adapter_is_valid_and_names_the_variations() -> None:
    adapter = load_adapter(site="sim")
    assert adapter.selectors.new_chat[0] == 'button[data-testid="new-chat"]'
    assert adapter.model_choice is not None and adapter.answer.exclude == [".code-header"]
    assert CHROMIUM


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)
