"""No traceback ever reaches an operator: an unexpected error is one line naming the log file,
which holds the traceback (exit 4); a database error met mid-command gets its own code."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from sqlalchemy import exc as sa_exc

from media_assistant.core.disk.store_file import translate
from media_assistant.core.model.errors import StoreDamaged, StoreLocked
from tests.faults.conftest import write_config


def test_an_unexpected_error_is_one_line_and_the_traceback_is_in_the_log(tmp_path: Path) -> None:
    """Before: any error the CLI did not expect printed a Python traceback (and exit 1, the code
    for "some tasks failed"). A bug is injected into ``status`` in a real process here."""
    data = tmp_path / "data"
    write_config(data)
    script = textwrap.dedent(
        f"""
        import sys
        import media_assistant.commands.tasks as tasks
        def broken(services):
            raise RuntimeError("boom: the bug we injected")
        tasks.status_data = broken
        from media_assistant.cli import main
        sys.exit(main(["--data-dir", {str(data)!r}, "status"]))
        """
    )
    result = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 4
    log = data / "logs" / "cli.log"
    assert result.stderr.strip().splitlines() == [
        f"internal error: RuntimeError: boom: the bug we injected (details in {log})"
    ]
    text = log.read_text(encoding="utf-8")
    assert "Traceback" in text and "boom: the bug we injected" in text


def test_database_errors_met_mid_command_are_named_for_what_they_are(tmp_path: Path) -> None:
    db = tmp_path / "media-assistant.db"
    locked = sa_exc.OperationalError("UPDATE …", {}, sqlite3.OperationalError("database is locked"))
    assert isinstance(translate(locked, db), StoreLocked)
    corrupt = sa_exc.DatabaseError(
        "SELECT …", {}, sqlite3.DatabaseError("database disk image is malformed")
    )
    damaged = translate(corrupt, db)
    assert isinstance(damaged, StoreDamaged) and str(db) in str(damaged)
    other = sa_exc.OperationalError("SELECT …", {}, sqlite3.OperationalError("no such column"))
    assert translate(other, db) is other
