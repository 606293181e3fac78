"""The disk reserve: a file the scheduler owns in the data dir, for the last writes of a
shutdown on a full disk (core/disk/full.py says when and why).

Written out at start (a sparse file would reserve nothing). At a stop on a full disk,
:meth:`DiskReserve.spill` writes what could not reach the task store — the answers received and
the session's id — *into* the file, over bytes it already owns (no free space needed), and
truncates the rest, which gives that room to the store for one more try. The next start reads
it back (:meth:`DiskReserve.read_spill`) before the file is laid down anew.
"""

from __future__ import annotations

import errno
import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from media_assistant.core.model.provider import GenerationResult
from media_assistant.core.model.records import Claim
from media_assistant.core.model.states import ModelKind

log = logging.getLogger("media_assistant.scheduler")

RESERVE_NAME = "disk-reserve"
RESERVE_BYTES = 512 * 1024  # enough for the last writes of a shutdown: WAL frames of a few rows
SPILL_MAGIC = b"media-assistant spill 1\n"  # the reserve's head, when it holds a spill
_FULL_ERRNOS = frozenset(e for e in (errno.ENOSPC, getattr(errno, "EDQUOT", None)) if e)


@dataclass
class Spill:
    """What a shutdown on a full disk could not write to the store: the answers it had received
    and the session whose rows it could not return to the queue."""

    owner_id: str
    answers: list[tuple[Claim, GenerationResult]] = field(default_factory=list)

    def to_bytes(self, limit: int) -> bytes:
        """JSON of as many answers as fit in ``limit`` bytes (the others are asked again)."""
        answers: list[dict[str, Any]] = []
        data = b""
        for claim, result in self.answers:
            entry = {"claim": {**asdict(claim), "prompt": ""}, "result": asdict(result)}
            candidate = json.dumps(
                {"owner_id": self.owner_id, "answers": [*answers, entry]}, ensure_ascii=False
            ).encode("utf-8")
            if len(candidate) > limit:
                continue
            answers.append(entry)
            data = candidate
        return data or json.dumps({"owner_id": self.owner_id, "answers": []}).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> Spill:
        raw = json.loads(data.decode("utf-8"))
        answers = []
        for entry in raw["answers"]:
            c = dict(entry["claim"])
            c["model_kind"] = ModelKind(c["model_kind"])
            c["fair_keys"] = tuple(c.get("fair_keys", ()))  # JSON gave a list back
            answers.append((Claim(**c), GenerationResult(**entry["result"])))
        return cls(str(raw["owner_id"]), answers)


class DiskReserve:
    """A file of :data:`RESERVE_BYTES` in the data dir, given up for the last writes."""

    def __init__(self, folder: Path, size: int = RESERVE_BYTES) -> None:
        self.path = folder / RESERVE_NAME
        self.size = size

    @property
    def present(self) -> bool:
        try:
            return self.path.stat().st_size >= self.size
        except OSError:
            return False

    def ensure(self) -> bool:
        """Make sure the reserve exists (written out: a sparse file reserves nothing; the
        file system counts written blocks against the free space at once, so no fsync)."""
        if self.present:
            return True
        block = b"\0" * 65536
        try:
            with open(self.path, "wb") as file:
                left = self.size
                while left > 0:
                    left -= file.write(block[: min(left, len(block))])
            return True
        except OSError as exc:
            if exc.errno not in _FULL_ERRNOS:
                log.warning("[scheduler] cannot write the disk reserve %s: %s", self.path, exc)
            self.release()
            return False

    def spill(self, spill: Spill) -> int:
        """Write ``spill`` at the head of the reserve, in place (no free space needed), then
        give the rest of the file up for the last writes. Returns the answers kept (-1: no
        reserve to write into)."""
        if not self.present:
            return -1
        head = len(SPILL_MAGIC) + 8
        data = spill.to_bytes(self.size - head)
        kept = len(json.loads(data)["answers"])
        try:
            with open(self.path, "r+b") as file:
                file.write(SPILL_MAGIC + len(data).to_bytes(8, "big") + data)
                file.flush()
                os.fsync(file.fileno())
                file.truncate(head + len(data))
        except OSError as exc:
            log.error("[scheduler] cannot write into the disk reserve %s: %s", self.path, exc)
            return -1
        return kept

    def read_spill(self) -> Spill | None:
        """What a shutdown on a full disk left in the reserve, if anything."""
        try:
            with open(self.path, "rb") as file:
                head = file.read(len(SPILL_MAGIC) + 8)
                if not head.startswith(SPILL_MAGIC) or len(head) < len(SPILL_MAGIC) + 8:
                    return None
                size = int.from_bytes(head[len(SPILL_MAGIC) :], "big")
                data = file.read(size)
            return Spill.from_bytes(data) if len(data) == size else None
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.error(
                "[scheduler] the disk reserve %s holds an unreadable spill: %s", self.path, exc
            )
            return None

    def release(self) -> bool:
        """Delete it (room for the last writes); True if there was one."""
        try:
            self.path.unlink()
            return True
        except FileNotFoundError:
            return False
        except OSError as exc:
            log.warning("[scheduler] cannot remove the disk reserve %s: %s", self.path, exc)
            return False
