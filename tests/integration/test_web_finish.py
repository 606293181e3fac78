"""When a web answer is finished, on UIs without a done marker (a stop button while generating
and nothing once the answer is complete, as UIs built on a Python chat framework): the stop
button going away, then the text unchanged on a re-read, is the end — never a cut answer."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.integration.test_web_field import SIM_ADAPTER, field_sim, make_env, tasks
from tests.integration.test_web_lane import our_chromiums

pytestmark = pytest.mark.chromium


def no_done_adapter(root: Path, timing: dict[str, int]) -> Path:
    """The sim adapter without its done marker (the Copy button), with ``timing`` keys."""
    lines = []
    for original in SIM_ADAPTER.read_text(encoding="utf-8").splitlines():
        line = "done = []" if original.startswith("done = ") else original
        if line.split(" = ")[0] in timing:
            continue
        lines.append(line)
        if line == "[timing]":
            lines += [f"{k} = {v}" for k, v in timing.items()]
    path = root / "no-done.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_without_a_done_marker_the_stop_button_going_is_the_end(tmp_path: Path) -> None:
    """Polls 5 s apart and 20 stable polls: finishing by unchanged text alone would take
    100 s per answer. The stop button going, then one re-read, ends each answer at once."""
    sim = field_sim()
    try:
        site_file = no_done_adapter(tmp_path, {"poll_ms": 5000, "stable_polls": 20})
        e = make_env(tmp_path, sim, site_file=site_file)
        await e.sign_in("web-1")
        s = await e.start()
        await s.submit(tasks(3, prefix="n"))
        started = time.monotonic()
        assert await e.run(timeout=60) == []
        took = time.monotonic() - started
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        assert [(r.state, r.attempt) for r in rows] == [("success", 1)] * 3
        assert [r.result_text for r in rows] == sim.answers("web-1")  # whole answers
        assert took < 30, f"3 answers took {took:.0f} s"
        await e.close()
        assert not our_chromiums(tmp_path)
    finally:
        sim.stop_in_thread()


async def test_without_a_done_marker_an_answer_that_pauses_is_never_cut(tmp_path: Path) -> None:
    """Chunks ~0.3 s apart, longer than the confirm_ms re-read (120 ms), the stop button
    showing all along: every answer comes back whole."""
    sim = field_sim(latency_s=(3, 3), time_scale=1.0, answer_chars=(40, 60), markdown_answers=False)
    try:
        e = make_env(tmp_path, sim, site_file=no_done_adapter(tmp_path, {}))
        await e.sign_in("web-1")
        s = await e.start()
        await s.submit(tasks(2, prefix="p"))
        assert await e.run(timeout=60) == []
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        assert [(r.state, r.attempt) for r in rows] == [("success", 1)] * 2
        assert [r.result_text for r in rows] == sim.answers("web-1")
        await e.close()
    finally:
        sim.stop_in_thread()


async def test_without_a_done_marker_an_indicator_gap_is_not_the_end(tmp_path: Path) -> None:
    """Nothing shows generating for 1.5 s after the send (the stop button hides, no answer),
    then the answer streams: the gap is neither the end nor a silent stop."""
    sim = field_sim(indicator_gap_s=1.5)
    try:
        e = make_env(tmp_path, sim, site_file=no_done_adapter(tmp_path, {}))
        await e.sign_in("web-1")
        s = await e.start()
        await s.submit(tasks(2, prefix="g"))
        assert await e.run() == []
        rows = sorted(e.store.list_tasks(), key=lambda r: r.started_at or 0)
        assert [(r.state, r.attempt) for r in rows] == [("success", 1)] * 2
        assert [r.result_text for r in rows] == sim.answers("web-1")
        await e.close()
    finally:
        sim.stop_in_thread()
