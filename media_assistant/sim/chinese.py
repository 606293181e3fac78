"""The simulators answer a Chinese prompt in Chinese: the demo's prompts are Chinese, and an
answer in English under them read as a bug (issue 20). The prefix keeps the contract the tests
and benchmarks rely on — an answer names its prompt — in the prompt's language:
``Answer to: <prompt>`` / ``回答：<prompt>``."""

from __future__ import annotations

import random
import re

_CJK = re.compile(r"[\u4e00-\u9fff]")

PHRASES = (
    "清新自然",
    "适合日常通勤",
    "面料柔软亲肤",
    "搭配简单不费心",
    "细节处处用心",
    "让人眼前一亮",
    "颜色温柔耐看",
    "出门轻便易携",
    "品质稳定可靠",
    "口碑一直不错",
    "新手也能轻松上手",
    "周末出游刚刚好",
    "性价比很高",
    "值得放进购物车",
)


def is_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


def answer_prefix(prompt: str) -> str:
    return f"回答：{prompt}" if is_chinese(prompt) else f"Answer to: {prompt}"


def thinking_prefix(prompt: str) -> str:
    return f"思考：{prompt}" if is_chinese(prompt) else f"Thinking about: {prompt}"


def chinese_filler(rng: random.Random, length: int) -> str:
    """About ``length`` characters of plausible copy: phrases, commas, a full stop."""
    parts: list[str] = []
    size = 0
    while size < length:
        phrase = rng.choice(PHRASES)
        parts.append(phrase)
        size += len(phrase) + 1
        if rng.random() < 0.25:
            parts[-1] += "。"
    text = "，".join(parts).replace("。，", "。")
    return text[:length].rstrip("，。") + "。"
