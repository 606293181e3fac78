"""When a page that showed it was generating has stopped without answering (issue 22)."""

from __future__ import annotations

from media_assistant.providers.web.silence import SilentStop
from media_assistant.providers.web.snapshot import Snapshot


def snap(
    *, generating: bool = False, generated: bool = False, reasoning: str | None = None
) -> Snapshot:
    return Snapshot(
        url="http://127.0.0.1/chat",
        answers=0,
        text=None,
        reasoning=reasoning,
        generating=generating,
        done=0,
        users=1,
        alerts="",
        generated=generated,
    )


def feed(watch: SilentStop, polls: list[tuple[float, Snapshot]], **flags: bool) -> list[bool]:
    args = {"answered": False, "pending": False, **flags}
    return [watch.stopped(s, t, **args) for t, s in polls]


def test_quiet_after_generating_fails_once_two_polls_span_the_grace() -> None:
    watch = SilentStop(3.0)
    polls = [
        (0.0, snap(generating=True)),
        (0.5, snap()),
        (2.0, snap()),
        (3.4, snap()),
        (3.6, snap()),
    ]
    assert feed(watch, polls) == [False, False, False, False, True]
    # One long poll is not seconds of quiet: the count starts at the first quiet poll.
    watch = SilentStop(3.0)
    polls = [(0.0, snap(generating=True)), (9.0, snap()), (9.1, snap()), (12.0, snap())]
    assert feed(watch, polls) == [False, False, False, True]


def test_a_page_that_never_showed_generating_keeps_the_first_token_timeout() -> None:
    watch = SilentStop(1.0)
    assert not any(feed(watch, [(float(t), snap()) for t in range(30)]))


def test_an_indicator_sighted_only_between_polls_counts() -> None:
    watch = SilentStop(1.0)  # the page's own watch saw it; no poll did
    assert feed(watch, [(0.0, snap(generated=True)), (1.0, snap(generated=True)), (1.5, snap())])[
        -1
    ]


def test_generating_again_an_answer_a_pending_marker_or_growing_reasoning_start_over() -> None:
    resets = [
        (snap(generating=True), False, False),
        (snap(), True, False),  # a new answer has text (or was marked done empty)
        (snap(), False, True),  # a login/captcha marker is showing, not yet held long enough
        (snap(reasoning="still thinking"), False, False),
    ]
    for reset, answered, pending in resets:
        watch = SilentStop(2.0)
        assert feed(watch, [(0.0, snap(generated=True)), (1.0, snap()), (1.5, snap())]) == [
            False,
            False,
            False,
        ]
        assert not watch.stopped(reset, 2.1, answered=answered, pending=pending)
        # Quiet again from 2.5 s: not stopped before 4.5 s.
        quiet = snap(reasoning=reset.reasoning)
        assert feed(watch, [(2.5, quiet), (4.0, quiet), (4.6, quiet)]) == [False, False, True]
