"""``sites repair ACCOUNT [--json] [--yes]``: a changed site's adapter repaired from the live page
and proven end to end (issue 33; providers/web/repair.py does the work).

Like ``sites check`` it drives the account's browser, so it needs the account to itself (a
running scheduler: exit 3) and obeys its pacing (exit 10 while the pacing holds the account).
A proven repair is shown as the diff of the adapter file (old and new selectors, the score and
the margin) and installed as the site's adapter with its version + 1 — after the operator's
yes at the terminal, or at once with ``--yes`` or ``[sites] auto_repair = true`` (then a notice
says so); the file it replaces is kept for ``sites rollback``, and the accounts held by "the
site's page changed" take their next task. Without a yes the proven file is kept in
``<data-dir>/sites/proposed/`` for ``sites install``. Never an unproven file.

Exit 0: proven (and installed with ``--yes``); 1: nothing proven (nothing installed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

from media_assistant.commands.common import open_services
from media_assistant.commands.web import account_for_browser
from media_assistant.core.config.schema import AccountConfig
from media_assistant.core.files.locks import DataDirLock, ProfileLock
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import InputError, SchedulerBusy
from media_assistant.providers.web.adapter import adapter_path
from media_assistant.providers.web.adapter_files import install_adapter
from media_assistant.providers.web.fingerprint import FingerprintStore
from media_assistant.providers.web.repair import RepairResult, keep_proposal
from media_assistant.services import Services

log = logging.getLogger(__name__)

EXIT_PROVEN, EXIT_NOT_PROVEN = 0, 1
EXIT_PACED = 10


def fingerprints_dir(paths: Paths) -> Path:
    return paths.data_dir / "fingerprints"


def adapter_in_use(paths: Paths, account: AccountConfig) -> tuple[str, Path]:
    """The text of the adapter file the account uses now, and where it is."""
    path = adapter_path(site=account.site, site_file=account.site_file, user_dir=paths.sites)
    try:
        return path.read_text(encoding="utf-8-sig"), path
    except OSError as exc:
        raise InputError(f"{path}: cannot read site adapter: {exc.strerror or exc}") from None


def cmd_repair(paths: Paths, args: argparse.Namespace) -> int:
    from media_assistant.commands.sites import _pacing_wait, _rebuild_users

    lock = DataDirLock(paths.data_dir)
    try:
        lock.acquire()
    except SchedulerBusy as exc:
        raise SchedulerBusy(
            f"{exc}. A running scheduler drives its accounts' browsers: stop it first"
        ) from None
    try:
        services = open_services(paths, args)
        try:
            account = account_for_browser(services, args.account)
            paced = _pacing_wait(services, account, wait=False)
            if paced:
                print(paced, file=sys.stderr)
                return EXIT_PACED
            text, source = adapter_in_use(paths, account)
            auto = services.config.sites.auto_repair
            result = asyncio.run(_repair(services, account, text, source))
        finally:
            services.close()
    finally:
        lock.release()
    installed: str | None = None
    proposal: Path | None = None
    asked = False  # the operator was asked at the terminal (and saw the diff)
    if result.proven:
        proposal = keep_proposal(result, paths.sites)
        asked = not (args.yes or auto or args.json) and sys.stdin.isatty()
        yes = args.yes or auto or (asked and _ask(result, source))
        if yes and account.site_file is None:
            done = install_adapter(proposal, paths.sites)
            installed = done.version
            if not asked:  # installed without a person's yes: a notice says so
                how = "--yes" if args.yes else "[sites] auto_repair = true"
                notice = (
                    f"notice: {account.id}: site {result.site} repaired and installed by itself "
                    f"({how}): version {done.version}; `sites rollback {result.site}` puts "
                    f"{done.replaced or 'the previous one'} back"
                )
                print(notice, file=sys.stderr)
                log.warning(notice.removeprefix("notice: "))
        elif yes:
            print(
                f"{account.id} uses its own site_file {account.site_file}: not installed; the "
                f"repaired file is {proposal}",
                file=sys.stderr,
            )
    if args.json:
        print(json.dumps(result.to_json(installed), ensure_ascii=False, indent=2))
    else:
        _print(result, source, proposal, installed, diff_shown=asked)
    if installed is not None:
        with _quiet_stdout(args.json):
            _rebuild_users(paths, args, result.site)
    return EXIT_PROVEN if result.proven else EXIT_NOT_PROVEN


async def _repair(
    services: Services, account: AccountConfig, text: str, source: Path
) -> RepairResult:
    from media_assistant.providers.registry import ProviderRegistry
    from media_assistant.providers.web.adapter import parse_adapter
    from media_assistant.providers.web.provider import WebProvider
    from media_assistant.providers.web.repair import repair_adapter

    site = parse_adapter(text, str(source)).id
    fingerprint = await asyncio.to_thread(
        FingerprintStore(fingerprints_dir(services.paths)).load, site
    )
    lock = ProfileLock(services.paths.profile(account.id))
    if not lock.try_acquire():
        raise InputError(f"{account.id}: profile in use by another Media Assistant process")
    registry = ProviderRegistry(services.config, services.paths, None)
    driver, profile = registry.driver, services.paths.profile(account.id)
    try:
        return await repair_adapter(
            lambda adapter: WebProvider(
                driver, account.id, profile, adapter, origin=account.origin
            ),
            account.id,
            text,
            fingerprint,
            source=str(source),
        )
    finally:
        await registry.aclose()
        lock.release()


def _ask(result: RepairResult, source: Path) -> bool:
    sys.stdout.write(result.diff(source.name))
    answer = input(f"Install {result.site} {result.version}? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def _print(
    result: RepairResult,
    source: Path,
    proposal: Path | None,
    installed: str | None,
    *,
    diff_shown: bool = False,
) -> None:
    step = result.step.words if result.step is not None else "none"
    print(f"{result.account} ({result.site}): first failed step: {step}")
    for note in result.notes:
        print(f"  {note}")
    if result.check is not None:
        print("last check:")
        print("\n".join(result.check.lines()))
    if not result.proven:
        print(f"nothing proven: {result.why}")
        return
    print(f"PROVEN in {result.seconds:.0f} s:")
    for p in result.proposed:
        print(f"  {p.key}: {p.old} -> {p.new} (score {p.score:.2f}, margin {p.margin:.2f})")
    if not diff_shown:
        sys.stdout.write(result.diff(source.name))
    if installed is not None:
        print(f"installed {result.site} {installed}")
    else:
        print(f"not installed: `media-assistant sites install {proposal}` installs it")


class _quiet_stdout:
    """``--json``: the follow-up lines go to stderr, stdout stays one JSON document."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self._saved = sys.stdout

    def __enter__(self) -> None:
        if self.quiet:
            self._saved, sys.stdout = sys.stdout, sys.stderr

    def __exit__(self, *exc: object) -> None:
        if self.quiet:
            sys.stdout = self._saved
