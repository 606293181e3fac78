"""The pre-flight self-check: at app start, before every web task, and `media-assistant selfcheck`.

Why it exists: a browser left over from an earlier run keeps its profile locked, and every later
launch on that profile then fails in ways that look like account problems (exit code 21, "login
lost"). And two tools sharing one profile log each other out. So before a browser is launched on a
profile we:

1. stop the leftovers that are ours — processes whose command line uses the profile dir (a
   Chromium started by hand on our profile counts: as far as we can tell it is a crashed run's),
   and the PID we recorded at the last launch if it is still that same process;
2. clear stale Chromium locks (``Singleton*`` naming this host and a dead process);
3. never touch a lock held by something else — a live process that does not use our profile dir,
   or another computer — and report it, so the task fails with a hint naming the holder.

Contract for callers: check only profiles whose ``ProfileLock`` you hold (else this would stop
another Media Assistant's browser), and pass the browsers you are driving right now as
``in_use`` so a warm browser is not taken for a leftover. It blocks for up to ``grace_s`` + 2 s
when it has something to stop: from async code call it through ``asyncio.to_thread``.

No TCP ports to check: Playwright drives Chromium over ``--remote-debugging-pipe``.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import psutil

from media_assistant.core.files.held import unlink_file
from media_assistant.providers.web.processes import (
    StopResult,
    create_time_of,
    descends_from,
    describe,
    is_alive,
    is_zombie,
    main_process,
    processes_by_profile,
    scan,
    stop_processes,
    tree,
)

LOCK = "SingletonLock"  # symlink → "<hostname>-<pid>" (Linux, macOS)
SINGLETON_FILES = (LOCK, "SingletonCookie", "SingletonSocket")
WINDOWS_LOCK = "lockfile"  # held open, delete-on-close, by the browser process on Windows
# A recorded PID is the same process only if it was created when we recorded it.
CREATE_TIME_TOLERANCE_S = 1.0
# A lock's holder must predate the lock: Chromium writes it after it starts. A live process that
# started later got the dead holder's PID recycled, so it holds nothing.
LOCK_AGE_TOLERANCE_S = 2.0
_RESCANS = 3


class FindingKind(StrEnum):
    OK = "ok"
    LEFTOVER_STOPPED = "leftover_stopped"
    LEFTOVER_FAILED_TO_STOP = "leftover_failed_to_stop"
    STALE_LOCK_CLEARED = "stale_lock_cleared"
    FOREIGN_HOLDER = "foreign_holder"
    LOCK_OTHER_HOST = "lock_other_host"


# A launch on the profile would fail (Chromium exits with code 21), so the task must not try:
# it fails with ErrorKind.PROFILE_IN_USE and the finding's action as the hint.
BLOCKING_KINDS = frozenset(
    {
        FindingKind.FOREIGN_HOLDER,
        FindingKind.LOCK_OTHER_HOST,
        FindingKind.LEFTOVER_FAILED_TO_STOP,
    }
)

_HEADLINES = {
    FindingKind.OK: "ok",
    FindingKind.LEFTOVER_STOPPED: "stopped a leftover browser",
    FindingKind.LEFTOVER_FAILED_TO_STOP: "could not stop a leftover browser",
    FindingKind.STALE_LOCK_CLEARED: "cleared a stale profile lock",
    FindingKind.FOREIGN_HOLDER: "profile held by another program",
    FindingKind.LOCK_OTHER_HOST: "profile locked by another computer",
}


@dataclass(frozen=True, slots=True)
class RecordedBrowser:
    """The browser process the app launched for an account, kept so a later run can find it.

    ``started_at`` is the process's own creation time (``psutil.Process.create_time()``), not the
    wall clock at launch: it is what tells the same process from a later one given the same PID.
    """

    pid: int
    started_at: float | None

    @classmethod
    def of(cls, pid: int) -> RecordedBrowser:
        try:
            return cls(pid, psutil.Process(pid).create_time())
        except psutil.Error:
            return cls(pid, None)


@dataclass(frozen=True, slots=True)
class Finding:
    account_id: str
    kind: FindingKind
    profile_dir: str
    pids: tuple[int, ...] = ()
    description: str = ""  # what was found
    action: str = ""  # what we did, or what the operator should do

    @property
    def blocking(self) -> bool:
        return self.kind in BLOCKING_KINDS

    def message(self) -> str:
        """One line for the task's event log."""
        text = f"self-check {self.account_id}: {_HEADLINES[self.kind]}"
        if self.description:
            text += f": {self.description}"
        if self.action:
            text += f" — {self.action}"
        return text

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(kind=self.kind.value, pids=list(self.pids), blocking=self.blocking)
        return data


@dataclass(frozen=True, slots=True)
class SelfCheckReport:
    findings: tuple[Finding, ...]
    hostname: str
    duration_s: float

    def for_account(self, account_id: str) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.account_id == account_id)

    def blocked_accounts(self) -> dict[str, str]:
        """Accounts that must not launch now, each with the hint for the task's error."""
        blocked: dict[str, str] = {}
        for finding in self.findings:
            if finding.blocking and finding.account_id not in blocked:
                blocked[finding.account_id] = finding.message()
        return blocked

    @property
    def ok(self) -> bool:
        return not any(f.blocking for f in self.findings)

    def to_json(self) -> str:
        return json.dumps(
            {
                "hostname": self.hostname,
                "duration_ms": round(self.duration_s * 1000, 1),
                "ok": self.ok,
                "findings": [f.to_dict() for f in self.findings],
                "blocked": self.blocked_accounts(),
            },
            ensure_ascii=False,
            indent=2,
        )

    def lines(self) -> list[str]:
        return [f.message() for f in self.findings]


@dataclass(frozen=True, slots=True)
class _Lock:
    host: str
    pid: int | None  # None: unreadable lock
    written_at: float  # the symlink's own mtime


def _read_lock(profile: Path) -> _Lock | None:
    path = profile / LOCK
    try:
        target = os.readlink(path)
        written_at = path.lstat().st_mtime
    except FileNotFoundError:
        return None
    except OSError:  # a regular file, or unreadable: no valid lock
        return _Lock("", None, 0.0) if os.path.lexists(path) else None
    host, _, pid = target.rpartition("-")  # host names may contain '-'; the PID cannot
    if not host or not pid.isdigit():
        return _Lock("", None, written_at)
    return _Lock(host, int(pid), written_at)


def _remove_singleton_files(profile: Path) -> list[str]:
    """Remove the Singleton* links; return the names removed. Raises OSError if one stays."""
    socket_target = None
    try:
        socket_target = Path(os.readlink(profile / "SingletonSocket"))
    except OSError:
        pass
    removed = []
    for name in SINGLETON_FILES:
        path = profile / name
        if os.path.lexists(path):
            path.unlink()
            removed.append(name)
    if socket_target is not None and socket_target.name == "SingletonSocket":
        _remove_socket_dir(socket_target.parent)
    return removed


def _remove_socket_dir(directory: Path) -> None:
    """The socket lives in a private temp dir (/tmp/org.chromium.Chromium.XXXXXX, with a copy of
    the cookie link) that a killed browser leaks. Remove those two, then the dir only if that
    left it empty: anything else in it means it is not what we think."""
    try:
        for name, is_kind in (
            ("SingletonSocket", stat.S_ISSOCK),
            ("SingletonCookie", stat.S_ISLNK),
        ):
            path = directory / name
            if os.path.lexists(path) and is_kind(path.lstat().st_mode):
                path.unlink()
        directory.rmdir()
    except OSError:
        pass


@dataclass
class _Account:
    account_id: str
    profile: Path
    procs: list[psutil.Process] = field(default_factory=list)  # ones using the profile dir
    keep: set[int] = field(default_factory=set)  # in use by this app right now
    leftovers: list[psutil.Process] = field(default_factory=list)
    leftover_main: str = ""  # described before stopping: afterwards there is nothing to read
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def add(
        self, kind: FindingKind, description: str, action: str = "", pids: Iterable[int] = ()
    ) -> None:
        self.findings.append(
            Finding(self.account_id, kind, str(self.profile), tuple(pids), description, action)
        )


def run_selfcheck(
    profiles: Mapping[str, Path],
    recorded: Mapping[str, RecordedBrowser] | None = None,
    *,
    grace_s: float = 3.0,
    hostname: str | None = None,
    in_use: Mapping[str, int] | None = None,
) -> SelfCheckReport:
    """Check (and clean up) each account's browser profile; see the module docstring.

    ``profiles``: account id → profile dir. ``recorded``: the browser PIDs recorded at the last
    launch. ``in_use``: account id → PID of the browser this process is driving now (left alone,
    with its children). ``hostname``: what Chromium writes into its locks (default: this host's).
    """
    started = time.monotonic()
    host = hostname if hostname is not None else socket.gethostname()
    recorded = recorded or {}
    in_use = in_use or {}
    seen = scan()  # one pass over the process table for all accounts
    pids = {proc.pid: proc for proc, _ in seen}
    found = processes_by_profile(profiles.values(), seen)
    accounts = [_Account(aid, profile, list(found[profile])) for aid, profile in profiles.items()]

    for acct in accounts:
        _pick_leftovers(acct, pids, recorded.get(acct.account_id), in_use.get(acct.account_id))
    result = _stop_leftovers(accounts, grace_s)
    for acct in accounts:
        if acct.leftovers:
            _report_stop(acct, result)
        _check_lock(acct, host, pids)
        if acct.notes or not acct.findings:
            acct.add(FindingKind.OK, "; ".join(acct.notes) or "no leftover browser, no stale lock")
    return SelfCheckReport(
        findings=tuple(f for acct in accounts for f in acct.findings),
        hostname=host,
        duration_s=time.monotonic() - started,
    )


def _stop_leftovers(accounts: list[_Account], grace_s: float) -> StopResult:
    # One stop for all accounts: the grace period is waited once, not once per account.
    result = stop_processes([p for acct in accounts for p in acct.leftovers], grace_s=grace_s)
    # A browser still starting up forks new children after our scan, and those can outlive it.
    # So look again at the profiles we just cleaned, and stop the late ones too.
    for _ in range(_RESCANS):
        busy = [acct for acct in accounts if acct.leftovers]
        if not busy:
            break
        again = processes_by_profile([acct.profile for acct in busy])
        late: list[psutil.Process] = []
        for acct in busy:
            known = {p.pid for p in acct.leftovers} | acct.keep
            fresh = [p for p in again[acct.profile] if p.pid not in known]
            acct.procs += fresh
            acct.leftovers += fresh
            late += fresh
        if not late:
            break
        result = result + stop_processes(late, grace_s=grace_s)
    return result


def _pick_leftovers(
    acct: _Account,
    pids: Mapping[int, psutil.Process],
    record: RecordedBrowser | None,
    driving: int | None,
) -> None:
    if driving is not None:
        among = {p.pid: p for p in acct.procs}
        acct.keep = {driving} | {p.pid for p in acct.procs if descends_from(p, driving, among)}
        acct.notes.append(f"browser in use by this app (pid {driving})")
    chosen = {p.pid: p for p in acct.procs if p.pid not in acct.keep}
    if record is not None and record.pid not in acct.keep:
        proc = pids.get(record.pid)
        if proc is None or is_zombie(proc):
            pass  # gone: nothing to stop
        elif _same_process(proc, record):
            for member in tree(proc):
                if member.pid not in acct.keep and not is_zombie(member):
                    chosen.setdefault(member.pid, member)
        elif record.pid not in chosen:
            acct.notes.append(
                f"recorded browser pid {record.pid} now belongs to another process, left alone: "
                f"{describe(proc)}"
            )
    chosen.pop(os.getpid(), None)
    acct.leftovers = list(chosen.values())
    if acct.leftovers:
        acct.leftover_main = describe(main_process(acct.leftovers) or acct.leftovers[0])


def _same_process(proc: psutil.Process, record: RecordedBrowser) -> bool:
    created = create_time_of(proc)
    if record.started_at is None or created is None:
        return False  # cannot prove it is ours; a command-line match still finds our browsers
    return abs(created - record.started_at) <= CREATE_TIME_TOLERANCE_S


def _report_stop(acct: _Account, result: StopResult) -> None:
    mine = {p.pid for p in acct.leftovers}
    others = len(acct.leftovers) - 1
    what = acct.leftover_main + (f", and {others} more process(es)" if others else "")
    terminated = [pid for pid in result.terminated if pid in mine]
    killed = [pid for pid in result.killed if pid in mine]
    stuck = [pid for pid in result.still_alive if pid in mine]
    done = f"{len(terminated)} exited on request, {len(killed)} killed"
    if stuck:
        acct.add(
            FindingKind.LEFTOVER_FAILED_TO_STOP,
            what,
            f"{done}, still running: pid {', '.join(map(str, stuck))}; the browser cannot start "
            "on this profile until they are gone (stop them, or restart the computer)",
            stuck,
        )
    else:
        acct.add(FindingKind.LEFTOVER_STOPPED, what, done, terminated + killed)


def _check_lock(acct: _Account, host: str, pids: Mapping[int, psutil.Process]) -> None:
    ours_alive = {p.pid for p in acct.procs if is_alive(p)} | acct.keep
    if sys.platform == "win32":
        _check_windows_lock(acct, bool(ours_alive))
        return
    lock = _read_lock(acct.profile)
    lock_path = acct.profile / LOCK
    if lock is not None and lock.pid is not None and lock.host != host:
        acct.add(
            FindingKind.LOCK_OTHER_HOST,
            f"{lock_path} names computer {lock.host!r} (pid {lock.pid}), this is {host!r}",
            f"the profile is in use on {lock.host}, or was copied from it (or this computer was "
            f"renamed); if that machine no longer uses this profile, delete {lock_path}",
            (lock.pid,),
        )
        return
    if ours_alive:
        return  # our browser holds the profile: in use now, or already reported as unstoppable
    if lock is None:
        strays = [n for n in SINGLETON_FILES if os.path.lexists(acct.profile / n)]
        if strays:
            _clear(acct, f"{', '.join(strays)} without a {LOCK}")
        return
    if lock.pid is None:
        _clear(acct, f"unreadable {lock_path}")
        return
    holder = pids.get(lock.pid)
    if holder is None:
        try:
            holder = psutil.Process(lock.pid)
        except psutil.Error:
            holder = None
    if holder is None or not is_alive(holder):
        _clear(acct, f"{lock_path} named pid {lock.pid}, which is gone", (lock.pid,))
        return
    created = create_time_of(holder)
    if created is not None and created > lock.written_at + LOCK_AGE_TOLERANCE_S:
        _clear(
            acct,
            f"{lock_path} named pid {lock.pid}, since reused by a newer process "
            f"({describe(holder)})",
            (lock.pid,),
        )
        return
    # Alive, older than the lock, and not using our profile dir by its command line: something
    # we did not start holds this profile. Never kill it.
    acct.add(
        FindingKind.FOREIGN_HOLDER,
        f"{lock_path} is held by {describe(holder)}",
        "another program is using this account's browser profile; close it (Media Assistant "
        "does not stop programs it did not start), then retry",
        (lock.pid,),
    )


def _clear(acct: _Account, description: str, pids: Iterable[int] = ()) -> None:
    try:
        removed = _remove_singleton_files(acct.profile)
    except OSError as exc:
        # Chromium itself takes over a stale lock from this host, so this need not block.
        acct.notes.append(f"{description}; could not remove it ({exc}), Chromium will take it over")
        return
    acct.add(FindingKind.STALE_LOCK_CLEARED, description, f"removed {', '.join(removed)}", pids)


def _check_windows_lock(acct: _Account, ours_alive: bool) -> None:
    """Windows: the browser holds ``<profile>\\lockfile`` open without sharing and the system
    deletes it when the process ends, even on a hard kill. So a lockfile we can delete is stale,
    and one we cannot is held by a live process — which one, Windows does not say cheaply (no
    host or PID in it; finding it would need a handle scan), so the finding names the file."""
    path = acct.profile / WINDOWS_LOCK
    if ours_alive or not path.exists():
        return
    try:
        # Patient (about 2 s): a browser we just stopped releases it a moment after it is gone,
        # and is not "another program" (issue 29 item 7).
        unlink_file(path)
    except PermissionError:
        acct.add(
            FindingKind.FOREIGN_HOLDER,
            f"{path} is held open by a process that does not use this profile on its command line",
            "another program is using this account's browser profile; close it (Media Assistant "
            "does not stop programs it did not start), then retry",
        )
    except OSError:
        return
    else:
        acct.add(FindingKind.STALE_LOCK_CLEARED, f"stale {path}", f"removed {WINDOWS_LOCK}")
