"""The timeline's data, Qt-free: bars by task id, packed into tracks per account.

A web account is one track (one task at a time is the lane's rule); an API account gets as many
sub-tracks as its bars overlap. Tracks keep bars sorted by start, so painting and hit tests bisect
into the visible window instead of walking every bar of a big batch.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

_INF = math.inf


@dataclass(frozen=True)
class TimelineBar:
    task_id: str
    account_id: str
    lane: str  # "web" | "api"
    state: str  # pending | running | success | failed | canceled
    started_at: float  # epoch seconds
    finished_at: float | None  # None: still open, the bar grows to "now"
    label: str


def _start(bar: TimelineBar) -> float:
    return bar.started_at


def _stop(bar: TimelineBar) -> float:
    """End for packing: an open bar holds its track until it finishes."""
    return _INF if bar.finished_at is None else max(bar.finished_at, bar.started_at)


class Track:
    """One row of bars sorted by start; within an API track they never overlap."""

    __slots__ = ("bars", "max_len", "open", "starts")

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.bars: list[TimelineBar] = []
        self.open: dict[str, TimelineBar] = {}  # unfinished bars, whose length grows with "now"
        self.max_len = 0.0  # longest finished bar: how far before the window a visible one starts

    def index(self, bar: TimelineBar) -> int:
        i = bisect_left(self.starts, bar.started_at)
        while self.bars[i].task_id != bar.task_id:
            i += 1
        return i

    def add(self, bar: TimelineBar) -> None:
        i = bisect_right(self.starts, bar.started_at)
        self.starts.insert(i, bar.started_at)
        self.bars.insert(i, bar)
        self._note(bar)

    def discard(self, bar: TimelineBar) -> None:
        i = self.index(bar)
        del self.starts[i], self.bars[i]
        self.open.pop(bar.task_id, None)

    def _note(self, bar: TimelineBar) -> None:
        if bar.finished_at is None:
            self.open[bar.task_id] = bar
        else:
            self.max_len = max(self.max_len, bar.finished_at - bar.started_at)

    def fits(self, bar: TimelineBar) -> bool:
        i = bisect_right(self.starts, bar.started_at)
        if i < len(self.bars) and self.starts[i] < _stop(bar):
            return False
        return i == 0 or _stop(self.bars[i - 1]) <= bar.started_at

    def end_of(self, bar: TimelineBar, i: int, now: float, single: bool) -> float:
        if bar.finished_at is not None:
            return max(bar.finished_at, bar.started_at)
        if single and i + 1 < len(self.starts):
            # One task at a time: a later start means this one ended; its update is on the way.
            now = min(now, self.starts[i + 1])
        return max(now, bar.started_at)

    def in_window(
        self, t0: float, t1: float, now: float, single: bool
    ) -> Iterator[tuple[TimelineBar, float, float]]:
        """Bars intersecting [t0, t1] in start order, with the end they are drawn to."""
        reach = t0 - self.max_len
        early = sorted((b for b in self.open.values() if b.started_at < reach), key=_start)
        spans = [(b, self.index(b)) for b in early]
        lo, hi = bisect_left(self.starts, reach), bisect_right(self.starts, t1)
        for bar, i in spans + [(self.bars[i], i) for i in range(lo, hi)]:
            end = self.end_of(bar, i, now, single)
            if end >= t0:
                yield bar, bar.started_at, end


@dataclass
class AccountTracks:
    """One account's row of the timeline: its tracks, and where the row sits once laid out."""

    account_id: str
    lane: str
    tracks: list[Track] = field(default_factory=list)
    needs_repack: bool = False
    last_start: float = -_INF
    top: float = 0.0  # layout, in content coordinates
    height: float = 0.0

    @property
    def single(self) -> bool:
        return self.lane == "web"

    def place(self, bar: TimelineBar) -> Track:
        if self.single:
            track = self.tracks[0] if self.tracks else None
        else:
            track = next((t for t in self.tracks if t.fits(bar)), None)
            # First fit in start order is optimal; a new track for an out-of-order bar may not be.
            self.needs_repack |= track is None and bar.started_at < self.last_start
        if track is None:
            track = Track()
            self.tracks.append(track)
        track.add(bar)
        self.last_start = max(self.last_start, bar.started_at)
        return track

    def repack(self) -> None:
        self.needs_repack = False
        bars = sorted((b for t in self.tracks for b in t.bars), key=_start)
        self.tracks = []
        busy: list[tuple[float, int]] = []  # (end, track) of bars still open at this start
        free: list[int] = []  # lowest free track first, so rows stay put
        for bar in bars:
            k = 0
            if not self.single:
                while busy and busy[0][0] <= bar.started_at:
                    heapq.heappush(free, heapq.heappop(busy)[1])
                k = heapq.heappop(free) if free else len(self.tracks)
                heapq.heappush(busy, (_stop(bar), k))
            if k == len(self.tracks):
                self.tracks.append(Track())
            self.tracks[k].add(bar)


class TimelineTracks:
    """Every bar by task id, packed into its account's tracks; accounts in row order.

    Updates pack incrementally; an account whose packing went out of order is only marked, and
    ``repack_marked()`` (called before layout) repacks it once however many updates came in.
    """

    def __init__(self) -> None:
        self.groups: dict[str, AccountTracks] = {}  # insertion order is row order
        self.bars: dict[str, TimelineBar] = {}
        self.t_min = _INF  # the earliest start seen: where scrolling back ends
        self._track_of: dict[str, Track] = {}

    def set_accounts(self, accounts: Sequence[tuple[str, str]]) -> None:
        """Rows in this order; an account dropped from the list keeps its row while it has bars."""
        old, self.groups = self.groups, {}
        for account_id, lane in accounts:
            group = old.pop(account_id, None) or AccountTracks(account_id, lane)
            group.needs_repack |= group.lane != lane
            group.lane = lane
            self.groups[account_id] = group
        self.groups.update((a, g) for a, g in old.items() if any(t.bars for t in g.tracks))

    def upsert(self, bars: Iterable[TimelineBar]) -> bool:
        """Add or move these bars; returns whether any changed (else nothing to repaint)."""
        changed = False
        fresh: dict[str, TimelineBar] = {}  # to place after the in-place updates
        for bar in bars:
            old = self.bars.get(bar.task_id)
            if old == bar:
                continue
            changed = True
            self.bars[bar.task_id] = bar
            if old is None or bar.task_id in fresh:
                fresh[bar.task_id] = bar
                continue
            track, group = self._track_of[bar.task_id], self.groups[old.account_id]
            in_place = old.account_id == bar.account_id and old.started_at == bar.started_at
            if in_place and (group.single or _stop(bar) <= _stop(old)):
                track.discard(old)  # a bar that only got shorter still fits its own track
                track.add(bar)
                # A finish arriving after a later start was placed elsewhere may free a track.
                group.needs_repack |= not group.single and any(
                    t is not track and t.starts and t.starts[-1] >= _stop(bar) for t in group.tracks
                )
            else:
                del self._track_of[bar.task_id]
                track.discard(old)
                group.needs_repack |= not group.single
                fresh[bar.task_id] = bar
        for bar in sorted(
            fresh.values(), key=_start
        ):  # placing in start order keeps first fit optimal
            if bar.account_id not in self.groups:
                self.groups[bar.account_id] = AccountTracks(bar.account_id, bar.lane)
            self._track_of[bar.task_id] = self.groups[bar.account_id].place(bar)
            self.t_min = min(self.t_min, bar.started_at)
        return changed

    def remove(self, task_ids: Iterable[str]) -> set[str]:
        """Drop these bars; returns the ids that had one."""
        removed: set[str] = set()
        for task_id in task_ids:
            bar = self.bars.pop(task_id, None)
            if bar is not None:
                self._track_of.pop(task_id).discard(bar)
                self.groups[bar.account_id].needs_repack = True  # drops emptied tracks
                removed.add(task_id)
        return removed

    def clear(self) -> None:
        """Drop every bar; the account rows stay."""
        self.bars.clear()
        self._track_of.clear()
        for group in self.groups.values():
            group.tracks, group.needs_repack, group.last_start = [], False, -_INF
        self.t_min = _INF

    def repack_marked(self) -> None:
        for group in self.groups.values():
            if group.needs_repack:
                group.repack()
                self._track_of.update((b.task_id, t) for t in group.tracks for b in t.bars)

    def locate(self, task_id: str) -> tuple[TimelineBar, AccountTracks, Track] | None:
        """A bar with its account and track; None for an unknown task."""
        bar, track = self.bars.get(task_id), self._track_of.get(task_id)
        if bar is None or track is None:
            return None
        return bar, self.groups[bar.account_id], track
