"""A file held for a moment by someone else (Windows habits, issue 29 item 7).

On Windows, Defender, the search indexer, OneDrive or a backup agent opens a file that was just
written, for a few hundred milliseconds, without sharing delete access; a browser that was just
stopped releases its profile's ``lockfile`` a moment after the process is gone. A rename or a
delete in that moment fails with a sharing violation (``PermissionError``, winerror 32 or 33)
or access denied (5). Retried for about two seconds, such a failure goes away; the operator is
told a file is open only when it does not. POSIX has no such habit: there a ``PermissionError``
is a real permission problem, raised at once (the predicate says which is which).

Hand-written (a dozen lines) rather than a retry library: the rule is one predicate and one
bounded loop, and the clock and sleep are injected for the tests.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

HELD_WAIT_S = 2.0
_SHARING_VIOLATION, _LOCK_VIOLATION, _ACCESS_DENIED = 32, 33, 5


def held_for_a_moment(exc: OSError) -> bool:
    """A Windows error that someone holding the file for a moment explains."""
    return isinstance(exc, PermissionError) and getattr(exc, "winerror", None) in (
        _SHARING_VIOLATION,
        _LOCK_VIOLATION,
        _ACCESS_DENIED,
    )


def retry_while_held(
    operation: Callable[[], T],
    *,
    wait_s: float = HELD_WAIT_S,
    transient: Callable[[OSError], bool] = held_for_a_moment,
    sleep: Callable[[float], object] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """``operation()``, tried again (50 ms, doubling to 400 ms) while it fails with a
    ``transient`` error and ``wait_s`` has not passed; then its error, as it is."""
    deadline = clock() + wait_s
    pause = 0.05
    while True:
        try:
            return operation()
        except OSError as exc:
            if not transient(exc) or clock() + pause > deadline:
                raise
        sleep(pause)
        pause = min(pause * 2, 0.4)


def replace_file(source: Path, target: Path) -> None:
    """``os.replace``, patient with a target (or source) held for a moment on Windows."""
    retry_while_held(lambda: os.replace(source, target))


def unlink_file(path: Path, *, wait_s: float = HELD_WAIT_S) -> None:
    """``path.unlink()``, patient in the same way (a stopped browser's ``lockfile``)."""
    retry_while_held(path.unlink, wait_s=wait_s)
