"""TimelineWidget, offscreen: packing per lane, geometry, interaction and paint cost."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolTip

from media_assistant.gui.common import style
from media_assistant.gui.timeline.tracks import AccountTracks
from media_assistant.gui.timeline.view import TimelineBar, TimelineWidget

NOW = 1_750_000_000.0  # a fixed "now"; every time below is relative to it


def bar(
    task_id: str,
    start: float,
    end: float | None,
    *,
    account: str = "web-1",
    lane: str = "web",
    state: str = "success",
) -> TimelineBar:
    finished = None if end is None else NOW + end
    return TimelineBar(task_id, account, lane, state, NOW + start, finished, f"Article {task_id}")


@pytest.fixture
def timeline(qtbot) -> Iterator[TimelineWidget]:
    widget = TimelineWidget()
    qtbot.addWidget(widget)
    widget.resize(900, 320)
    widget.set_now(NOW)
    widget.set_accounts([("web-1", "web"), ("web-2", "web"), ("api-1", "api")])
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    QToolTip.hideText()


def api_schedule(seed: int, slots: int = 3, per_slot: int = 40) -> list[TimelineBar]:
    """An API account with `slots` concurrency: each slot runs its tasks back to back."""
    rng, bars = random.Random(seed), []
    for slot in range(slots):
        t = -1800.0 + rng.uniform(0, 5)
        for i in range(per_slot):
            length = rng.uniform(8, 20)
            bars.append(bar(f"api-{slot}-{i}", t, t + length, account="api-1", lane="api"))
            t += length + rng.uniform(0, 3)
    return bars


def spans(widget: TimelineWidget, account: str) -> list[list[tuple[float, float]]]:
    bars = {b.task_id: b for b in widget._tracks.bars.values()}
    return [
        [(bars[i].started_at, bars[i].finished_at or widget._now) for i in track]
        for track in widget.track_task_ids(account)
    ]


def assert_no_overlap(tracks: list[list[tuple[float, float]]]) -> None:
    for track in tracks:
        for (_s0, e0), (s1, _e1) in zip(track, track[1:], strict=False):
            assert e0 <= s1


def test_each_web_account_is_one_track_with_only_its_own_bars(timeline: TimelineWidget) -> None:
    web1 = [bar(f"w1-{i}", -900 + i * 200, -900 + i * 200 + 150) for i in range(4)]
    web2 = [bar(f"w2-{i}", -800 + i * 300, -800 + i * 300 + 280, account="web-2") for i in range(3)]
    timeline.upsert(reversed(web1 + web2))
    # Stale data (the next task's start arrives before the previous one's finish) stays on the row.
    timeline.upsert([bar("w1-open", -60, None, state="running"), bar("w1-next", -20, None)])

    assert timeline.track_task_ids("web-1") == [[b.task_id for b in web1] + ["w1-open", "w1-next"]]
    assert timeline.track_task_ids("web-2") == [[b.task_id for b in web2]]
    stale, successor = timeline.bar_rect("w1-open"), timeline.bar_rect("w1-next")
    assert stale is not None and successor is not None
    assert stale.right() <= successor.left() + 1  # drawn up to its successor, not over it


@pytest.mark.parametrize("seed", range(5))
def test_api_bars_pack_into_at_most_concurrency_tracks(timeline: TimelineWidget, seed: int) -> None:
    bars = api_schedule(seed)
    random.Random(seed).shuffle(bars)
    for i in range(0, len(bars), 25):  # batches in any order: repacked lazily, once
        timeline.upsert(bars[i : i + 25])

    tracks = spans(timeline, "api-1")
    assert len(tracks) == 3
    assert sum(map(len, tracks)) == len(bars)
    assert_no_overlap(tracks)


def test_api_live_flow_packs_incrementally_without_repacking(
    timeline: TimelineWidget, monkeypatch: pytest.MonkeyPatch
) -> None:
    repacks: list[str] = []
    original = AccountTracks.repack
    monkeypatch.setattr(
        AccountTracks, "repack", lambda g: (repacks.append(g.account_id), original(g))
    )
    finished = sorted(api_schedule(7), key=lambda b: b.started_at)
    for second in range(-1800, -1200):  # the app's once-a-second upsert of what changed
        now = NOW + second
        changed = [
            b if (b.finished_at or 0) <= now else replace(b, finished_at=None, state="running")
            for b in finished
            if now - 1 < b.started_at <= now or now - 1 < (b.finished_at or 0) <= now
        ]
        timeline.set_now(now)
        timeline.upsert(changed)
        tracks = spans(timeline, "api-1")
        assert len(tracks) <= 3
        assert_no_overlap(tracks)
    assert repacks == []


def test_upsert_of_200_bars_into_10k_does_not_repack(
    timeline: TimelineWidget, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = api_schedule(1, slots=5, per_slot=2000)
    timeline.upsert(history)
    timeline.track_task_ids("api-1")  # lay out once
    after = max(b.finished_at or 0 for b in history) - NOW
    repacks: list[str] = []
    monkeypatch.setattr(AccountTracks, "repack", lambda g: repacks.append(g.account_id))
    later = [
        bar(f"new-{i}", after + i * 4, after + i * 4 + 10, account="api-1", lane="api")
        for i in range(200)
    ]
    timeline.upsert(later)  # what it costs is B5's figure (the window's loop lag)
    assert len(timeline.track_task_ids("api-1")) == 5
    assert repacks == []  # placed at the tracks' ends: no relayout of the 10,000


def test_updates_move_bars_only_when_they_must(timeline: TimelineWidget) -> None:
    timeline.upsert([bar("a", -300, None, account="api-1", lane="api", state="running")])
    timeline.upsert([bar("b", -200, -150, account="api-1", lane="api")])
    assert timeline.track_task_ids("api-1") == [["a"], ["b"]]

    # the same task twice in one batch: the last word wins, and it is placed once
    twice = [bar("c", -100, None, account="web-2"), bar("c", -100, -40, account="web-2")]
    # a's finish and a retry of b on another account arrive together
    timeline.upsert([*twice, bar("a", -300, -250, account="api-1", lane="api"), bar("b", -90, -80)])
    assert timeline.track_task_ids("web-2") == [["c"]]
    assert timeline._tracks.bars["c"].finished_at == NOW - 40
    assert timeline.track_task_ids("web-1") == [["b"]]
    assert timeline.track_task_ids("api-1") == [["a"]]

    timeline.upsert([bar("x", -50, -10, account="new-web", lane="web")])  # unknown account
    timeline.set_accounts([("api-1", "api"), ("web-1", "web")])  # new order, web-2 dropped
    rows = list(timeline._tracks.groups)
    assert rows == ["api-1", "web-1", "web-2", "new-web"]  # rows with bars stay
    assert timeline.track_task_ids("new-web") == [["x"]]


def test_removing_bars_drops_emptied_tracks(timeline: TimelineWidget) -> None:
    timeline.upsert(bar(f"a{i}", -100, -90 + i, account="api-1", lane="api") for i in range(3))
    assert len(timeline.track_task_ids("api-1")) == 3

    timeline.remove(["a1", "missing"])
    assert len(timeline.track_task_ids("api-1")) == 2
    assert timeline.bar_rect("a1") is None
    timeline.clear()
    assert timeline.track_task_ids("api-1") == []
    assert timeline.track_task_ids("web-1") == []


def test_running_bar_grows_to_now(timeline: TimelineWidget) -> None:
    timeline.upsert([bar("r", -120, None, state="running"), bar("done", -300, -200)])
    before, now_x = timeline.bar_rect("r"), timeline._x(NOW)
    assert before is not None
    assert before.right() == pytest.approx(now_x, abs=1)

    timeline.set_now(NOW + 90)
    after = timeline.bar_rect("r")
    px_per_s = timeline._chart_rect().width() / 900
    assert after is not None
    assert after.right() == pytest.approx(timeline._x(NOW + 90), abs=1)
    # following: the view slid by 90 s, so the bar's left edge moved left by 90 s worth of pixels
    assert after.left() == pytest.approx(before.left() - 90 * px_per_s, abs=1)
    assert after.width() == pytest.approx(before.width() + 90 * px_per_s, abs=1)


def test_click_on_a_bar_emits_its_task_id(qtbot, timeline: TimelineWidget) -> None:
    timeline.upsert([bar("a", -400, -300), bar("b", -290, -100, state="failed")])
    rect = timeline.bar_rect("b")
    assert rect is not None

    with qtbot.waitSignal(timeline.task_activated, timeout=1000) as blocker:
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert blocker.args == ["b"]

    empty = QPoint(int(rect.center().x()), int(rect.bottom()) + 3 * timeline._pitch)
    with qtbot.assertNotEmitted(timeline.task_activated):
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=empty)


@pytest.mark.qt_log_ignore(r"This plugin does not support raise\(\)")  # offscreen has no raise
def test_tooltip_names_label_id_state_and_duration(qtbot, timeline: TimelineWidget) -> None:
    timeline.upsert([bar("t-42", -300, -210, state="failed")])
    rect = timeline.bar_rect("t-42")
    assert rect is not None
    pos = rect.center().toPoint()

    QApplication.sendEvent(
        timeline, QHelpEvent(QEvent.Type.ToolTip, pos, timeline.mapToGlobal(pos))
    )
    qtbot.waitUntil(QToolTip.isVisible, timeout=1000)
    text = QToolTip.text()
    assert text.splitlines()[:4] == [
        "Article t-42",
        "Task: t-42",
        "State: Failed",
        "Duration: 1m30s",
    ]

    timeline.upsert([bar("run", -75, None, state="running")])
    assert "Duration: 1m15s so far" in timeline.tooltip_text("run")


def test_hover_highlights_the_bar(timeline: TimelineWidget) -> None:
    timeline.upsert([bar("h", -400, -100)])
    rect = timeline.bar_rect("h")
    assert rect is not None
    probe = QPoint(int(rect.right()) - 10, int(rect.center().y()))  # right of the label text
    normal = style.color("success")
    assert timeline.grab().toImage().pixelColor(probe) == normal

    QTest.mouseMove(timeline, rect.center().toPoint())
    lit = timeline.grab().toImage().pixelColor(probe)
    assert lit.lightness() > normal.lightness() + 10 and lit.hue() == pytest.approx(
        normal.hue(), abs=3
    )
    QTest.mouseMove(timeline, QPoint(5, timeline.height() // 2))
    assert timeline.grab().toImage().pixelColor(probe) == normal


def test_follow_mode_tracks_now_and_panning_back_stops_it(qtbot, timeline: TimelineWidget) -> None:
    timeline.upsert(bar(f"w{i}", -3600 + i * 120, -3600 + i * 120 + 100) for i in range(30))
    start, end = timeline.view_range()
    assert timeline.is_following()
    assert end - start == 900 and start < NOW < end

    timeline.set_now(NOW + 60)
    assert timeline.view_range() == pytest.approx((start + 60, end + 60))

    chart = timeline._chart_rect()
    y = int(chart.bottom()) - 4
    QTest.mousePress(timeline, Qt.MouseButton.LeftButton, pos=QPoint(int(chart.center().x()), y))
    QTest.mouseMove(timeline, QPoint(int(chart.center().x()) + 200, y))
    QTest.mouseRelease(
        timeline, Qt.MouseButton.LeftButton, pos=QPoint(int(chart.center().x()) + 200, y)
    )
    panned = timeline.view_range()
    assert not timeline.is_following()
    assert panned[1] == pytest.approx(end + 60 - 200 * 900 / chart.width(), abs=1)

    timeline.set_now(NOW + 120)  # panned back: the view stays where the user put it
    assert timeline.view_range() == panned

    QTest.mouseDClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(int(chart.center().x()), y))
    assert timeline.is_following()
    assert timeline.view_range()[1] == pytest.approx(NOW + 120 + 0.03 * 900)

    timeline._hbar.setValue(timeline._hbar.minimum())  # the scrollbar pans back too...
    assert not timeline.is_following()
    assert timeline.view_range()[0] == pytest.approx(NOW - 3600, abs=2)
    timeline._hbar.setValue(timeline._hbar.maximum())  # ...and its right end follows again
    assert timeline.is_following()


def test_axis_ticks_are_local_wall_clock_minutes(timeline: TimelineWidget) -> None:
    ticks = timeline.axis_ticks()
    assert len(ticks) >= 3
    assert all(re.fullmatch(r"\d\d:\d\d", text) for _x, text in ticks)
    gaps = {round(b[0] - a[0], 3) for a, b in zip(ticks, ticks[1:], strict=False)}
    assert max(gaps) - min(gaps) < 0.01  # evenly spaced
    x0 = timeline._chart_rect().left()
    t = timeline.view_range()[0] + (ticks[0][0] - x0) * 900 / timeline._chart_rect().width()
    local = time.localtime(round(t))
    assert local.tm_sec == 0 and ticks[0][1] == f"{local.tm_hour:02d}:{local.tm_min:02d}"


def test_set_now_repaints_at_most_once_a_second(qtbot, timeline: TimelineWidget) -> None:
    class PaintCounter(QObject):
        count = 0

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            self.count += event.type() == QEvent.Type.Paint
            return False

    qtbot.waitUntil(lambda: not timeline._now_timer.isActive(), timeout=2000)
    counter = PaintCounter()
    timeline.installEventFilter(counter)
    for i in range(1, 11):
        timeline.set_now(NOW + i / 10)
    QApplication.processEvents()
    assert counter.count == 1
    qtbot.waitUntil(lambda: counter.count == 2, timeout=20_000)  # the coalesced last tick
    assert timeline.view_range()[1] == pytest.approx(NOW + 1 + 27)
    timeline.removeEventFilter(counter)


@pytest.mark.parametrize("window", [900, 3 * 3600], ids=["15min", "all-10k-in-view"])
def test_10k_bars_paint(timeline: TimelineWidget, window: float) -> None:
    accounts = [(f"web-{i}", "web") for i in range(1, 5)] + [
        (f"api-{i}", "api") for i in range(1, 5)
    ]
    timeline.set_accounts(accounts)
    rng, bars = random.Random(3), []
    for account, lane in accounts:  # three hours: web back to back, API about three at once
        t = -3 * 3600.0
        quota = 10_000 if lane == "api" else 0
        while (t < 0 and lane == "web") or len(bars) < quota * int(account[-1]) // 4:
            length = rng.uniform(30, 360) if lane == "web" else rng.uniform(8, 20)
            state = rng.choice(["success"] * 8 + ["failed", "canceled"])
            task_id = f"{account}-{len(bars)}"
            bars.append(bar(task_id, t, t + length, account=account, lane=lane, state=state))
            t += length if lane == "web" else rng.uniform(2, 7)
    assert len(bars) == 10_000
    timeline.upsert(bars)
    timeline.set_window(window)
    timeline.grab()  # first layout and packing

    image = timeline.grab()  # how long it takes is B5's figure (the window's loop lag)
    assert not image.isNull()
