"""Fingerprints kept per site (issue 33 item 1) and B11's verdicts (item 4), without a browser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.bench_repair import markdown, verdicts
from media_assistant.core.config.schema import parse_config
from media_assistant.providers.web.adapter import load_adapter
from media_assistant.providers.web.fingerprint import FingerprintStore


def test_a_record_merges_keys_and_a_damaged_file_is_ignored(tmp_path: Path) -> None:
    store = FingerprintStore(tmp_path / "fingerprints")
    adapter = load_adapter(site="sim")
    assert store.load("sim") is None
    store.record(adapter, {"generating": {"selector": "b", "count": 1, "element": {"tag": "b"}}})
    fp = store.record(
        adapter,
        {
            "send": {"selector": "a", "count": 1, "element": {"tag": "button"}},
            "bogus": {"element": {}},  # not a key an adapter has
            "done": "not a description",
        },
    )
    assert set(fp.keys) == {"generating", "send"}  # the indicator gone now keeps its last one
    again = store.load("sim")
    assert again is not None and again.element("send") == {"tag": "button"}
    assert again.adapter_version == adapter.version
    assert (tmp_path / "fingerprints" / "sim.json").stat().st_mode & 0o777 == 0o600
    store.path("sim").write_text("{not json", encoding="utf-8")
    assert store.load("sim") is None


def test_auto_repair_is_a_sites_key_and_off_by_default() -> None:
    assert parse_config({}, "t").sites.auto_repair is False
    assert parse_config({"sites": {"auto_repair": True}}, "t").sites.auto_repair is True


def case(proven_in: float | None, false_heal: bool = False) -> dict[str, Any]:
    return {
        "breakage": "x",
        "adapter": "sim",
        "verdict": "the site's page changed: sent",
        "proposed": [{"key": "send"}] if proven_in is not None else [],
        "verdict_to_proven_s": proven_in,
        "why": "" if proven_in is not None else "no fingerprint",
        "tasks_own_answer": 3 if not false_heal else 2,
        "tasks": 3,
        "false_heal": false_heal,
        "proven_within_target": proven_in is not None and proven_in <= 120 and not false_heal,
    }


def test_b11_verdicts_can_miss() -> None:
    good = verdicts({"a": case(10), "b": case(30), "c": case(20), "d": case(50), "e": case(None)})
    assert [t["passed"] for t in good] == [True, True]  # 4 of 5 = 80 %
    slow = verdicts({"a": case(10), "b": case(130), "c": case(None)})
    assert [t["passed"] for t in slow] == [False, True]
    healed = verdicts({"a": case(10, false_heal=True)})
    assert [t["passed"] for t in healed] == [False, False]
    text = markdown({"cases": {"a": case(10, false_heal=True)}, "targets": healed})
    assert "**MISS**" in text and "| YES |" in text
