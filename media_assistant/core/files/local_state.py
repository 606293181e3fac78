"""What one workstation's window remembers about one queue: its notices and their read marks,
the batch it showed last, where exports went. A small private JSON file in the data folder
(``<data-dir>/window-state.json``), beside the queue it describes — never the user-wide Qt
settings, which every data folder (a demo, a second queue) would share, and never the task
database, which a team may one day share between workstations (PostgreSQL) while what one
operator has read or looked at stays theirs. Only window geometry stays per user (QSettings).

Plain JSON, keys owned by the views that use them; written whole through
:func:`~media_assistant.core.files.atomic.write_atomically` (a reader never sees half a file,
0600 like everything else there). A file that cannot be read is set aside and the window starts
with nothing remembered: losing read marks is better than refusing to start.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import threading
from pathlib import Path
from typing import Any

from media_assistant.core.files.atomic import write_atomically
from media_assistant.core.model.errors import InputError

log = logging.getLogger(__name__)

VERSION = 1


class LocalState:
    """A JSON object kept in memory and written whole on :meth:`save`.

    ``get`` and ``set`` are for the window's thread; :meth:`save` may run on a worker thread
    meanwhile (a lock takes the snapshot it writes)."""

    def __init__(self, path: Path | None, values: dict[str, Any] | None = None) -> None:
        self.path = path  # None: kept in memory only (a window without a data folder: tests)
        self._values: dict[str, Any] = dict(values or {})
        self._lock = threading.Lock()
        self._dirty = False

    @classmethod
    def load(cls, path: Path) -> LocalState:
        """The state saved in ``path``; empty when there is none or it cannot be read."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls(path)
        except OSError as exc:
            log.warning("%s: cannot be read (%s); starting without it", path, exc)
            return cls(path)
        try:
            values = json.loads(text)
            if not isinstance(values, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            aside = path.with_name(path.name + ".unreadable")
            with contextlib.suppress(OSError):
                path.replace(aside)
            log.warning("%s: unreadable (%s), kept as %s; starting without it", path, exc, aside)
            return cls(path)
        values.pop("version", None)
        return cls(path, values)

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            value = self._values.get(key, default)
        return copy.deepcopy(value)

    def set(self, key: str, value: Any) -> bool:
        """Remember ``value`` (JSON: str, number, bool, None, lists and dicts of them); True
        when it changed (then :attr:`dirty` until the next save)."""
        value = copy.deepcopy(value)
        with self._lock:
            if self._values.get(key) == value and key in self._values:
                return False
            self._values[key] = value
            self._dirty = True
        return True

    @property
    def dirty(self) -> bool:
        return self._dirty

    def save(self) -> bool:
        """Write the file if anything changed since the last save; True if it was written.
        A failure (a full disk, a read-only folder) is logged, and the next save tries again:
        what the window remembers is not worth stopping for."""
        with self._lock:
            if not self._dirty or self.path is None:
                return False
            text = json.dumps(
                {"version": VERSION, **self._values}, ensure_ascii=False, indent=1, sort_keys=True
            )
            self._dirty = False
        data = text.encode("utf-8")

        def write(tmp: Path) -> int:
            tmp.write_bytes(data)
            return len(data)

        try:
            write_atomically(self.path, write)
        except (InputError, OSError) as exc:
            with self._lock:
                self._dirty = True
            log.warning("the window's state was not saved: %s", exc)
            return False
        return True
