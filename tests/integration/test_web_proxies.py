"""Web accounts through real proxies (issue 32): real Chromium against the loopback chat site,
one account through tinyproxy with a password, one through Dante's SOCKS5 — counted at the
proxies (Chromium would reach 127.0.0.1 directly without ``<-loopback>`` in its bypass list).
A wrong password and a stopped proxy are the proxy's failures: the tasks go to the other
account with no attempt used, never "logged out" or "the site changed"."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from media_assistant.core.config.schema import parse_config
from media_assistant.core.model.states import AccountState
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_web_lane import CHROMIUM, WebEnv, _cli, our_chromiums, web_tasks
from tests.support.proxies import DanteProxy, TinyProxy, logged

pytestmark = pytest.mark.chromium


@pytest.fixture
def chat_sim() -> Iterator[ChatSiteSimulator]:
    sim = ChatSiteSimulator(ChatSiteConfig(latency_s=(31, 370), time_scale=0.005, seed=7))
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


@pytest.fixture
async def env(
    tmp_path: Path,
    chat_sim: ChatSiteSimulator,
    http_proxy: TinyProxy,
    socks_proxy: DanteProxy,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[WebEnv]:
    monkeypatch.setenv("MA_PROXY_PW", "proxy-pw-7")
    e = WebEnv(tmp_path, chat_sim)
    data = e.config.model_dump(mode="json", exclude_none=True)
    data["accounts"][0]["proxy"] = http_proxy.url.replace("http://", "http://alice@")
    data["accounts"][0]["proxy_password_env"] = "MA_PROXY_PW"
    data["accounts"][1]["proxy"] = socks_proxy.url
    e.config = parse_config(data, "test")
    await e.sign_in("web-1", "web-2")
    yield e
    await e.close()
    left = our_chromiums(tmp_path)
    assert not left, f"chromium processes left behind: {[p.pid for p in left]}"


def sim_port(sim: ChatSiteSimulator) -> int:
    return int(sim.base_url.rsplit(":", 1)[1].rstrip("/"))


async def test_each_web_account_leaves_through_its_own_proxy(
    env: WebEnv, http_proxy: TinyProxy, socks_proxy: DanteProxy
) -> None:
    s = await env.start()
    await s.submit(web_tasks(6))
    assert await env.run() == []
    rows = env.store.list_tasks()
    assert {r.state for r in rows} == {"success"}
    done = {a: sum(1 for r in rows if r.account_id == a) for a in ("web-1", "web-2")}
    assert done["web-1"] and done["web-2"]
    port = sim_port(env.sim)
    # The site is on 127.0.0.1: without "<-loopback>" Chromium would go around both proxies.
    assert http_proxy.requests_to(port) >= done["web-1"]
    # Chromium keeps its connection open; dante logs it after relaying.
    await logged(lambda: socks_proxy.connections_to(port), 1, socks_proxy.log_text)
    stats = env.sim.stats()
    assert stats["web-1"]["completed"] == done["web-1"]
    assert stats["web-2"]["completed"] == done["web-2"]


async def test_a_wrong_or_stopped_proxy_is_the_proxys_failure_not_the_sites(
    env: WebEnv, http_proxy: TinyProxy, socks_proxy: DanteProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MA_PROXY_PW", "not-the-password")
    socks_proxy.stop()  # web-2's proxy does not answer at all
    s = await env.start()
    await s.submit(web_tasks(2))
    for _ in range(200):
        rows = env.store.list_tasks()
        events = [e.message for r in rows for e in env.store.events(r.task_id)]
        if any("proxy_auth" in m for m in events) and any("proxy_unreachable" in m for m in events):
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail(f"no proxy failures reported: {events}")
    assert {r.state for r in rows} == {"pending"}  # back in the queue: nothing failed
    assert all(r.attempt == 1 for r in rows)
    assert any("refused the user name or password (407)" in m for m in events)
    assert any("cannot reach the proxy" in m for m in events)
    assert not any("login" in m.lower() or "site_changed" in m for m in events)
    for account in ("web-1", "web-2"):
        status = await s.accounts.get(account)
        assert status is not None
        assert status.state(env.clock.now()) is not AccountState.NEEDS_LOGIN
    assert env.sim.stats().get("web-1", {}).get("completed", 0) == 0
    assert "not-the-password" not in "\n".join(events)


async def test_sites_probe_opens_the_page_through_the_accounts_proxy(
    env: WebEnv, http_proxy: TinyProxy, socks_proxy: DanteProxy
) -> None:
    """``sites probe`` opens the page the way the account's tasks do: through its proxy with
    its password (``--account``), or ``[network] proxy`` without an account; a proxy that does
    not answer is said as the proxy's failure (exit 1), not a crash."""
    data = env.paths.data_dir
    user_proxy = http_proxy.url.replace("http://", "http://alice@")
    (data / "config.toml").write_text(
        f"""
[browser]
executable = "{CHROMIUM}"
headless = true

[network]
proxy = "{socks_proxy.url}"

[[models]]
name = "web-model"
kind = "web"

[[accounts]]
id = "web-1"
kind = "web"
site = "sim"
origin = "{env.sim.base_url}"
models = ["web-model"]
proxy = "{user_proxy}"
proxy_password_env = "MA_PROXY_PW"
""",
        encoding="utf-8",
    )
    port, url = sim_port(env.sim), f"{env.sim.base_url}/chat"
    probe = await asyncio.to_thread(
        _cli, data, "sites", "probe", url, "--account", "web-1", "--seconds", "0.2"
    )
    assert probe.returncode == 0, probe.stdout + probe.stderr
    assert "div#composer" in probe.stdout  # web-1's signed-in page, through its proxy
    await logged(
        lambda: http_proxy.requests_to(port), 1, http_proxy.log_text
    )  # tinyproxy logs after relaying
    assert socks_proxy.connections_to(port) == 0
    plain = await asyncio.to_thread(_cli, data, "sites", "probe", url, "--seconds", "0.2")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    # No account: the [network] proxy (dante logs the connection after relaying it).
    await logged(lambda: socks_proxy.connections_to(port), 1, socks_proxy.log_text)
    socks_proxy.stop()
    down = await asyncio.to_thread(_cli, data, "sites", "probe", url, "--seconds", "0.2")
    assert down.returncode == 1, down.stdout + down.stderr
    assert "cannot reach the proxy" in down.stderr and "Traceback" not in down.stderr
