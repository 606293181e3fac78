"""The ``[answer]`` table of a site adapter: how the answer becomes ``result_text`` and when a
"finished" answer is a failure — with the lists every site shares (error boxes and error texts a
chat UI shows when its backend fails, code editors that draw code blocks). Part of
:mod:`adapter` (which imports it); kept apart so each stays a readable size.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)


# Error boxes a chat UI draws inside an answer, recognised on any site (answer.generic_errors).
GENERIC_ERROR_SELECTORS = [
    '[role="alert"]',
    '[class*="error" i]',
    '[class*="failed" i]',
    "[data-error]",
    '[data-status="error"]',
]
# Answers that are nothing but one of these (ignoring case, spaces and punctuation) are the
# backend failing politely, not an answer (answer.generic_errors).
GENERIC_ERROR_TEXTS = [
    "服务器繁忙，请稍后再试",
    "服务器繁忙，请稍后重试",
    "系统繁忙，请稍后再试",
    "网络错误，请重试",
    "网络错误",
    "网络异常，请稍后重试",
    "请求失败",
    "请求失败，请重试",
    "出错了",
    "出错了，请稍后重试",
    "生成失败",
    "回答生成失败，请重试",
    "抱歉，回答生成失败，请重试",
    "Something went wrong",
    "Something went wrong. Please try again.",
    "Sorry, something went wrong. Please try again.",
    "An error occurred",
    "An error occurred. Please try again.",
    "Network error",
    "Network error, please retry",
    "Server busy, please try again later",
    "There was an error generating a response",
    "Error in message stream",
]


class CodeEditor(BaseModel):
    """A code editor a site draws code blocks with (its lines are the code; gutters, line
    numbers and fold markers are not). CodeMirror 5/6 and Monaco are known without this."""

    model_config = _STRICT
    root: str = Field(min_length=1, description="The editor's outermost element (plain CSS).")
    line: str = Field(min_length=1, description="One line of code inside it (plain CSS).")
    language_attribute: str | None = Field(
        None,
        description="An attribute naming the language, on the editor, inside it or up to 3 "
        "levels above (data-language, data-mode-id are always looked at).",
    )


# Code editors known on any site: CodeMirror 6 (its language package puts data-language on
# .cm-content), Monaco (data-mode-id on the editor's host; lines positioned by style top,
# not in document order), CodeMirror 5.
BUILTIN_CODE_EDITORS = [
    CodeEditor(root=".cm-editor", line=".cm-line", language_attribute="data-language"),
    CodeEditor(root=".monaco-editor", line=".view-line", language_attribute="data-mode-id"),
    CodeEditor(root=".CodeMirror", line=".CodeMirror-line"),
]


class AdapterAnswer(BaseModel):
    """How the answer becomes ``result_text`` (Markdown) and when an answer is a failure."""

    model_config = _STRICT
    format: Literal["html", "text"] = Field(
        "html",
        description="html: rebuild Markdown from the answer's rendered HTML (markdownify); "
        "text: the answer element's text as it is (sites that show raw Markdown).",
    )
    container: list[str] = Field(
        default_factory=list,
        description="The whole message around an answer element (its closest match): where "
        "markdown_source and error boxes are looked for. Empty: the answer element itself.",
    )
    exclude: list[str] = Field(
        default_factory=list,
        description="Elements inside the answer left out of the result (code-block headers, "
        "citation chips, feedback bars). Buttons, SVG icons and scripts always are.",
    )
    code_language: list[str] = Field(
        default_factory=list,
        description="Inside a code block's wrapper (up to 3 levels above its <pre>): the "
        "element whose text names the language, for sites without a language-* class.",
    )
    markdown_source: list[str] = Field(
        default_factory=list,
        description="Inside the container: an element holding the answer's Markdown as the "
        "site's copy control copies it (read in the page, never via the clipboard).",
    )
    markdown_attribute: str | None = Field(
        None, description="Read this attribute of markdown_source (e.g. data-clipboard-text)."
    )
    code_editors: list[CodeEditor] = Field(
        default_factory=list,
        description="Code editors other than CodeMirror and Monaco that draw the answer's code "
        "blocks: each becomes a fenced block of its lines.",
    )
    error_selectors: list[str] = Field(
        default_factory=list, description="Error boxes inside the answer or its container."
    )
    error_texts: list[str] = Field(
        default_factory=list, description="An answer that is only one of these is a failure."
    )
    generic_errors: bool = Field(
        True, description="Also use the built-in error boxes and error texts (see ADAPTERS.md)."
    )
