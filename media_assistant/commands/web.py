"""Web-account commands: selfcheck, accounts login / check (``sites`` is in sites.py)."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from media_assistant.commands.common import open_services
from media_assistant.core.config.schema import FAKE_SITE, AccountConfig
from media_assistant.core.files.locks import ProfileLock
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import ErrorKind, InputError, ProviderError
from media_assistant.core.model.states import AccountProblem, ModelKind
from media_assistant.services import Services

if TYPE_CHECKING:
    from media_assistant.providers.proxy import ProxyRoute
    from media_assistant.providers.web.adapter import SiteAdapter

EXIT_OK, EXIT_PROBLEM, EXIT_BAD_CONFIG = 0, 1, 2


def web_accounts(services: Services) -> list[AccountConfig]:
    return [a for a in services.config.accounts if a.kind is ModelKind.WEB and a.site != FAKE_SITE]


def cmd_selfcheck(paths: Paths, args: argparse.Namespace) -> int:
    from media_assistant.core.files.locks import DataDirLock
    from media_assistant.providers.web.checkup import run_checkup

    # It stops browsers on our profiles: never while a scheduler (the window, `run`) uses
    # them — that one checks before each web task itself. SchedulerBusy: exit 3.
    lock = DataDirLock(paths.data_dir)
    lock.acquire()
    try:
        services = open_services(paths, args)
        try:
            checkup = run_checkup(services.config, paths, services.accounts)
        finally:
            services.close()
    finally:
        lock.release()
    if args.json:
        print(checkup.to_json())
    else:
        print("\n".join(checkup.lines()))
    return EXIT_OK if checkup.ok else EXIT_PROBLEM


def account_for_browser(services: Services, account_id: str) -> AccountConfig:
    account = services.config.account(account_id)
    if account is None or account.kind is not ModelKind.WEB:
        web = ", ".join(a.id for a in web_accounts(services)) or "none configured"
        raise InputError(f"{account_id!r} is not a web account (web accounts: {web})")
    if account.site == FAKE_SITE:
        raise InputError(f"{account_id!r} uses the in-process simulated site: nothing to log in")
    return account


def cmd_login_or_check(paths: Paths, args: argparse.Namespace) -> int:
    from media_assistant.providers.web.adapter import load_adapter
    from media_assistant.providers.web.executable import resolve_browser
    from media_assistant.providers.web.signin import LoginOutcome, check_login, login_interactive

    services = open_services(paths, args)
    try:
        account = account_for_browser(services, args.account_id)
        adapter = load_adapter(site=account.site, site_file=account.site_file, user_dir=paths.sites)
        choice = resolve_browser(services.config.browser.executable)
        proxy = account_proxy(services, account)
        lock = ProfileLock(paths.profile(account.id))
        if not lock.try_acquire():
            raise InputError(
                f"{account.id}: its browser profile is in use by a running "
                "scheduler; disable the account first (it then releases it)"
            )
        try:
            if args.accounts_command == "login":
                print(f"{account.id}: sign in in the browser window, then close it")
                state = asyncio.run(
                    login_interactive(
                        paths.profile(account.id), choice, adapter, account.origin, proxy=proxy
                    )
                )
            else:
                state = asyncio.run(
                    check_login(
                        paths.profile(account.id), choice, adapter, account.origin, proxy=proxy
                    )
                )
        finally:
            lock.release()
        # Only what the site showed changes the account: a window closed early, a sign-in
        # that timed out or a site that cannot be reached leave its login state as it was.
        if state.logged_in:  # the chat shows: signed in, and past any verification page
            status = services.accounts.get(account.id)
            if status and (
                status.problem is AccountProblem.NEEDS_LOGIN
                or (
                    status.problem is AccountProblem.NEEDS_ATTENTION
                    and status.problem_code == ErrorKind.CAPTCHA.value
                )
            ):
                held = status.problem is AccountProblem.NEEDS_ATTENTION  # and its cool-down
                services.accounts.clear_problem(account.id, cool_down_too=held)
        elif state.says_logged_out:
            services.accounts.set_problem(account.id, AccountProblem.NEEDS_LOGIN, state.detail)
    finally:
        services.close()
    verdict = {LoginOutcome.SIGNED_IN: "logged in", LoginOutcome.SIGNED_OUT: "needs login"}
    print(f"{account.id}: {verdict.get(state.outcome, 'login unchanged')} ({state.detail})")
    return EXIT_OK if state.logged_in else EXIT_PROBLEM


def account_proxy(services: Services, account: AccountConfig) -> ProxyRoute | None:
    """The account's proxy, password found (issue 32); InputError (exit 2) when it has none."""
    from media_assistant.providers.proxy import route_for

    try:
        return route_for(services.config, account)
    except ProviderError as exc:
        raise InputError(exc.message) from None


def site_adapter(services: Services, account: AccountConfig) -> SiteAdapter:
    """The account's adapter as its provider loads it (its ``site_file``, else the installed
    or built-in one)."""
    from media_assistant.providers.web.adapter import load_adapter

    return load_adapter(
        site=account.site, site_file=account.site_file, user_dir=services.paths.sites
    )
