"""A console that cannot show a character (issue 29 item 9): an office PC whose code page is
cp1252 (or output redirected to a file), and a batch named in Chinese. The command's output
shows '?' for what the code page lacks and ends as it would anyway, never exit 4 halfway."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.integration.test_cli import write_config


def cli(data: Path, *args: str, encoding: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), *args],
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": encoding},
    )


def test_chinese_task_ids_on_a_western_console_are_shown_not_fatal(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data)
    batch = tmp_path / "选题.csv"
    batch.write_text(
        "task_id,prompt,model\n选题0,写一个标题,web-model\n选题1,再写一个,web-model\n",
        encoding="utf-8",
    )
    first = cli(data, "submit", str(batch), encoding="utf-8")
    assert first.returncode == 0, first.stderr.decode()
    # Again, on a cp1252 console: the skipped ids are listed, as the code page can show them.
    again = cli(data, "submit", str(batch), encoding="cp1252")
    assert again.returncode == 0, again.stderr.decode("cp1252", "replace")
    assert b"2 already present" in again.stdout and b"??0, ??1" in again.stdout
    assert b"internal error" not in again.stderr
