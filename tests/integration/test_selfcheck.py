"""The pre-flight self-check against real processes: Debian's Chromium, and helper Pythons.

Nothing here mocks psutil. Whether a process is left is checked independently of the code under
test: by scanning every process's command line for the profile path.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from media_assistant.providers.web import selfcheck
from media_assistant.providers.web.processes import (
    StopResult,
    browser_processes,
    describe,
    main_process,
    stop_process_tree,
    user_data_dir_args,
)
from media_assistant.providers.web.selfcheck import (
    FindingKind,
    RecordedBrowser,
    SelfCheckReport,
    run_selfcheck,
)

CHROMIUM = "/usr/lib/chromium/chromium"
needs_chromium = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK), reason="needs Debian chromium"
)
HOST = socket.gethostname()
ACCOUNT = "ds-web-1"


def holders_of(path: Path) -> list[psutil.Process]:
    """Every non-zombie process with ``path`` anywhere on its command line (independent check)."""
    needle = str(path)
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if any(needle in arg for arg in proc.info["cmdline"] or ()):
            found.append(proc)
    return found


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """All profiles of this module live here; nothing may run on them when the module ends."""
    base = tmp_path_factory.mktemp("selfcheck")
    yield base
    left = holders_of(base)
    for proc in left:  # do not leak them into other modules, then fail loudly
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    assert not left, [describe(p) for p in left]


@pytest.fixture
def profile(root: Path, request: pytest.FixtureRequest) -> Path:
    path = root / request.node.name.replace("[", "-").replace("]", "")
    path.mkdir(mode=0o700)
    return path


class Spawner:
    """Starts processes and guarantees they are gone (and reaped) when the test ends."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[Any]] = []

    def popen(self, args: list[str]) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.started.append(proc)
        return proc

    def chromium(self, profile: Path) -> subprocess.Popen[bytes]:
        proc = self.popen(
            [
                CHROMIUM,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "about:blank",
            ]
        )
        wait_until(
            lambda: (
                proc.poll() is not None
                or (
                    os.path.lexists(profile / "SingletonLock")
                    and os.readlink(profile / "SingletonLock") == f"{HOST}-{proc.pid}"
                    and len(holders_of(profile)) >= 3
                )
            ),
            what=f"chromium on {profile}",
        )
        assert proc.poll() is None, f"chromium exited with code {proc.returncode}"
        return proc

    def sleeper(self) -> subprocess.Popen[bytes]:
        proc = self.popen([sys.executable, "-c", "import time; time.sleep(60)"])
        wait_until(lambda: _is_started(proc.pid), what="helper process")
        return proc

    def cleanup(self) -> None:
        for proc in self.started:
            if proc.poll() is None:
                for member in _tree(proc.pid):
                    try:
                        member.kill()
                    except psutil.NoSuchProcess:
                        pass
            proc.wait(timeout=10)


def _is_started(pid: int) -> bool:
    try:
        return "time.sleep" in " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:
        return False


def _tree(pid: int) -> list[psutil.Process]:
    try:
        proc = psutil.Process(pid)
        return [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def wait_until(check: Callable[[], bool], *, what: str, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def stops(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every pid the self-check asks to stop (a spy on its one way to stop processes)."""
    asked: list[int] = []
    real = selfcheck.stop_processes

    def spy(procs: Iterable[psutil.Process], **kwargs: Any) -> StopResult:
        procs = list(procs)
        asked.extend(p.pid for p in procs)
        return real(procs, **kwargs)

    monkeypatch.setattr(selfcheck, "stop_processes", spy)
    return asked


@pytest.fixture
def spawn() -> Iterator[Spawner]:
    spawner = Spawner()
    yield spawner
    spawner.cleanup()


def kinds(report: SelfCheckReport, account: str = ACCOUNT) -> list[FindingKind]:
    return [f.kind for f in report.for_account(account)]


# --- leftovers -------------------------------------------------------------------------------


@pytest.mark.chromium
@needs_chromium
def test_leftover_chromium_on_our_profile_is_stopped(spawn: Spawner, profile: Path) -> None:
    browser = spawn.chromium(profile)
    found = browser_processes(profile)
    main = main_process(found)
    assert main is not None and main.pid == browser.pid
    assert len(found) >= 3

    report = run_selfcheck({ACCOUNT: profile})

    assert browser.wait(timeout=5) is not None  # reap it: only then is it really gone
    assert holders_of(profile) == []
    stopped = [f for f in report.findings if f.kind is FindingKind.LEFTOVER_STOPPED]
    assert len(stopped) == 1
    assert browser.pid in stopped[0].pids
    assert f"pid {browser.pid}" in stopped[0].message()
    assert "--user-data-dir=" in stopped[0].description
    # A terminated Chromium leaves its Singleton* links behind; the same check clears them.
    assert kinds(report) == [FindingKind.LEFTOVER_STOPPED, FindingKind.STALE_LOCK_CLEARED]
    assert not os.path.lexists(profile / "SingletonLock")
    assert report.ok and report.blocked_accounts() == {}


def _handles(pid: int, sig: signal.Signals) -> bool:
    """The process catches ``sig`` (Linux: the ``SigCgt`` mask of /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


@pytest.mark.chromium
@needs_chromium
def test_hung_chromium_is_killed_after_the_grace_period(spawn: Spawner, profile: Path) -> None:
    """A hung browser ignores SIGTERM; left alone, the next launch would wait ~21 s for it.
    Stopped only once Chromium handles SIGTERM itself: stopped before that (a slow start under
    load), the default action would end it at the SIGTERM, and the check would never need to
    kill it."""
    browser = spawn.chromium(profile)
    deadline = time.monotonic() + 60
    while not _handles(browser.pid, signal.SIGTERM):
        assert time.monotonic() < deadline, "Chromium never installed its SIGTERM handler"
        time.sleep(0.05)
    os.kill(browser.pid, signal.SIGSTOP)

    report = run_selfcheck({ACCOUNT: profile}, grace_s=0.5)

    assert browser.wait(timeout=5) == -signal.SIGKILL  # killed by the check, not waited for
    assert holders_of(profile) == []
    stopped = report.for_account(ACCOUNT)[0]
    assert stopped.kind is FindingKind.LEFTOVER_STOPPED
    assert browser.pid in stopped.pids and ", 0 killed" not in stopped.action

    fresh = spawn.chromium(profile)  # takes the profile's lock: nothing left to wait for
    assert fresh.poll() is None


@pytest.mark.chromium
@needs_chromium
def test_browser_in_use_by_the_app_is_left_alone(spawn: Spawner, profile: Path) -> None:
    browser = spawn.chromium(profile)

    report = run_selfcheck({ACCOUNT: profile}, in_use={ACCOUNT: browser.pid})

    assert kinds(report) == [FindingKind.OK]
    assert browser.poll() is None
    assert os.readlink(profile / "SingletonLock") == f"{HOST}-{browser.pid}"

    # The same browser, no longer ours to drive, is a leftover.
    report = run_selfcheck({ACCOUNT: profile})
    assert FindingKind.LEFTOVER_STOPPED in kinds(report)
    browser.wait(timeout=5)
    assert holders_of(profile) == []


# --- stale locks ------------------------------------------------------------------------------


@pytest.mark.chromium
@needs_chromium
def test_stale_lock_of_a_hard_killed_chromium_is_cleared(spawn: Spawner, profile: Path) -> None:
    browser = spawn.chromium(profile)
    socket_link = Path(os.readlink(profile / "SingletonSocket"))
    for member in _tree(browser.pid):
        member.send_signal(signal.SIGKILL)
    browser.wait(timeout=5)
    wait_until(lambda: holders_of(profile) == [], what="the killed tree to go")
    assert os.readlink(profile / "SingletonLock") == f"{HOST}-{browser.pid}"

    report = run_selfcheck({ACCOUNT: profile})

    assert kinds(report) == [FindingKind.STALE_LOCK_CLEARED]
    assert f"pid {browser.pid}" in report.findings[0].description
    for name in ("SingletonLock", "SingletonCookie", "SingletonSocket"):
        assert not os.path.lexists(profile / name), name
    assert not socket_link.parent.exists()  # the leaked /tmp/org.chromium.Chromium.* dir

    # spawn.chromium returns once the new browser holds the profile's lock with its processes
    # up: a launch the stale lock blocked exits (code 21) without ever taking it.
    fresh = spawn.chromium(profile)
    assert fresh.poll() is None
    assert os.readlink(profile / "SingletonLock") == f"{HOST}-{fresh.pid}"


def test_foreign_holder_is_reported_never_killed(
    spawn: Spawner, profile: Path, stops: list[int]
) -> None:
    holder = spawn.sleeper()
    os.symlink(f"{HOST}-{holder.pid}", profile / "SingletonLock")

    report = run_selfcheck({ACCOUNT: profile}, grace_s=0.5)

    assert kinds(report) == [FindingKind.FOREIGN_HOLDER]
    assert holder.pid not in stops  # never asked to stop (the spy sees every stop)
    assert holder.poll() is None
    assert os.readlink(profile / "SingletonLock") == f"{HOST}-{holder.pid}"
    finding = report.findings[0]
    assert finding.pids == (holder.pid,)
    assert f"pid {holder.pid}" in finding.message()
    assert "time.sleep(60)" in finding.message()  # names the process, by its command line
    blocked = report.blocked_accounts()
    assert list(blocked) == [ACCOUNT] and f"pid {holder.pid}" in blocked[ACCOUNT]
    assert not report.ok


def test_lock_naming_a_reused_pid_is_stale(spawn: Spawner, profile: Path) -> None:
    """A lock written before its 'holder' started cannot be that process's: the browser died
    and its PID went to someone else. Clear the lock, leave the process alone."""
    other = spawn.sleeper()
    lock = profile / "SingletonLock"
    os.symlink(f"{HOST}-{other.pid}", lock)
    an_hour_ago = time.time() - 3600
    os.utime(lock, (an_hour_ago, an_hour_ago), follow_symlinks=False)

    report = run_selfcheck({ACCOUNT: profile})

    assert kinds(report) == [FindingKind.STALE_LOCK_CLEARED]
    assert "reused" in report.findings[0].description
    assert not os.path.lexists(lock)
    assert other.poll() is None


def test_lock_from_another_host_is_kept(profile: Path) -> None:
    lock = profile / "SingletonLock"
    os.symlink("build-box-7-12345", lock)  # host names may contain dashes

    report = run_selfcheck({ACCOUNT: profile})

    assert kinds(report) == [FindingKind.LOCK_OTHER_HOST]
    assert os.readlink(lock) == "build-box-7-12345"
    finding = report.findings[0]
    assert "'build-box-7'" in finding.description and finding.pids == (12345,)
    assert f"delete {lock}" in finding.action
    assert ACCOUNT in report.blocked_accounts()


def test_unparseable_lock_is_cleared(profile: Path) -> None:
    os.symlink("garbage", profile / "SingletonLock")
    assert kinds(run_selfcheck({ACCOUNT: profile})) == [FindingKind.STALE_LOCK_CLEARED]
    assert not os.path.lexists(profile / "SingletonLock")


# --- recorded PIDs ----------------------------------------------------------------------------


def test_recorded_pid_with_another_create_time_is_not_killed(
    spawn: Spawner, profile: Path, stops: list[int]
) -> None:
    other = spawn.sleeper()
    created = psutil.Process(other.pid).create_time()
    record = RecordedBrowser(other.pid, started_at=created - 30)  # the PID, but a later process

    report = run_selfcheck({ACCOUNT: profile}, {ACCOUNT: record}, grace_s=0.5)

    assert kinds(report) == [FindingKind.OK]
    assert "left alone" in report.findings[0].description
    assert other.pid not in stops  # the control below shows the same call stopping ours
    assert other.poll() is None


def test_recorded_pid_of_the_same_process_is_stopped(
    spawn: Spawner, profile: Path, stops: list[int]
) -> None:
    """The control for the test above: the create_time is what spared it."""
    ours = spawn.sleeper()

    report = run_selfcheck({ACCOUNT: profile}, {ACCOUNT: RecordedBrowser.of(ours.pid)})

    assert kinds(report) == [FindingKind.LEFTOVER_STOPPED]
    assert ours.pid in stops  # the spy sees the stop it makes
    assert ours.wait(timeout=5) == -signal.SIGTERM


# --- speed and reporting ----------------------------------------------------------------------


def test_nothing_to_do_finds_every_profile_ok(root: Path) -> None:
    """Ten quiet profiles (what the app checks at every start). How long it takes is not
    judged here: a loaded machine's figure says nothing about the check."""
    profiles = {}
    for i in range(10):
        path = root / f"quiet-{i}"
        path.mkdir()
        (path / "Default").mkdir()
        profiles[f"web-{i}"] = path

    report = run_selfcheck(profiles)
    assert [f.kind for f in report.findings] == [FindingKind.OK] * 10
    assert report.ok and report.blocked_accounts() == {}


def test_report_json_and_lines(profile: Path, root: Path) -> None:
    os.symlink("elsewhere-1", profile / "SingletonLock")
    quiet = root / "quiet-json"
    quiet.mkdir()
    report = run_selfcheck({ACCOUNT: profile, "web-2": quiet})

    data = json.loads(report.to_json())
    assert data["ok"] is False
    assert [f["kind"] for f in data["findings"]] == ["lock_other_host", "ok"]
    assert data["findings"][0]["blocking"] is True and data["findings"][0]["pids"] == [1]
    assert list(data["blocked"]) == [ACCOUNT]
    lines = report.lines()
    assert len(lines) == 2 and lines[0].startswith(f"self-check {ACCOUNT}: ")
    assert "\n" not in "".join(lines)


# --- processes.py on its own ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cmdline", "expected"),
    [
        (["chrome", "--user-data-dir=/p/a"], ["/p/a"]),
        (["chrome", "--user-data-dir", "/p/a"], ["/p/a"]),
        (["chrome", '--user-data-dir="/p/my profile"'], ["/p/my profile"]),
        (["chrome", "--user-data-dir=/p/a/"], ["/p/a/"]),
        # A rewritten process title comes back split on spaces: offer the joins too.
        (
            ["chrome", "--type=renderer", "--user-data-dir=/p/my", "profile", "--lang=en"],
            ["/p/my", "/p/my profile"],
        ),
        (["chrome", "--no-user-data-dir-here"], []),
    ],
)
def test_user_data_dir_spellings(cmdline: list[str], expected: list[str]) -> None:
    assert user_data_dir_args(cmdline) == expected


def test_profile_match_survives_slashes_and_symlinks(spawn: Spawner, profile: Path) -> None:
    alias = profile.parent / f"{profile.name}-alias"
    alias.symlink_to(profile)
    proc = spawn.popen(
        [sys.executable, "-c", "import time; time.sleep(60)", f"--user-data-dir={alias}/"]
    )
    wait_until(lambda: _is_started(proc.pid), what="helper")

    assert [p.pid for p in browser_processes(profile)] == [proc.pid]
    assert [p.pid for p in browser_processes(Path(str(profile) + "/"))] == [proc.pid]
    assert browser_processes(profile.parent) == []


def test_stop_process_tree_kills_what_ignores_sigterm(spawn: Spawner) -> None:
    code = (
        "import signal, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', "
        "'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True);"
        " time.sleep(60)'], stdout=subprocess.PIPE)\n"
        "child.stdout.readline()\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    spawn.started.append(parent)
    assert parent.stdout is not None
    child_pid = int(parent.stdout.readline())
    parent.stdout.close()

    result = stop_process_tree(psutil.Process(parent.pid), grace_s=0.5)

    assert result.terminated == (parent.pid,)
    assert result.killed == (child_pid,)  # killed after the grace, not waited for
    assert result.still_alive == () and result.ok
    assert parent.wait(timeout=5) == -signal.SIGTERM
    assert not psutil.pid_exists(child_pid) or (
        psutil.Process(child_pid).status() == psutil.STATUS_ZOMBIE
    )


def test_describe_names_process_pid_and_start() -> None:
    text = describe(psutil.Process(os.getpid()))
    assert f"(pid {os.getpid()}, started " in text
    assert len(text) < 260
