"""An answer's HTML → Markdown, read in a real Chromium page: emphasis that only CSS draws
(utility classes), and a code block's language label that the adapter does not exclude."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Page, async_playwright

from media_assistant.providers.web.adapter import parse_adapter
from media_assistant.providers.web.markdown import html_to_markdown
from media_assistant.providers.web.page import ChatPage

CHROMIUM = "/usr/lib/chromium/chromium"

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
]

ADAPTER = parse_adapter(
    """
id = "markup"
name = "Markup"
origin = "http://127.0.0.1:9"
source = "tests"
[selectors]
input = ["textarea"]
answer = [".answer"]
""",
    "test",
)

# What a Tailwind/typography-plugin UI ships (the class names are Tailwind's).
STYLE = """
<style>
  .font-bold { font-weight: 700; } .font-semibold { font-weight: 600; }
  .font-medium { font-weight: 500; } .italic { font-style: italic; }
  .font-mono { font-family: ui-monospace, Menlo, Consolas, monospace; }
  .prose blockquote { font-style: italic; } .prose a { font-weight: 600; }
  .prose td.num { font-family: monospace; } .block-mono { font-family: monospace; }
</style>
"""


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def page() -> AsyncIterator[Page]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield await browser.new_page()
        await browser.close()


async def markdown_of(page: Page, body: str) -> str:
    await page.set_content(f"{STYLE}<div class='answer prose'>{body}</div>")
    extracted = await ChatPage(page, ADAPTER).extract_answer()
    assert extracted is not None and extracted["rich"]
    return html_to_markdown(extracted["html"])


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # Emphasis drawn by classes, as tags would draw it.
        (
            "<p>one <span class='font-bold'>bold</span>, one <span class='italic'>slanted</span>"
            " and <span class='font-mono'>max_items</span></p>",
            "one **bold**, one *slanted* and `max_items`",
        ),
        ("<p><span class='font-semibold'>600 is bold</span></p>", "**600 is bold**"),
        ("<p><span class='font-medium'>500 is not</span></p>", "500 is not"),
        # Nested: marked where the look changes, not again inside.
        (
            "<p><span class='font-bold'>bold <span class='italic'>both</span> "
            "<span class='font-bold'>still</span></span></p>",
            "**bold *both* still**",
        ),
        (
            "<p><span class='italic'>the <span class='font-bold'>reverse</span></span></p>",
            "*the **reverse***",
        ),
        # A block holding only inline content: its text is the emphasis.
        (
            "<ul><li class='font-bold'>first</li><li>second <span class='font-bold'>bold "
            "point</span></li></ul>",
            "- **first**\n- second **bold point**",
        ),
        # Tags that already say it are not marked twice.
        (
            "<p><strong class='font-bold'>tag</strong> <em class='italic'>tag</em> "
            "<b><span class='font-bold'>in b</span></b> <code class='font-mono'>c</code></p>",
            "**tag** *tag* **in b** `c`",
        ),
        # The default look of a heading, a table header, a quote, a link: not emphasis.
        ("<h2>Heading</h2><p>text</p>", "## Heading\n\ntext"),
        (
            "<h3><span class='font-bold'>Bold</span> heading</h3>",
            "### Bold heading",
        ),
        (
            "<blockquote><p>a quote</p></blockquote>",
            "> a quote",
        ),
        (
            "<p>see <a href='https://example.com/'>the guide</a></p>",
            "see [the guide](https://example.com/)",
        ),
        (
            "<table><thead><tr><th>item</th><th>price</th></tr></thead><tbody><tr><td>cups</td>"
            "<td class='num'>12</td></tr></tbody></table>",
            "| item | price |\n| --- | --- |\n| cups | 12 |",
        ),
        # A monospace block is not inline code; an element without text marks nothing.
        ("<p class='block-mono'>a monospace paragraph</p>", "a monospace paragraph"),
        ("<p>x<span class='font-bold'> </span>y</p>", "x y"),
    ],
)
async def test_emphasis_drawn_by_css_becomes_markdown(page: Page, body: str, expected: str) -> None:
    assert await markdown_of(page, body) == expected


async def test_a_code_blocks_language_label_is_not_a_line_of_the_answer(page: Page) -> None:
    # A header of the UI's own (no adapter exclude), naming the fence's language.
    block = (
        "<div class='code-block'><div class='bar'><span class='font-mono'>{label}</span>"
        "<button>Copy</button></div><pre><code class='language-python'>x = 1</code></pre></div>"
    )
    answer = "<p>Intro</p>" + block.format(label="Python")
    assert await markdown_of(page, answer) == "Intro\n\n```python\nx = 1\n```"
    # A header saying more than the language stays (answer.exclude is the adapter's tool).
    answer = "<p>Intro</p>" + block.format(label="python 3.12")
    assert await markdown_of(page, answer) == "Intro\n\n`python 3.12`\n\n```python\nx = 1\n```"
    # A paragraph that says the language next to a bare code block is the answer's own text.
    bare = "<p>python</p><pre><code class='language-python'>x = 1</code></pre>"
    assert await markdown_of(page, bare) == "python\n\n```python\nx = 1\n```"


CM6 = (
    "<p>Intro</p><div class='cm-editor'><div class='cm-scroller'>"
    "<div class='cm-gutters' aria-hidden='true'>"
    "<div class='cm-gutter cm-lineNumbers'><div class='cm-gutterElement'>1</div>"
    "<div class='cm-gutterElement'>2</div><div class='cm-gutterElement'>3</div></div>"
    "<div class='cm-gutter cm-foldGutter'><div class='cm-gutterElement'>"
    "<span title='Fold line'>⌄</span></div></div></div>"
    "<div class='cm-content' contenteditable='false' role='textbox' data-language='{lang}'>"
    "<div class='cm-line'><span style='font-weight:700'>def</span> f(n):</div>"
    "<div class='cm-line'><br></div>"
    "<div class='cm-line'>    return n  <span class='cm-foldPlaceholder'>…</span></div>"
    "</div></div></div>"
)


async def test_codemirror_code_keeps_its_fence_without_the_gutter(page: Page) -> None:
    assert await markdown_of(page, CM6.format(lang="python")) == (
        "Intro\n\n```python\ndef f(n):\n\n    return n\n```"
    )
    # No language named: a fence all the same, never the line numbers.
    unnamed = CM6.replace(" data-language='{lang}'", "")
    assert await markdown_of(page, unnamed) == "Intro\n\n```\ndef f(n):\n\n    return n\n```"


async def test_monaco_code_comes_back_in_order_without_line_numbers(page: Page) -> None:
    # Lines reused out of document order (placed by style top), spaces as no-break spaces, the
    # language on the editor's host, line numbers and a fold marker in the margin.
    monaco = (
        "<div data-mode-id='javascript'><div class='monaco-editor vs'><div class='margin'>"
        "<div style='top:0px'><div class='line-numbers'>1</div>"
        "<div class='codicon codicon-folding-expanded'></div></div>"
        "<div style='top:19px'><div class='line-numbers'>2</div></div></div>"
        "<div class='view-lines'>"
        "<div class='view-line' style='top:19px'><span><span>\u00a0\u00a0return\u00a0n;</span>"
        "</span></div>"
        "<div class='view-line' style='top:0px'><span><span>function\u00a0f(n)\u00a0{</span>"
        "</span></div></div></div></div>"
    )
    assert await markdown_of(page, monaco) == "```javascript\nfunction f(n) {\n  return n;\n```"


async def test_an_adapter_names_its_sites_own_code_editor(page: Page) -> None:
    ace = (
        "<div class='ace_editor' data-mode='sql'><div class='ace_gutter'>1</div>"
        "<div class='ace_text-layer'><div class='ace_line'>SELECT 1;</div></div></div>"
    )
    adapter = parse_adapter(
        """
id = "markup"
name = "Markup"
origin = "http://127.0.0.1:9"
source = "tests"
[selectors]
input = ["textarea"]
answer = [".answer"]
[[answer.code_editors]]
root = ".ace_editor"
line = ".ace_line"
language_attribute = "data-mode"
""",
        "test",
    )
    await page.set_content(f"<div class='answer'>{ace}</div>")
    extracted = await ChatPage(page, adapter).extract_answer()
    assert extracted is not None
    assert html_to_markdown(extracted["html"]) == "```sql\nSELECT 1;\n```"
    # Without the adapter's word the gutter's "1" is part of the answer.
    plain = await ChatPage(page, ADAPTER).extract_answer()
    assert plain is not None and plain["text"] == "1\nSELECT 1;"
