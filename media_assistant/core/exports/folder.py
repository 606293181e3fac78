"""The Markdown-folder export: one ``.md`` file per task, named by its id made safe.

File names come from :func:`~media_assistant.core.files.filenames.safe_file_stem` (never the raw id:
``../x`` or ``a/b`` stay inside the folder, ``Task-1`` and ``task-1`` get different files on
case-insensitive file systems). The folder is written under a temporary name beside the
target (0700, files 0600) and renamed into place when complete: a failure or a Cancel leaves
nothing behind. The target must not exist yet, or be an empty folder.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
from collections.abc import Iterable
from pathlib import Path

from media_assistant.core.exports.fields import Headers, markdown_section
from media_assistant.core.files.atomic import as_input_error
from media_assistant.core.files.filenames import safe_file_stem
from media_assistant.core.files.held import replace_file
from media_assistant.core.files.private_files import create_private, private_dir
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import TaskRecord


def write_markdown_folder(records: Iterable[TaskRecord], folder: Path, headers: Headers) -> int:
    if not folder.parent.is_dir():
        raise InputError(f"{folder}: the folder {folder.parent} does not exist")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(f"{folder}: already exists and is not an empty folder; pick a new name")
    tmp = folder.with_name(f".{folder.name}.{secrets.token_hex(4)}.tmp")
    count = 0
    try:
        private_dir(tmp)
        for record in records:
            path = tmp / f"{safe_file_stem(record.task_id)}.md"
            create_private(path)
            with open(path, "w", encoding="utf-8", newline="\n") as file:
                file.write(markdown_section(record, headers, level=1))
            count += 1
        if folder.exists():
            folder.rmdir()  # empty (checked above)
        replace_file(tmp, folder)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp)
        raise as_input_error(exc, folder) from exc
    return count
