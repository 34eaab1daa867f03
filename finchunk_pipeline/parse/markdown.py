"""Markdown parser: headings, paragraphs, pipe tables (header + rows), footnotes, lists.

The view is the raw text itself (identity offsets). Blocks never include the blank lines
around them, so ``raw[block.start:block.end] == block.text``.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from ..hashing import sha256_text
from ..types.blocks import Block, BlockKind, ParsedDocument
from ..types.offsets import OffsetMap
from .footnotes import cited_marks, note_mark
from .gcpause import without_gc
from .lines import UNIT

VERSION = "2"  # 2: shared unit pattern (also "in millions" without parentheses)
FORMATS = ("markdown",)  # the corpus formats it reads (parse/registry.py)

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+•]|\d{1,3}[.)])\s+\S")


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, end excluding the newline."""
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        out.append((pos, pos + len(stripped)))
        pos += len(line)
    return out


def _cells(row: str) -> list[str]:
    s = row.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


class _Builder:
    def __init__(self, doc_id: str, text: str):
        self.doc_id, self.text = doc_id, text
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, str]] = []  # (level, text)

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(h for _, h in self.headings)

    def add(self, kind: str, start: int, end: int, parent_id: str | None = None,
            attrs: dict[str, Any] | None = None, path: tuple[str, ...] | None = None) -> Block:
        start, end = _trim(self.text, start, end)
        seq = len(self.blocks)
        body = self.text[start:end]
        attrs = dict(attrs or {})
        if kind != BlockKind.NOTE:
            marks = cited_marks(body)
            if marks:
                attrs.setdefault("cites", marks)
        block = Block(
            doc_id=self.doc_id, block_id=f"{self.doc_id}#b{seq:05d}", seq=seq, kind=kind,
            start=start, end=end, vstart=start, vend=end, text=body,
            section_path=self.path if path is None else path, parent_id=parent_id, attrs=attrs,
        )
        self.blocks.append(block)
        return block


@without_gc
def parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    if not text.strip():
        raise ValueError(f"{doc_id}: document text is empty")
    b = _Builder(doc_id, text)
    lines = _lines(text)
    warnings: list[str] = []
    i = 0
    while i < len(lines):
        i = _emit_at(b, lines, i, warnings)
    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_text(text), parser="markdown", parser_version=VERSION,
        view_text=text, offsets=OffsetMap.identity(len(text)), blocks=b.blocks, warnings=warnings,
    )


def _emit_at(b: _Builder, lines: list[tuple[int, int]], i: int, warnings: list[str]) -> int:
    """Emit the block starting at line i (a heading, a pipe table, a footnote, a list, a
    paragraph); returns the line after it."""
    text = b.text
    s, e = lines[i]
    cur = text[s:e]
    if not cur.strip():
        return i + 1
    m = _HEADING.match(cur)
    if m:
        level, title = len(m.group(1)), m.group(2).strip()
        while b.headings and b.headings[-1][0] >= level:
            b.headings.pop()
        b.headings.append((level, title))
        b.add(BlockKind.HEADING, s, e, attrs={"level": level})
        return i + 1
    if cur.lstrip().startswith("|"):
        j = _run_end(text, lines, i, lambda t: t.lstrip().startswith("|"))
        _table(b, text, lines, i, j, warnings)
        return j
    if note_mark(cur) is not None:
        # one note per line: footnotes printed below a table are often not blank-separated
        b.add(BlockKind.NOTE, s, e, attrs={"mark": note_mark(cur)})
        return i + 1
    if _LIST_ITEM.match(cur):
        j = _run_end(text, lines, i + 1,
                     lambda t: bool(t.strip()) and bool(_LIST_ITEM.match(t) or t.startswith((" ", "\t"))))
        items = sum(1 for k in range(i, j) if _LIST_ITEM.match(text[lines[k][0]:lines[k][1]]))
        b.add(BlockKind.LIST, s, lines[j - 1][1], attrs={"items": items})
        return j
    j = _run_end(text, lines, i + 1, _continues_paragraph)
    b.add(BlockKind.PARAGRAPH, s, lines[j - 1][1])
    return j


def _run_end(text: str, lines: list[tuple[int, int]], j: int, belongs: Callable[[str], bool]) -> int:
    """The first line from j on for which ``belongs`` does not hold (or the end)."""
    while j < len(lines) and belongs(text[lines[j][0]:lines[j][1]]):
        j += 1
    return j


def _continues_paragraph(line: str) -> bool:
    """A paragraph runs until a blank line, a heading, a table, a footnote or a list item."""
    return not (not line.strip() or _HEADING.match(line) or line.lstrip().startswith("|")
                or note_mark(line) is not None or _LIST_ITEM.match(line))


def _table(b: _Builder, text: str, lines, i: int, j: int, warnings: list[str]) -> None:
    rows = list(range(i, j))
    sep = next((k for k in rows if _TABLE_SEP.match(text[lines[k][0]:lines[k][1]])), None)
    header_rows = rows[: sep - i] if sep is not None else []
    if sep is None:
        warnings.append(f"table at line {i + 1} has no header separator row")
    start, end = lines[i][0], lines[j - 1][1]
    attrs: dict[str, Any] = {}
    if header_rows:
        hs, he = lines[header_rows[0]][0], lines[header_rows[-1]][1]
        attrs["header"] = text[hs:he]
        attrs["header_vspan"] = [hs, he]
        cols = [_cells(text[lines[k][0]:lines[k][1]]) for k in header_rows]
        width = max(len(c) for c in cols)
        attrs["columns"] = [
            " ".join(c[x] for c in cols if x < len(c) and c[x]).strip() for x in range(width)
        ]
    # a caption: the paragraph right above the table, when it names a unit or ends with ':'
    prev = b.blocks[-1] if b.blocks else None
    if prev is not None and prev.kind == BlockKind.PARAGRAPH and len(prev.text) < 300:
        if prev.text.rstrip().endswith(":") or UNIT.search(prev.text):
            attrs["caption"] = prev.text
    unit = UNIT.search(attrs.get("header", "")) or (UNIT.search(attrs["caption"]) if "caption" in attrs else None)
    if unit:
        attrs["unit"] = unit.group(0)
    table = b.add(BlockKind.TABLE, start, end, attrs=attrs)
    cites: list[str] = []
    for k in rows:
        if k == sep:
            continue
        rs, re_ = lines[k]
        row = b.add(BlockKind.TABLE_ROW, rs, re_, parent_id=table.block_id,
                    attrs={"cells": _cells(text[rs:re_]), "is_header": k in header_rows})
        for mark in row.attrs.get("cites", []):
            if mark not in cites:
                cites.append(mark)
    if cites:
        table.attrs["cites"] = cites
