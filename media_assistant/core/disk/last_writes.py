"""The last writes of a scheduler that stops on a full disk — or while its team database cannot
be reached — and their recovery at the next start (issue 9 item 3, issue 19 item 5; the why is
in core/disk/full.py, core/disk/reserve.py and core/store/link.py).

Kept out of the scheduler so that its ``stop`` stays a list of steps: mark the session, stop the
attempts and lanes, return what it owns to the queue — and, when the disk was full or the
database unreachable and some of that failed, :func:`last_writes_beside_the_store`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from media_assistant.core.disk.full import DiskGuard
from media_assistant.core.disk.held import HeldOutcomes
from media_assistant.core.disk.reserve import Spill
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.store.facade import AsyncStore

log = logging.getLogger("media_assistant.core.lanes.scheduler")


Absorb = Callable[[BaseException], bool]


async def last_write(
    disk: DiskGuard, write: Callable[[], Awaitable[Any]], what: str, *absorb: Absorb
) -> bool:
    """A write of the shutdown; False if it failed (on a full disk, or an error one of
    ``absorb`` recognises — the team database unreachable: quietly, said once)."""
    try:
        await write()
        return True
    except Exception as exc:
        if not disk.absorb(exc) and not any(a(exc) for a in absorb):
            log.exception("[scheduler] %s", what)
        return False


async def last_writes_beside_the_store(
    disk: DiskGuard,
    store: AsyncStore,
    owner_id: str,
    *absorb: Absorb,
    end_session: Callable[[], Awaitable[Any]],
    sweep: Callable[[], Awaitable[Any]] | None,
    session_marked: bool,
) -> None:
    """The disk is full (or the team database unreachable) and some of the shutdown's writes
    failed. Write the answers not yet written (``disk.unwritten``) and this session's id into
    the disk reserve, in place (no free space needed), which gives up the rest of the reserve;
    then try those writes again (in that room, or in case the database answers again). What
    still fails is taken in by the next start (:func:`take_in_spill`)."""
    kept = await asyncio.to_thread(disk.spill, Spill(owner_id, list(disk.unwritten)))
    done = True
    for claim, r in list(disk.unwritten):
        write = functools.partial(
            store.finish_success,
            claim,
            r.text,
            reasoning=r.reasoning,
            usage=r.usage,
            plain=r.plain_text,
        )
        if not await last_write(
            disk, write, f"{claim.task_id}: could not write its answer", *absorb
        ):
            done = False
            break
        disk.unwritten.remove((claim, r))
        disk.held_lost -= 1
        disk.held_written += 1
    if done and not session_marked:
        done = await last_write(disk, end_session, "could not mark the session ended", *absorb)
    if done and sweep is not None:
        done = await last_write(
            disk, sweep, "could not return the running tasks to the queue", *absorb
        )
    if done:
        disk.spilled_pending = False  # everything is in the store: the reserve can go
        return
    disk.spilled_pending = kept >= 0
    disk.spilled = max(0, kept)
    log.warning(
        "[scheduler] %s: %d answer(s) and the running tasks were saved in %s; the next start "
        "writes them to the task store",
        "disk full" if disk.full else "the task store cannot be reached",
        max(0, kept),
        disk.reserve.path if disk.reserve is not None else "?",
    )


async def take_in_spill(disk: DiskGuard, store: AsyncStore) -> None:
    """What a shutdown on a full disk saved in the reserve: its answers are written (each fenced
    by its attempt and lease, so never twice) and its session's rows go back to the queue
    without using an attempt. Called at start, before the orphans are recovered."""
    spill = await asyncio.to_thread(disk.read_spill)
    if spill is None:
        return
    disk.spilled_pending = True  # kept, should this start fail (a disk still full)
    written = 0
    for claim, r in spill.answers:
        if await store.finish_success(
            claim, r.text, reasoning=r.reasoning, usage=r.usage, plain=r.plain_text
        ):
            written += 1
    await store.release_owned(
        spill.owner_id, "its scheduler stopped before it could write them (saved beside the store)"
    )
    disk.spilled_pending = False  # in the store now; the reserve is laid down anew
    log.warning(
        "[scheduler] took in what a run that stopped on a full disk saved: %d answer(s) "
        "written, its running tasks back in the queue",
        written,
    )


async def take_in_held(held: HeldOutcomes, store: AsyncStore) -> None:
    """What a run kept on disk while the team database was away (core/disk/held.py): its answers
    are written with the time they arrived, its stopped attempts go back with the attempt kept
    — each fenced by its attempt and lease, so never twice: one for an attempt that was since
    taken back and run again is dropped, and said. Then the rows of a session that was running
    when the database went away (and never saw it back) return without using an attempt.
    Called at start, before the orphans are recovered; each file goes once it is written."""
    outcomes = await asyncio.to_thread(held.outcomes)
    sessions = await asyncio.to_thread(held.sessions)
    if not outcomes and not sessions:
        return
    written = dropped = 0
    for o in outcomes:
        c = o.claim
        if o.kind == "answer" and o.result is not None:
            r = o.result
            ok = await store.finish_success(
                c,
                r.text,
                reasoning=r.reasoning,
                usage=r.usage,
                plain=r.plain_text,
                finished_at=o.held_at,
            )
            if ok:
                await store.log_event(
                    c.task_id,
                    "state",
                    "answer held while the team database was unreachable; written at the next "
                    "start",
                    lane=c.model_kind.value,
                    account_id=c.account_id,
                    attempt=c.attempt,
                    code=EventCode.ANSWER_HELD,
                    params={"seconds": round(store.clock.now() - o.held_at, 1)},
                )
        else:
            ok = await store.requeue(
                c,
                not_before=None,
                keep_attempt=True,
                kind=None,
                message=o.reason or "returned to the queue (attempt not used up)",
                event_kind="state",
                code=EventCode.RETURNED_OUTAGE,
            )
        if ok:
            written += 1
        else:
            dropped += 1
            log.warning(
                "[scheduler] %s: the %s held for attempt %d is dropped: the task was taken back "
                "and run again (or ended) meanwhile",
                c.task_id,
                "answer" if o.kind == "answer" else "return to the queue",
                c.attempt,
            )
        await asyncio.to_thread(held.drop, c)
    returned = 0
    for why, owner_id in sessions:
        returned += len(
            await store.release_owned(
                owner_id,
                "its scheduler stopped while the team database could not be reached",
            )
        )
        await asyncio.to_thread(held.drop_session, owner_id, why)
    log.warning(
        "[scheduler] took in what a run kept while the team database was away (%s): %d "
        "outcome(s) written, %d dropped, %d running task(s) back in the queue",
        held.folder,
        written,
        dropped,
        returned,
    )
