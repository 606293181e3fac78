"""Issue 25, item 4: no task loops forever, whatever fault the simulators can inject.

Every fault of the chat site (``ChatFault`` and its page redesigns, ``BREAKAGES``; real
Chromium) and of the API (``Fault``, real HTTP) — walked from the simulators' own lists, so a
fault added later joins by itself — is injected "forever" (every request, not once), on two
tasks: one fresh, one after a killed attempt (a run that died mid-attempt: its row left running
by a dead owner and, on the web, the record of a prompt sent whose conversation was never named
— the leftover of issue 25). Every task must end
— succeeded, failed, or held by a verdict a person must lift (its account needs the operator) —
within the bound the configuration gives, and the scheduler's run must end.

The bound, from the configuration (README, Reliability): each attempt takes at most the lane's
``task_timeout_s``; between attempts a back-off of at most ``backoff_cap_s``; a task may be
excused (deferred, attempt kept) :data:`MAX_EXCUSED_IN_A_ROW` times, each an attempt's time and
a pause; deferrals for the site's own "not now" stop at ``deadline_s`` from the first start:

    max_attempts × (task_timeout_s + backoff_cap_s)
    + MAX_EXCUSED_IN_A_ROW × (task_timeout_s + LEFTOVER_RETRY_S) + deadline_s + slack

Short timeouts here (the sim adapter's waits, :data:`SIM_TIMING`; the simulators' time scale)
and one signed-in profile copied into every case (:class:`SignedIn`) keep it fast; the rule is
the same as with the defaults.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from media_assistant.core.config.schema import AppConfig, parse_config
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.excuses import MAX_EXCUSED_IN_A_ROW
from media_assistant.providers.web import leftover as web_leftover
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.leftover import SentPrompt, SentRecord
from media_assistant.providers.web.signin import visit
from media_assistant.sim.api_faults import Fault
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec
from media_assistant.sim.chat_config import BREAKAGES, ChatSiteConfig
from media_assistant.sim.chat_faults import ChatFault
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_web_lane import CHROMIUM, WebEnv, our_chromiums
from tests.support.api_run import Run

ENDED = {"success", "failed", "canceled"}
SLACK_S = 15.0  # starting browsers, the scheduler's polls, a loaded CI machine
KILLED_OWNER = "killed-run"
# Every fault the chat site can be told to produce: its fault list, and its page redesigns.
CHAT_FAULTS = [f.value for f in ChatFault] + sorted(BREAKAGES)
# Two attempts (the default is 3): the same rule, less time in CI.
SCHEDULER = {"max_attempts": 2}
# The sim adapter's waits, short: the simulated site answers its first token within 0.2 s and
# its whole answer within 2 s (time_scale), and shows its slow render after 2 s; a wait that
# runs out on a loaded machine is a failure like any other, and still ends the task.
SIM_TIMING = {
    "first_token_timeout_s": 4,
    "hard_timeout_s": 20,  # the killed attempt's leftover shadows the run: kept
    "idle_timeout_s": 4,
    "new_chat_timeout_s": 3,
    "page_load_timeout_s": 5,
    "send_timeout_s": 3,
    "silent_stop_s": 2,
    "done_grace_s": 3,
}
LANES = {
    "web": {
        "task_timeout_s": 25.0,
        "backoff_base_s": 0.2,
        "backoff_cap_s": 0.5,
        # Kept: shorter, the site's "not now" and the excuses would end in "deadline" before
        # the attempts' own rule is met (a browser launch takes 5-8 s on a loaded machine).
        "deadline_s": 8.0,
        "cooldown_s": 0.5,
    },
    "api": {
        "task_timeout_s": 5.0,
        "backoff_base_s": 0.2,
        "backoff_cap_s": 0.5,
        "deadline_s": 5.0,
        "cooldown_s": 0.5,
        "idle_timeout_s": 1.0,
        "connect_timeout_s": 2.0,
    },
}


def bound_s(config: AppConfig, kind: ModelKind) -> float:
    lane = config.lane(kind)
    attempts = config.scheduler.max_attempts
    return (
        attempts * (lane.task_timeout_s + lane.backoff_cap_s)
        + MAX_EXCUSED_IN_A_ROW * (lane.task_timeout_s + web_leftover.LEFTOVER_RETRY_S)
        + lane.deadline_s
        + SLACK_S
    )


def kill_an_attempt(config: AppConfig, store: Any, kind: ModelKind, account_id: str) -> str:
    """Claim the head task as a run that then died (kill -9): its row stays running."""
    claim = store.claim_next(
        kind=kind,
        account_id=account_id,
        models=[config.models[0].name],
        owner_id=KILLED_OWNER,
        deadline_s=config.lane(kind).deadline_s,
    )
    assert claim is not None
    return str(claim.task_id)


def assert_all_ended(rows: list[Any], stuck: list[Any], started: float, bound: float) -> None:
    took = time.monotonic() - started
    assert took <= bound, f"the run took {took:.0f} s, more than the bound {bound:.0f} s"
    for row in rows:
        if row.state in ENDED:
            continue
        # Held: pending, its model stuck (every account waits for the operator).
        assert row.state == "pending", (row.task_id, row.state, row.error_message)
        assert any(s.model == row.model for s in stuck), (row.task_id, row.error_kind, stuck)


# ------------------------------------------------------------------------------------ web


@pytest.fixture(scope="module")
def chat_site() -> Any:
    site = ChatSiteSimulator(
        ChatSiteConfig(latency_s=(31, 100), time_scale=0.02, seed=5, slow_render_s=2.0)
    )
    site.start_in_thread()
    yield site
    site.stop_in_thread()


class SignedIn:
    """One signed-in profile of the site's user ``web-1`` for every case of the module: each
    case starts from a copy of it (a fresh profile, already logged in) instead of launching a
    Chromium of its own to sign in — that launch took as long as a case's own run. A case that
    logs the user out on the site (``login_expired`` revokes every session issued so far) marks
    it stale; the next case signs in again."""

    def __init__(self, root: Path) -> None:
        self.profile = root / "web-1"
        self.stale = True

    async def copy_to(self, env: WebEnv) -> None:
        if self.stale:
            shutil.rmtree(self.profile, ignore_errors=True)
            choice = resolve_browser(CHROMIUM)
            await visit(self.profile, choice, f"{env.sim.base_url}/_sim/autologin?user=web-1")
            self.stale = False
        target = env.paths.profile("web-1")
        shutil.rmtree(target, ignore_errors=True)
        # The browser's lock of the closed sign-in browser is not copied (no other holder).
        shutil.copytree(
            self.profile, target, symlinks=True, ignore=shutil.ignore_patterns("Singleton*")
        )


@pytest.fixture(scope="module")
def signed_in(tmp_path_factory: pytest.TempPathFactory) -> SignedIn:
    return SignedIn(tmp_path_factory.mktemp("signed-in"))


def short_sim_adapter(env: WebEnv) -> None:
    """The operator's copy of the sim adapter with short waits (the rule is the same)."""
    builtin = Path("resources/sites/sim.toml").read_text(encoding="utf-8")
    timing = "[timing]\n" + "".join(f"{key} = {value}\n" for key, value in SIM_TIMING.items())
    env.paths.sites.mkdir(parents=True, exist_ok=True)
    (env.paths.sites / "sim.toml").write_text(
        builtin.replace("[timing]\n", timing, 1), encoding="utf-8"
    )


@pytest.mark.chromium
@pytest.mark.expect_errors(r"aiohttp\.server")
@pytest.mark.parametrize("fault", CHAT_FAULTS)
async def test_every_chat_fault_ends_every_task(
    tmp_path: Path,
    chat_site: ChatSiteSimulator,
    signed_in: SignedIn,
    fault: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(web_leftover, "LEFTOVER_RETRY_S", 1.0)
    chat_site.reset()
    env = WebEnv(tmp_path, chat_site, accounts=1)
    raw = {**_web_raw(chat_site), "lanes": {"web": LANES["web"]}, "scheduler": SCHEDULER}
    env.config = parse_config(raw, "test")
    try:
        await signed_in.copy_to(env)
        short_sim_adapter(env)
        env.store.submit(
            [
                NewTask("killed", "web-model", ModelKind.WEB, "Question killed-1", "b"),
                NewTask("fresh", "web-model", ModelKind.WEB, "Question fresh-1", "b"),
            ],
            max_attempts=env.config.scheduler.max_attempts,
        )
        killed = kill_an_attempt(env.config, env.store, ModelKind.WEB, "web-1")
        # What the killed run left on the site: a prompt sent, its conversation never named.
        SentRecord(env.paths.profile("web-1")).write(
            SentPrompt(killed, 1, time.time(), f"{chat_site.base_url}/chat")
        )
        # Forever: every request (or page load) of the account meets it.
        if fault in BREAKAGES:
            chat_site.break_page(fault)  # the site changed its page
        else:
            chat_site.inject(fault, count=10_000, user="web-1")
            signed_in.stale |= fault == ChatFault.LOGIN_EXPIRED  # its sessions are revoked
        started = time.monotonic()
        bound = bound_s(env.config, ModelKind.WEB)
        await env.start()
        stuck = await env.run(timeout=bound)
        assert_all_ended(env.store.list_tasks(), stuck, started, bound)
        # And its prompt was not sent again and again: at most once an attempt, plus the
        # excuses (the site's own "not now" is bounded by time instead: deadline_s).
        sent = chat_site.user_stats("web-1")["texts"]
        most = env.config.scheduler.max_attempts + MAX_EXCUSED_IN_A_ROW
        for row in env.store.list_tasks():
            if row.error_kind != "deadline":
                times = sum(row.prompt in text for text in sent)
                assert times <= most, (row.task_id, row.error_kind, times)
        if fault not in (ChatFault.LOGIN_EXPIRED, "login_wall"):  # the shared sign-in held
            assert all(r.error_kind != "login_required" for r in env.store.list_tasks())
        if fault == ChatFault.BROWSER_CRASH:  # it did die, for real, every attempt it streamed
            assert chat_site.user_stats("web-1")["browsers_crashed"]
    finally:
        await env.close()
        chat_site.reset()
        chat_site.break_page(None)
    assert not our_chromiums(tmp_path)


@pytest.mark.chromium
@pytest.mark.expect_errors(r"aiohttp\.server")
async def test_a_browser_that_crashes_mid_answer_is_retried_on_the_same_row(
    tmp_path: Path, chat_site: ChatSiteSimulator, signed_in: SignedIn
) -> None:
    """The account's Chromium dies for real (SIGKILL of its process tree, from the simulator:
    fault ``browser_crash``) while the site streams the answer: the attempt counts, the task
    goes back on its own row and gets its answer with a fresh browser; its own crashed attempt
    never excuses anything (no deferral, no second generation on the site), and the task after
    it gets its own answer on the same account."""
    chat_site.reset()
    env = WebEnv(tmp_path, chat_site, accounts=1)
    raw = {**_web_raw(chat_site), "lanes": {"web": LANES["web"]}, "scheduler": SCHEDULER}
    env.config = parse_config(raw, "test")
    try:
        await signed_in.copy_to(env)
        short_sim_adapter(env)
        env.store.submit(
            [
                NewTask("crash", "web-model", ModelKind.WEB, "Question crash-1", "b"),
                NewTask("after", "web-model", ModelKind.WEB, "Question after-1", "b"),
            ],
            max_attempts=env.config.scheduler.max_attempts,
        )
        chat_site.inject(ChatFault.BROWSER_CRASH, count=1, user="web-1")
        await env.start()
        assert await env.run(timeout=bound_s(env.config, ModelKind.WEB)) == []
        stats = chat_site.user_stats("web-1")
        (killed,) = stats["browsers_crashed"]  # it did die, and only once
        crash, after = env.store.get("crash"), env.store.get("after")
        assert crash is not None and after is not None
        assert (crash.state, crash.attempt) == ("success", 2), crash.error_message
        assert "crash-1" in (crash.result_text or "")
        assert after.state == "success" and "after-1" in (after.result_text or "")
        assert len(env.store.list_tasks()) == 2  # the same rows, retried in place
        events = env.store.events("crash")
        codes = [e.code for e in events]
        (retry,) = [e for e in events if e.code == "retry_scheduled"]
        assert retry.params["error_kind"] == "browser_crashed", retry.params
        assert "deferred" not in codes  # its own crash is no leftover that excuses it
        pids = [
            e.params["pid"]
            for t in ("crash", "after")
            for e in env.store.events(t)
            if e.code == "browser_started"
        ]
        assert pids[0] == killed and len(set(pids)) == 2, (pids, killed)  # a fresh browser
        assert not psutil.pid_exists(killed) or psutil.Process(killed).status() == "zombie"
        assert sum("crash-1" in t for t in stats["texts"]) == 2  # sent once an attempt
        assert stats["max_concurrent"] == 1 and stats["conflicts"] == 0
    finally:
        await env.close()
        chat_site.reset()
    assert not our_chromiums(tmp_path)


def _web_raw(site: ChatSiteSimulator) -> dict[str, Any]:
    return {
        "browser": {"executable": CHROMIUM, "headless": True},
        "models": [{"name": "web-model", "kind": "web"}],
        "accounts": [
            {
                "id": "web-1",
                "kind": "web",
                "site": "sim",
                "origin": site.base_url,
                "models": ["web-model"],
            }
        ],
    }


# ------------------------------------------------------------------------------------ api

KEY = "sk-sim-termination"


@pytest.fixture(scope="module")
def api_site() -> Any:
    sim = ApiSimulator(
        ApiSimConfig(latency_s=(8, 20), time_scale=0.02, seed=7, keys={KEY: KeySpec()})
    )
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


# The simulator's own server logs a client that left mid-stream (a hang, a stall, a timeout).
@pytest.mark.expect_errors(r"aiohttp\.server")
@pytest.mark.parametrize("fault", list(Fault), ids=lambda f: f.value)
async def test_every_api_fault_ends_every_task(
    tmp_path: Path, api_site: ApiSimulator, fault: Fault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MA_TERMINATION_KEY", KEY)
    api_site.reset()
    run = Run(
        tmp_path,
        {
            "models": [{"name": "api-model", "kind": "api"}],
            "accounts": [
                {
                    "id": "api-1",
                    "kind": "api",
                    "base_url": api_site.base_url,
                    "api_key_env": "MA_TERMINATION_KEY",
                    "models": ["api-model"],
                    "concurrency": 2,
                }
            ],
            "lanes": {"api": LANES["api"]},
            "scheduler": SCHEDULER,
        },
    )
    run.store.submit(
        [
            NewTask("killed", "api-model", ModelKind.API, "Question killed-1", "b"),
            NewTask("fresh", "api-model", ModelKind.API, "Question fresh-1", "b"),
        ],
        max_attempts=run.config.scheduler.max_attempts,
    )
    kill_an_attempt(run.config, run.store, ModelKind.API, "api-1")
    api_site.inject(fault, count=10_000)
    started = time.monotonic()
    bound = bound_s(run.config, ModelKind.API)
    stuck = await run.go([], timeout=bound)
    try:
        assert_all_ended(run.store.list_tasks(), stuck, started, bound)
    finally:
        api_site.reset()


def test_the_fault_lists_are_walked_whole() -> None:
    """A fault added to a simulator joins the termination test by itself (the parametrize
    above reads the enums); this holds the lists to what the issue names."""
    assert set(CHAT_FAULTS) >= {"composer_renamed", "login_wall"}
    assert {f.value for f in ChatFault} >= {
        "error_midstream",
        "error_in_answer",
        "silent_failure",
        "rate_limited",
        "captcha",
        "login_expired",
        "browser_crash",
    }
    assert {f.value for f in Fault} >= {"500", "429", "hang"}
    assert asyncio.iscoroutinefunction(test_every_chat_fault_ends_every_task)
