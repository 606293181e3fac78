"""The headless entry point (DESIGN §6). Never imports Qt: the GUI is loaded only for ``gui``.

Exit codes: 0 done / all succeeded, 1 some tasks failed, were canceled or cannot progress,
2 bad input or configuration (nothing imported), 3 another scheduler holds the data dir,
4 internal error (running tasks went back to the queue), 130 interrupted (Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from media_assistant import __version__
from media_assistant.core.errors import SchedulerBusy, UserError
from media_assistant.core.paths import HOME_ENV, Paths

EXIT_OK, EXIT_SOME_FAILED, EXIT_BAD_INPUT, EXIT_BUSY = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="media-assistant",
        description="Run batches of AI generation tasks on web and API models.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument(
        "--data-dir",
        type=Path,
        help=f"data directory (default: ${HOME_ENV} or the per-user data dir)",
    )
    p.add_argument("--config", type=Path, help="config file (default: <data-dir>/config.toml)")
    p.add_argument(
        "-v", "--verbose", action="count", default=0, help="more log output (-vv: debug)"
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help="start the desktop app on its built-in demo (simulated models)",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    sub.add_parser("gui", help="the desktop app (default)")

    run = sub.add_parser("run", help="import BATCH (if given), then run until nothing is left")
    _batch_args(run, required=False)

    submit = sub.add_parser("submit", help="import BATCH only")
    _batch_args(submit, required=True)

    status = sub.add_parser("status", help="counts per lane and state; accounts")
    status.add_argument("--json", action="store_true")

    export = sub.add_parser("export", help="write one record per task")
    export.add_argument("-o", "--output", type=Path, required=True)
    export.add_argument(
        "--format", choices=["csv", "jsonl", "xlsx", "md"], help="default: from the file extension"
    )
    export.add_argument("--batch", help="only this batch")
    export.add_argument(
        "--state",
        action="append",
        choices=["pending", "running", "success", "failed", "canceled"],
        help="only tasks in this state (repeatable)",
    )

    cancel = sub.add_parser(
        "cancel", help="cancel tasks (pending at once, running at the next checkpoint)"
    )
    cancel.add_argument("ids", nargs="*", metavar="ID")
    cancel.add_argument("--batch", help="every task of this batch")

    retry = sub.add_parser("retry", help="run failed/canceled tasks again (same rows)")
    retry.add_argument("ids", nargs="*", metavar="ID")
    retry.add_argument("--failed", action="store_true", help="every failed task")

    accounts = sub.add_parser("accounts", help="list accounts, enable/disable them, store keys")
    acc = accounts.add_subparsers(dest="accounts_command", metavar="ACTION", required=True)
    acc_list = acc.add_parser("list", help="every account with its state")
    acc_list.add_argument("--json", action="store_true")
    for name, text in (
        ("enable", "give the account work again (clears a login/key problem)"),
        ("disable", "stop giving the account work"),
    ):
        acc.add_parser(name, help=text).add_argument("account_id", metavar="ID")
    set_key = acc.add_parser("set-key", help="store an API key in the OS keyring")
    set_key.add_argument("account_id", metavar="ID")
    set_key.add_argument("--stdin", action="store_true", help="read the key from standard input")
    acc.add_parser(
        "login", help="open a web account's profile in a window to sign in"
    ).add_argument("account_id", metavar="ID")
    acc.add_parser("check", help="is a web account still logged in?").add_argument(
        "account_id", metavar="ID"
    )
    acc.add_parser(
        "clear-pacing",
        help="end a web account's pacing cooldown or risk pause now (prompt counts stay)",
    ).add_argument("account_id", metavar="ID")
    conc = acc.add_parser("set-concurrency", help="requests in flight for an API account (1..5)")
    conc.add_argument("account_id", metavar="ID")
    conc.add_argument("concurrency", type=int)

    selfcheck = sub.add_parser(
        "selfcheck",
        help="find and stop leftover browsers; clear stale "
        "profile locks; report what holds a profile",
    )
    selfcheck.add_argument("--json", action="store_true")

    demo = sub.add_parser("demo", help="the built-in demo without a window (simulated models)")
    demo.add_argument(
        "--no-browser",
        action="store_true",
        help="web accounts use the in-process simulated chat, not Chromium",
    )

    sites = sub.add_parser("sites", help="site adapters for web models")
    sites_sub = sites.add_subparsers(dest="sites_command", metavar="ACTION", required=True)
    sites_sub.add_parser("list", help="built-in and user adapters, with when they were verified")
    probe = sites_sub.add_parser(
        "probe",
        help="list a page's composers, buttons and streaming "
        "requests (to fix an adapter after a site redesign)",
    )
    probe.add_argument("url")
    probe.add_argument("--account", help="open it in this web account's profile (logged in)")
    probe.add_argument("--seconds", type=float, default=5.0, help="how long to watch (default 5)")
    probe.add_argument(
        "--show",
        action="store_true",
        help="a visible window: send a message meanwhile to see the streaming request",
    )
    return p


def _batch_args(p: argparse.ArgumentParser, *, required: bool) -> None:
    p.add_argument(
        "batch",
        type=Path,
        nargs=None if required else "?",
        metavar="BATCH",
        help="CSV (UTF-8 / UTF-8-BOM / GB18030), XLSX or JSONL file",
    )
    p.add_argument("--model", help="model for rows without a 'model' column")
    p.add_argument(
        "--template", help="prompt template with {column} placeholders (@FILE reads it from a file)"
    )
    p.add_argument("--batch-id", help="batch id (default: file name + time)")


def _setup_logging(verbose: int) -> None:
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)-7s %(message)s",
        datefmt="%H:%M:%S",
        stream=sys.stderr,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _setup_logging(args.verbose)
    command = args.command or "gui"
    if command == "gui":
        from media_assistant.app import main as gui_main  # the only path that loads Qt

        return int(gui_main(data_dir=args.data_dir, config=args.config, demo=args.demo))
    paths = Paths.resolve(args.data_dir, args.config)
    from media_assistant.commands import accounts, run, tasks, web

    if command == "demo":
        from media_assistant.commands.demo import cmd_demo

        return cmd_demo(paths if args.data_dir else None, args)

    if command == "accounts" and args.accounts_command in ("login", "check"):
        command = "accounts-web"
    handlers = {
        "accounts-web": web.cmd_login_or_check,
        "selfcheck": web.cmd_selfcheck,
        "sites": web.cmd_sites,
        "run": run.cmd_run,
        "submit": tasks.cmd_submit,
        "status": tasks.cmd_status,
        "export": tasks.cmd_export,
        "cancel": tasks.cmd_cancel,
        "retry": tasks.cmd_retry,
        "accounts": accounts.cmd_accounts,
    }
    try:
        return handlers[command](paths, args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SchedulerBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
