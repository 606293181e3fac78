"""``pause``, ``resume`` and ``prioritize``: the operator's hold on the queue, from a terminal.

They write to the database and return; a scheduler running in another process (``run``, the
desktop app) sees a pause at its next claim (the claim statement checks it) and a priority at
its next pick of the queue head. Running tasks are never interrupted: a pause means "nothing
new starts", so the tasks already running finish ("pausing after the current task").
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import time

from media_assistant.commands.common import open_services
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import Pause
from media_assistant.core.store.backends.postgres import is_unreachable
from media_assistant.core.store.facade import AsyncStore
from media_assistant.services import Services

EXIT_OK = 0


def scope_of(args: argparse.Namespace) -> tuple[str, str]:
    """(scope, target) from ``--all | --lane L | --batch B | --account ID`` (none: --all)."""
    given = [
        (scope, value)
        for scope, value in (
            ("lane", args.lane),
            ("batch", args.batch),
            ("account", args.account),
        )
        if value
    ]
    if args.all or not given:
        if given:
            raise InputError("give one of --all, --lane, --batch, --account")
        return "all", ""
    if len(given) > 1:
        raise InputError("give one of --all, --lane, --batch, --account")
    return given[0]


def describe(scope: str, target: str) -> str:
    return {
        "all": "the whole queue",
        "lane": f"the {target} lane",
        "batch": f"batch {target}",
        "account": f"account {target}",
    }[scope]


def _check_target(services: Services, scope: str, target: str) -> None:
    if scope == "batch" and not services.store.batch_exists(target):
        raise InputError(f"unknown batch {target!r}")
    if scope == "account" and services.config.account(target) is None:
        known = ", ".join(a.id for a in services.config.accounts) or "none configured"
        raise InputError(f"unknown account {target!r} (accounts: {known})")


def cmd_pause(paths: Paths, args: argparse.Namespace) -> int:
    scope, target = scope_of(args)
    services = open_services(paths, args, require_config=scope == "account")
    try:
        _check_target(services, scope, target)
        fresh = services.store.pause(scope, target)
        running = services.store.running_in(scope, target)
    finally:
        services.close()
    what = describe(scope, target)
    if not fresh:
        print(f"{what} was already paused")
    elif running:
        print(
            f"pausing {what} after the current task: {running} running task(s) finish, "
            "nothing new starts until 'media-assistant resume'"
        )
    else:
        print(f"paused {what}: nothing new starts until 'media-assistant resume'")
    return EXIT_OK


def cmd_resume(paths: Paths, args: argparse.Namespace) -> int:
    scope, target = scope_of(args)
    services = open_services(paths, args, require_config=False)
    try:
        lifted = services.store.resume(scope, target)
        left = services.store.pauses()
    finally:
        services.close()
    what = describe(scope, target)
    print(f"resumed {what}" if lifted else f"{what} was not paused")
    if left:
        print("still paused: " + "; ".join(pause_line(p) for p in left))
    return EXIT_OK


def pause_line(pause: Pause) -> str:
    since = dt.datetime.fromtimestamp(pause.paused_at).strftime("%m-%d %H:%M")
    return f"{describe(pause.scope, pause.target)} (since {since})"


def cmd_prioritize(paths: Paths, args: argparse.Namespace) -> int:
    if bool(args.ids) == bool(args.batch):
        raise InputError("prioritize: name task ids or --batch B (not both)")
    chosen = [x for x in (args.priority is not None, args.top, args.bottom) if x]
    if len(chosen) != 1:
        raise InputError("prioritize: give one of --priority N, --top, --bottom")
    services = open_services(paths, args, require_config=False)
    try:
        if args.batch and not services.store.batch_exists(args.batch):
            raise InputError(f"unknown batch {args.batch!r}")
        if args.ids:  # nothing is written when an id is wrong
            found = {r.task_id for r in services.store.get_many(args.ids)}
            unknown = [i for i in args.ids if i not in found]
            if unknown:
                raise InputError("unknown task id(s): " + ", ".join(unknown[:20]))
        result = services.store.set_priority(
            args.ids or None,
            batch_id=args.batch,
            priority=args.priority,
            where="top" if args.top else "bottom" if args.bottom else None,
        )
    finally:
        services.close()
    line = f"{len(result.changed)} task(s) now at priority {result.priority}"
    if result.finished:
        line += f"; {len(result.finished)} already finished, left as they were"
    print(line)
    return EXIT_OK


class PauseNotice:
    """For ``run``: a line whenever the pauses in force change (a ``pause`` typed in another
    terminal), so a run that waits says why instead of looking stuck."""

    EVERY_S = 2.0

    def __init__(self, store: AsyncStore) -> None:
        self.store = store
        self._seen: tuple[tuple[str, str], ...] = ()
        self._at = float("-inf")
        self._generation: int | None = None

    async def update(self, generation: int | None = None) -> None:
        """``generation``: the scheduler's queue watch's count of pause changes
        (core/lanes/queue_watch.py); the pauses are read again only once it moved."""
        if time.monotonic() - self._at < self.EVERY_S:
            return
        if generation is not None and generation == self._generation:
            return
        self._at = time.monotonic()
        try:
            pauses = await self.store.pauses()
        except Exception as exc:  # a busy database: the next look
            if is_unreachable(exc):  # the team database is away: the link says so, once
                return
            logging.getLogger(__name__).warning("could not read the pauses: %s", exc)
            return
        self._generation = generation
        now = tuple((p.scope, p.target) for p in pauses)
        if now == self._seen:
            return
        self._seen = now
        if pauses:
            print(
                "paused: "
                + "; ".join(pause_line(p) for p in pauses)
                + " ('media-assistant resume' continues)",
                flush=True,
            )
        else:
            print("resumed: nothing is paused", flush=True)
