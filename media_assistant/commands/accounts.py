"""accounts list / enable / disable / reset / set-key / set-concurrency / clear-pacing.

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
