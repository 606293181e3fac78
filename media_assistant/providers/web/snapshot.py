"""What one poll of a chat page says (:class:`Snapshot`), and what its markers mean.

Plain data and rules, no browser: the page script (``page_scripts.SNAPSHOT_JS``) fills a
snapshot; :mod:`page` and :mod:`provider` decide with these what a marker fails or defers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from media_assistant.core.model.errors import ErrorKind, ProviderError

MARKERS = ("login_lost", "captcha", "rate_limited", "busy", "conflict", "error")

MARKER_ERRORS: dict[str, ErrorKind] = {
    "login_lost": ErrorKind.LOGIN_REQUIRED,
    "captcha": ErrorKind.CAPTCHA,
    "rate_limited": ErrorKind.RATE_LIMITED,
    "busy": ErrorKind.SITE_BUSY,
    "conflict": ErrorKind.SESSION_CONFLICT,
    "error": ErrorKind.SERVER_ERROR,
}


@dataclass(frozen=True, slots=True)
class Snapshot:
    url: str
    answers: int
    text: str | None
    reasoning: str | None
    generating: bool
    done: int
    users: int
    alerts: str
    markers: dict[str, str | None] = field(default_factory=dict)
    answer_error: str | None = None  # an error box inside the last answer
    composer: bool = False  # a composer is visible (plain-CSS input selectors only)
    # The generating indicator showed at some moment since the send (watched in the page,
    # between polls too: see page_scripts.ARM_JS)
    generated: bool = False

    def problem(self) -> tuple[str, str] | None:
        """The first marker present, by severity: (marker name, what matched)."""
        for name in MARKERS:
            hit = self.markers.get(name)
            if hit:
                return name, hit
        return None


# Markers that fail a task only once they have held for timing.marker_persist_s: a sign-in
# screen flashing while a page loads is not a lost login.
PERSISTENT_MARKERS = ("login_lost", "captcha")


class MarkerWatch:
    """Applies ``marker_persist_s`` to login/captcha markers; other markers count at once."""

    def __init__(self, persist_s: float) -> None:
        self.persist_s = persist_s
        self._since: dict[str, float] = {}

    def problem(self, snap: Snapshot, now: float | None = None) -> tuple[str, str] | None:
        now = time.monotonic() if now is None else now
        for name in PERSISTENT_MARKERS:
            if snap.markers.get(name):
                self._since.setdefault(name, now)
            else:
                self._since.pop(name, None)
        for name in MARKERS:
            hit = snap.markers.get(name)
            if not hit:
                continue
            if name in PERSISTENT_MARKERS and now - self._since[name] < self.persist_s:
                continue
            return name, hit
        return None

    def pending(self) -> bool:
        """A login/captcha marker is showing but has not held long enough yet."""
        return bool(self._since)


def marker_error(problem: tuple[str, str], snap: Snapshot) -> ProviderError:
    name, hit = problem
    detail = snap.alerts.strip().splitlines()[0] if snap.alerts.strip() else hit
    messages = {
        "login_lost": f"the site asks to log in ({hit})",
        "captcha": f"a captcha/challenge needs a human ({hit})",
        "rate_limited": f"the site says: {detail}",
        "busy": f"the site says: {detail}",
        "conflict": f"the site says another generation is running: {detail}",
        "error": f"the site reported an error: {detail}",
    }
    return ProviderError(MARKER_ERRORS[name], messages[name])
