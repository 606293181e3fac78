"""Site adapters are data: every built-in one loads; bad files are named with their key."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from media_assistant.assets import sites_dir
from media_assistant.core.model.errors import ConfigError
from media_assistant.providers.web.adapter import builtin_ids, load_adapter, parse_adapter

SHIPPED = {"sim", "deepseek", "kimi", "doubao", "qwen", "yuanbao", "chatgpt"}


def test_every_built_in_adapter_loads_and_says_where_it_comes_from() -> None:
    assert SHIPPED <= set(builtin_ids())
    for site in builtin_ids():
        adapter = load_adapter(site=site)
        assert adapter.id == site
        assert adapter.source and adapter.verified_at is not None
        assert adapter.selectors.input and adapter.selectors.answer


def test_staleness_is_reported_after_sixty_days() -> None:
    adapter = load_adapter(site="sim")
    assert adapter.verified_at is not None
    assert adapter.staleness_warning(adapter.verified_at + dt.timedelta(days=30)) is None
    warning = adapter.staleness_warning(adapter.verified_at + dt.timedelta(days=61))
    assert warning is not None and "61 days ago" in warning
    # ... and it says what that means and what to do.
    assert "keeps working unless the site changed" in warning
    assert "sites probe http://127.0.0.1" in warning and "sites/sim.toml" in warning


def test_sites_list_explains_the_stale_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from media_assistant.cli import main

    assert main(["--data-dir", str(tmp_path), "sites", "list"]) == 0
    out = capsys.readouterr().out
    assert "STALE: not re-checked for over 60 days" in out  # yuanbao: verified 2025-04-01
    assert "keeps working unless the site changed its page" in out
    assert f"{tmp_path / 'sites'}/<id>.toml" in out


def test_a_user_file_overrides_the_built_in(tmp_path: Path) -> None:
    text = (sites_dir() / "sim.toml").read_text(encoding="utf-8")
    (tmp_path / "sim.toml").write_text(
        text.replace('name = "Simulated', 'name = "Mine'), encoding="utf-8"
    )
    assert load_adapter(site="sim", user_dir=tmp_path).name.startswith("Mine")


@pytest.mark.parametrize(
    ("mutation", "expected"),
    [
        (lambda t: t.replace("[timing]", "[timing]\npol_ms = 3"), "timing.pol_ms: unknown key"),
        (lambda t: t.replace("poll_ms = 300", "poll_ms = 20"), "timing.poll_ms"),
        (
            lambda t: t.replace("answer = [", "answer = ['div:has-text(\"x\")', "),
            "selectors.answer",
        ),
        (lambda t: t.replace('origin = "http://127.0.0.1:8002"', 'origin = "ftp://x"'), "origin"),
        (lambda t: t.replace("[input]", '[input]\nmethod = "paste"\n[unused]'), "input.method"),
    ],
)
def test_bad_adapter_files_name_the_key(mutation: object, expected: str, tmp_path: Path) -> None:
    text = (sites_dir() / "sim.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(mutation(text), encoding="utf-8")  # type: ignore[operator]
    with pytest.raises(ConfigError) as exc:
        load_adapter(site_file=str(bad))
    assert str(bad) in str(exc.value) and expected in str(exc.value)


def test_unknown_site_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="unknown site 'nope'.*deepseek"):
        load_adapter(site="nope")


def test_invalid_toml_is_reported() -> None:
    with pytest.raises(ConfigError, match="x.toml: invalid TOML"):
        parse_adapter("id = ", "x.toml")


def test_the_example_in_the_adapter_documentation_is_a_valid_adapter() -> None:
    """docs/ADAPTERS.md is what operators write adapters from: its example must load."""
    import re
    from pathlib import Path

    from media_assistant.core.rules.pacing import resolve_policy
    from media_assistant.providers.web.adapter import parse_adapter

    doc = (Path(__file__).parents[2] / "docs" / "ADAPTERS.md").read_text(encoding="utf-8")
    example = re.search(r"## A complete example.*?```toml\n(.*?)```", doc, re.S)
    assert example is not None
    adapter = parse_adapter(example.group(1), "docs/ADAPTERS.md")
    assert adapter.model_choice is not None and adapter.model_choice.site_name("pro") == (
        "Example-Pro"
    )
    assert adapter.answer.exclude == [".code-block-header", ".citation"]
    policy = resolve_policy(adapter.pacing, None, headless=False)
    assert (policy.min_gap_s, policy.max_per_window, policy.risk_events) == (120, 4, 3)


def test_the_example_for_a_python_chat_framework_ui_is_a_valid_adapter() -> None:
    import re
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "ADAPTERS.md").read_text(encoding="utf-8")
    example = re.search(r"## Example: a UI built on a Python.*?```toml\n(.*?)```", doc, re.S)
    assert example is not None
    adapter = parse_adapter(example.group(1), "docs/ADAPTERS.md")
    assert adapter.selectors.new_chat == [] and len(adapter.new_chat_steps) == 2
    assert adapter.answer.code_language and adapter.answer.exclude
    assert adapter.timing.silent_stop_s == 3


ONE_CLICK = "new_chat = ['button[data-testid=\"new-chat\"]', 'a[aria-label=\"New chat\"]']"


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ("steps = [['button.new'], ['button.confirm']]", None),
        ("steps = []", "new_chat.steps"),
        ("steps = [['button.new'], []]", "step 2 names no selector"),
        ("steps = 'button.new'", "new_chat.steps"),
    ],
)
def test_new_chat_steps(steps: str, expected: str | None) -> None:
    text = (sites_dir() / "sim.toml").read_text(encoding="utf-8")
    assert ONE_CLICK in text
    source = text.replace(ONE_CLICK, "") + f"\n[new_chat]\n{steps}\n"
    if expected is None:
        adapter = parse_adapter(source, "x.toml")
        assert adapter.new_chat_steps == [["button.new"], ["button.confirm"]]
        return
    with pytest.raises(ConfigError, match=expected):
        parse_adapter(source, "x.toml")


def test_new_chat_is_declared_once() -> None:
    text = (sites_dir() / "sim.toml").read_text(encoding="utf-8")
    assert load_adapter(site="sim").new_chat_steps == [
        ['button[data-testid="new-chat"]', 'a[aria-label="New chat"]']
    ]  # one click, two fallbacks
    with pytest.raises(ConfigError, match="keep one"):
        parse_adapter(text + "\n[new_chat]\nsteps = [['button.new']]\n", "x.toml")


def test_every_adapter_key_is_documented() -> None:
    from pathlib import Path

    from pydantic import BaseModel

    from media_assistant.core.rules.pacing import CooldownsConfig, PacingConfig
    from media_assistant.providers.web.adapter import (
        AdapterAnswer,
        AdapterInput,
        AdapterMarkers,
        AdapterSelectors,
        AdapterTiming,
        CodeEditor,
        Marker,
        ModelChoice,
        NewChatSteps,
        SiteAdapter,
    )

    doc = (Path(__file__).parents[2] / "docs" / "ADAPTERS.md").read_text(encoding="utf-8")
    models: list[type[BaseModel]] = [
        SiteAdapter,
        AdapterSelectors,
        AdapterMarkers,
        Marker,
        AdapterAnswer,
        CodeEditor,
        ModelChoice,
        NewChatSteps,
        AdapterInput,
        AdapterTiming,
        PacingConfig,
        CooldownsConfig,
    ]
    missing = [
        f"{m.__name__}.{name}"
        for m in models
        for name in m.model_fields
        if not any(
            form in doc
            for form in (f"`{name}`", f"`{name},", f" {name}`", f"[{name}]", f"[pacing.{name}]")
        )
    ]
    assert missing == []
