"""accounts set-proxy-password / test-proxy (issue 32).

``set-proxy-password ID`` keeps the password of the account's proxy in the OS keyring (asked
without echo, or one line from standard input), under the proxy and its user: every account
that goes through that proxy as that user finds it. A running scheduler rebuilds the account's
provider within a second. ``test-proxy ID`` asks the proxy to reach the account's own site (or
base URL) and says what happened: exit 0 when it did, 1 when not.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys

from media_assistant.commands.common import open_services, print_json
from media_assistant.core.config.proxy import effective_proxy
from media_assistant.core.config.schema import FAKE_SITE, AccountConfig
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import InputError, ProviderError
from media_assistant.core.model.states import ModelKind
from media_assistant.services import Services

EXIT_OK, EXIT_PROBLEM = 0, 1


def cmd_proxy(paths: Paths, args: argparse.Namespace) -> int:
    services = open_services(paths, args, read_only=args.accounts_command == "test-proxy")
    try:
        account = services.config.account(args.account_id)
        if account is None:
            known = ", ".join(a.id for a in services.config.accounts) or "none configured"
            raise InputError(f"unknown account {args.account_id!r} (known: {known})")
        if args.accounts_command == "set-proxy-password":
            _set_password(services, account, from_stdin=args.stdin)
            return EXIT_OK
        return _test(services, account, as_json=args.json)
    finally:
        services.close()


def _set_password(services: Services, account: AccountConfig, *, from_stdin: bool) -> None:
    from media_assistant.providers.secrets import store_proxy_password

    proxy = effective_proxy(services.config.network, account)
    if proxy is None or proxy.direct or not proxy.username:
        raise InputError(
            f"{account.id}: its proxy names no user, so it has no password to keep; write the "
            "proxy as http://USER@HOST:PORT (the account's 'proxy', or [network] proxy) first"
        )
    password = (
        sys.stdin.readline().rstrip("\r\n")
        if from_stdin
        else getpass.getpass(f"password of proxy {proxy.shown} for {account.id}: ")
    )
    if not password:
        raise InputError("empty password: nothing stored")
    store_proxy_password(account.id, proxy, password)  # ConfigError (exit 2) says why not
    services.accounts.request_rebuild(account.id)  # a running scheduler takes it at once
    print(f"{account.id}: password of proxy {proxy.shown} stored in the OS keyring")


def site_url(services: Services, account: AccountConfig) -> str:
    """Where the account's requests go: its base URL, its origin, or its adapter's."""
    if account.kind is ModelKind.API:
        assert account.base_url is not None
        return account.base_url
    if account.origin:
        return account.origin
    if account.site == FAKE_SITE:
        raise InputError(f"{account.id} uses the in-process simulated site: no proxy to test")
    from media_assistant.providers.web.adapter import load_adapter

    adapter = load_adapter(
        site=account.site, site_file=account.site_file, user_dir=services.paths.sites
    )
    return adapter.origin


def _test(services: Services, account: AccountConfig, *, as_json: bool) -> int:
    from media_assistant.providers.proxy import route_for
    from media_assistant.providers.proxy_check import check_proxy

    try:
        route = route_for(services.config, account)
    except ProviderError as exc:
        raise InputError(exc.message) from None
    url = site_url(services, account)
    if route is None or not route.applies_to(url):
        why = "none is configured" if route is None else f"{url} goes direct"
        if as_json:
            print_json({"account": account.id, "proxy": None, "outcome": "no_proxy", "ms": None})
        else:
            print(f"{account.id}: no proxy to test ({why})")
        return EXIT_OK
    verdict = asyncio.run(check_proxy(route, url))
    if as_json:
        print_json(
            {
                "account": account.id,
                "proxy": verdict.proxy,
                "target": verdict.target,
                "outcome": verdict.outcome,
                "ms": verdict.ms,
                "message": verdict.message(),
            }
        )
    else:
        print(f"{account.id}: {verdict.message()}")
    return EXIT_OK if verdict.ok else EXIT_PROBLEM
