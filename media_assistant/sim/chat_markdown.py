"""Markdown answers for the fake chat site, rendered to HTML the way chat sites do it.

The answers carry every structure an operator pastes into an article editor (headings, bold,
italic, a link, ordered and nested unordered lists, a table, a fenced code block with its
language, a quote), so tests can check the round trip: the page shows HTML, the web provider
rebuilds Markdown from it, and the result must have the same structure. Rendering uses
markdown-it-py (CommonMark plus tables; raw HTML off, so a prompt cannot inject markup), a
port of the renderer many chat front ends use.
"""

from __future__ import annotations

import random

from markdown_it import MarkdownIt

from media_assistant.sim.chinese import answer_prefix, chinese_filler, is_chinese

_RENDERER = MarkdownIt("commonmark", {"html": False}).enable("table")

_TOPICS = ("spring dresses", "insulated cups", "camping gear", "city cycling", "pour-over coffee")
_LANGUAGES = ("python", "javascript", "sql")
_CODE = {
    "python": "def answer(n):\n    return n * 2  # <b>not bold</b>",
    "javascript": "const answer = (n) => n * 2; // a < b && c > d",
    "sql": "SELECT name, price FROM items WHERE price < 100;",
}


def render(markdown: str) -> str:
    return str(_RENDERER.render(markdown))


def compose_markdown(text: str, rng: random.Random, length: int) -> str:
    """``Answer to: <text>``, then a structured Markdown body of about ``length`` chars (the
    same structure in Chinese for a Chinese prompt)."""
    if is_chinese(text):
        return _compose_chinese(text, rng, length)
    topic = rng.choice(_TOPICS)
    language = rng.choice(_LANGUAGES)
    n = rng.randint(2, 99)
    body = [
        f"Answer to: {text}",
        "",
        f"## Notes on {topic}",
        "",
        f"Some **bold words** and *italic words*, see [the guide](https://example.com/guide/{n}).",
        "",
        "Set `max_items` first, then **bold with *italic* inside** and *the **reverse***.",
        "",
        "1. First step",
        "2. Second step",
        "   - a nested point",
        "   - another nested point",
        "",
        "- plain bullet",
        "- second **bold point**",
        "",
        "| item | price |",
        "| --- | --- |",
        f"| {topic} | {n} |",
        f"| extra | {n * 2} |",
        "",
        f"```{language}",
        _CODE[language],
        "```",
        "",
        f"> A quote about {topic}.",
    ]
    filler: list[str] = []
    size = sum(len(line) + 1 for line in body)
    words = ("clear", "useful", "short", "text", "readers", "value", "every", "idea", "care")
    while size < length:
        word = rng.choice(words)
        filler.append(word)
        size += len(word) + 1
    if filler:
        body += ["", " ".join(filler).capitalize() + "."]
    return "\n".join(body)


_TOPICS_ZH = ("春季连衣裙", "保温杯", "露营装备", "城市骑行", "手冲咖啡")
_CODE_ZH = {  # the same code, its comments in Chinese (markup inside code stays text)
    "python": "def answer(n):\n    return n * 2  # 翻倍，<b>不是粗体</b>",
    "javascript": "const answer = (n) => n * 2; // 翻倍：a < b && c > d",
    "sql": "SELECT name, price FROM items WHERE price < 100; -- 百元以内的商品",
}


def _compose_chinese(text: str, rng: random.Random, length: int) -> str:
    topic = rng.choice(_TOPICS_ZH)
    language = rng.choice(_LANGUAGES)
    n = rng.randint(2, 99)
    body = [
        answer_prefix(text),
        "",
        f"## 关于{topic}的要点",
        "",
        f"一些**加粗的文字**和*斜体的文字*，详见[指南](https://example.com/guide/{n})。",
        "",
        "1. 第一步",
        "2. 第二步",
        "   - 一个细分要点",
        "   - 另一个细分要点",
        "",
        "- 普通列表项",
        "- 第二个列表项",
        "",
        "| 商品 | 价格 |",
        "| --- | --- |",
        f"| {topic} | {n} |",
        f"| 配件 | {n * 2} |",
        "",
        f"```{language}",
        _CODE_ZH[language],
        "```",
        "",
        f"> 关于{topic}的一句引言。",
    ]
    size = sum(len(line) + 1 for line in body)
    if size < length:
        body += ["", chinese_filler(rng, length - size)]
    return "\n".join(body)


# An answer that is nothing but an error message (a real UI's backend failing politely).
ERROR_TEXT_ANSWER = "服务器繁忙，请稍后再试。"
# The box a real UI draws inside the answer area when its backend fails mid-way.
ERROR_BOX_TEXT = "抱歉，回答生成失败，请重试 / Sorry, something went wrong. Please try again."
