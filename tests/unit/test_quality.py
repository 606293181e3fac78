"""The quality gate's rules (core/rules/quality.py) and their config keys."""

from __future__ import annotations

import pytest

from media_assistant.core.config.schema import parse_config
from media_assistant.core.model.errors import ConfigError
from media_assistant.core.model.provider import GenerationResult
from media_assistant.core.rules.quality import QualityConfig, check
from tests.conftest import config_dict

ARTICLE = "这是一篇关于秋季新品的文章。" * 20


def rules(**keys: object) -> QualityConfig:
    return QualityConfig.model_validate(keys)


def test_no_rules_accept_anything() -> None:
    assert check(None, GenerationResult("")) is None
    assert check(rules(), GenerationResult("ok")) is None


def test_a_short_answer_is_too_short_counting_trimmed_characters() -> None:
    gate = rules(min_chars=20)
    verdict = check(gate, GenerationResult("   好的。   \n"))
    assert verdict is not None and verdict.rule == "too_short"
    assert verdict.detail == "3 characters, fewer than 20"
    assert check(gate, GenerationResult(ARTICLE)) is None


@pytest.mark.parametrize(
    "answer",
    [
        "抱歉，我无法回答这个问题。",
        "很抱歉, 我不能提供这类内容",  # a half-width comma and a space
        "I'm sorry, but I can't help with that.",
        "I’m Sorry, But I Can’t help with that.",  # typographic apostrophes, any case
        "As an AI language model, I do not have opinions.",
    ],
)
def test_refusals_in_chinese_and_english_are_caught_at_the_opening(answer: str) -> None:
    verdict = check(rules(refusals=True), GenerationResult(answer))
    assert verdict is not None and verdict.rule == "refusal"


def test_a_refusal_phrase_deep_inside_an_article_is_not_a_refusal() -> None:
    text = ARTICLE + "读者常说：“抱歉，我无法拒绝这样的优惠。”"
    assert check(rules(refusals=True), GenerationResult(text)) is None
    assert check(rules(), GenerationResult("抱歉，我无法回答")) is None  # refusals not on


def test_custom_refusal_phrases_need_no_builtin_list() -> None:
    gate = rules(refusal_phrases=["该内容暂不支持"])
    verdict = check(gate, GenerationResult("该内容暂不支持生成"))
    assert verdict is not None and "该内容暂不支持" in verdict.detail


def test_an_answer_cut_at_the_length_limit_is_caught_when_asked() -> None:
    cut = GenerationResult(ARTICLE, truncated=True)
    verdict = check(rules(reject_truncated=True), cut)
    assert verdict is not None and verdict.rule == "truncated"
    assert check(rules(min_chars=5), cut) is None


def _with_quality(**quality: object) -> dict[str, object]:
    data = config_dict(web_accounts=0)
    data["models"].append({"name": "backup-model", "kind": "api"})  # type: ignore[union-attr]
    data["accounts"][0]["models"].append("backup-model")  # type: ignore[index]
    data["models"][0]["quality"] = quality  # type: ignore[index]
    return data


def test_config_keys_are_checked_like_the_rest() -> None:
    cfg = parse_config(_with_quality(min_chars=200, refusals=True), "config.toml")
    model = cfg.model("api-model")
    assert model is not None and model.quality is not None and model.quality.min_chars == 200
    with pytest.raises(ConfigError, match=r"models\[0\] \(api-model\)\.quality\.min_chars"):
        parse_config(_with_quality(min_chars=0), "config.toml")
    with pytest.raises(ConfigError, match=r"quality\.refusal: unknown key"):
        parse_config(_with_quality(refusal=True), "config.toml")
    with pytest.raises(ConfigError, match="must not contain empty phrases"):
        parse_config(_with_quality(refusal_phrases=[" "]), "config.toml")


def test_a_fallback_model_must_exist_and_not_loop() -> None:
    ok = parse_config(_with_quality(fallback_model="backup-model"), "config.toml")
    assert ok.model("api-model").quality.fallback_model == "backup-model"  # type: ignore[union-attr]
    with pytest.raises(ConfigError, match="unknown model 'nope'"):
        parse_config(_with_quality(fallback_model="nope"), "config.toml")
    with pytest.raises(ConfigError, match="cannot fall back to itself"):
        parse_config(_with_quality(fallback_model="api-model"), "config.toml")
    looped = _with_quality(fallback_model="backup-model")
    looped["models"][1]["quality"] = {"fallback_model": "api-model"}  # type: ignore[index]
    with pytest.raises(ConfigError, match="fall back to each other"):
        parse_config(looped, "config.toml")
