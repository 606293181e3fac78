"""The DOCX export: one document per batch, a heading per task, the Markdown answer rendered.

Libraries, and why:

- **python-docx** writes the document: the maintained library for Word files on PyPI (MIT,
  python-openxml/python-docx, releases since 2013), pure Python over lxml, whose default
  template carries Word's built-in styles (headings, list bullets, quotes, table grid), so the
  document looks native in Word and WPS and an operator can restyle it there. It builds the
  whole document in memory (there is no streaming writer for DOCX), so an export is bounded
  by :data:`DOCX_MAX_TASKS`; the other formats stream and have no bound.
- **markdown-it-py** reads the answers (already a dependency; CommonMark-compliant, the
  parser the chat simulator renders with): its token stream maps onto Word's paragraphs, runs
  and tables here. No hand-written Markdown parsing.

Mapping: an answer's headings go below the task's heading (``#`` → Heading 3); bullet lists
use "List Bullet" (levels 1-3); ordered lists are written with their numbers as text (Word's
automatic numbering would continue across lists); code keeps its lines in a monospace font;
quotes use "Quote"; tables become bordered Word tables; a link keeps its text, its address
follows in brackets. Chinese text gets an East Asian font on the Normal style.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from media_assistant.core.exports.fields import (
    Headers,
    header_of,
    markdown_meta,
    one_newline_style,
    record_inputs,
    record_values,
    word,
)
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import TaskRecord

DOCX_MAX_TASKS = 5_000
MONOSPACE = "Consolas"
EAST_ASIAN_FONT = "Microsoft YaHei"  # 微软雅黑: on every Chinese Windows; WPS maps it too
_ANSWER_HEADING_BASE = 2  # an answer's "#" becomes Heading 3 (batch 1, task 2)


def write_docx(
    records: Iterable[TaskRecord], tmp: Path, headers: Headers, _columns: Sequence[str]
) -> int:
    from docx import Document  # heavy: only when a document is written

    document: Any = Document()
    _east_asian_font(document)
    count = 0
    batch: str | None = None
    for record in records:
        if count >= DOCX_MAX_TASKS:
            raise InputError(
                f"a DOCX export holds at most {DOCX_MAX_TASKS:,} tasks (Word documents are "
                "built in memory); export a batch at a time, or use the Markdown folder, "
                "XLSX or JSONL format"
            )
        if record.batch_id != batch:
            batch = record.batch_id
            if count:
                document.add_page_break()
            document.add_heading(f"{word('batch', headers)} {batch}", level=1)
        _task(document, record, headers)
        count += 1
    if not count:
        document.add_paragraph(word("no_result", headers))
    document.save(str(tmp))
    return count


def _east_asian_font(document: Any) -> None:
    from docx.oxml.ns import qn

    for name in ("Normal", "Heading 1", "Heading 2", "Heading 3"):
        style = document.styles[name]
        rpr = style.element.get_or_add_rPr()
        fonts = rpr.find(qn("w:rFonts"))
        if fonts is None:
            fonts = rpr.makeelement(qn("w:rFonts"), {})
            rpr.append(fonts)
        fonts.set(qn("w:eastAsia"), EAST_ASIAN_FONT)


def _task(document: Any, record: TaskRecord, headers: Headers) -> None:
    row = record_values(record, headers=headers)
    document.add_heading(str(row["title"] or row["task_id"]), level=2)
    meta = document.add_paragraph(f"{header_of('state', headers)} {row['state']} · ")
    meta.add_run(markdown_meta(row, headers).replace("`", "")).italic = True
    inputs = record_inputs(record)
    if inputs:
        _label(document, word("inputs", headers))
        table = document.add_table(rows=0, cols=2)
        table.style = "Table Grid"
        for key, value in inputs.items():
            cells = table.add_row().cells
            cells[0].text = key
            cells[1].text = one_newline_style(value)
    _label(document, header_of("prompt", headers))
    document.add_paragraph(one_newline_style(str(row["prompt"] or "")), style="Quote")
    if row["system_prompt"]:
        _label(document, header_of("system_prompt", headers))
        document.add_paragraph(one_newline_style(str(row["system_prompt"])), style="Quote")
    if row["error_kind"] or row["error_message"]:
        _label(document, word("error", headers))
        document.add_paragraph(
            " ".join(str(v) for v in (row["error_kind"], row["error_message"]) if v)
        )
    result = row["result_text"]
    _label(document, word("result", headers))
    if isinstance(result, str) and result.strip():
        render_markdown(document, one_newline_style(result))
    else:
        document.add_paragraph(word("no_result", headers)).runs[0].italic = True


def _label(document: Any, text: str) -> None:
    document.add_paragraph().add_run(text).bold = True


# ------------------------------------------------------------------------- Markdown → DOCX


@dataclass
class _List:
    ordered: bool
    number: int = 1


@dataclass
class _Table:
    rows: list[list[Any]] = field(default_factory=list)  # cells: inline tokens
    header_rows: int = 0


def render_markdown(document: Any, text: str) -> None:
    """Append ``text`` (Markdown) to ``document`` as Word paragraphs, runs and tables."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(text)
    lists: list[_List] = []
    quote = 0
    item_start = False  # the next paragraph opens a list item
    table: _Table | None = None
    in_head = False
    paragraph: Any = None
    for token in tokens:
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            start = int(token.attrGet("start") or 1) if kind == "ordered_list_open" else 1
            lists.append(_List(kind == "ordered_list_open", start))
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            item_start = True
        elif kind == "blockquote_open":
            quote += 1
        elif kind == "blockquote_close":
            quote -= 1
        elif kind == "heading_open":
            level = min(int(token.tag[1]) + _ANSWER_HEADING_BASE, 9)
            paragraph = document.add_heading("", level=level)
        elif kind == "paragraph_open":
            if table is not None:
                continue
            paragraph = _block_paragraph(document, lists, quote, item_start)
            item_start = False
        elif kind == "inline":
            if table is not None:
                table.rows[-1].append(token.children or [])
            elif paragraph is not None:
                _inline(paragraph, token.children or [])
        elif kind in ("heading_close", "paragraph_close"):
            paragraph = None
        elif kind in ("fence", "code_block"):
            _code(document, token.content, lists)
        elif kind == "hr":
            document.add_paragraph("—" * 12)
        elif kind == "html_block":
            document.add_paragraph(token.content.rstrip("\n"))
        elif kind == "table_open":
            table = _Table()
        elif kind == "thead_open":
            in_head = True
        elif kind == "thead_close":
            in_head = False
        elif kind == "tr_open" and table is not None:
            table.rows.append([])
            if in_head:
                table.header_rows += 1
        elif kind == "table_close" and table is not None:
            _table(document, table)
            table = None


def _block_paragraph(document: Any, lists: list[_List], quote: int, item_start: bool) -> Any:
    if lists:
        depth = min(len(lists), 3)
        current = lists[-1]
        if item_start and not current.ordered:
            return document.add_paragraph(style="List Bullet" + ("" if depth == 1 else f" {depth}"))
        paragraph = document.add_paragraph(
            style="List Continue" + ("" if depth == 1 else f" {depth}")
        )
        if item_start:
            paragraph.add_run(f"{current.number}. ")
            current.number += 1
        return paragraph
    if quote:
        return document.add_paragraph(style="Quote")
    return document.add_paragraph()


def _inline(paragraph: Any, children: Sequence[Any]) -> None:
    bold = italic = strike = 0
    link: str | None = None
    link_text: list[str] = []
    for child in children:
        kind = child.type
        if kind == "text":
            run = paragraph.add_run(child.content)
            run.bold, run.italic = bold > 0 or None, italic > 0 or None
            if strike:
                run.font.strike = True
            if link is not None:
                run.underline = True
                link_text.append(child.content)
        elif kind == "code_inline":
            run = paragraph.add_run(child.content)
            run.font.name = MONOSPACE
        elif kind in ("softbreak",):
            paragraph.add_run(" ")
        elif kind == "hardbreak":
            paragraph.add_run().add_break()
        elif kind == "strong_open":
            bold += 1
        elif kind == "strong_close":
            bold -= 1
        elif kind == "em_open":
            italic += 1
        elif kind == "em_close":
            italic -= 1
        elif kind == "s_open":
            strike += 1
        elif kind == "s_close":
            strike -= 1
        elif kind == "link_open":
            link, link_text = str(child.attrGet("href") or ""), []
        elif kind == "link_close":
            if link and link != "".join(link_text):
                paragraph.add_run(f" ({link})")
            link = None
        elif kind == "image":
            alt = child.content or ""
            paragraph.add_run(f"[{alt}]({child.attrGet('src') or ''})")
        elif kind == "html_inline":
            paragraph.add_run(child.content)


def _code(document: Any, content: str, lists: list[_List]) -> None:
    from docx.shared import Pt

    style = "List Continue" if lists else None
    paragraph = document.add_paragraph(style=style)
    lines = content.rstrip("\n").split("\n")
    for i, line in enumerate(lines):
        run = paragraph.add_run(line)
        run.font.name = MONOSPACE
        run.font.size = Pt(9.5)
        if i < len(lines) - 1:
            run.add_break()


def _table(document: Any, table: _Table) -> None:
    width = max((len(r) for r in table.rows), default=0)
    if not width:
        return
    out = document.add_table(rows=len(table.rows), cols=width)
    out.style = "Table Grid"
    for r, cells in enumerate(table.rows):
        for c, children in enumerate(cells):
            paragraph = out.cell(r, c).paragraphs[0]
            _inline(paragraph, children)
            if r < table.header_rows:
                for run in paragraph.runs:
                    run.bold = True
