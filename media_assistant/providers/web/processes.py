"""Finding and stopping the browser processes that use a profile directory.

Every process of a Chromium (browser, zygotes, renderers, GPU, utilities) carries
``--user-data-dir=<profile>`` on its command line, and only the browser process has no
``--type=``. That makes the profile directory, not a process name, the reliable key: a name scan
would hit the operator's own browser, and a leftover of ours may be called ``chrome``,
``chromium``, ``msedge`` or ``Google Chrome for Testing``.

Pure psutil, Linux, macOS and Windows. Zombies are treated as gone everywhere: they hold no lock
and no profile, and only their parent can reap them.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import psutil

from media_assistant.providers.web.win_close import post_close

USER_DATA_DIR = "--user-data-dir"
_POLL_S = 0.05
_DESCRIBE_MAX = 160

# A process and its command line as read by one scan.
Seen = tuple[psutil.Process, list[str]]


def scan() -> list[Seen]:
    """Every process with its command line, read in one pass.

    Only command lines: they alone tell which processes matter, at a third of the cost of also
    reading name/status/create_time for every process; those are asked later of the few that
    match. And a snapshot of our own, not ``process_iter(attrs)``'s ``info``: psutil shares its
    ``Process`` objects between all callers and overwrites ``info`` on every scan, from any thread.
    """
    seen: list[Seen] = []
    for proc in psutil.process_iter():
        try:
            cmdline = proc.cmdline()
        except psutil.Error:  # gone, zombie, or not ours to read
            cmdline = []
        seen.append((proc, cmdline))
    return seen


def _attr(proc: psutil.Process, name: str) -> Any:
    """``proc.<name>()`` now, or None when it cannot be read."""
    try:
        return getattr(proc, name)()
    except psutil.Error:
        return None


def cmdline_of(proc: psutil.Process) -> list[str]:
    value = _attr(proc, "cmdline")
    return list(value) if value else []


def create_time_of(proc: psutil.Process) -> float | None:
    value = _attr(proc, "create_time")
    return float(value) if isinstance(value, int | float) else None


def is_zombie(proc: psutil.Process) -> bool:
    return bool(_attr(proc, "status") == psutil.STATUS_ZOMBIE)


def is_alive(proc: psutil.Process) -> bool:
    """Running and not a zombie, asked now (never from a scan's cache). ``is_running`` also
    notices a PID reused by a new process, by comparing creation times."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True  # it exists; we just may not look at it


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def user_data_dir_args(cmdline: Sequence[str]) -> list[str]:
    """The ``--user-data-dir`` values on a command line, as written, with spelling variants.

    Handles ``--user-data-dir=X`` and ``--user-data-dir X``, quotes, and a title rewritten by the
    process (argv joined with spaces and split back by psutil): there a path with spaces comes back
    in pieces, so each longer join up to the next ``-`` switch is offered as another candidate.
    """
    found: list[str] = []
    for i, arg in enumerate(cmdline):
        if arg == USER_DATA_DIR and i + 1 < len(cmdline):
            value, rest = cmdline[i + 1], cmdline[i + 2 :]
        elif arg.startswith(USER_DATA_DIR + "="):
            value, rest = arg[len(USER_DATA_DIR) + 1 :], cmdline[i + 1 :]
        else:
            continue
        if not value:
            continue
        found.append(_unquote(value))
        for piece in rest:
            if piece.startswith("-"):
                break
            value = f"{value} {piece}"
            found.append(_unquote(value))
    return found


def dir_key(path: str | os.PathLike[str], cwd: str | None = None) -> str:
    """A comparable spelling of a directory: absolute, symlinks resolved, no trailing slash,
    case-folded where the file system is (Windows)."""
    raw = os.fspath(path)
    if cwd is not None and not os.path.isabs(raw):
        raw = os.path.join(cwd, raw)
    return os.path.normcase(os.path.realpath(raw))


class ProfileMatcher:
    """Maps processes to the profile directory their command line names (one of ``profiles``)."""

    def __init__(self, profiles: Iterable[Path]) -> None:
        self._by_key: dict[str, Path] = {}
        for profile in profiles:
            self._by_key[dir_key(profile)] = profile
        self._resolved: dict[str, str] = {}  # spelling → key, so each spelling costs one realpath

    def match(self, proc: psutil.Process, cmdline: Sequence[str]) -> Path | None:
        if not any(USER_DATA_DIR in arg for arg in cmdline):
            return None  # the common case, kept cheap: no path resolution at all
        for value in user_data_dir_args(cmdline):
            if os.path.isabs(value):
                key = self._resolved.get(value)
                if key is None:
                    key = self._resolved[value] = dir_key(value)
            else:  # relative to the process's own working directory, not ours
                try:
                    key = dir_key(value, cwd=proc.cwd())
                except (psutil.Error, OSError):
                    continue
            if key in self._by_key:
                return self._by_key[key]
        return None


def processes_by_profile(
    profiles: Iterable[Path], seen: Iterable[Seen] | None = None
) -> dict[Path, list[psutil.Process]]:
    """Non-zombie processes per profile dir, from one pass over ``seen`` (default: a scan)."""
    profiles = list(profiles)
    matcher = ProfileMatcher(profiles)
    found: dict[Path, list[psutil.Process]] = {profile: [] for profile in profiles}
    for proc, cmdline in scan() if seen is None else seen:
        profile = matcher.match(proc, cmdline)
        if profile is not None and not is_zombie(proc):
            found[profile].append(proc)
    return found


def browser_processes(profile_dir: Path) -> list[psutil.Process]:
    """Every non-zombie process whose command line uses ``profile_dir`` (compared resolved)."""
    return processes_by_profile([profile_dir])[profile_dir]


def _is_main(cmdline: Sequence[str]) -> bool:
    return bool(cmdline) and not any(arg.startswith("--type=") for arg in cmdline)


def main_process(procs: Iterable[psutil.Process]) -> psutil.Process | None:
    """The browser process: the one without ``--type=`` (children all have one)."""
    candidates = [p for p in procs if _is_main(cmdline_of(p))]
    if not candidates:
        return None
    # Two mains on one profile should not happen (the second exits with code 21); if a scan
    # caught one starting, the older one is the browser that owns the profile.
    return min(candidates, key=lambda p: create_time_of(p) or 0.0)


def descends_from(proc: psutil.Process, ancestor: int, among: Mapping[int, psutil.Process]) -> bool:
    """Whether ``ancestor`` is ``proc`` or one of its parents, following parents within
    ``among`` (a browser's processes are all in it: they all carry its profile dir)."""
    seen: set[int] = set()
    current: psutil.Process | None = proc
    while current is not None and current.pid not in seen:
        if current.pid == ancestor:
            return True
        seen.add(current.pid)
        parent = _attr(current, "ppid")
        if parent == ancestor:
            return True
        current = among.get(parent) if isinstance(parent, int) else None
    return False


def tree(proc: psutil.Process) -> list[psutil.Process]:
    """``proc`` and its descendants, alive now; empty if it is gone."""
    try:
        return [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []
    except psutil.AccessDenied:
        return [proc]


@dataclass(frozen=True, slots=True)
class StopResult:
    """What stopping did: who left after the polite request, who needed a kill, who is still
    there (access denied, or stuck in the kernel)."""

    terminated: tuple[int, ...] = ()
    killed: tuple[int, ...] = ()
    still_alive: tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.still_alive

    @property
    def pids(self) -> tuple[int, ...]:
        return self.terminated + self.killed + self.still_alive

    def __add__(self, other: StopResult) -> StopResult:
        return StopResult(
            self.terminated + other.terminated,
            self.killed + other.killed,
            self.still_alive + other.still_alive,
        )

    def summary(self) -> str:
        parts = [f"{len(self.terminated)} exited on request", f"{len(self.killed)} killed"]
        if self.still_alive:
            parts.append(f"{len(self.still_alive)} still running")
        return ", ".join(parts)


def _wait_gone(procs: Sequence[psutil.Process], timeout_s: float) -> list[psutil.Process]:
    """Poll until every process is gone or a zombie; return the ones still alive.

    Not ``psutil.wait_procs``: that reaps our own children behind their ``Popen``'s back and
    counts a zombie as alive.
    """
    deadline = time.monotonic() + timeout_s
    alive = [p for p in procs if is_alive(p)]
    while alive and time.monotonic() < deadline:
        time.sleep(_POLL_S)
        alive = [p for p in alive if is_alive(p)]
    return alive


def stop_processes(
    procs: Iterable[psutil.Process], *, grace_s: float = 3.0, kill_wait_s: float = 2.0
) -> StopResult:
    """Ask all of ``procs`` to exit at once (SIGTERM; on Windows WM_CLOSE to their windows
    first, waiting up to ``grace_s``, since TerminateProcess is already final), wait up to
    ``grace_s``, kill what is left, wait up to ``kill_wait_s``."""
    unique: dict[int, psutil.Process] = {}
    for proc in procs:
        if proc.pid != os.getpid():  # never ourselves, whatever a caller passes
            unique.setdefault(proc.pid, proc)
    targets = [p for p in unique.values() if is_alive(p)]
    if post_close(p.pid for p in targets):  # Windows: cookies flushed, no "Restore pages?"
        _wait_gone(targets, grace_s)
    for proc in targets:
        try:
            proc.terminate()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass  # gone already / not ours to signal: the waits below tell which
    lingering = _wait_gone(targets, grace_s)
    for proc in lingering:
        try:
            proc.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    stuck = _wait_gone(lingering, kill_wait_s) if lingering else []
    lingering_pids = {p.pid for p in lingering}
    stuck_pids = {p.pid for p in stuck}
    return StopResult(
        terminated=tuple(p.pid for p in targets if p.pid not in lingering_pids),
        killed=tuple(p.pid for p in lingering if p.pid not in stuck_pids),
        still_alive=tuple(p.pid for p in stuck),
    )


def stop_process_tree(proc: psutil.Process, *, grace_s: float = 3.0) -> StopResult:
    """Stop ``proc`` and all its descendants: graceful first, then kill."""
    return stop_processes(tree(proc), grace_s=grace_s)


def _started(create_time: float | None) -> str:
    if not create_time:
        return "start time unknown"
    when = datetime.fromtimestamp(create_time)
    if when.date() == datetime.now().date():
        return f"started {when:%H:%M:%S}"
    return f"started {when:%Y-%m-%d %H:%M:%S}"


def _short_cmdline(cmdline: Sequence[str]) -> str:
    if not cmdline:
        return "(command line not readable)"
    # A Chromium command line runs to 40+ switches; the telling ones are the profile and the
    # process type, which come late. Show those, and count the rest.
    telling = [a for a in cmdline[1:] if a.startswith((USER_DATA_DIR, "--type="))]
    if telling:
        shown = [cmdline[0], *telling]
        hidden = len(cmdline) - len(shown)
        text = shlex.join(shown) + (f" (+{hidden} more args)" if hidden else "")
    else:
        text = shlex.join(cmdline)
    if len(text) > _DESCRIBE_MAX:
        text = text[: _DESCRIBE_MAX - 1] + "…"
    return text


def describe(proc: psutil.Process) -> str:
    """``chromium (pid 1234, started 14:02:11): /usr/lib/chromium/chromium --user-data-dir=…``,
    for messages an operator reads; never raises."""
    name = _attr(proc, "name") or "process"
    return (
        f"{name} (pid {proc.pid}, {_started(create_time_of(proc))}): "
        f"{_short_cmdline(cmdline_of(proc))}"
    )
