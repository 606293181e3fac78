"""``support-bundle`` and ``webhooks list|test|set``."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import getpass
import sys
from pathlib import Path

from media_assistant.commands.common import open_services, scheduler_holder
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import ConfigError, InputError
from media_assistant.core.notices.center import message_language

EXIT_OK, EXIT_PROBLEM = 0, 1


def cmd_support_bundle(paths: Paths, args: argparse.Namespace) -> int:
    from media_assistant.commands.support_bundle import make_bundle

    output: Path = args.output or Path.cwd() / (
        f"support-bundle-{dt.datetime.now():%Y%m%d-%H%M%S}.zip"
    )
    services = open_services(paths, args, read_only=True, require_config=False)
    try:
        running = scheduler_holder(paths) is not None

        def selfcheck() -> str:
            from media_assistant.providers.web.checkup import run_checkup

            if not any(a.kind.value == "web" for a in services.config.accounts):
                return "no web accounts: nothing to check\n"
            return "\n".join(run_checkup(services.config, paths, services.accounts).lines()) + "\n"

        names = make_bundle(services, output, scheduler_running=running, selfcheck=selfcheck)
    finally:
        services.close()
    print(f"support bundle written to {output} ({len(names)} files; secrets redacted)")
    return EXIT_OK


def cmd_webhooks(paths: Paths, args: argparse.Namespace) -> int:
    from media_assistant.providers.secrets import SecretStoreUnavailable
    from media_assistant.providers.webhooks import (
        WebhookSender,
        hook_label,
        lookup_secret,
        store_secret,
    )

    if args.webhooks_command == "set":
        value = (
            sys.stdin.readline().strip()
            if args.stdin
            else getpass.getpass(f"value for {args.name} (not shown): ").strip()
        )
        if not value:
            raise InputError(f"{args.name}: nothing given, nothing stored")
        try:
            store_secret(args.name, value)
        except SecretStoreUnavailable as exc:  # a ConfigError: exit 2
            raise ConfigError(f"{exc}; put it in the environment variable instead") from None
        print(f"{args.name}: stored in the OS keyring")
        return EXIT_OK
    services = open_services(paths, args, read_only=True)
    try:
        hooks = list(services.config.webhooks)
        language = message_language(services.config.ui.language)
    finally:
        services.close()
    if not hooks:
        print("no [[webhooks]] in the configuration")
        return EXIT_OK
    if args.webhooks_command == "list":
        for index, hook in enumerate(hooks):
            found = "found" if lookup_secret(hook.url_env) else "NOT SET"
            secret = ""
            if hook.secret_env:
                secret = f", secret ${hook.secret_env} " + (
                    "found" if lookup_secret(hook.secret_env) else "NOT SET"
                )
            events = ", ".join(hook.events)
            print(f"{hook_label(index, hook)}: address {found}{secret}; events: {events}")
        return EXIT_OK

    async def send() -> list[tuple[str, object]]:
        sender = WebhookSender(hooks, language=language, retry_delays_s=(1.0,))
        try:
            return list(await sender.test())
        finally:
            await sender.close()

    failed = 0
    for label, delivery in asyncio.run(send()):
        ok = getattr(delivery, "ok", False)
        failed += not ok
        print(
            f"{label}: {'delivered' if ok else 'FAILED: ' + str(getattr(delivery, 'detail', ''))}"
        )
    return EXIT_OK if not failed else EXIT_PROBLEM
