"""Locator repair's choice (issue 33, providers/web/repair_score.py) and its adapter file edits
(repair.py): the look-alike decoy, the hidden or disabled second control, hashed classes."""

from __future__ import annotations

import tomllib
from typing import Any

from media_assistant.assets import sites_dir
from media_assistant.providers.web.repair import is_echo, next_version, with_selectors
from media_assistant.providers.web.repair_score import MIN_MARGIN, choose, score

SEND: dict[str, Any] = {
    "tag": "button",
    "role": "button",
    "aria_label": "Send",
    "title": "",
    "classes": ["icon-button", "send"],
    "unstable_classes": ["css-1q2w3e"],
    "text": "发送 / Send",
    "neighbours": ["Stop generating"],
    "path": ["div.app", "main.chat", "div.composer-bar", "button.icon-button.send"],
    "x": 0.9,
    "y": 0.95,
}


def cand(index: int, **over: Any) -> dict[str, Any]:
    base = {**SEND, "visible": True, "enabled": True, "index": index, "ancestors": []}
    base.update(over)
    base.setdefault("selectors", [f"#c{index}"])
    return base


def test_the_renamed_control_wins_over_a_look_alike_beside_it() -> None:
    real = cand(0, aria_label="Send message", classes=["icon-button"], text="")
    decoy = cand(1, aria_label="Submit feedback", classes=["icon-button"], text="", x=0.86)
    choice = choose(SEND, [decoy, real], control=True)
    assert choice.chosen and choice.selector == "#c0"
    assert choice.margin >= MIN_MARGIN


def test_two_equal_look_alikes_are_no_choice_at_all() -> None:
    a = cand(0, aria_label="Send message", text="")
    b = cand(1, aria_label="Send message", text="", x=0.89)
    choice = choose(SEND, [a, b], control=True)
    assert not choice.chosen and "not clearly ahead" in choice.why


def test_a_hidden_or_disabled_twin_is_never_chosen_however_alike() -> None:
    hidden = cand(0, visible=False)  # the old element itself, hidden: a perfect score
    disabled = cand(1, enabled=False)
    renamed = cand(2, aria_label="Send prompt", text="")
    assert score(SEND, hidden) > score(SEND, renamed)
    choice = choose(SEND, [hidden, disabled, renamed], control=True)
    assert choice.selector == "#c2"
    nothing = choose(SEND, [hidden, disabled], control=True)
    assert not nothing.chosen and "visible" in nothing.why


def test_rotated_class_hashes_do_not_count_and_a_weak_match_is_refused() -> None:
    assert score(SEND, cand(0, unstable_classes=["css-9z8y7x"])) == score(SEND, cand(0))
    stranger = cand(
        0,
        tag="a",
        role="link",
        aria_label="Log out",
        text="退出",
        classes=[],
        path=["nav"],
        neighbours=[],
        x=0.1,
        y=0.1,
    )
    choice = choose(SEND, [stranger], control=True)
    assert not choice.chosen and "< 0.5" in choice.why


def test_a_disproved_candidate_gives_the_next_one_its_chance() -> None:
    real = cand(0, aria_label="Send message", text="")
    decoy = cand(1, aria_label="Submit feedback", text="")
    assert choose(SEND, [real, decoy], control=True, exclude=["#c0"]).selector in (None, "#c1")
    assert not choose(SEND, [real], control=True, exclude=["#c0"]).chosen


def test_the_wrapper_of_the_winner_is_not_its_rival() -> None:
    body = cand(1, ancestors=[0])
    wrapper = cand(0)  # same look: the answer's new container
    assert choose(SEND, [wrapper, body], control=True).chosen


def test_the_repaired_file_keeps_the_rest_and_raises_the_version() -> None:
    text = (sites_dir() / "sim.toml").read_text(encoding="utf-8")
    new = with_selectors(text, {"send": ['button[aria-label="Send message"]']}, "2026.11.30.1")
    data = tomllib.loads(new)
    assert data["selectors"]["send"] == ['button[aria-label="Send message"]']
    assert data["version"] == "2026.11.30.1"
    assert data["selectors"]["input"] == tomllib.loads(text)["selectors"]["input"]
    assert "# The loopback chat simulator" in new  # comments kept
    assert "send = ['button[aria-label=\"Send message\"]']" in new


def test_version_plus_one_and_the_echo_of_the_prompt() -> None:
    assert next_version("2026.11.30") == "2026.11.30.1"
    assert next_version("2026.11.30.1") == "2026.11.30.2"
    assert next_version("7") == "8" and next_version("") == "1"
    assert is_echo("Reply with one short sentence that has a **bold** word.")
    assert is_echo("")
    assert not is_echo("Answer to: Reply with one short sentence. A **bold** word.")
