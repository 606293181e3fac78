"""A virtual X display of the test's own (Xvfb), for what needs a real window: the browser an
operator signs in with is never headless."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator


@contextlib.contextmanager
def virtual_display(screen: str = "1280x1024x24") -> Iterator[str]:
    """Starts Xvfb on a free display; yields its name (``":99"``)."""
    if shutil.which("Xvfb") is None:
        raise RuntimeError("Xvfb is not installed (scripts/setup.sh installs it)")
    read, write = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", screen, "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as answer:
            number = answer.readline().strip()  # Xvfb writes the display once it is ready
        if not number:
            raise RuntimeError("Xvfb did not start")
        yield f":{number}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
