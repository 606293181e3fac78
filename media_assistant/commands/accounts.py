"""accounts list / enable / disable / reset / set-key / set-concurrency / clear-pacing / release.

``enable``, ``reset`` and ``set-key`` leave a rebuild request in the account's row: a scheduler
running in another process (``run``, the desktop app) notices it within a second and builds the
account's provider anew (the key, the adapter file read again).
"""

from __future__ import annotations

import argparse
import getpass
import sys

from media_assistant.commands.common import open_services, print_json
from media_assistant.commands.tasks import status_data
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.states import ModelKind
from media_assistant.services import Services


def cmd_accounts(paths: Paths, args: argparse.Namespace) -> int:
    services = open_services(paths, args, read_only=args.accounts_command == "list")
    try:
        action = args.accounts_command
        if action == "list":
            accounts = status_data(services)["accounts"]
            if args.json:
                print_json(accounts)
            else:
                assert isinstance(accounts, list)
                for a in accounts:
                    reason = f"  ({a['reason']})" if a["reason"] else ""
                    print(
                        f"[{a['kind']}] {a['id']:<20} {a['state']:<22} "
                        f"models: {', '.join(a['models'])}{reason}"
                    )
            return 0
        if action == "release":
            _release(services, args.account_id)
            return 0
        account = services.config.account(args.account_id)
        if account is None:
            known = ", ".join(a.id for a in services.config.accounts) or "none configured"
            raise InputError(f"unknown account {args.account_id!r} (known: {known})")
        if action in ("enable", "disable"):
            services.accounts.set_enabled(account.id, action == "enable")
            print(f"{account.id}: {action}d")
        elif action == "reset":
            before = services.accounts.get(account.id)
            services.accounts.reset(account.id)
            was = before.reason(services.clock.now()) if before is not None else ""
            print(
                f"{account.id}: reset"
                + (f" (was: {was})" if was else "")
                + "; a running scheduler rebuilds its provider within a second"
            )
            if before is not None and not before.enabled:
                print(
                    f"{account.id}: still switched off ('accounts enable {account.id}' turns it on)"
                )
        elif action == "clear-pacing":
            if account.kind is not ModelKind.WEB:
                raise InputError(f"{account.id} is an API account: it has no pacing")
            from media_assistant.commands.pacing import clear_pacing

            cleared = clear_pacing(services, account)
            print(
                f"{account.id}: pacing cooldown and risk pause cleared"
                if cleared
                else f"{account.id}: nothing to clear (no pacing state yet)"
            )
        elif action == "set-concurrency":
            if account.kind is not ModelKind.API:
                raise InputError(
                    f"{account.id} is a web account: it runs exactly one task at a time, by design"
                )
            try:
                services.accounts.set_concurrency(account.id, args.concurrency)
            except ValueError as exc:
                raise InputError(f"{account.id}: {exc}") from None
            print(f"{account.id}: concurrency {args.concurrency}")
        elif action == "set-key":
            if account.kind is not ModelKind.API:
                raise InputError(
                    f"{account.id} is a web account: it signs in with 'accounts login', not a key"
                )
            key = (
                sys.stdin.readline()
                if args.stdin
                else getpass.getpass(f"API key for {account.id}: ")
            ).strip()
            if not key:
                raise InputError("empty key: nothing stored")
            from media_assistant.providers.secrets import store_api_key

            store_api_key(account.id, key)  # ConfigError (exit 2) says why it cannot
            # A running scheduler holds the old key in the account's provider: ask for a new
            # one (this also ends a "key rejected" problem).
            services.accounts.request_rebuild(account.id)
            print(f"{account.id}: key stored in the OS keyring")
        return 0
    finally:
        services.close()


def _release(services: Services, account_id: str) -> None:
    """``accounts release ID`` (team mode): the web account belongs to no workstation now; the
    next one that starts with it in its config takes it. Any workstation may release one (its
    owner may be gone for good); an account this workstation still declares comes back to it
    at its next start, so that is said."""
    status = services.accounts.get(account_id)
    if status is None or status.kind is not ModelKind.WEB:
        if status is not None:
            raise InputError(
                f"{account_id} is an API account: every workstation serves it (its limits hold "
                "for the team together); there is nothing to release"
            )
        known = sorted(
            a.account_id for a in services.accounts.all().values() if a.kind is ModelKind.WEB
        )
        raise InputError(
            f"unknown web account {account_id!r} (known: {', '.join(known) or 'none'})"
        )
    owner = status.workstation
    services.accounts.release(account_id)
    print(
        f"{account_id}: released"
        + (f" (it belonged to {owner})" if owner else " (it belonged to no workstation)")
        + "; the next workstation that starts with it in its config takes it — sign in "
        f"there once ('media-assistant accounts login {account_id}')"
    )
    if services.store_url is None:
        print(
            f"{account_id}: this store is not a team database: this workstation takes it "
            "back at its next start"
        )
    elif services.config.account(account_id) is not None:
        print(
            f"{account_id}: still in this workstation's config ({services.workstation}): it "
            "takes it back at its next start unless you remove it there"
        )
