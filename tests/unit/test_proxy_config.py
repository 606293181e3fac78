"""Account proxies in the configuration (issue 32): what the one schema accepts and refuses,
how an account's proxy is resolved from its table and [network], and what the browser and
httpx are given."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from media_assistant.core.config.proxy import effective_proxy
from media_assistant.core.config.schema import check_config, parse_config
from media_assistant.providers.proxy import (
    ProxyRoute,
    browser_args,
    httpx_options,
    playwright_proxy,
)

BASE: dict[str, Any] = {
    "models": [{"name": "w", "kind": "web"}, {"name": "a", "kind": "api"}],
    "accounts": [
        {"id": "w1", "kind": "web", "models": ["w"], "site": "deepseek"},
        {"id": "a1", "kind": "api", "models": ["a"], "base_url": "http://api.local/v1"},
    ],
}


def problems(
    network: dict[str, Any] | None = None, web: dict[str, Any] | None = None, **api: Any
) -> list[tuple[str, str, str]]:
    data = copy.deepcopy(BASE)
    if network is not None:
        data["network"] = network
    data["accounts"][0].update(web or {})
    data["accounts"][1].update(api)
    _, found = check_config(data)
    return [(p.where(data), p.code, p.message) for p in found]


def test_the_three_schemes_with_a_user_are_accepted() -> None:
    assert problems(web={"proxy": "http://alice@10.0.0.5:3128"}, proxy="socks5://bob@h:1080") == []
    assert problems(web={"proxy": "https://proxy.example.com:443"}) == []
    assert problems(network={"proxy": "", "no_proxy": ["db.local", ".corp", "10.0.0.0/8"]}) == []


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("ftp://h:21", "proxy_scheme"),
        ("h:3128", "proxy_scheme"),
        ("http://h", "proxy_host_port"),
        ("http://h:3128/path", "proxy_host_port"),
        ("http://alice:hunter2secret@h:3128", "proxy_password_in_url"),
    ],
)
def test_a_bad_proxy_is_refused_at_its_key(value: str, code: str) -> None:
    found = problems(web={"proxy": value})
    assert [(where, c) for where, c, _ in found] == [("accounts[0] (w1).proxy", code)]
    assert "hunter2secret" not in found[0][2]  # never repeated


def test_socks5_with_a_user_is_refused_for_web_accounts_with_what_to_use_instead() -> None:
    found = problems(web={"proxy": "socks5://alice@h:1080"})
    assert [(w, c) for w, c, _ in found] == [("accounts[0] (w1).proxy", "web_socks_password")]
    assert "Chromium cannot" in found[0][2] and "http://USER@HOST:PORT" in found[0][2]
    # ... also when it comes from [network]; an API account may use it (httpx can).
    found = problems(network={"proxy": "socks5://alice@h:1080"})
    assert [c for _, c, _ in found] == ["web_socks_password"]
    assert "[network] proxy" in found[0][2]
    assert problems(proxy="socks5://alice@h:1080") == []


def test_a_password_env_needs_a_user_and_a_variable_name() -> None:
    assert [c for _, c, _ in problems(proxy="http://h:1", proxy_password_env="PW")] == [
        "proxy_password_without_user"
    ]
    assert [c for _, c, _ in problems(proxy="http://u@h:1", proxy_password_env="pw value")] == [
        "proxy_password_env_name"
    ]
    assert [c for _, c, _ in problems(no_proxy=["bad host!"])] == ["no_proxy_host"]


def test_an_accounts_proxy_its_own_else_the_networks_and_empty_goes_direct() -> None:
    data = copy.deepcopy(BASE)
    data["network"] = {
        "proxy": "http://alice@p.local:3128",
        "proxy_password_env": "NET_PW",
        "no_proxy": ["db.local"],
    }
    data["accounts"][0]["proxy"] = ""
    cfg = parse_config(data, "test")
    web, api = (effective_proxy(cfg.network, a) for a in cfg.accounts)
    assert web is not None and web.direct and web.shown == "direct"
    assert api is not None and api.shown == "http://alice@p.local:3128"
    assert api.password_env == "NET_PW" and api.needs_password
    assert api.bypasses("db.local") and not api.bypasses("api.local")
    bare = parse_config(BASE, "t")
    assert effective_proxy(bare.network, bare.accounts[1]) is None  # the system's settings


def test_the_browser_gets_the_server_and_the_password_apart_and_loopback_through() -> None:
    data = copy.deepcopy(BASE)
    data["accounts"][0]["proxy"] = "http://alice@p.local:3128"
    data["accounts"][0]["no_proxy"] = [".corp"]
    cfg = parse_config(data, "t")
    setting = effective_proxy(cfg.network, cfg.accounts[0])
    assert setting is not None
    route = ProxyRoute(setting, "pw-1")
    option = playwright_proxy(route)
    assert option == {
        "server": "http://p.local:3128",
        "bypass": "<-loopback>,.corp",
        "username": "alice",
        "password": "pw-1",
    }
    assert browser_args(route) == []  # nothing of the proxy on the command line
    assert "pw-1" not in repr(route)
    direct = effective_proxy(cfg.network, cfg.accounts[1])
    assert direct is None and playwright_proxy(None) is None and browser_args(None) == []


def test_httpx_goes_through_the_proxy_unless_the_host_is_listed_or_direct() -> None:
    data = copy.deepcopy(BASE)
    data["accounts"][1]["proxy"] = "socks5://bob@s.local:1080"
    data["accounts"][1]["no_proxy"] = ["direct.local"]
    cfg = parse_config(data, "t")
    setting = effective_proxy(cfg.network, cfg.accounts[1])
    assert setting is not None
    route = ProxyRoute(setting, "pw-2")
    options = httpx_options(route, "http://api.local/v1")
    assert options["trust_env"] is False
    assert str(options["proxy"].url) == "socks5://s.local:1080"
    assert options["proxy"].raw_auth == (b"bob", b"pw-2")
    assert httpx_options(route, "http://direct.local/v1") == {"trust_env": False}
    assert httpx_options(None, "http://api.local/v1") == {}  # as before: the environment's
