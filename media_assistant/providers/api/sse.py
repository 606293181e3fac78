"""A small server-sent-events decoder (the WHATWG rules that chat-completion streams use).

Fed one line at a time (line endings already removed): ``data:`` lines accumulate, joined by
newlines; a blank line ends the event; lines starting with ``:`` are comments (keep-alives).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SseEvent:
    data: str
    event: str = "message"
    id: str | None = None


class SseDecoder:
    def __init__(self) -> None:
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None

    def feed(self, line: str) -> SseEvent | None:
        """Take one line; returns the event that a blank line completes."""
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        # "retry" and unknown fields are ignored, as the standard says.
        return None

    def flush(self) -> SseEvent | None:
        """The last event of a stream that ended without its blank line (common enough)."""
        return self._dispatch()

    def _dispatch(self) -> SseEvent | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SseEvent(data="\n".join(data), event=event or "message", id=self._id)
