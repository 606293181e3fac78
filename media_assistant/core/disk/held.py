"""Outcomes held while the team database cannot be reached, kept on this workstation's disk
(issue 27 item 4): an answer already paid for survives a kill, a crash or a power cut.

While the team database is away (core/store/link.py) an attempt's outcome cannot be written.
It used to wait in memory until a graceful stop; now, the moment its first write meets the
outage, it is also written here — one small JSON file per attempt in ``<data dir>/held/``,
0600 from the first byte (it holds the prompt and the answer), fsynced with its folder before
the lane goes on (core/files/atomic.write_atomically). It is removed once its write reached the
database, or once that write was fenced out.

What is held:

- ``answer``: an answer and the time it **arrived** (a held answer keeps that time as its
  finish, so durations and ETAs learn from the real generation time, not from the outage);
- ``returned``: an attempt stopped because the outage outlasted the dead threshold, or by a
  shutdown while the database was away: it goes back to the queue with its attempt kept;
- ``session``: a session whose rows could not be returned at its stop; and ``outage``: a session
  that was running when the database went away, until it answers again. The next start sends
  the rows of either back to the queue with no attempt used (a death during an outage is not
  the task's).

The next start writes what it finds (:func:`media_assistant.core.disk.held_take_in.take_in_held`),
each write fenced by its attempt and lease, so an answer is never written twice and one for an
attempt that was since run again is dropped (and logged).

The standard library only: a handful of small files, written rarely (only during an outage).
"""

from __future__ import annotations

import contextlib
import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from media_assistant.core.files.atomic import fsync_folder, write_atomically
from media_assistant.core.model.provider import GenerationResult
from media_assistant.core.model.records import Claim
from media_assistant.core.model.states import ModelKind

log = logging.getLogger("media_assistant.scheduler")

HELD_FOLDER = "held"


@dataclass(frozen=True, slots=True)
class HeldOutcome:
    """One attempt's outcome, not yet in the team database."""

    kind: str  # "answer" | "returned"
    claim: Claim
    held_at: float  # wall clock: when the answer arrived / the attempt was stopped
    result: GenerationResult | None = None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "claim": {**asdict(self.claim), "model_kind": self.claim.model_kind.value},
            "held_at": self.held_at,
            "result": asdict(self.result) if self.result is not None else None,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> HeldOutcome:
        c = dict(raw["claim"])
        c["model_kind"] = ModelKind(c["model_kind"])
        result = raw.get("result")
        return cls(
            kind=str(raw["kind"]),
            claim=Claim(**c),
            held_at=float(raw["held_at"]),
            result=GenerationResult(**result) if result else None,
            reason=str(raw.get("reason") or ""),
        )


class HeldOutcomes:
    """The ``held`` folder of one data dir."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir / HELD_FOLDER

    # ---------------------------------------------------------------- attempts

    def keep(self, outcome: HeldOutcome) -> Path:
        """Durable before it returns: written whole (0600), fsynced, its folder too."""
        c = outcome.claim
        return self._write(f"{c.task_id}.{c.attempt}.{c.lease}.json", outcome.to_json())

    def drop(self, claim: Claim) -> None:
        self._remove(f"{claim.task_id}.{claim.attempt}.{claim.lease}.json")

    def outcomes(self) -> list[HeldOutcome]:
        found: list[HeldOutcome] = []
        for path, raw in self._read_all():
            if raw.get("kind") not in ("answer", "returned"):
                continue
            try:
                found.append(HeldOutcome.from_json(raw))
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("[scheduler] %s: not a held outcome (%s); left as it is", path, exc)
        return sorted(found, key=lambda o: o.held_at)

    # ---------------------------------------------------------------- sessions

    def keep_session(self, owner_id: str, why: str) -> None:
        """``why``: "session" (its rows could not be returned at its stop) or "outage" (it
        was running when the database went away)."""
        self._write(f"{why}.{owner_id}.json", {"kind": why, "owner_id": owner_id})

    def drop_session(self, owner_id: str, why: str) -> None:
        self._remove(f"{why}.{owner_id}.json")

    def sessions(self) -> list[tuple[str, str]]:
        """(why, owner id) of every session kept."""
        return [
            (str(raw["kind"]), str(raw["owner_id"]))
            for _, raw in self._read_all()
            if raw.get("kind") in ("session", "outage") and raw.get("owner_id")
        ]

    # ---------------------------------------------------------------- files

    def _write(self, name: str, data: dict[str, Any]) -> Path:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        payload = json.dumps(data, ensure_ascii=False).encode("utf-8")
        path = self.folder / name
        write_atomically(path, lambda tmp: tmp.write_bytes(payload))
        return path

    def _remove(self, name: str) -> None:
        path = self.folder / name
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            fsync_folder(self.folder)

    def _read_all(self) -> list[tuple[Path, dict[str, Any]]]:
        if not self.folder.is_dir():
            return []
        found: list[tuple[Path, dict[str, Any]]] = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                log.warning("[scheduler] %s cannot be read (%s); left as it is", path, exc)
                continue
            if isinstance(raw, dict):
                found.append((path, raw))
        return found

    def empty(self) -> bool:
        return not self._read_all()
