"""Web-account commands: selfcheck, accounts login / check, sites list / probe."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from media_assistant.commands.common import open_services
from media_assistant.core.config.schema import FAKE_SITE, AccountConfig, AppConfig, load_config
from media_assistant.core.files.locks import ProfileLock
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.states import AccountProblem, ModelKind
from media_assistant.services import Services

EXIT_OK, EXIT_PROBLEM, EXIT_BAD_CONFIG = 0, 1, 2


def _web_accounts(services: Services) -> list[AccountConfig]:
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


def _account_for_login(services: Services, account_id: str) -> AccountConfig:
    account = services.config.account(account_id)
    if account is None or account.kind is not ModelKind.WEB:
        web = ", ".join(a.id for a in _web_accounts(services)) or "none configured"
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
        account = _account_for_login(services, args.account_id)
        adapter = load_adapter(site=account.site, site_file=account.site_file, user_dir=paths.sites)
        choice = resolve_browser(services.config.browser.executable)
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
                    login_interactive(paths.profile(account.id), choice, adapter, account.origin)
                )
            else:
                state = asyncio.run(
                    check_login(paths.profile(account.id), choice, adapter, account.origin)
                )
        finally:
            lock.release()
        # Only what the site showed changes the account: a window closed early, a sign-in
        # that timed out or a site that cannot be reached leave its login state as it was.
        if state.logged_in:
            status = services.accounts.get(account.id)
            if status and status.problem is AccountProblem.NEEDS_LOGIN:
                services.accounts.clear_problem(account.id)
        elif state.says_logged_out:
            services.accounts.set_problem(account.id, AccountProblem.NEEDS_LOGIN, state.detail)
    finally:
        services.close()
    verdict = {LoginOutcome.SIGNED_IN: "logged in", LoginOutcome.SIGNED_OUT: "needs login"}
    print(f"{account.id}: {verdict.get(state.outcome, 'login unchanged')} ({state.detail})")
    return EXIT_OK if state.logged_in else EXIT_PROBLEM


def _list_sites(paths: Paths) -> int:
    """Read-only, and without the database: built-in adapters, the operator's, and every
    account's ``site_file``; one that cannot be loaded is listed with why (then exit 2)."""
    from media_assistant.providers.adapter_check import adapter_entries
    from media_assistant.providers.web.adapter import STALE_AFTER_DAYS

    config = load_config(paths.config_file) if paths.config_file.exists() else AppConfig()
    broken = stale = 0
    for e in adapter_entries(config, paths):
        used = f"  (account {', '.join(e.used_by)})" if e.used_by else ""
        where = f"{e.where} {e.path}" if e.where == "site_file" else e.where
        if e.adapter is None:
            broken += 1
            print(f"{e.site:<10} {'CANNOT BE LOADED':<28} {where}{used}")
            for line in (e.error or "").splitlines():
                print(f"{'':<10} {line}")
            continue
        verified = e.adapter.verified_at.isoformat() if e.adapter.verified_at else "never"
        warning = e.adapter.staleness_warning()
        stale += bool(warning)
        mark = f"  STALE: not re-checked for over {STALE_AFTER_DAYS} days" if warning else ""
        print(f"{e.site:<10} {e.adapter.name:<28} {where:<9} verified {verified}{mark}{used}")
    if stale:
        print(
            f"\nSTALE: the adapter was last checked against its live site over "
            f"{STALE_AFTER_DAYS} days ago. It keeps working unless the site changed its "
            "page. If that site's tasks start failing (timeouts, no answer found): "
            "`media-assistant sites probe URL` lists the page's current composer and "
            f"buttons; put a fixed copy in {paths.sites}/<id>.toml (it overrides the "
            "built-in one), or ask for an updated Media Assistant."
        )
    if broken:
        print(f"error: {broken} site adapter(s) cannot be loaded (see above)", file=sys.stderr)
        return EXIT_BAD_CONFIG
    return EXIT_OK


def cmd_sites(paths: Paths, args: argparse.Namespace) -> int:
    if args.sites_command == "list":
        return _list_sites(paths)
    from media_assistant.providers.web.executable import resolve_browser
    from media_assistant.providers.web.probe import probe

    services = open_services(paths, args, read_only=True, require_config=False)
    try:
        choice = resolve_browser(services.config.browser.executable)
        if args.account:
            account = _account_for_login(services, args.account)
            lock = ProfileLock(paths.profile(account.id))
            if not lock.try_acquire():
                raise InputError(f"{account.id}: profile in use by a running scheduler")
            try:
                report = asyncio.run(
                    probe(
                        args.url,
                        paths.profile(account.id),
                        choice,
                        watch_s=args.seconds,
                        show=args.show,
                    )
                )
            finally:
                lock.release()
        else:
            with tempfile.TemporaryDirectory(prefix="ma-probe-") as tmp:
                report = asyncio.run(
                    probe(args.url, Path(tmp), choice, watch_s=args.seconds, show=args.show)
                )
    finally:
        services.close()
    sys.stdout.write("\n".join(report.lines()) + "\n")
    return EXIT_OK
