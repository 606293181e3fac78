"""The task table's rows, filter and sort keys — plain Python, no Qt (and tested without it)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from media_assistant.core.model.states import TERMINAL_STATES

(
    COL_TASK,
    COL_MODEL,
    COL_LANE,
    COL_ACCOUNT,
    COL_STATE,
    COL_ATTEMPT,
    COL_HEARTBEAT,
    COL_STARTED,
    COL_DURATION,
    COL_ERROR,
    COL_PRIORITY,
    COL_WORKSTATION,  # team mode only (shown by the window when it works on a team database)
) = range(12)
COLUMN_COUNT = 12
# Columns whose value changes with the clock, not with events: never re-sorted live.
TICKING = frozenset({COL_HEARTBEAT, COL_DURATION})
TERMINAL = frozenset(s.value for s in TERMINAL_STATES)  # plain strings, as rows hold them
STATE_ORDER = {"running": 0, "pending": 1, "failed": 2, "canceled": 3, "success": 4}


@dataclass(slots=True)
class Row:
    task_id: str
    seq: int
    batch_id: str
    title: str | None
    prompt_head: str
    model: str
    model_kind: str
    account_id: str | None
    state: str
    attempt: int
    max_attempts: int
    started_at: float | None
    heartbeat_at: float | None
    finished_at: float | None
    not_before: float | None
    cancel_requested: bool
    progress_chars: int
    error_kind: str | None
    error_message: str | None
    created_at: float
    priority: int
    attempt_base: int = 0  # attempts used before the operator's last retry (schema v6)
    operator_retries: int = 0
    workstation: str | None = None  # where it was claimed last (team mode, schema v10)

    @property
    def label(self) -> str:
        text = self.title or self.prompt_head
        return " ".join(text.split())[:80]


ROW_FIELDS = frozenset(f.name for f in fields(Row))


def make_row(r: Mapping[str, Any]) -> Row:
    return Row(
        **{name: r.get(name) for name in ROW_FIELDS}
        | {
            "prompt_head": r.get("prompt_head") or "",
            "cancel_requested": bool(r.get("cancel_requested")),
            "progress_chars": r.get("progress_chars") or 0,
            "priority": r.get("priority") or 0,
            "attempt_base": r.get("attempt_base") or 0,
            "operator_retries": r.get("operator_retries") or 0,
        }
    )


@dataclass(frozen=True, slots=True)
class TaskFilter:
    states: frozenset[str] = frozenset()
    lane: str | None = None
    batch: str | None = None
    text: str = ""  # lower-case

    @property
    def active(self) -> bool:
        return bool(self.states or self.lane or self.batch or self.text)

    def quick_accepts(self, row: Row) -> bool:
        """Without a text filter (the hot path on live updates)."""
        return (
            (not self.states or row.state in self.states)
            and (not self.lane or row.model_kind == self.lane)
            and (not self.batch or row.batch_id == self.batch)
        )

    def accepts(self, row: Row, search_text: Callable[[Row], str]) -> bool:
        if self.states and row.state not in self.states:
            return False
        if self.lane and row.model_kind != self.lane:
            return False
        if self.batch and row.batch_id != self.batch:
            return False
        return not self.text or self.text in search_text(row).lower()


def sort_key(col: int, now: float) -> Callable[[Row], Any]:
    keys: dict[int, Callable[[Row], Any]] = {
        COL_TASK: lambda r: (r.label.lower(), r.seq),
        COL_MODEL: lambda r: (r.model, r.seq),
        COL_LANE: lambda r: (r.model_kind, r.seq),
        COL_ACCOUNT: lambda r: (r.account_id or "", r.seq),
        COL_STATE: lambda r: (STATE_ORDER.get(r.state, 9), r.seq),
        COL_ATTEMPT: lambda r: (r.attempt, r.seq),
        COL_HEARTBEAT: lambda r: (r.heartbeat_at or 0.0, r.seq),
        COL_STARTED: lambda r: (r.started_at or 0.0, r.seq),
        COL_DURATION: lambda r: (
            (r.finished_at or now) - r.started_at if r.started_at else -1.0,
            r.seq,
        ),
        COL_ERROR: lambda r: (r.error_kind or "", r.seq),
        COL_PRIORITY: lambda r: (r.priority, -r.seq),
        COL_WORKSTATION: lambda r: (r.workstation or "", r.seq),
    }
    return keys.get(col, lambda r: r.seq)


# How many ended tasks per lane the panels keep for durations and throughput.
RECENT_FINISHED = 500


@dataclass
class LaneIndex:
    """Per lane, kept up to date as rows change, so the panels never walk every row: the
    running and pending tasks, and the most recently ended ones."""

    running: dict[str, Row] = field(default_factory=dict)
    pending: dict[str, Row] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATE_ORDER, 0))
    finished: deque[tuple[str, str, float, float, str]] = field(
        default_factory=lambda: deque(maxlen=RECENT_FINISHED)
    )
    # Bumped when what an estimate reads (running, pending, recently ended) changed: estimates
    # recompute only when it moved. Older history loading behind the window adds ended rows
    # only, which change the counts but not the estimate (with 12,000 pending tasks an estimate
    # costs tens of milliseconds of the window's time).
    version: int = 0

    def add(self, row: Row) -> None:
        self.counts[row.state] = self.counts.get(row.state, 0) + 1
        if self._place(row):
            self.version += 1

    def moved(self, row: Row, old_state: str) -> None:
        self.version += 1
        self.counts[old_state] = self.counts.get(old_state, 1) - 1
        self.running.pop(row.task_id, None)
        self.pending.pop(row.task_id, None)
        self.add(row)
        if row.state in TERMINAL and row.started_at is not None and row.finished_at is not None:
            self.finished.append(
                (row.model, row.account_id or "", row.started_at, row.finished_at, row.state)
            )

    def _place(self, row: Row) -> bool:
        if row.state == "running":
            self.running[row.task_id] = row
        elif row.state == "pending":
            self.pending[row.task_id] = row
        else:
            return False
        return True

    @classmethod
    def build(cls, rows: Iterable[Row]) -> LaneIndex:
        index = cls()
        ended = []
        for row in rows:
            index.add(row)
            if row.state in TERMINAL and row.started_at and row.finished_at:
                ended.append(row)
        ended.sort(key=lambda r: r.finished_at or 0.0)
        for r in ended[-RECENT_FINISHED:]:
            index.finished.append(
                (r.model, r.account_id or "", r.started_at or 0.0, r.finished_at or 0.0, r.state)
            )
        return index


@dataclass(frozen=True, slots=True)
class BatchTally:
    total: int = 0
    ended: int = 0
    not_successful: int = 0  # failed + canceled
    failed: int = 0
    running: int = 0
    pending: int = 0


_ENDED, _TOTAL, _BAD, _FAILED, _RUNNING, _PENDING = range(6)


@dataclass
class BatchCounts:
    """Per batch: ended, total, ended unsuccessfully, failed, running, pending — kept up to
    date as rows change, so the batches list and the title never walk every row."""

    counts: dict[str, list[int]] = field(default_factory=dict)
    version: int = 0  # bumped on every change: views recompute only when it moved

    def _tally(self, c: list[int], state: str, sign: int) -> None:
        if state in TERMINAL:
            c[_ENDED] += sign
            c[_BAD] += sign * (state != "success")
            c[_FAILED] += sign * (state == "failed")
        elif state == "running":
            c[_RUNNING] += sign
        elif state == "pending":
            c[_PENDING] += sign

    def add(self, row: Row) -> None:
        self.version += 1
        c = self.counts.setdefault(row.batch_id, [0] * 6)
        c[_TOTAL] += 1
        self._tally(c, row.state, 1)

    def moved(self, row: Row, old_state: str) -> None:
        self.version += 1
        c = self.counts.setdefault(row.batch_id, [0] * 6)
        self._tally(c, old_state, -1)
        self._tally(c, row.state, 1)

    def of(self, batch_id: str) -> tuple[int, int, int]:
        """(ended, total, ended unsuccessfully)."""
        c = self.counts.get(batch_id, [0] * 6)
        return c[_ENDED], c[_TOTAL], c[_BAD]

    def tally(self, batch_id: str) -> BatchTally:
        c = self.counts.get(batch_id, [0] * 6)
        return BatchTally(c[_TOTAL], c[_ENDED], c[_BAD], c[_FAILED], c[_RUNNING], c[_PENDING])
