"""Writing a file so that a reader never sees half of it: a private temporary file beside the
target, filled, then renamed over it in one step. Exports, ``config.toml`` and the support bundle
are written this way."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from media_assistant.core.files.private_files import create_private, make_private
from media_assistant.core.model.errors import InputError


def write_atomically(path: Path, write: Callable[[Path], int]) -> int:
    """``write`` fills a temporary file (0600) beside ``path``, which then replaces ``path`` in
    one step: a reader never sees half a file. Failures leave no temporary file behind and come
    back as :class:`InputError` naming the path."""
    if not path.parent.is_dir():
        raise InputError(f"{path}: the folder {path.parent} does not exist")
    if path.is_dir():
        raise InputError(f"{path}: is a folder")
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        create_private(tmp)  # 0600 from the first byte: exports hold prompts and answers
        count = write(tmp)
        make_private(tmp)  # in case a writer replaced the file rather than filling it
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise as_input_error(exc, path) from exc
    return count


def as_input_error(exc: BaseException, path: Path) -> BaseException:
    if isinstance(exc, PermissionError):
        return InputError(f"{path}: permission denied (is it open in another program?)")
    if isinstance(exc, OSError):
        return InputError(f"{path}: cannot write: {exc.strerror or exc}")
    return exc


def flush_to_disk(file: IO[Any]) -> None:
    file.flush()
    os.fsync(file.fileno())
