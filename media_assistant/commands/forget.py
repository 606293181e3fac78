"""``forget-secrets``: delete what the app kept in the OS keyring (issue 29 item 4).

The Windows uninstaller runs it when the operator chooses to delete their data, so API keys,
webhook addresses and the team database's password do not outlive the app in Credential
Manager. Entries are named from the config (every account's API key, every webhook's names,
the team database's password) and, on Windows, also found by listing Credential Manager
(providers/win_credentials.py): keys of accounts removed from the config long ago go too.
"""

from __future__ import annotations

import argparse

from media_assistant.commands.common import configured_store_url
from media_assistant.core.config.schema import AppConfig, load_config
from media_assistant.core.files.paths import Paths
from media_assistant.providers import secrets, win_credentials

EXIT_OK = 0


def named_secrets(config: AppConfig, store_url: str | None) -> list[tuple[secrets.SecretKind, str]]:
    """Every keyring entry this config can have made."""
    named: list[tuple[secrets.SecretKind, str]] = [
        (secrets.API_KEY, account.id) for account in config.accounts
    ]
    for hook in config.webhooks:
        named.append((secrets.WEBHOOK, hook.url_env))
        if hook.secret_env:
            named.append((secrets.WEBHOOK, hook.secret_env))
    if store_url:
        named.append((secrets.STORE_PASSWORD, secrets.store_password_key(store_url)))
    return named


def cmd_forget_secrets(paths: Paths, args: argparse.Namespace) -> int:
    config = load_config(paths.config_file) if paths.config_file.exists() else AppConfig()
    problem = secrets.keyring_available()
    deleted = [
        f"{kind.what} {name}"
        for kind, name in named_secrets(config, configured_store_url(paths, args))
        if problem is None and secrets.delete(kind, name)
    ]
    services = {kind.service for kind in secrets.KINDS}
    for target in win_credentials.our_targets(win_credentials.generic_targets(), services):
        if win_credentials.delete_target(target):
            deleted.append(f"Credential Manager entry {target}")
    for line in deleted:
        print(f"deleted: {line}")
    if problem is not None and not deleted:
        print(f"no OS keyring here ({problem}): nothing was kept in one")
    else:
        print(f"{len(deleted)} secret(s) deleted from the OS keyring")
    return EXIT_OK
