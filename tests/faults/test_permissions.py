"""Issue 9, item 6: what holds prompts and answers is the operator's alone; the lock folder cannot
be planted by another local user; diagnostics do not pile up."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from media_assistant.core.files.diagnostics import DiagnosticsRetention, prune
from media_assistant.core.files.locks import ProfileLock, UnsafeLockDir, runtime_dir
from tests.faults.conftest import cli, mode, no_traceback, write_config, write_csv

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes")


def test_data_dir_store_logs_exports_and_backups_are_private(tmp_path: Path) -> None:
    """Before: the data dir was 0755 and the database (every prompt and answer) 0644: any local
    user could read a night's work, and the same held for exports."""
    data = tmp_path / "data"
    write_config(data)
    os.chmod(data, 0o755)  # as an older version (or the operator's umask) left it
    batch = write_csv(
        tmp_path / "b.csv", [{"prompt": f"secret plan {i}", "model": "web-model"} for i in range(3)]
    )
    assert cli(data, "submit", str(batch)).returncode == 0
    ran = cli(data, "-v", "run")  # its daily backup copies the store with the three prompts
    assert ran.returncode == 0, ran.stdout + ran.stderr
    db = data / "media-assistant.db"
    con = sqlite3.connect(db)  # keep the -wal/-shm files around to look at them
    con.execute("SELECT count(*) FROM tasks").fetchall()
    try:
        assert mode(data) == 0o700
        for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            assert mode(path) == 0o600, path
    finally:
        con.close()
    assert mode(data / "logs") == 0o700 and mode(data / "logs" / "cli.log") == 0o600
    assert mode(data / "profiles") == 0o700
    backups = list((data / "backups").iterdir())
    assert backups and all(mode(p) == 0o600 for p in backups) and mode(data / "backups") == 0o700
    for fmt in ("csv", "jsonl", "xlsx", "md"):
        out = tmp_path / f"export.{fmt}"
        assert cli(data, "export", "-o", str(out)).returncode == 0
        assert mode(out) == 0o600, fmt
    # An export over an existing, world-readable file ends up private too.
    out = tmp_path / "export.csv"
    os.chmod(out, 0o644)
    assert cli(data, "export", "-o", str(out)).returncode == 0 and mode(out) == 0o600


def _xdg(tmp_path: Path) -> Path:
    runtime = tmp_path / "xdg-runtime"
    runtime.mkdir(mode=0o700)
    return runtime


def test_the_lock_folder_comes_from_the_runtime_dir_and_is_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: ``/tmp/media-assistant-<hash>``, created with mkdir's ``exist_ok`` and never
    looked at: whoever made it first owned our locks."""
    runtime = _xdg(tmp_path)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    folder = runtime_dir()
    assert folder.is_relative_to(runtime)
    assert mode(folder) == 0o700 and mode(folder.parent) == 0o700
    lock = ProfileLock(tmp_path / "profile")
    assert lock.path.parent == folder and lock.try_acquire()
    lock.release()


@pytest.mark.parametrize("planted", ["open to others", "a symlink", "another user's"])
def test_a_lock_folder_planted_by_someone_else_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: str
) -> None:
    """Another local user who creates the lock folder first (world-writable, a symlink to a
    folder they control, or simply theirs) could hold or swap our profile locks: two browsers on
    one logged-in profile, or no web task ever starting. Now ``run`` refuses, naming the folder."""
    runtime = _xdg(tmp_path)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    app_dir = runtime / "media-assistant"
    if planted == "open to others":
        app_dir.mkdir()
        os.chmod(app_dir, 0o777)
    elif planted == "a symlink":
        elsewhere = tmp_path / "attacker"
        elsewhere.mkdir(mode=0o700)
        app_dir.symlink_to(elsewhere)
    else:
        if os.geteuid() != 0:
            pytest.skip("needs root to create a folder owned by another user")
        app_dir.mkdir(mode=0o700)
        os.chown(app_dir, 4242, 4242)
    with pytest.raises(UnsafeLockDir, match=str(app_dir)):
        runtime_dir()
    data = tmp_path / "data"
    write_config(data)
    result = cli(data, "run", env={"XDG_RUNTIME_DIR": str(runtime)})
    assert result.returncode == 2, result.stdout + result.stderr
    assert str(app_dir) in result.stderr and no_traceback(result)


def test_diagnostics_are_kept_n_days_and_m_megabytes(tmp_path: Path) -> None:
    """Before: every failed web task left a full-page screenshot and a DOM dump of a logged-in
    session, forever; a night of a broken site filled the disk."""
    folder = tmp_path / "diagnostics"
    folder.mkdir()
    now = time.time()
    for i in range(10):  # 10 pairs, one a day, 300 kB each
        for ext in ("png", "html"):
            path = folder / f"task{i}-attempt1.{ext}"
            path.write_bytes(b"x" * 150_000)
            os.utime(path, (now - i * 86400 - 60, now - i * 86400 - 60))
    removed = prune(folder, DiagnosticsRetention(keep_days=7, max_mb=100), now=now)
    assert sorted(p.name for p in removed) == sorted(
        f"task{i}-attempt1.{e}" for i in (7, 8, 9) for e in ("png", "html")
    )
    removed = prune(folder, DiagnosticsRetention(keep_days=7, max_mb=1.0), now=now)
    left = sorted(p.name for p in folder.iterdir())
    assert sum(p.stat().st_size for p in folder.iterdir()) <= 1_000_000
    assert left == sorted(f"task{i}-attempt1.{e}" for i in range(3) for e in ("png", "html"))
    assert len(removed) == 8


def test_run_prunes_old_diagnostics_at_start(tmp_path: Path) -> None:
    """The limits are config keys (``[diagnostics] keep_days / max_mb``) and hold even on a
    night with no new failure: a scheduler start prunes."""
    data = tmp_path / "data"
    write_config(data, extra="\n[diagnostics]\nkeep_days = 2\nmax_mb = 50\n")
    folder = data / "diagnostics"
    folder.mkdir()
    old, new = folder / "old-attempt1.png", folder / "new-attempt1.png"
    for path in (old, new):
        path.write_bytes(b"png")
    os.utime(old, (time.time() - 5 * 86400,) * 2)
    assert cli(data, "run").returncode == 0
    assert not old.exists() and new.exists()
