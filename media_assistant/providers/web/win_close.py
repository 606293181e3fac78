"""Windows: ask a browser to close its windows before it is terminated (issue 29 item 7).

psutil's ``terminate()`` on Windows is ``TerminateProcess``: final, nothing flushed. A browser
ended that way loses the cookies it had not yet written and shows "Restore pages?" at its next
start, over the chat page. On POSIX ``terminate()`` is SIGTERM, which Chromium handles as a
polite close already. So on Windows the browser's top-level windows are sent ``WM_CLOSE``
first (EnumWindows + GetWindowThreadProcessId + PostMessageW, through ctypes: three calls, no
pywin32 for them), and :func:`stop_processes` waits its grace before terminating what is left.
Type-checked with ``mypy --platform win32``; not run on a Windows PC here (docs/PACKAGING.md).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

WM_CLOSE = 0x0010


def post_close(pids: Iterable[int]) -> int:
    """Post WM_CLOSE to every visible top-level window of ``pids``; how many were asked (0
    off Windows, where SIGTERM is the polite request)."""
    wanted = set(pids)
    if sys.platform != "win32" or not wanted:
        return 0
    import ctypes
    from ctypes import wintypes

    user32 = ctypes.WinDLL("user32", use_last_error=True)
    windows: list[int] = []
    enum_proc = ctypes.WINFUNCTYPE(wintypes.BOOL, wintypes.HWND, wintypes.LPARAM)

    def each(hwnd: int, _lparam: int) -> bool:
        owner = wintypes.DWORD()
        user32.GetWindowThreadProcessId(hwnd, ctypes.byref(owner))
        if owner.value in wanted and user32.IsWindowVisible(hwnd):
            windows.append(hwnd)
        return True

    user32.EnumWindows(enum_proc(each), 0)
    for hwnd in windows:
        user32.PostMessageW(hwnd, WM_CLOSE, 0, 0)
    return len(windows)
