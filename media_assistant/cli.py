"""The headless entry point (DESIGN §6). Never imports Qt: the GUI is loaded only for ``gui``.

Exit codes: 0 done / all succeeded, 1 some tasks failed, were canceled or cannot progress,
2 bad input or configuration (nothing imported), 3 another scheduler holds the data dir,
4 internal error (running tasks went back to the queue; one line on stderr, the traceback in
the log file it names), 5 the task store is damaged or unreadable (the file is left as it is;
the message names it and the backup to restore), 7 the database stayed locked by another
process longer than ``--db-wait`` (nothing was changed), 6 the disk is full (one line naming the
folder and its free space; ``run``: after waiting ``--disk-wait`` seconds for space, with what it
had received written and running tasks back in the queue), 8 the team database could not be
reached within ``--db-wait`` (team mode; nothing was changed), 9 ``store copy``: task ids exist in
the target with other content (listed; nothing was copied), 10 ``sites check``: the account's
pacing holds its next prompt (nothing was sent; ``--wait`` waits), 130 interrupted (Ctrl-C,
SIGTERM).

Commands that only read (``status``, ``export``, ``accounts list``, ``sites list``, ``store
info``) never write to the store. ``backup [-o FILE]`` copies the store (also while a scheduler
runs; of a team database, a SQLite snapshot); ``restore FILE`` puts a checked backup in its place,
keeping the current file aside (refused on a team database). Team mode: ``store info [--json]``
(where the store is, its versions, the team's workstations), ``store copy --to TARGET [--from
SOURCE]`` (a queue into a team database, or a team's queue into a SQLite file), ``store
set-password [--url URL]`` (the team database's password into the OS keyring), ``accounts release
ID`` (a web account moves to another workstation).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from media_assistant import __version__
from media_assistant.core.config.team import STORE_URL_ENV
from media_assistant.core.disk.full import DiskFull, disk_full, folder_of, looks_full
from media_assistant.core.files.paths import HOME_ENV, Paths
from media_assistant.core.files.private_files import PrivateRotatingFileHandler, private_dir
from media_assistant.core.model.errors import (
    SchedulerBusy,
    StoreDamaged,
    StoreLocked,
    StoreUnreachable,
    UserError,
)
from media_assistant.core.rules import fair

EXIT_OK, EXIT_SOME_FAILED, EXIT_BAD_INPUT, EXIT_BUSY, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_STORE_DAMAGED, EXIT_DISK_FULL, EXIT_STORE_LOCKED, EXIT_INTERRUPTED = 5, 6, 7, 130
EXIT_STORE_UNREACHABLE, EXIT_COPY_CONFLICT = 8, 9
LOG_FILE = "cli.log"
DB_WAIT_S = 30.0  # --db-wait default
DISK_WAIT_S = 300.0  # run --disk-wait default

log = logging.getLogger("media_assistant.cli")
_installed: list[logging.Handler] = []


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
        "--db-wait",
        type=float,
        default=DB_WAIT_S,
        metavar="SECONDS",
        help="how long to wait while another process holds the database (then exit 7), or "
        f"while the team database cannot be reached (then exit 8) (default {DB_WAIT_S:.0f})",
    )
    p.add_argument(
        "--store-url",
        metavar="URL",
        help="use this team database (postgresql://USER@HOST:5432/DATABASE) instead of "
        f"[store] url and ${STORE_URL_ENV} (team mode; the password never goes here)",
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help="start the desktop app on its built-in demo (simulated models, in <data-dir>/demo)",
    )
    p.add_argument(
        "--smoke-test",
        action="store_true",
        help="check this installation end to end (offscreen, in a temporary data dir) and "
        "print one JSON report; exit 0 when every check passed",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    sub.add_parser("gui", help="the desktop app (default)")

    run = sub.add_parser("run", help="import BATCH (if given), then run until nothing is left")
    _batch_args(run, required=False)
    run.add_argument(
        "--disk-wait",
        type=float,
        default=DISK_WAIT_S,
        metavar="SECONDS",
        help="when the disk fills up, how long to wait for space before ending with exit 6 "
        f"(default {DISK_WAIT_S:.0f})",
    )

    submit = sub.add_parser("submit", help="import BATCH only")
    _batch_args(submit, required=True)

    status = sub.add_parser("status", help="counts per lane and state; accounts")
    status.add_argument("--json", action="store_true")

    stats = sub.add_parser(
        "stats", help="the lanes' figures over a window: percentiles, rates, busy share, quota"
    )
    stats.add_argument(
        "--since",
        default="1h",
        metavar="SPAN",
        help="how far back: 15m, 1h, 2h30m, 1d, today, or YYYY-MM-DDTHH:MM (default 1h)",
    )
    stats.add_argument("--lane", choices=("web", "api"), help="one lane only")
    stats.add_argument("--json", action="store_true")
    metrics = sub.add_parser(
        "metrics", help="serve the lanes' figures for Prometheus until interrupted"
    )
    metrics.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="where to serve them (default [metrics] listen, else 127.0.0.1:9464)",
    )

    export = sub.add_parser(
        "export", help="write one record per task: its input row beside its results"
    )
    export.add_argument("ids", nargs="*", metavar="ID", help="only these tasks, in this order")
    export.add_argument(
        "-o",
        "--output",
        type=Path,
        help="file (a folder for md-folder); default: <batch or 'tasks'>-<date>.<ext> here",
    )
    export.add_argument(
        "--format",
        choices=["csv", "jsonl", "xlsx", "md", "docx", "md-folder"],
        help="default: from the file extension (none: md-folder); xlsx without -o",
    )
    export.add_argument("--batch", help="only this batch")
    export.add_argument(
        "--state",
        action="append",
        choices=["pending", "running", "success", "failed", "canceled"],
        help="only tasks in this state (repeatable)",
    )
    export.add_argument(
        "--headers",
        choices=["en", "zh"],
        default="en",
        help="column names in English (the field names; default) or Chinese",
    )

    cancel = sub.add_parser(
        "cancel", help="cancel tasks (pending at once, running at the next checkpoint)"
    )
    cancel.add_argument("ids", nargs="*", metavar="ID")
    cancel.add_argument("--batch", help="every task of this batch")

    retry = sub.add_parser("retry", help="run failed/canceled tasks again (same rows)")
    retry.add_argument("ids", nargs="*", metavar="ID")
    retry.add_argument(
        "--failed",
        action="store_true",
        help="every failed task (of --batch B), except those that would fail the same way "
        "again (content policy, prompt too long, bad input: retry them by id)",
    )
    retry.add_argument("--batch", help="with --failed: only this batch")

    for name, text in (
        ("pause", "nothing new starts (running tasks finish); default: the whole queue"),
        ("resume", "lift a pause (--all: the whole-queue pause; others stay)"),
    ):
        holder = sub.add_parser(name, help=text)
        scope = holder.add_mutually_exclusive_group()
        scope.add_argument("--all", action="store_true", help="the whole queue (the default)")
        scope.add_argument("--lane", choices=["web", "api"], help="one lane")
        scope.add_argument("--batch", metavar="B", help="one batch")
        scope.add_argument("--account", metavar="ID", help="one account")

    prioritize = sub.add_parser(
        "prioritize", help="set the priority of unfinished tasks (higher runs first)"
    )
    prioritize.add_argument("ids", nargs="*", metavar="ID")
    prioritize.add_argument("--batch", metavar="B", help="every unfinished task of this batch")
    where = prioritize.add_mutually_exclusive_group()
    where.add_argument("--priority", type=int, metavar="N", help="this priority")
    where.add_argument(
        "--top", action="store_true", help="one above every other pending task (runs next)"
    )
    where.add_argument(
        "--bottom", action="store_true", help="one below every other pending task (runs last)"
    )

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
    proxy_pw = acc.add_parser(
        "set-proxy-password", help="store the password of an account's proxy in the OS keyring"
    )
    proxy_pw.add_argument("account_id", metavar="ID")
    proxy_pw.add_argument(
        "--stdin", action="store_true", help="read the password from standard input"
    )
    test_proxy = acc.add_parser(
        "test-proxy", help="can the account's proxy reach its site? (exit 0 yes, 1 no)"
    )
    test_proxy.add_argument("account_id", metavar="ID")
    test_proxy.add_argument("--json", action="store_true")
    acc.add_parser(
        "login", help="open a web account's profile in a window to sign in"
    ).add_argument("account_id", metavar="ID")
    acc.add_parser("check", help="is a web account still logged in?").add_argument(
        "account_id", metavar="ID"
    )
    acc.add_parser(
        "reset",
        help="clear an account's problem (needs login, key rejected, needs attention) and "
        "cool-down; a running scheduler rebuilds its provider (new key, fixed adapter)",
    ).add_argument("account_id", metavar="ID")
    acc.add_parser(
        "release",
        help="team mode: a web account no longer belongs to its workstation; the next one "
        "that starts with it in its config takes it (moving it to another PC)",
    ).add_argument("account_id", metavar="ID")
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

    store = sub.add_parser(
        "store",
        help="the task store: where it is and who works on it (team mode), copies in and out "
        "of a team database, the team database's password",
    )
    st = store.add_subparsers(dest="store_command", metavar="ACTION", required=True)
    info = st.add_parser(
        "info",
        help="engine, address (no password), server and schema version, the team's "
        "workstations (online, last seen, version, web accounts, running)",
    )
    info.add_argument("--json", action="store_true")
    copy = st.add_parser(
        "copy",
        help="copy the task store (tasks, events, batches, pauses, accounts, pacing) into "
        "another: an empty team database, or a SQLite file (a snapshot); a second copy adds "
        "nothing; task ids there with other content are refused (exit 9), nothing copied",
    )
    copy.add_argument(
        "--to",
        required=True,
        metavar="TARGET",
        help="postgresql://USER@HOST:PORT/DATABASE, sqlite:///PATH or a file path (created "
        "if missing)",
    )
    copy.add_argument(
        "--from",
        dest="source",
        metavar="SOURCE",
        help="copy this store instead of the current one (same forms; e.g. this workstation's "
        "SQLite file after [store] url was set)",
    )
    set_password = st.add_parser(
        "set-password",
        help="keep the team database's password in the OS keyring (asked without echo; one "
        "line from standard input when that is not a terminal); checked with the server first",
    )
    set_password.add_argument(
        "--url", help="the team database (default: the configured one: [store] url, --store-url)"
    )

    backup = sub.add_parser(
        "backup",
        help="copy the task store (works while a scheduler runs), checked; of a team "
        "database: a SQLite snapshot",
    )
    backup.add_argument(
        "-o",
        "--output",
        type=Path,
        help="the copy (default: <data-dir>/backups/media-assistant-<time>.db; 7 are kept)",
    )
    restore = sub.add_parser(
        "restore",
        help="replace the task store by a backup (checked first; the current store is kept "
        "aside); refused while a scheduler runs, and on a team database (use 'store copy')",
    )
    restore.add_argument("file", type=Path, metavar="FILE")

    bundle = sub.add_parser(
        "support-bundle",
        help="a zip for support: logs, task events, redacted config, versions, self-check",
    )
    bundle.add_argument(
        "-o", "--output", type=Path, help="the .zip (default: support-bundle-<time>.zip here)"
    )

    webhooks = sub.add_parser("webhooks", help="list, test and store webhook addresses")
    wh = webhooks.add_subparsers(dest="webhooks_command", metavar="ACTION", required=True)
    wh.add_parser("list", help="each webhook, and whether its address and secret are found")
    wh.add_parser("test", help="send a test notice to every webhook now")
    wh_set = wh.add_parser(
        "set", help="store a webhook address or secret in the OS keyring under NAME"
    )
    wh_set.add_argument("name", metavar="NAME", help="the url_env / secret_env name")
    wh_set.add_argument("--stdin", action="store_true", help="read the value from standard input")

    sub.add_parser(
        "forget-secrets",
        help="delete every secret the app kept in the OS keyring (API keys, webhook addresses "
        "and secrets, the team database's password; on Windows every Credential Manager entry "
        "of the app); the uninstaller runs it when you delete your data",
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
    check = sites_sub.add_parser(
        "check",
        help="one tiny prompt through each web account's real page, every adapter step "
        "reported (exit 0 only when all passed; 3 while a scheduler runs; 10 while pacing holds "
        "the account)",
    )
    check.add_argument("--account", help="only this web account (default: every one)")
    check.add_argument("--json", action="store_true", help="the report as JSON")
    check.add_argument(
        "--wait", action="store_true", help="wait for the account's pacing instead of exit 10"
    )
    install = sites_sub.add_parser(
        "install",
        help="validate an adapter file and make it the one its site uses (the previous one is "
        "kept for rollback); running schedulers use it from their next task",
    )
    install.add_argument("file", type=Path, metavar="FILE")
    rollback = sites_sub.add_parser(
        "rollback", help="put back the adapter the last install of site ID replaced"
    )
    rollback.add_argument("site", metavar="ID")
    repair = sites_sub.add_parser(
        "repair",
        help="a changed site: find the failed step's element on the live page from what worked "
        "before, prove the repaired adapter with a site check, offer it (exit 0 proven, 1 "
        "nothing proven)",
    )
    repair.add_argument("account", metavar="ACCOUNT")
    repair.add_argument("--json", action="store_true", help="the result as JSON")
    repair.add_argument("--yes", action="store_true", help="install a proven repair without asking")
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
    p.add_argument("--name", help="the batch's name in the window (default: its id)")
    p.add_argument(
        "--title-column",
        metavar="COL",
        help="the column that titles each task (default: the file's title column, else its "
        'first text column other than the prompt; "" for none)',
    )
    p.add_argument(
        "--start-at",
        metavar="TIME",
        help="start nothing of the batch before TIME: YYYY-MM-DDTHH:MM (local time), or HH:MM "
        "for the next such time",
    )
    p.add_argument(
        "--active-hours",
        metavar="HH:MM-HH:MM",
        help='run the batch only inside these hours, local time (e.g. "22:00-06:00")',
    )
    p.add_argument(
        "--share",
        type=_share,
        metavar="N",
        help="the batch's weight in the fair share among its operator's batches (default 1; "
        "2 = twice what each of the others gets; 0 < N <= 100)",
    )


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= fair.MAX_SHARE:
        raise argparse.ArgumentTypeError(f"--share must be a number > 0 and <= 100, not {text!r}")
    return value


class _ConsoleFormatter(logging.Formatter):
    """Tracebacks go to the log file only; the terminal gets the message line."""

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info or record.exc_text or record.stack_info:
            record = logging.makeLogRecord(record.__dict__)
            record.exc_info = record.exc_text = record.stack_info = None
        return super().format(record)


_FILE_ONLY = {"file_only": True}


def _setup_logging(verbose: int, log_file: Path | None = None) -> Path | None:
    """Warnings (more with -v) on stderr; with ``log_file`` also INFO and tracebacks there
    (0600, rotated). Returns the log file actually in use."""
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    root = logging.getLogger()
    for old in _installed:  # main() may run more than once in a process (tests)
        root.removeHandler(old)
        old.close()
    _installed.clear()
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(level)
    console.setFormatter(_ConsoleFormatter("%(asctime)s %(levelname)-7s %(message)s", "%H:%M:%S"))
    console.addFilter(lambda record: not getattr(record, "file_only", False))
    root.addHandler(console)
    _installed.append(console)
    root.setLevel(min(level, logging.INFO) if log_file else level)
    if log_file is None:
        return None
    try:
        private_dir(log_file.parent)
        handler = PrivateRotatingFileHandler(
            log_file, maxBytes=5_000_000, backupCount=3, encoding="utf-8", delay=True
        )
    except OSError:
        return None
    handler.setLevel(logging.INFO)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(levelname)-7s %(name)s %(message)s")
    )
    root.addHandler(handler)
    _installed.append(handler)
    return log_file


def _console_safe_output() -> None:
    """A character the console's code page cannot show (Chinese on a cp1252 PC, an emoji on
    cp936, output redirected to a file on Windows) is written as '?', never a
    UnicodeEncodeError that would end the command with exit 4 halfway through its output."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", None) == "strict":
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


def main(argv: Sequence[str] | None = None) -> int:
    _console_safe_output()
    args = build_parser().parse_args(argv)
    from media_assistant.providers.web.executable import prepare_frozen_playwright

    prepare_frozen_playwright()  # before anything starts Playwright
    if args.smoke_test:
        _setup_logging(args.verbose)
        from media_assistant.smoke import run_smoke_test  # loads Qt

        return run_smoke_test()
    command = args.command or "gui"
    if command == "gui":
        _setup_logging(args.verbose)
        from media_assistant.app import EXIT_GUARD_S, exit_within
        from media_assistant.app import main as gui_main  # the only path that loads Qt

        code = int(
            gui_main(
                data_dir=args.data_dir, config=args.config, demo=args.demo, store_url=args.store_url
            )
        )
        exit_within(EXIT_GUARD_S, code)  # the window is gone: so is the process, soon
        return code
    paths = Paths.resolve(args.data_dir, args.config)
    with contextlib.suppress(OSError):  # a data dir we cannot create: the command says why
        private_dir(paths.data_dir)
    log_file = _setup_logging(args.verbose, paths.logs / LOG_FILE)
    try:
        return _dispatch(command, paths, args)
    except UserError as exc:  # exit 2; a conflicting ``store copy``: 9
        print(f"error: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", EXIT_BAD_INPUT))
    except SchedulerBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except DiskFull as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_DISK_FULL
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as exc:  # never a traceback on an operator's terminal
        return _report_unexpected(exc, paths, log_file)


def _dispatch(command: str, paths: Paths, args: argparse.Namespace) -> int:
    from media_assistant.commands import (
        accounts,
        demo,
        forget,
        metrics_serve,
        proxy,
        queue,
        run,
        sites,
        stats,
        store,
        support,
        tasks,
        team_store,
        web,
    )

    if command == "accounts" and args.accounts_command in ("login", "check"):
        command = "accounts-web"
    if command == "accounts" and args.accounts_command in ("set-proxy-password", "test-proxy"):
        command = "accounts-proxy"
    handlers = {
        "accounts-web": web.cmd_login_or_check,
        "accounts-proxy": proxy.cmd_proxy,
        "selfcheck": web.cmd_selfcheck,
        "sites": sites.cmd_sites,
        "run": run.cmd_run,
        "submit": tasks.cmd_submit,
        "status": tasks.cmd_status,
        "stats": stats.cmd_stats,
        "metrics": metrics_serve.cmd_metrics,
        "export": tasks.cmd_export,
        "cancel": tasks.cmd_cancel,
        "retry": tasks.cmd_retry,
        "pause": queue.cmd_pause,
        "resume": queue.cmd_resume,
        "prioritize": queue.cmd_prioritize,
        "accounts": accounts.cmd_accounts,
        "demo": demo.cmd_demo,
        "store": team_store.cmd_store,
        "backup": store.cmd_backup,
        "restore": store.cmd_restore,
        "support-bundle": support.cmd_support_bundle,
        "webhooks": support.cmd_webhooks,
        "forget-secrets": forget.cmd_forget_secrets,
    }
    return handlers[command](paths, args)


def _report_unexpected(exc: Exception, paths: Paths, log_file: Path | None) -> int:
    """A damaged or locked store met mid-command gets its own code; anything else is an
    internal error: one line here, the traceback in the log."""
    from media_assistant.core.disk.store_file import translate
    from media_assistant.core.store.migrations import SchemaTooNew, SchemaTooOld

    if looks_full(exc, paths.data_dir):  # submit, export, run...: one line, nothing half-written
        log.error("disk full", exc_info=exc, extra=_FILE_ONLY)
        full = disk_full(
            folder_of(exc, paths.data_dir),
            "nothing was half-written; free some space and run the command again",
        )
        print(f"error: {full}", file=sys.stderr)
        return EXIT_DISK_FULL
    if isinstance(exc, StoreUnreachable):
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_STORE_UNREACHABLE
    if _unreachable(exc):  # the team database went away mid-command
        log.error("team database unreachable", exc_info=exc, extra=_FILE_ONLY)
        print(
            "error: the team database stopped answering in the middle of the command; "
            "what it had written is kept. Check the network and run it again",
            file=sys.stderr,
        )
        return EXIT_STORE_UNREACHABLE
    if _lock_timeout(exc):  # a team database: another workstation held a lock over 10 s
        log.error("team database lock timeout", exc_info=exc, extra=_FILE_ONLY)
        print(
            "error: another workstation held a lock on the team database that this command "
            "needed for more than 10 s (a long submit, or a 'store copy' into it); nothing "
            "was changed. Try again in a moment",
            file=sys.stderr,
        )
        return EXIT_STORE_LOCKED
    known = translate(exc, paths.database, paths.backups)
    if isinstance(known, StoreDamaged | StoreLocked):
        # A traceback only when the error surfaced from the database mid-command.
        log.error("%s", known, exc_info=exc if known is not exc else None, extra=_FILE_ONLY)
        print(f"error: {known}", file=sys.stderr)
        return EXIT_STORE_DAMAGED if isinstance(known, StoreDamaged) else EXIT_STORE_LOCKED
    if isinstance(exc, SchemaTooNew | SchemaTooOld):
        print(f"error: {paths.database}: {exc}", file=sys.stderr)
        return EXIT_STORE_DAMAGED
    log.error("internal error", exc_info=exc, extra=_FILE_ONLY)
    where = f"details in {log_file}" if log_file else "run again with -vv for details"
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    print(
        f"internal error: {type(exc).__name__}{': ' + first if first else ''} ({where})",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def _lock_timeout(exc: BaseException) -> bool:
    """PostgreSQL gave up waiting for a lock (``lock_timeout``, SQLSTATE 55P03): the busy
    database of team mode, as SQLite's "database is locked" is a workstation's."""
    original = getattr(exc, "orig", None) or exc
    return getattr(original, "sqlstate", None) == "55P03"


def _unreachable(exc: BaseException) -> bool:
    from media_assistant.core.store.backends.postgres import is_unreachable

    return is_unreachable(exc)


if __name__ == "__main__":
    raise SystemExit(main())
