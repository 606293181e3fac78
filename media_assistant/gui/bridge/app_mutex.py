"""The named mutex the Windows installer looks for (``AppMutex`` in
packaging/windows/media_assistant.iss): while it exists, setup and the uninstaller ask the
operator to close Media Assistant instead of replacing files under a running app.

Held for the process's lifetime (Windows frees it when the process ends, however it ends).
Both the session's name and the ``Global\\`` one are created, as Inno Setup's documentation
advises; the global one may be refused to a standard user, which is fine. Elsewhere nothing.
"""

from __future__ import annotations

import sys

NAMES = ("MediaAssistantAppMutex", "Global\\MediaAssistantAppMutex")

_held: list[int] = []  # the handles, kept open until the process ends


def hold_app_mutex() -> int:
    """Create the mutexes (Windows); the number now held (0 elsewhere)."""
    if sys.platform != "win32" or _held:
        return len(_held)
    import ctypes

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    for name in NAMES:
        handle = kernel32.CreateMutexW(None, False, name)
        if handle:
            _held.append(int(handle))
    return len(_held)
