"""``run``: import a batch (optional), then schedule until every task has ended or what is left
cannot progress without the operator. Progress goes to stdout, one line per lane."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import logging
import signal
import sys
import threading
import time

from media_assistant.commands import console_close
from media_assistant.commands.common import (
    log_file_in_use,
    open_services,
    read_batch_and_info,
    schedule_report,
    submit_report,
)
from media_assistant.commands.queue import PauseNotice
from media_assistant.commands.run_progress import Progress
from media_assistant.core.disk.backup_files import latest_backup
from media_assistant.core.disk.backups import has_tasks
from media_assistant.core.disk.full import (
    EXIT_DISK_FULL,
    disk_full,
    human_bytes,
    is_disk_full,
    looks_full,
)
from media_assistant.core.disk.store_file import damaged, translate
from media_assistant.core.disk.upkeep import start_of_day
from media_assistant.core.files.locks import DataDirLock, runtime_dir
from media_assistant.core.files.paths import Paths
from media_assistant.core.lanes.scheduler import Scheduler, StuckModel
from media_assistant.core.lanes.session_end import release_at_session_end
from media_assistant.core.model.errors import StoreDamaged, StoreLocked
from media_assistant.core.model.events import (
    DiskSpaceChanged,
    Event,
    StoreLinkChanged,
)
from media_assistant.core.model.records import BatchInfo, NewTask
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.notices.center import notice_text
from media_assistant.core.store.backends.postgres import is_unreachable, redacted
from media_assistant.notices_runtime import Notices
from media_assistant.services import Services

log = logging.getLogger(__name__)

EXIT_OK, EXIT_SOME_FAILED, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 4, 130
EXIT_STORE_UNREACHABLE = 8
# What is left waits for a person to pass a verification page on a web account (issue 32).
EXIT_NEEDS_PERSON = 11
PROGRESS_EVERY_S = 1.0
TEAM_REFRESH_S = 5.0  # a team run reads its tasks' states from the store this often…
TEAM_REFRESH_MAX = 5_000  # …while no more of them are open (a read of 5,000 rows: ~0.1 s)


def cmd_run(paths: Paths, args: argparse.Namespace) -> int:
    services = open_services(paths, args)
    try:
        tasks, info = read_batch_and_info(services, args) if args.batch else ([], None)
        lock = DataDirLock(paths.data_dir)
        lock.acquire()
        try:
            runtime_dir()  # the lock folder is ours alone (UnsafeLockDir → exit 2)
            _daily_upkeep(services)
            return asyncio.run(
                _run(services, tasks, info, disk_wait_s=args.disk_wait, db_wait_s=args.db_wait)
            )
        finally:
            lock.release()
    finally:
        services.close()


def _daily_upkeep(services: Services) -> None:
    """Once a day, before any work: check the whole store, then back it up (core/disk/backups.py).
    A store that fails the check stops the run (StoreDamaged, exit 5) before the batch is
    imported, and never replaces a good backup. A team database is the server's to check and
    back up (``backup`` takes a snapshot on demand): this workstation's old file, if any, is
    not the queue any more."""
    if services.store_url is not None:
        return
    paths = services.paths
    latest = latest_backup(paths.backups)
    due = latest is None or latest.made_at.date() != dt.date.today()
    if due and has_tasks(paths.database):  # it can take a while on a big store: say so
        print("checking the task store and backing it up (once a day)…", flush=True)
    try:
        outcome = start_of_day(paths, services.config)
    except Exception as exc:
        if not is_disk_full(exc):
            raise
        # No room for a copy of the store is no reason not to run: the run itself stops
        # claiming (and says so) if the disk is really full.
        print(f"warning: no backup today: {disk_full(paths.backups)}", file=sys.stderr)
        return
    if outcome.damage is not None:
        raise damaged(paths.database, f"the daily check found: {outcome.damage}", paths.backups)
    if outcome.made is not None:
        print(f"backup: {outcome.made.path} ({outcome.made.tasks} tasks)", flush=True)


async def _run(
    services: Services,
    tasks: list[NewTask],
    info: BatchInfo | None = None,
    *,
    disk_wait_s: float = 300.0,
    db_wait_s: float = 30.0,
) -> int:
    services.bind_loop()
    services.serve_metrics()  # [metrics] listen
    store = services.async_store
    progress = Progress(store)
    progress.add_rows(await store.view_rows(states=[TaskState.PENDING, TaskState.RUNNING]))
    await _startup_checkup(services)
    scheduler = services.scheduler()
    told_disk_wait = told_db_wait = False

    def on_event(event: Event) -> None:
        nonlocal told_disk_wait, told_db_wait
        progress.on_event(event)
        if isinstance(event, StoreLinkChanged):
            if event.reachable:
                told_db_wait = False  # (the link itself logs "answers again" once)
            elif not told_db_wait:
                told_db_wait = True
                print(
                    f"waiting up to {db_wait_s:.0f} s for the team database (--db-wait), then "
                    "the run ends with exit 8; nothing received is lost",
                    file=sys.stderr,
                    flush=True,
                )
        if isinstance(event, DiskSpaceChanged) and event.full and not told_disk_wait:
            told_disk_wait = True  # (the guard itself logs "disk full: ..." once per episode)
            print(
                f"waiting up to {disk_wait_s:.0f} s for space (--disk-wait), then the run "
                "ends with exit 6; nothing received is lost",
                file=sys.stderr,
                flush=True,
            )

    unsubscribe = services.bus.subscribe(on_event)
    notices = Notices(services)  # batch ended, account needs you, disk low; webhooks
    notices.subscribe(lambda n: print("notice: " + ": ".join(notice_text(n, "en")), flush=True))
    await notices.start()
    await scheduler.start()
    if tasks:
        try:
            result = await scheduler.submit(tasks, batch=info)
        except BaseException:
            # Nothing was imported (one transaction); the scheduler still stops properly: its
            # session ends, its browsers close, its disk reserve goes (a full disk, say).
            await scheduler.stop()
            await notices.stop()
            unsubscribe()
            raise
        print(submit_report(result), flush=True)
        schedule = await asyncio.to_thread(schedule_report, services, result.batch_id)
        if schedule:
            print(schedule, flush=True)
        rerun = {
            r["task_id"]
            for r in await store.view_rows(list(result.skipped))
            if not TaskState(r["state"]).terminal
        }
        await progress.add(set(result.added) | rerun)
    started = time.monotonic()
    interrupted = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal(sig: signal.Signals) -> None:
        # First signal: a graceful stop. Then the default handler is back, so a second Ctrl-C
        # stops at once if the graceful one takes too long.
        interrupted.set()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(sig)

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows: no handlers
            loop.add_signal_handler(sig, on_signal, sig)
    # Windows: the console closed, the session ending, Ctrl-C (console_close.py says how).
    stopped = threading.Event()
    console = console_close.install(
        console_close.ConsoleEvents(
            lambda: loop.call_soon_threadsafe(interrupted.set),
            stopped,
            lambda: release_at_session_end(scheduler, loop=loop),
        )
    )
    runner = asyncio.ensure_future(scheduler.run_until_idle())
    stopper = asyncio.ensure_future(interrupted.wait())
    disk = scheduler.disk
    link = scheduler.link
    gave_up_on_disk = gave_up_on_store = False
    pauses = PauseNotice(store)  # a paused queue waits: say so
    refreshed = time.monotonic()
    watch = scheduler.watch
    seen_events: int | None = None  # the queue watch's count of task changes at the last read
    try:
        while not runner.done() and not interrupted.is_set():
            await asyncio.wait(
                {runner, stopper}, timeout=PROGRESS_EVERY_S, return_when=asyncio.FIRST_COMPLETED
            )
            if (
                services.store_url is not None
                and time.monotonic() - refreshed >= TEAM_REFRESH_S
                and (watch is None or watch.events_generation != seen_events)
            ):
                # (Only after a task changed somewhere: an idle run reads nothing, issue 28.)
                refreshed = time.monotonic()
                seen_events = None if watch is None else watch.events_generation
                with contextlib.suppress(Exception):  # an outage: the link says so
                    await progress.refresh(at_most=TEAM_REFRESH_MAX)
            progress.print_changed()
            await pauses.update(None if watch is None else watch.pauses_generation)
            if disk.full and disk.full_for() >= disk_wait_s:
                # Nothing can progress on a full disk: end (exit 6) rather than wait all
                # night; what was received is written in the reserve's room (Scheduler.stop).
                gave_up_on_disk = True
                break
            if link.down and link.down_for() >= db_wait_s:
                # A script waiting on 'run' learns the team database is gone (exit 8) instead
                # of waiting all night; what was received is kept (Scheduler.stop).
                gave_up_on_store = True
                break
    finally:
        stopper.cancel()
        if not runner.done():
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
        try:
            await scheduler.stop()
        except Exception as exc:
            # A team database still away at the stop: what could not be written was kept (or
            # is taken back by the reaper); the line below says so, not a traceback's summary.
            if not is_unreachable(exc):
                raise
            log.warning(
                "the team database was still unreachable at the stop",
                exc_info=exc,
                extra={"file_only": True},
            )
        await notices.stop()
        unsubscribe()
        stopped.set()
        console()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
    progress.print_changed()
    if gave_up_on_disk:
        states = progress.states()
        kept = (
            f"; {disk.held_written} answer(s) received while it was full were written"
            if disk.held_written
            else ""
        )
        saved = (
            f"; {disk.spilled} answer(s) could not be written to the store and were saved "
            f"beside it ({disk.reserve.path if disk.reserve else '?'}): the next run writes them"
            if disk.spilled_pending and disk.spilled
            else ""
        )
        lost_n = disk.held_lost - (disk.spilled if disk.spilled_pending else 0)
        lost = (
            f"; {lost_n} answer(s) received while it was full could not be kept and will be "
            "requested again"
            if lost_n > 0
            else ""
        )
        print(
            f"error: disk full: {human_bytes(disk.free)} free on {disk.folder}; waited "
            f"{disk_wait_s:.0f} s for space{kept}{saved}{lost}. {states['success']} task(s) "
            f"succeeded, {states['pending'] + states['running']} are back in the queue"
            f"{' (or go back at the next start)' if disk.spilled_pending else ''} with no "
            "attempt used up. Free some space, then 'media-assistant run' continues",
            file=sys.stderr,
        )
        return EXIT_DISK_FULL
    if gave_up_on_store:
        return _store_gone(services, scheduler, progress, db_wait_s)
    if interrupted.is_set():
        print(
            "interrupted: running tasks went back to the queue (no attempt used up); "
            "'media-assistant run' continues them",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    error = runner.exception()
    if error is not None and looks_full(error, disk.folder):
        log.error("the scheduler stopped: disk full", exc_info=error)
        full = disk_full(disk.folder, "running tasks went back to the queue")
        print(f"error: {full}", file=sys.stderr)
        return EXIT_DISK_FULL
    if error is not None:
        log.error("the scheduler stopped on an internal error", exc_info=error)
        known = translate(error, services.paths.database, services.paths.backups)
        if isinstance(known, StoreDamaged | StoreLocked):  # the store failed mid-run
            print(f"error: {known} (running tasks went back to the queue)", file=sys.stderr)
            return known.exit_code
        where = log_file_in_use() or "the log"
        print(
            f"internal error: {error!r} (running tasks went back to the queue; "
            f"details in {where}, then run again)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    # What the batch came to, also where other workstations ran some of it (team mode).
    await progress.refresh()
    return await _summary(scheduler, progress, runner.result(), time.monotonic() - started)


def _store_gone(
    services: Services, scheduler: Scheduler, progress: Progress, db_wait_s: float
) -> int:
    """The one line of a run that gave up on an unreachable team database (exit 8)."""
    disk, held = scheduler.disk, scheduler.held
    saved = (
        f"; {disk.spilled} answer(s) received meanwhile were saved beside the store "
        f"({disk.reserve.path if disk.reserve else '?'}): the next run writes them"
        if disk.spilled_pending and disk.spilled
        else ""
    )
    kept = held.outcomes() if held is not None else []
    if held is not None and kept:  # team mode: on this PC's disk (core/disk/held.py)
        saved += (
            f"; {len(kept)} outcome(s) received meanwhile are kept in {held.folder}: the next "
            "run writes them, with no attempt used"
        )
    states = progress.states()
    print(
        f"error: the team database {redacted(services.store_url or '')} could not be reached "
        f"for {db_wait_s:.0f} s (--db-wait); the run ended{saved}. {states['success']} task(s) "
        "succeeded; the ones it was running go back to the queue once a workstation reaches "
        "the database again. Check the network and the server, then 'media-assistant run' "
        "continues",
        file=sys.stderr,
    )
    return EXIT_STORE_UNREACHABLE


async def _startup_checkup(services: Services) -> None:
    """The self-check at start: leftovers stopped, stale locks cleared, problems shown."""
    if not any(a.kind is ModelKind.WEB for a in services.config.accounts):
        return
    from media_assistant.providers.web.checkup import run_checkup

    # psutil walks every process and the checkup writes to the database: not on the loop.
    checkup = await asyncio.to_thread(
        run_checkup, services.config, services.paths, services.accounts
    )
    for line in checkup.problems():
        print(f"[web] {line}", file=sys.stderr, flush=True)


async def _summary(
    scheduler: Scheduler, progress: Progress, stuck: list[StuckModel], took: float
) -> int:
    states = progress.states()
    total = sum(states.values())
    minutes, seconds = divmod(int(took), 60)
    print(
        f"finished in {minutes}m{seconds:02d}s: {total} tasks, {states['success']} succeeded, "
        f"{states['failed']} failed, {states['canceled']} canceled, "
        f"{states['pending']} left pending"
    )
    failed = await scheduler.store.get_many(
        sorted(t for t, (_, s) in progress.tasks.items() if s == TaskState.FAILED.value)
    )
    for r in failed[:50]:
        print(f"  failed  [{r.model_kind}] {r.task_id}: {r.error_kind}: {r.error_message}")
    if len(failed) > 50:
        print(f"  ... and {len(failed) - 50} more (media-assistant export --state failed)")
    held = sorted({a for s in stuck for a in s.held_for_person})
    for s in stuck:
        if s.only_a_person:
            print(
                f"  waiting for a person: {s.pending} pending task(s) for model {s.model}: a "
                f'verification page (captcha, "checking your browser") holds '
                f"{', '.join(s.held_for_person)}"
            )
        else:
            print(f"  cannot progress: {s.pending} pending task(s) for model {s.model}: {s.reason}")
    for account_id in held:
        print(
            f"  {account_id}: a person passes it in a browser window: 'media-assistant accounts "
            f"login {account_id}' opens its profile there, through its proxy (or in the desktop "
            "app: right-click the account, Show browser); once the page shows the chat, the "
            f"login (or 'media-assistant accounts check {account_id}') lifts the hold; then run "
            "again"
        )
    if not all(s.only_a_person for s in stuck):
        print("  fix the account(s) (media-assistant accounts ...), then run again")
    if held:
        return EXIT_NEEDS_PERSON
    ok = states["success"] == total
    return EXIT_OK if ok else EXIT_SOME_FAILED
