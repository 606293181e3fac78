"""API accounts through real proxies (issue 32): tinyproxy with a password, Dante's SOCKS5, in
front of the API simulator; counted at the proxies and at the simulator. A wrong password and a
stopped proxy are said as the proxy's failures, the tasks go to the other account without an
attempt used, and the account comes back by itself once the proxy answers. The simulator, the
proxies and :class:`Run` are the API lane's (tests/support/api_run.py, the fixtures in
tests/integration/conftest.py)."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import psutil
import pytest

from media_assistant.core.config.proxy import parse_proxy
from media_assistant.core.config.schema import parse_config
from media_assistant.core.model.clock import ManualClock
from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.core.model.provider import TaskSpec
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.site_breakage import AdapterStep, StepStatus
from media_assistant.providers.api.probe import check_connection, list_models
from media_assistant.providers.api.provider import ApiProvider
from media_assistant.providers.proxy import ProxyRoute
from media_assistant.providers.proxy_check import check_proxy, site_check_step
from media_assistant.sim.api_server import ApiSimulator
from tests.integration.test_api_provider import FakeContext
from tests.support.api_run import KEY_A, KEY_B, Run, sim_port
from tests.support.postgres import free_port
from tests.support.proxies import PROXY_PASSWORD, DanteProxy, TinyProxy, logged


@pytest.fixture(autouse=True)
def secrets_in_env(api_keys: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MA_PROXY_PW", PROXY_PASSWORD)


def api_config(base_url: str, http_proxy: str, socks_proxy: str) -> dict[str, Any]:
    user_proxy = http_proxy.replace("http://", "http://alice@")
    return {
        "models": [{"name": "api-model", "kind": "api"}],
        "accounts": [
            {
                "id": "api-a",
                "kind": "api",
                "base_url": base_url,
                "api_key_env": "MA_KEY_A",
                "models": ["api-model"],
                "concurrency": 2,
                "proxy": user_proxy,
                "proxy_password_env": "MA_PROXY_PW",
            },
            {
                "id": "api-b",
                "kind": "api",
                "base_url": base_url,
                "api_key_env": "MA_KEY_B",
                "models": ["api-model"],
                "concurrency": 2,
                "proxy": socks_proxy,
            },
        ],
    }


def tasks(n: int) -> list[Any]:
    from tests.conftest import make_tasks

    return make_tasks(n)


async def test_each_api_account_leaves_through_its_own_proxy(
    tmp_path: Path, api_sim: ApiSimulator, http_proxy: TinyProxy, socks_proxy: DanteProxy
) -> None:
    run = Run(tmp_path, api_config(api_sim.base_url, http_proxy.url, socks_proxy.url))
    assert await run.go(tasks(12)) == []
    rows = run.store.list_tasks()
    assert rows and {r.state for r in rows} == {"success"}
    by_account = {a: sum(1 for r in rows if r.account_id == a) for a in ("api-a", "api-b")}
    assert by_account["api-a"] > 0 and by_account["api-b"] > 0
    stats = api_sim.stats()
    # The simulator saw api-a's requests come through the HTTP proxy (its Via header), and
    # api-b's without one: they came through the SOCKS5 proxy, which adds nothing.
    via_a = [r for r in stats["requests"] if r["key"] == KEY_A and "tinyproxy" in r.get("via", "")]
    assert len(via_a) == stats["keys"][KEY_A]["served"] == by_account["api-a"]
    assert not any("via" in r for r in stats["requests"] if r["key"] == KEY_B)
    # ... and the proxies logged traffic to the simulator. Each request's passage is proven by
    # its Via header above; tinyproxy's log file is written through a stdio buffer, so its last
    # lines may sit unwritten while the proxy idles (the full run saw 30 s of it): no count.
    await logged(lambda: http_proxy.requests_to(sim_port(api_sim)), 1, http_proxy.log_text)
    assert http_proxy.requests_to(sim_port(api_sim)) <= by_account["api-a"]
    await logged(lambda: socks_proxy.connections_to(sim_port(api_sim)), 1, socks_proxy.log_text)
    assert stats["keys"][KEY_B]["served"] == by_account["api-b"]


async def test_a_wrong_proxy_password_is_the_proxys_refusal_and_costs_no_attempt(
    tmp_path: Path,
    api_sim: ApiSimulator,
    http_proxy: TinyProxy,
    socks_proxy: DanteProxy,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MA_PROXY_PW", "not-the-password")
    run = Run(tmp_path, api_config(api_sim.base_url, http_proxy.url, socks_proxy.url))
    assert await run.go(tasks(6)) == []
    rows = run.store.list_tasks()
    assert {r.state for r in rows} == {"success"}
    assert {r.account_id for r in rows} == {"api-b"}  # api-a's tasks went to the other one
    assert all(r.attempt == 1 for r in rows)  # no attempt used up by the proxy
    events = [e.message for r in rows for e in run.store.events(r.task_id)]
    refused = [m for m in events if "proxy_auth" in m]
    assert refused and all("refused the user name or password (407)" in m for m in refused)
    assert not any("logged out" in m or "site_changed" in m for m in events)
    assert api_sim.stats()["keys"].get(KEY_A, {"served": 0})["served"] == 0
    assert "proxy-pw" not in "\n".join(events) and "not-the-password" not in "\n".join(events)


async def test_a_stopped_proxy_waits_with_back_off_and_comes_back_by_itself(
    tmp_path: Path, api_sim: ApiSimulator, http_proxy: TinyProxy, socks_proxy: DanteProxy
) -> None:
    config = parse_config(api_config(api_sim.base_url, http_proxy.url, socks_proxy.url), "test")
    provider = await asyncio.to_thread(ApiProvider.from_config, config, "api-a")
    clock = ManualClock(1_800_000_000.0)

    def context_for(task_id: str, clock: ManualClock) -> FakeContext:
        spec = TaskSpec(task_id, "api-model", ModelKind.API, "api-a", "hello", None, 1)
        return FakeContext(spec, clock)

    try:
        assert (await provider.generate(context_for("t1", clock))).text
        http_proxy.stop()
        pauses = []
        for name in ("t2", "t3", "t4"):
            with pytest.raises(ProviderError) as caught:
                await provider.generate(context_for(name, clock))
            assert caught.value.kind is ErrorKind.PROXY_UNREACHABLE
            assert caught.value.code == "proxy_down"
            assert "cannot reach the proxy" in caught.value.message
            assert "since" in caught.value.message
            pauses.append(caught.value.retry_after)
        assert pauses == [15.0, 30.0, 60.0]
        http_proxy.start()  # the same port: the proxy is back
        assert (await provider.generate(context_for("t5", clock))).text
        assert provider.proxy_backoff.failures == 0
    finally:
        await provider.aclose()


async def test_the_proxy_check_says_what_happened_in_four_ways(
    api_sim: ApiSimulator, http_proxy: TinyProxy, socks_proxy: DanteProxy
) -> None:
    def route(url: str, user: str | None = None, password: str | None = None) -> ProxyRoute:
        setting = parse_proxy(url.replace("://", f"://{user}@") if user else url)
        return ProxyRoute(setting, password)

    site = api_sim.base_url
    closed = f"http://127.0.0.1:{free_port()}/v1"
    good = route(http_proxy.url, "alice", "proxy-pw-7")
    verdicts = {
        "http ok": await check_proxy(good, site),
        "http wrong password": await check_proxy(route(http_proxy.url, "alice", "nope"), site),
        "http no password": await check_proxy(route(http_proxy.url), site),
        "http cannot reach": await check_proxy(good, closed),
        "socks ok": await check_proxy(route(socks_proxy.url), site),
        "socks cannot reach": await check_proxy(route(socks_proxy.url), closed),
    }
    http_proxy.stop()
    socks_proxy.stop()
    verdicts["http down"] = await check_proxy(good, site)
    verdicts["socks down"] = await check_proxy(route(socks_proxy.url), site)
    assert {name: v.outcome for name, v in verdicts.items()} == {
        "http ok": "ok",
        "http wrong password": "proxy_auth",
        "http no password": "proxy_auth",
        "http cannot reach": "proxy_no_route",
        "socks ok": "ok",
        "socks cannot reach": "proxy_no_route",
        "http down": "proxy_down",
        "socks down": "proxy_down",
    }
    assert (
        verdicts["http ok"]
        .message()
        .startswith(f"connected to 127.0.0.1:{sim_port(api_sim)} through http://alice@127.0.0.1:")
    )
    assert "refused the user name or password (407)" in verdicts["http wrong password"].message()
    assert verdicts["http down"].message().startswith("cannot reach the proxy")
    assert "cannot reach 127.0.0.1:" in verdicts["socks cannot reach"].message()
    assert not any("proxy-pw-7" in v.message() for v in verdicts.values())


def test_the_proxy_password_from_the_keyring_and_test_proxy_on_the_command_line(
    tmp_path: Path, api_sim: ApiSimulator, http_proxy: TinyProxy
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(
        f"""
[network]
proxy = "{http_proxy.url.replace("http://", "http://alice@")}"
no_proxy = ["db.example.com"]

[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "api-a"
kind = "api"
base_url = "{api_sim.base_url}"
api_key_env = "MA_KEY_A"
models = ["api-model"]
""",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "MA_PROXY_PW"}
    env.update(
        PYTHON_KEYRING_BACKEND="tests.support.file_keyring.FileKeyring",
        MA_TEST_KEYRING_FILE=str(tmp_path / "keyring.json"),
        PYTHONPATH=str(Path(__file__).parents[2]),
    )

    def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
            [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            input=stdin,
        )

    missing = cli("accounts", "test-proxy", "api-a")
    assert missing.returncode == 2
    assert "set-proxy-password api-a" in missing.stderr
    stored = cli("accounts", "set-proxy-password", "api-a", "--stdin", stdin="proxy-pw-7\n")
    assert stored.returncode == 0, stored.stderr
    assert "stored in the OS keyring" in stored.stdout
    assert "proxy-pw-7" in (tmp_path / "keyring.json").read_text(encoding="utf-8")
    tested = cli("accounts", "test-proxy", "api-a", "--json")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert json.loads(tested.stdout)["outcome"] == "ok"
    before = http_proxy.requests_to(sim_port(api_sim))  # test-proxy's CONNECT
    batch = tmp_path / "b.csv"
    batch.write_text("task_id,prompt,model\nk1,hello,api-model\nk2,again,api-model\n")
    ran = cli("run", str(batch))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert http_proxy.requests_to(sim_port(api_sim)) - before == 2
    assert sum("tinyproxy" in r.get("via", "") for r in api_sim.stats()["requests"]) == 2
    cli("accounts", "set-proxy-password", "api-a", "--stdin", stdin="wrong\n")
    refused = cli("accounts", "test-proxy", "api-a")
    assert refused.returncode == 1
    assert "refused the user name or password (407)" in refused.stdout
    http_proxy.stop()
    down = cli("accounts", "test-proxy", "api-a")
    assert down.returncode == 1 and "cannot reach the proxy" in down.stdout
    # The password lives in the keyring only: not in the config, the database or the logs.
    for path in data.rglob("*"):
        if path.is_file():
            assert b"proxy-pw-7" not in path.read_bytes(), path


async def test_the_site_checks_first_step_is_through_the_proxy(
    api_sim: ApiSimulator, http_proxy: TinyProxy
) -> None:
    route = ProxyRoute(parse_proxy(http_proxy.url.replace("://", "://alice@")), "proxy-pw-7")
    passed, none = await site_check_step(route, api_sim.base_url)
    assert passed.step is AdapterStep.THROUGH_PROXY and passed.status is StepStatus.OK
    assert none is None and passed.detail.startswith("connected to 127.0.0.1:")
    skipped, _ = await site_check_step(None, api_sim.base_url)
    assert skipped.status is StepStatus.SKIPPED
    http_proxy.stop()
    failed, error = await site_check_step(route, api_sim.base_url)
    assert failed.status is StepStatus.FAILED and "cannot reach the proxy" in failed.detail
    assert error is not None and error.kind is ErrorKind.PROXY_UNREACHABLE


async def test_a_proxy_that_tunnels_only_to_443_is_asked_by_forwarding_for_a_plain_http_site(
    tmp_path: Path, api_sim: ApiSimulator
) -> None:
    """Many proxies refuse CONNECT to any port but 443 and still forward plain HTTP, which is
    how a browser and httpx reach an http:// site through them: not a proxy that fails."""
    proxy = TinyProxy(tmp_path / "strict", "alice", "proxy-pw-7", connect_ports=(443,))
    proxy.start()
    try:
        route = ProxyRoute(parse_proxy(proxy.url.replace("://", "://alice@")), "proxy-pw-7")
        assert (await check_proxy(route, api_sim.base_url)).outcome == "ok"
        closed = f"http://127.0.0.1:{free_port()}/v1"
        assert (await check_proxy(route, closed)).outcome == "proxy_no_route"
        wrong = ProxyRoute(route.setting, "nope")
        assert (await check_proxy(wrong, api_sim.base_url)).outcome == "proxy_auth"
    finally:
        proxy.stop()


async def test_the_set_up_checks_go_through_the_accounts_proxy(
    api_sim: ApiSimulator, http_proxy: TinyProxy, socks_proxy: DanteProxy
) -> None:
    """*Fetch the model list* and *Test connection* (providers/api/probe.py) leave the way the
    account's tasks leave: counted at each proxy and seen at the simulator; a proxy that fails
    is said as the proxy's failure, as a task would say it."""
    port = sim_port(api_sim)
    http = ProxyRoute(parse_proxy(http_proxy.url.replace("://", "://alice@")), PROXY_PASSWORD)
    socks = ProxyRoute(parse_proxy(socks_proxy.url))
    assert await list_models(api_sim.base_url, KEY_A, http) == ["sim-chat", "sim-reasoner"]
    answer = await check_connection(api_sim.base_url, KEY_A, "sim-chat", http)
    assert answer.text
    await logged(
        lambda: http_proxy.requests_to(port), 2, http_proxy.log_text
    )  # tinyproxy logs after relaying
    assert http_proxy.requests_to(port) == 2
    via = [r.get("via", "") for r in api_sim.stats()["requests"] if r["key"] == KEY_A]
    assert len(via) == 1 and "tinyproxy" in via[0]  # the one chat request, through it
    before = socks_proxy.connections_to(port)
    assert await list_models(api_sim.base_url, KEY_B, socks) == ["sim-chat", "sim-reasoner"]
    assert (await check_connection(api_sim.base_url, KEY_B, "sim-chat", socks)).text
    await logged(lambda: socks_proxy.connections_to(port), before + 1, socks_proxy.log_text)
    assert not any("via" in r for r in api_sim.stats()["requests"] if r["key"] == KEY_B)
    with pytest.raises(ProviderError) as refused:
        await list_models(api_sim.base_url, KEY_A, ProxyRoute(http.setting, "not-it"))
    assert refused.value.kind is ErrorKind.PROXY_AUTH
    assert "refused the user name or password (407)" in refused.value.message
    assert "not-it" not in refused.value.message and KEY_A not in refused.value.message
    socks_proxy.stop()
    with pytest.raises(ProviderError) as down:
        await check_connection(api_sim.base_url, KEY_B, "sim-chat", socks)
    assert down.value.kind is ErrorKind.PROXY_UNREACHABLE and down.value.code == "proxy_down"
    assert "cannot reach the proxy" in down.value.message


async def test_a_failing_socks_proxy_leaves_no_socket_open(
    api_sim: ApiSimulator, socks_proxy: DanteProxy
) -> None:
    """httpcore kept the connection to a SOCKS5 proxy open whenever the SOCKS handshake failed
    — one socket per attempt, for the process's life. Ten attempts each through a proxy that
    refuses the connection, one that refuses the sign-in, and one that cannot reach the site:
    every error said as the proxy's, and afterwards no socket of this process left to the proxy,
    none left to the garbage collector either (no ResourceWarning)."""
    closed_site = f"http://127.0.0.1:{free_port()}/v1"
    cases = {
        "refused": (ProxyRoute(parse_proxy(f"socks5://127.0.0.1:{free_port()}")), api_sim.base_url),
        "sign-in": (
            ProxyRoute(parse_proxy(socks_proxy.url.replace("://", "://bob@")), "pw"),
            api_sim.base_url,
        ),
        "no route": (ProxyRoute(parse_proxy(socks_proxy.url)), closed_site),
    }
    me = psutil.Process()

    def to_proxies() -> list[Any]:
        ports = {route.setting.port for route, _ in cases.values()}
        return [c for c in me.net_connections(kind="tcp") if c.raddr and c.raddr.port in ports]

    assert to_proxies() == []
    seen: dict[str, set[str | None]] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for name, (route, base_url) in cases.items():
            provider = ApiProvider("api-s", base_url, KEY_A, proxy=route, connect_timeout_s=5)
            try:
                for i in range(10):
                    spec = TaskSpec(
                        f"{name}-{i}", "api-model", ModelKind.API, "api-s", "hi", None, 1
                    )
                    with pytest.raises(ProviderError) as failed:
                        await provider.generate(FakeContext(spec, ManualClock(1_800_000_000.0)))
                    seen.setdefault(name, set()).add(failed.value.code)
                left = to_proxies()  # before the client closes: nothing may linger meanwhile
                assert left == [], f"{name}: {len(left)} socket(s) left open to the proxy"
            finally:
                await provider.aclose()
        gc.collect()
        await asyncio.sleep(0)
    assert seen == {
        "refused": {"proxy_down"},
        "sign-in": {"proxy_auth"},
        "no route": {"proxy_no_route"},
    }
    unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert unclosed == []
