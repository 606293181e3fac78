"""Writing a file so that a reader never sees half of it: a private temporary file beside the
target, filled, flushed to the disk, then renamed over it in one step, and the rename itself
made durable (the folder flushed). Exports, ``config.toml`` and the support bundle are written
this way. A target that is a symbolic link stays one: the file it points to is replaced (a team
that links ``config.toml`` to a shared template keeps its link)."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from media_assistant.core.files.held import replace_file
from media_assistant.core.files.private_files import create_private, make_private
from media_assistant.core.model.errors import InputError


def write_atomically(path: Path, write: Callable[[Path], int]) -> int:
    """``write`` fills a temporary file (0600) beside ``path``, which then replaces ``path`` in
    one step: a reader never sees half a file, and after a power cut the file is either the old
    one or the new one, whole. Failures leave no temporary file behind and come back as
    :class:`InputError` naming the path."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if not target.parent.is_dir():
        raise InputError(f"{path}: the folder {target.parent} does not exist")
    if target.is_dir():
        raise InputError(f"{path}: is a folder")
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        create_private(tmp)  # 0600 from the first byte: exports hold prompts and answers
        count = write(tmp)
        make_private(tmp)  # in case a writer replaced the file rather than filling it
        if tmp.is_file():
            _fsync_file(tmp)  # the content is on the disk before the name points to it
        replace_file(tmp, target)  # Defender or the indexer may hold it a moment
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise as_input_error(exc, path) from exc
    fsync_folder(target.parent)
    return count


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDWR)  # Windows flushes only a handle open for writing
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_folder(folder: Path) -> None:
    """The rename is durable once the folder is flushed (POSIX; Windows has no such call and
    makes renames durable itself). Also for backups and snapshots (core/disk)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):  # a file system that cannot: the rename still holds
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def as_input_error(exc: BaseException, path: Path) -> BaseException:
    if isinstance(exc, PermissionError):
        return InputError(f"{path}: permission denied (is it open in another program?)")
    if isinstance(exc, OSError):
        return InputError(f"{path}: cannot write: {exc.strerror or exc}")
    return exc


def flush_to_disk(file: IO[Any]) -> None:
    file.flush()
    os.fsync(file.fileno())
