"""``sites list / probe / check / install / rollback``: the site adapters of web accounts.

``check`` sends one tiny prompt through an account's real chat page and reports every adapter
step (providers/web/canary.py). It drives the account's browser, so it needs the account to
itself: with a scheduler running on the data folder (the desktop app, ``run``) it is refused
with exit 3 — that scheduler owns the accounts' browsers; its window checks a site through the
scheduler (the account's menu, *Check site*), between two tasks. A check is a prompt like any
other: it obeys the account's pacing (exit 10 while the pacing holds the account, unless
``--wait``) and counts in it.

``install`` validates an adapter file and makes it the one its site uses from every scheduler's
next task (they notice the request in the accounts table); ``rollback`` puts back what it
replaced.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from media_assistant.commands.common import open_services
from media_assistant.commands.web import (
    account_for_browser,
    account_proxy,
    site_adapter,
    web_accounts,
)
from media_assistant.core.accounts.pacer import Pacer
from media_assistant.core.config.schema import AccountConfig, AppConfig, load_config
from media_assistant.core.files.locks import DataDirLock, ProfileLock
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.errors import InputError, SchedulerBusy
from media_assistant.core.rules.pacing import PacingConfig, resolve_policy
from media_assistant.core.rules.site_breakage import SiteCheckReport
from media_assistant.core.store.pacing import PacingStore
from media_assistant.providers.web.adapter_files import (
    accounts_on,
    install_adapter,
    rollback_adapter,
)
from media_assistant.services import Services

if TYPE_CHECKING:
    from media_assistant.providers.proxy import ProxyRoute

EXIT_OK, EXIT_PROBLEM, EXIT_BAD_CONFIG = 0, 1, 2
EXIT_PACED = 10  # sites check: the account's pacing holds its next prompt; nothing was sent


def cmd_sites(paths: Paths, args: argparse.Namespace) -> int:
    handlers = {
        "list": lambda: _list_sites(paths),
        "probe": lambda: _probe(paths, args),
        "check": lambda: _check(paths, args),
        "install": lambda: _install(paths, args),
        "rollback": lambda: _rollback(paths, args),
        "repair": lambda: _repair(paths, args),
    }
    return handlers[args.sites_command]()


# ------------------------------------------------------------------------------------- list


def _list_sites(paths: Paths) -> int:
    """Read-only, and without the database: built-in adapters, the installed ones, and every
    account's ``site_file``, with the version in use; one that cannot be loaded is listed with
    why (then exit 2)."""
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
        in_use = f"{where} {e.version}"
        if e.where == "installed" and e.builtin_version:
            in_use += f" (over built-in {e.builtin_version})"
        if e.previous:
            in_use += f"; rollback: {e.previous}"
        print(f"{e.site:<10} {e.adapter.name:<28} {in_use}  verified {verified}{mark}{used}")
    if stale:
        print(
            f"\nSTALE: the adapter was last checked against its live site over "
            f"{STALE_AFTER_DAYS} days ago. It keeps working unless the site changed its "
            "page. If that site's tasks start failing: `media-assistant sites check` names the "
            "step that broke, `media-assistant sites probe URL` lists the page's current "
            f"composer and buttons; install a fixed copy with `media-assistant sites install "
            f"FILE` (it goes to {paths.sites}/<id>.toml and overrides the built-in one), or ask "
            "for an updated Media Assistant."
        )
    if broken:
        print(f"error: {broken} site adapter(s) cannot be loaded (see above)", file=sys.stderr)
        return EXIT_BAD_CONFIG
    return EXIT_OK


# ------------------------------------------------------------------------------------- probe


def _probe(paths: Paths, args: argparse.Namespace) -> int:
    from playwright.async_api import Error as PlaywrightError

    from media_assistant.providers.web.executable import resolve_browser
    from media_assistant.providers.web.probe import probe

    services = open_services(paths, args, read_only=True, require_config=False)
    try:
        choice = resolve_browser(services.config.browser.executable)
        account = account_for_browser(services, args.account) if args.account else None
        # The way the account's tasks go out (issue 32); without an account, [network] proxy.
        route = account_proxy(services, account) if account else _network_proxy(services)
        try:
            if account is not None:
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
                            proxy=route,
                        )
                    )
                finally:
                    lock.release()
            else:
                with tempfile.TemporaryDirectory(prefix="ma-probe-") as tmp:
                    report = asyncio.run(
                        probe(
                            args.url,
                            Path(tmp),
                            choice,
                            watch_s=args.seconds,
                            show=args.show,
                            proxy=route,
                        )
                    )
        except PlaywrightError as exc:
            failing = asyncio.run(_proxy_failure(route, args.url, exc))
            if failing is None:
                raise
            print(f"error: {args.url} could not be opened: {failing}", file=sys.stderr)
            return EXIT_PROBLEM
    finally:
        services.close()
    sys.stdout.write("\n".join(report.lines()) + "\n")
    return EXIT_OK


def _network_proxy(services: Services) -> ProxyRoute | None:
    """``[network] proxy`` with its password (``sites probe`` without ``--account``)."""
    from media_assistant.core.config.proxy import parse_proxy
    from media_assistant.core.model.errors import ProviderError
    from media_assistant.providers.proxy import ProxyRoute
    from media_assistant.providers.secrets import resolve_proxy_password

    network = services.config.network
    if network.proxy is None:
        return None
    setting = parse_proxy(network.proxy, network.proxy_password_env, tuple(network.no_proxy))
    if setting.direct:
        return ProxyRoute(setting)
    try:
        return ProxyRoute(setting, resolve_proxy_password("[network]", setting, fresh=True))
    except ProviderError as exc:
        raise InputError(exc.message) from None


async def _proxy_failure(route: ProxyRoute | None, url: str, exc: Exception) -> str | None:
    """A page that did not open through a proxy: the proxy's failure in words, when it is the
    proxy that fails (the same question a task asks: providers/proxy_check.py); else None."""
    from media_assistant.core.model.errors import ErrorKind, ProviderError
    from media_assistant.providers.proxy import web_proxy_error
    from media_assistant.providers.proxy_check import blame_proxy

    failing = web_proxy_error(route, str(exc))
    if failing is None:
        unknown = ProviderError(ErrorKind.NETWORK, str(exc))
        blamed = await blame_proxy(route, url, unknown)
        failing = None if blamed is unknown else blamed
    return failing.message if failing is not None else None


# ------------------------------------------------------------------------------------- check


def _check(paths: Paths, args: argparse.Namespace) -> int:
    lock = DataDirLock(paths.data_dir)
    try:
        lock.acquire()
    except SchedulerBusy as exc:
        raise SchedulerBusy(
            f"{exc}. A running scheduler drives its accounts' browsers: check the site from "
            "its window (right-click the account, Check site), or stop it first"
        ) from None
    try:
        services = open_services(paths, args)
        try:
            accounts = _accounts_to_check(services, args.account)
            reports: list[SiteCheckReport] = []
            for account in accounts:
                paced = _pacing_wait(services, account, wait=args.wait)
                if paced:
                    print(paced, file=sys.stderr)
                    return EXIT_PACED
                reports.append(asyncio.run(_check_one(services, account)))
        finally:
            services.close()
    finally:
        lock.release()
    if args.json:
        payload = [r.to_json() for r in reports]
        print(json.dumps(payload[0] if args.account else payload, ensure_ascii=False, indent=2))
    else:
        for report in reports:
            print("\n".join(report.lines()))
    return EXIT_OK if all(r.ok for r in reports) else EXIT_PROBLEM


def _accounts_to_check(services: Services, account_id: str | None) -> list[AccountConfig]:
    if account_id is not None:
        return [account_for_browser(services, account_id)]
    accounts = web_accounts(services)
    if not accounts:
        raise InputError("no web account to check (the configuration has none with a site)")
    return accounts


def _pacing_wait(services: Services, account: AccountConfig, *, wait: bool) -> str | None:
    """None when the account may send a prompt now (after waiting, with ``wait``); else what
    holds it, for the operator."""
    pacer = _pacer(services, account, site_adapter(services, account).pacing)
    while True:
        left = pacer.wait_s(account.id)
        status = services.accounts.get(account.id)
        cooling = (
            max(0.0, status.cooldown_until - time.time())
            if status is not None and status.cooldown_until
            else 0.0
        )
        left = max(left, cooling)
        if left <= 0:
            return None
        why = pacer.describe(account.id) or (status.cooldown_reason if status else "") or ""
        if not wait:
            return (
                f"{account.id}: its pacing holds the next prompt for {left:.0f} s ({why}); "
                "nothing was sent. `sites check --wait` waits for it; `accounts clear-pacing "
                f"{account.id}` ends a cool-down or risk pause now"
            )
        print(f"{account.id}: waiting {left:.0f} s for its pacing ({why})", file=sys.stderr)
        time.sleep(min(left, 5.0))


def _pacer(services: Services, account: AccountConfig, defaults: PacingConfig | None) -> Pacer:
    """The account's pacing as the web lane keeps it: its state read from the store, the
    check's prompt written back to it."""
    policy = resolve_policy(defaults, account.pacing, headless=services.config.browser.headless)
    return Pacer({account.id: policy}, SystemClock(), PacingStore(services.store.engine))


async def _check_one(services: Services, account: AccountConfig) -> SiteCheckReport:
    """One account's check with its own browser, holding its profile; counted in its pacing."""
    from media_assistant.core.lanes.site_checks import not_run
    from media_assistant.providers.registry import ProviderRegistry
    from media_assistant.providers.web.provider import WebProvider

    lock = ProfileLock(services.paths.profile(account.id))
    site = account.site or "?"
    if not lock.try_acquire():
        why = f"profile {lock.profile_dir} is in use by another Media Assistant process"
        return not_run(account.id, site, why)
    registry = ProviderRegistry(services.config, services.paths, None)
    try:
        provider = registry(account)
        assert isinstance(provider, WebProvider)
        pacer = _pacer(services, account, provider.pacing_defaults)
        pacer.started(account.id)
        outcome = None
        try:
            report, outcome = await provider.check_site()
        finally:
            pacer.ended(account.id, f"site-check:{account.id}", outcome)
            await provider.aclose()
        return report
    finally:
        await registry.aclose()
        lock.release()


def _repair(paths: Paths, args: argparse.Namespace) -> int:
    from media_assistant.commands.sites_repair import cmd_repair

    return cmd_repair(paths, args)


# ------------------------------------------------------------------------------ install


def _install(paths: Paths, args: argparse.Namespace) -> int:
    installed = install_adapter(args.file, paths.sites)
    what = f"installed {installed.site} {installed.version} ({installed.path})"
    if installed.replaced:
        what += (
            f"; it replaces {installed.replaced}: `sites rollback {installed.site}` puts that back"
        )
    print(what)
    return _rebuild_users(paths, args, installed.site)


def _rollback(paths: Paths, args: argparse.Namespace) -> int:
    back = rollback_adapter(args.site, paths.sites)
    where = back.path if back.path is not None else "the built-in adapter"
    print(f"{back.site}: now {back.source} {back.version or 'unversioned'} ({where})")
    return _rebuild_users(paths, args, back.site)


def _rebuild_users(paths: Paths, args: argparse.Namespace, site: str) -> int:
    """Every scheduler serving an account of the site builds its provider anew (the next task
    loads the new file); the verdict "the site's page changed" on them is lifted."""
    if not paths.config_file.exists():
        return EXIT_OK
    services = open_services(paths, args)
    elsewhere: list[str] = []
    try:
        # Team mode: only the accounts this workstation runs have the new file (issue 27 item 8).
        here = services.workstation if services.store_url is not None else None
        users = []
        for account in accounts_on(services.config, site):
            if services.accounts.adapter_replaced(account.id, workstation=here):
                users.append(account)
            else:
                elsewhere.append(account.id)
    finally:
        services.close()
    if elsewhere:
        print(
            f"accounts {', '.join(elsewhere)} run on other workstations: their verdicts stand "
            "until the file is installed there"
        )
    if users:
        names = ", ".join(a.id for a in users)
        print(
            f"accounts {names} use it from their next task (a running scheduler picks it up "
            f"within a second); check it now: media-assistant sites check --account "
            f"{users[0].id}"
        )
    return EXIT_OK
