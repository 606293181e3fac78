"""What a web account may have left running on its site: the last prompt sent, until it ended.

Chat sites keep generating an answer after the page that asked for it is gone, and allow one
generation per account: a second one started meanwhile breaks both. So a web attempt that ends
without seeing its generation end — the app was killed (kill -9, a second Ctrl-C, a power cut)
or its browser had to be closed mid-answer — leaves the account busy on the site, and the next
prompt on that account would collide with it (issue 9, item 2).

The provider writes a small record before it presses send and updates it with the
conversation's address once the site names one; it removes it as soon as the generation is
known to have ended (an answer, a stop that took, an error the page settled after). A record
found before the next prompt means "look first": open that conversation, press stop, wait until
nothing generates there (:meth:`ChatPage.settle_conversation`).

The record lives inside the account's browser profile: it describes that profile's session on
the site, and it survives the process (a file, not the database: it must be written before the
send even while the database is busy, and it is one small file per account).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from media_assistant.core.files.private_files import PRIVATE_FILE_MODE

log = logging.getLogger(__name__)

RECORD_NAME = "media-assistant-sent.json"


@dataclass(frozen=True, slots=True)
class SentPrompt:
    task_id: str
    attempt: int
    sent_at: float  # wall clock, seconds since the epoch
    url: str  # the page's address: the conversation once ``conversation`` is True
    conversation: bool = False  # the site named the conversation (its address changed)


class SentRecord:
    """The record file of one account's profile. Every method is blocking file I/O: call it
    off the event loop (``asyncio.to_thread``). Failures are logged, never raised: a record
    that cannot be written costs at most the old behaviour (a conflict, deferred), and must
    not fail the task."""

    def __init__(self, profile_dir: Path) -> None:
        self.path = profile_dir / RECORD_NAME

    def read(self) -> SentPrompt | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return SentPrompt(
                task_id=str(data["task_id"]),
                attempt=int(data["attempt"]),
                sent_at=float(data["sent_at"]),
                url=str(data["url"]),
                conversation=bool(data.get("conversation", False)),
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("%s: unreadable (%s); ignored", self.path, exc)
            self.forget()
            return None

    def write(self, sent: SentPrompt) -> None:
        """Atomically (a temporary file, then a rename), 0600: it names the task and the chat."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(asdict(sent), file)
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("%s: not written (%s)", self.path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)

    def forget(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("%s: not removed (%s)", self.path, exc)
