"""Windows ends the session: sign-out, shutdown, a Windows Update restart, an installer's
Restart Manager. The app is told once (Qt's ``commitDataRequest``, a console's
``CTRL_LOGOFF_EVENT``/``CTRL_SHUTDOWN_EVENT``) and may be ended as soon as it answers; the event
loop may not run again, so the graceful stop (``Scheduler.stop``, which awaits attempts) cannot
be counted on.

What must hold is what the graceful stop guarantees for the queue: the session is marked ended
and every row it holds goes back to pending with its attempt kept. Both are written here,
synchronously, on the store's writer thread (after whatever it is doing), bounded in time. The
attempts still running are not awaited: their later writes are fenced by the lease and change
nothing, and the browsers end with the session (their profiles' locks are cleared at the next
start). If the loop does run again, the ordinary stop follows and finds nothing left to return.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from media_assistant.core.lanes.scheduler import Scheduler

log = logging.getLogger(__name__)

# Windows gives a process about 5 s after WM_QUERYENDSESSION/CTRL_LOGOFF before it may end it.
SESSION_END_WRITE_S = 4.0
REASON = "returned to the queue: Windows ended the session"


def release_at_session_end(
    scheduler: Scheduler,
    timeout_s: float = SESSION_END_WRITE_S,
    *,
    loop: asyncio.AbstractEventLoop | None = None,
) -> int:
    """Mark this session ended and return its rows to the queue, attempt kept; blocks. The
    number of rows returned (-1: the writes did not finish in time or failed; the next start's
    recovery returns them then, attempt kept too, as the session is stale or ended).

    Called on the loop's thread (Qt's session end), or from another thread with the scheduler's
    ``loop`` (a console's close handler), where the stop flag is set through the loop."""
    rt = scheduler.rt
    if not scheduler.started or rt is None:
        return 0
    if loop is None:
        rt.stopping.set()  # nothing more is claimed, whatever the loop still does
    else:
        loop.call_soon_threadsafe(rt.stopping.set)
    try:
        scheduler.sessions.write_and_wait(timeout_s, "close", rt.owner_id)
        released = scheduler.store.write_and_wait(timeout_s, "release_owned", rt.owner_id, REASON)
    except Exception:
        log.exception("[scheduler] the session ended before the running tasks were returned")
        return -1
    log.info("[scheduler] Windows ended the session: %d running task(s) returned", len(released))
    return len(released)
