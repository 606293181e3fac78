"""A page that stops without answering (issue 22, item 2).

Some chat UIs show nothing when their server fails: the user message, the stop button for a
moment, then no assistant message and no error. Waiting for the first-token timeout (120 s)
there costs two minutes an attempt. Once the page has shown that it was generating and then
stays quiet — nothing generating, no new answer, no error, no marker pending — from one poll
to a poll ``timing.silent_stop_s`` later, the attempt has failed. Counting from a poll that saw
the quiet (not from the sighting before it) takes two polls that agree: one long poll on a
stalled machine is not seconds of quiet.

A page that never starts generating keeps the first-token timeout: without a sighting of the
indicator there is no telling a slow start from a dead one. Reasoning text that still grows
resets the count (a model thinking where the adapter's indicator does not show it).
"""

from __future__ import annotations

from media_assistant.providers.web.snapshot import Snapshot


class SilentStop:
    def __init__(self, grace_s: float) -> None:
        self.grace_s = grace_s
        self.seen_generating = False
        self._quiet_since: float | None = None
        self._reasoning: str | None = None

    def stopped(self, snap: Snapshot, now: float, *, answered: bool, pending: bool) -> bool:
        """Feed one poll. ``answered``: a new answer has text, or the page marked an empty one
        done (that failure has its own words); ``pending``: a login or captcha marker is
        showing and may yet explain the silence. True once the page has stopped without
        answering."""
        if snap.generating or snap.generated:
            self.seen_generating = True
        quiet = (
            self.seen_generating
            and not snap.generating
            and not answered
            and not pending
            and snap.reasoning == self._reasoning
        )
        self._reasoning = snap.reasoning
        if not quiet:
            self._quiet_since = None
            return False
        if self._quiet_since is None:
            self._quiet_since = now
        return now - self._quiet_since >= self.grace_s
