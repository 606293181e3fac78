"""The one way an id (a task id from a batch file, above all) becomes a file name.

Task ids are the operator's: anything printable up to 200 characters. Used as a path as they
are, ``../../x`` or ``/tmp/pwn`` wrote diagnostics outside the data directory, and ``v1.2`` lost
its attempt number (``Path.with_suffix`` cut the name at its dot). A file name made from an id
must stay inside its folder, leave nothing for ``with_suffix`` to cut, never map two ids to one
file — on case-insensitive file systems too (Windows, macOS: ``Task-1`` and ``task-1``) — fit
the 255-byte limit, and still be readable in a file manager next to the task table.

:func:`safe_file_stem`:

- an id of lower-case ASCII letters, digits, ``-`` and ``_`` only (at most 100 characters, not
  a Windows device name such as ``con``) is its own name: ``daily-greetings-00002``;
- any other id becomes a readable slug — letters (any script) and digits kept, every other
  character ``_``, at most 60 characters — then ``~`` and 16 hex digits of the SHA-256 of the
  exact id: ``v1_2~3c0e…``, ``.._.._x~9f2a…``.

``~`` never occurs in a name of the first kind, so the two kinds cannot meet; within the second
kind the digest (64 bits) tells apart ids with the same slug or differing only in case.
"""

from __future__ import annotations

import hashlib
import re

PLAIN_MAX = 100
SLUG_MAX = 60
DIGEST_HEX = 16

_PLAIN = re.compile(r"[a-z0-9_-]+")
_WINDOWS_DEVICES = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)}
)


def safe_file_stem(identifier: str) -> str:
    """A file name stem for ``identifier``: safe in any folder, distinct for distinct ids."""
    if (
        len(identifier) <= PLAIN_MAX
        and _PLAIN.fullmatch(identifier)
        and identifier not in _WINDOWS_DEVICES
    ):
        return identifier
    slug = "".join(ch if ch.isalnum() and ch.isprintable() else "_" for ch in identifier)
    digest = hashlib.sha256(identifier.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{slug[:SLUG_MAX] or '_'}~{digest[:DIGEST_HEX]}"
