"""Markdown read as prose, for a knowledge source built from a folder of ``.md`` files.

Read raw, a Markdown file puts its markup into the evidence: a heading has no full stop, so it
runs into the sentence after it ("# About Northwind Home Northwind Home is an online retailer
..."), and the checker, the citations and the word fixes then read a sentence nobody wrote.
:func:`markdown_sections` keeps the prose and drops the markup:

- a heading (``#`` to ``######``, or a line underlined with ``===`` / ``---``) starts a new
  section and is itself dropped (a title, not a statement), save a question: an FAQ's answer
  ("Only on the Keel to Marrow route.") says nothing without its question, so a heading that
  ends with "?" is kept as the section's first sentence; a passage never spans two sections;
- front matter (a leading ``---`` ... ``---`` block), fenced code, HTML comments, images and
  table rules go;
- a link keeps its text, emphasis and inline code their words; a paragraph's wrapped lines are
  joined, as Markdown joins them;
- a list item is a sentence of its own (ended with a full stop where it has none: a passage
  joins its sentences with spaces, and "free returns;" would otherwise run into the next item);
- a table row under a header row says each cell with its column's name ("service: Standard;
  cost: £3.99."), a row of a table without one its cells joined by ``; ``.
"""

from __future__ import annotations

import re

from favakit.text import is_heading, list_marker_end

__all__ = ["markdown_sections"]

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_SETEXT_RULE = re.compile(r"^[ \t]{0,3}(?:=+|-+)[ \t]*$")
_THEMATIC_BREAK = re.compile(r"^[ \t]{0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")
_ATX_MARKS = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]*|[ \t]+#+[ \t]*$")  # "## Title ##"
_TASK_BOX = re.compile(r"\[[ xX]\][ \t]+")  # "- [x] done": a task list's box
_QUOTE_MARKER = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_LINK_DEFINITION = re.compile(r"^[ \t]{0,3}\[[^\]]+\]:[ \t]+\S+.*$")
_CODE = re.compile(r"`+([^`]+)`+")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(
    r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?!\w)|(?<!\w)_(?=\S)([^_]+?)(?<=\S)_(?!\w)"
)
_TAG = re.compile(r"</?[A-Za-z][^>]*>")


def _inline(line: str) -> str:
    """One line with its inline markup read as the words it shows."""
    line = _IMAGE.sub("", line)
    line = _LINK.sub(r"\1", line)
    line = _REF_LINK.sub(r"\1", line)
    line = _CODE.sub(r"\1", line)
    line = _STRONG.sub(r"\2", line)
    line = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), line)
    line = _TAG.sub("", line)
    return re.sub(r"[ \t]+", " ", line).strip()


def _cells(line: str) -> list[str]:
    return [_inline(c) for c in line.strip().strip("|").split("|")]


def _sentence(line: str) -> str:
    """``line`` as a sentence: its first letter a capital, ended with a full stop where it ends
    with none (or with ``;`` or ``,``), so that a sentence splitter finds where it ends."""
    line = line.rstrip(" ;,")
    if not line:
        return line
    line = line[0].upper() + line[1:]
    return line if line[-1] in ".!?:" else line + "."


def _table_row(cells: list[str], header: list[str] | None) -> str:
    if header and len(header) == len(cells):
        said = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=True) if c]
    else:
        said = [c for c in cells if c]
    return _sentence("; ".join(said))


def markdown_sections(text: str) -> list[str]:
    """The prose of a Markdown document, one string per section (headings start a section and
    are dropped, a question kept as its first line), a line per paragraph (its wrapped lines
    joined, as Markdown joins them), list item or table row; sections with no prose are left
    out."""
    text = _COMMENT.sub("", _FRONT_MATTER.sub("", text.replace("\r\n", "\n"), count=1))
    sections: list[list[str]] = [[]]
    block: list[str] = []  # the lines of the paragraph or list item being read
    item = False  # whether that block is a list item
    header: list[str] | None = None  # the header cells of the table being read

    def end_block() -> None:
        nonlocal item
        if block:
            joined = " ".join(block)
            sections[-1].append(_sentence(joined) if item else joined)
            block.clear()
        item = False

    lines = text.split("\n")
    fenced = False
    for n, raw in enumerate(lines):
        if _FENCE.match(raw):
            fenced = not fenced
            end_block()
            continue
        if fenced:
            continue
        following = lines[n + 1] if n + 1 < len(lines) else ""
        line = _QUOTE_MARKER.sub("", raw)
        if line.lstrip().startswith("|"):  # a table row
            end_block()
            if _TABLE_RULE.match(line):
                continue
            cells = _cells(line)
            if _TABLE_RULE.match(following):
                header = cells  # the header row: said with each cell below
                continue
            row = _table_row(cells, header)
            if row:
                sections[-1].append(row)
            continue
        header = None
        setext = bool(raw.strip()) and not block and bool(_SETEXT_RULE.match(following))
        if is_heading(raw) or (setext and not list_marker_end(raw)):
            end_block()
            sections.append([])  # a heading starts a section (its underline is skipped below)
            title = _inline(_ATX_MARKS.sub("", raw))
            if title.endswith("?"):  # an FAQ's question: what its answer is the answer to
                sections[-1].append(title)
            continue
        if not raw.strip():
            end_block()
            continue
        if (_SETEXT_RULE.match(raw) or _THEMATIC_BREAK.match(raw)
                or _LINK_DEFINITION.match(raw)):  # fmt: skip
            end_block()
            continue
        marker = list_marker_end(line)
        if marker:
            end_block()  # a list item is a sentence of its own
            item = True
            line = line[marker:]
            line = line[m.end() :] if (m := _TASK_BOX.match(line)) else line
        line = _inline(line)
        if line:
            block.append(line)
    end_block()
    return ["\n".join(s) for s in sections if s]
